# dsprof layout --suggest: a member order from the profile, printed as a
# header that compiles in place of the struct's definition.  Three
# programs with known answers, each recorded under the simulator, given
# its suggestion as printed (-DLAYOUT), recorded again:
#   spread      hot members over 3 lines, together in 1: L1D misses on
#               the type drop >= 50%
#   falseshare  two threads' members apart: HITMs drop >= 95%
#   hotcold     one hot double among cold ones in a scanned array, the
#               cold ones split out: L1D misses drop >= 60%
# and each prediction within 20% of what the new build did; members one
# function reads go together (coaccess); --keep-abi, --verify.
. "$TOP/tests/lib.sh"

SRC=$TOP/tests/programs
# predicted EVENT FILE: the count the suggestion predicts for EVENT
predicted() { awk -v e="$1" '$2 == e && $3 == "on" { print $8; exit }' "$2"; }
# measured EXP TYPE EVENT: the type's count of EVENT
measured() {
	"$DSPROF" report -i "$1" --view dataobjects -f csv >"$1.do.csv" 2>"$1.do.err"
	v=$(csv_lookup "$1.do.csv" name "$2" "count:$3")
	echo "${v:-0}"
}
# drop BEFORE AFTER: percent
drop() { awk -v b="$1" -v a="$2" 'BEGIN { printf "%.1f", b ? 100 * (b - a) / b : 0 }'; }
# near PREDICTED MEASURED: within 20% of the measured (or both tiny)
near() { awk -v p="$1" -v m="$2" 'BEGIN { d = p - m; if (d < 0) d = -d; exit !(d <= 0.2 * m || (p < 100 && m < 100)) }'; }

# try NAME TYPE EVENT MIN_DROP: record the program NAME (options OPTS,
# arguments ARGS), suggest, rebuild with the suggestion, record alike
try() {
	name=$1 type=$2 ev=$3 min=$4
	"$DSPROF" record -q -o "$name.a" --sim -e "$ev" $OPTS -- "$PROGS/$name" $ARGS >"$name.a.out" 2>&1
	check_eq "$name: recorded" "$?" 0
	"$DSPROF" layout -i "$name.a" --suggest "$type" >"$name.h" 2>"$name.err"
	check_eq "$name: a suggestion" "$?" 0
	cc -std=gnu11 -O2 -g -pthread -I. -DLAYOUT="\"$name.h\"" -o "$name.new" "$SRC/$name.c" 2>"$name.cc.err"
	check_eq "$name: the suggestion compiles as printed ($(head -c 300 "$name.cc.err"))" "$?" 0
	before=$(measured "$name.a" "$type" "$ev")
	"$DSPROF" record -q -o "$name.b" --sim -e "$ev" $OPTS -- "./$name.new" $ARGS >"$name.b.out" 2>&1
	after=$(measured "$name.b" "$type" "$ev")
	check_ge "$name: $ev on $type dropped $(drop "$before" "$after")% ($before -> $after), >= $min%" \
		"$(drop "$before" "$after" | cut -d. -f1)" "$min"
	p=$(predicted "$ev" "$name.h")
	check "$name: predicted $p, measured $after: within 20%" near "${p:-x}" "$after"
}

OPTS="-c 1" ARGS=4
try spread "struct spread" sim:L1D_MISS 50
check_contains "spread: the hot members first" spread.h '^	long int a;$'
check_contains "spread: 3 lines a visit, then 1" spread.h 'lines a visit touches 3.00 -> 1.00'
# --verify records the new build as the experiment was, and says how it went
"$DSPROF" layout -i spread.a --suggest "struct spread" --verify -- ./spread.new 4 >verify.h 2>verify.err
check_eq "--verify: runs" "$?" 0
check_contains "--verify: recorded alike" verify.h '^// verified: .*dsprof record .*--sim -e sim:L1D_MISS -c 1 .*-- ./spread.new 4$'
check_contains "--verify: prediction and result side by side" verify.h \
	"^//   struct spread, sim:L1D_MISS: before [0-9]*, predicted 65536, now $(measured spread.b "struct spread" sim:L1D_MISS) "
check "--verify: no temporary experiment left" sh -c '! ls -d /tmp/dsprof-verify.* 2>/dev/null | grep -q .'
cc -std=gnu11 -O2 -I. -DLAYOUT='"verify.h"' -o verify.new "$SRC/spread.c" 2>verify.cc.err
check_eq "--verify: the whole output still compiles as the header" "$?" 0
# what the new build prints goes to standard error: the header stays whole
"$DSPROF" layout -i spread.a --suggest "struct spread" --verify -- sh -c 'echo chatter; ./spread.new 1' >talk.h 2>talk.err
check "--verify: the program's output is not in the header" sh -c '! grep -q "^chatter" talk.h && grep -q "^chatter" talk.err'
check_contains "--verify: an argument with blanks quoted" talk.h "^// verified: .* -- sh -c 'echo chatter; ./spread.new 1'\$"
OPTS= ARGS=
try falseshare "struct counters" sim:HITM 95
check_contains "falseshare: each thread's member in a line pair of its own" falseshare.h '_Alignas\(128\)'
check_contains "falseshare: says the ABI changes" falseshare.h 'size 16 -> 256 bytes, alignment 8 -> 128: the ABI changes'
OPTS="-c 1" ARGS=20
try hotcold "struct particle" sim:L1D_MISS 60
check_contains "hotcold: the cold members split out" hotcold.h '^struct particle_cold \{'
check_contains "hotcold: reached through a pointer" hotcold.h 'struct particle_cold \*cold_part;'

# co-access: what one function reads goes together, before heat decides
"$DSPROF" record -q -o co --sim -e sim:loads -c 7 -- "$PROGS/coaccess" 2 >co.out 2>&1
"$DSPROF" layout -i co --suggest "struct quad" >co.h 2>co.err
check_eq "co-access: each function's pair side by side (heat alone: a c b d)" \
	"$(awk '/^struct quad \{/ { on = 1; next } on && /^	long int/ { sub(/;/, ""); printf "%s ", $3 } /^\};/ { on = 0 }' co.h)" "a b c d "
rm -rf co

# --keep-abi: the offsets stay; only alignment is proposed
"$DSPROF" layout -i spread.a --suggest --keep-abi "struct spread" >keep.h 2>keep.err
check_contains "--keep-abi: says so" keep.h 'keep their order and offsets'
check_contains "--keep-abi: nothing moves" keep.h 'the layout is already this one'
"$DSPROF" layout -i falseshare.a --suggest --keep-abi "struct counters" >keepfs.h 2>&1
check_contains "--keep-abi, two threads: the sharing stays, said" keepfs.h 'which --keep-abi forbids'
check_contains "--keep-abi, two threads: the struct aligned to a line pair" keepfs.h 'alignment 8 -> 128'
cc -std=gnu11 -O2 -pthread -I. -DLAYOUT='"keepfs.h"' -o keepfs "$SRC/falseshare.c" 2>keepfs.cc.err
check_eq "--keep-abi: compiles as printed" "$?" 0

# what --suggest cannot do
expect_error "--suggest without -i" 1 "needs the profile of an experiment" "$DSPROF" layout "$PROGS/spread" --suggest
expect_error "--keep-abi without --suggest" 1 "applies to --suggest" "$DSPROF" layout -i spread.a --keep-abi
expect_error "--verify without a command" 1 "after '--'" "$DSPROF" layout -i spread.a --suggest --verify
expect_error "a command without --verify" 1 "after '--'" "$DSPROF" layout -i spread.a --suggest -- ./spread.new
rm -rf spread.a spread.b falseshare.a falseshare.b hotcold.a hotcold.b
