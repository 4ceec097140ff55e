# Shared helpers for end-to-end tests; sourced by each tests/e2e/*.sh.
# Environment from tests/run.sh: DSPROF, PROGS, TOOLS, WORK, TOP.
set -u
T=$(mktemp -d "$WORK/$(basename "$0" .sh).XXXXXX")
cd "$T" || exit 1

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
skip() { echo "skip - $*"; }

# wait_until COMMAND...: until it succeeds (true), 20 s at most (false):
# tests wait for states, not for fixed times
wait_until() {
	i=0
	while [ "$i" -lt 200 ]; do
		"$@" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# check NAME COMMAND...: passes when the command succeeds
check() {
	name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# check_eq NAME GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: got '$2', want '$3'"; fi
}

# check_ge NAME GOT MIN (integers)
check_ge() {
	if [ "$2" -ge "$3" ] 2>/dev/null; then ok "$1 ($2 >= $3)"; else not_ok "$1: got '$2', want >= $3"; fi
}

# check_contains NAME FILE REGEX
check_contains() {
	if grep -Eq -- "$3" "$2"; then ok "$1"; else not_ok "$1: '$3' not in $2: $(head -c 400 "$2")"; fi
}

# expect_error NAME STATUS REGEX COMMAND...: the command fails with STATUS
# and one line on stderr matching REGEX (the output is left in out.txt)
expect_error() {
	name=$1 want=$2 re=$3
	shift 3
	"$@" >out.txt 2>err.txt
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		not_ok "$name: status $rc, want $want: $(head -c 300 err.txt)"
	elif [ "$(wc -l <err.txt)" -ne 1 ]; then
		not_ok "$name: $(wc -l <err.txt) lines on stderr, want 1: $(head -c 300 err.txt)"
	elif ! grep -Eq -- "$re" err.txt; then
		not_ok "$name: '$(cat err.txt)' does not match '$re'"
	else
		ok "$name"
	fi
}

# expect_within SECONDS NAME STATUS REGEX COMMAND...: the command, its input
# /dev/null, ends within SECONDS (else it hung) with STATUS and, unless
# REGEX is empty, one line on stderr matching REGEX (left in out.txt, err.txt)
expect_within() {
	secs=$1 name=$2 want=$3 re=$4
	shift 4
	timeout "$secs" "$@" >out.txt 2>err.txt </dev/null
	rc=$?
	if [ "$rc" -eq 124 ]; then
		not_ok "$name: hung (killed after $secs s)"
	elif [ "$rc" -ne "$want" ]; then
		not_ok "$name: status $rc, want $want: $(head -c 300 err.txt)"
	elif [ -n "$re" ] && [ "$(wc -l <err.txt)" -ne 1 ]; then
		not_ok "$name: $(wc -l <err.txt) lines on stderr, want 1: $(head -c 300 err.txt)"
	elif [ -n "$re" ] && ! grep -Eq -- "$re" err.txt; then
		not_ok "$name: '$(head -c 300 err.txt)' does not match '$re'"
	else
		ok "$name"
	fi
}

# check_within NAME GOT WANT TOLERANCE (decimal numbers)
check_within() {
	if awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= t) }'; then
		ok "$1 ($2 vs $3, +-$4)"
	else
		not_ok "$1: got $2, want $3 +- $4"
	fi
}

# csv_col FILE COLUMN_NAME: print that column of a CSV (no quoted commas expected)
csv_col() {
	awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) { sub(/\r$/, "", $i); if ($i == c) k = i } next }
		k { v = $k; sub(/\r$/, "", v); print v }' "$1"
}

# csv_lookup FILE KEYCOL KEY VALCOL: the VALCOL of the first row whose KEYCOL is KEY ("" if none)
csv_lookup() {
	awk -F, -v kc="$2" -v key="$3" -v vc="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) { sub(/\r$/, "", $i); if ($i == kc) a = i; if ($i == vc) b = i } next }
		{ x = $a; y = $b; sub(/\r$/, "", x); sub(/\r$/, "", y); if (x == key) { print y; exit } }' "$1"
}

# sample_span EXPERIMENT FUNCTION: seconds from the first to the last
# sample in FUNCTION.  Wall time, so it holds on a loaded machine, where
# the sample count of a program that runs for a given time does not.
sample_span() {
	"$DSPROF" report -i "$1" --view samples -f csv 2>/dev/null |
		awk -F, -v f="$2" 'NR > 1 && $1 == f { t = $2 + 0; if (!n++ || t < lo) lo = t; if (t > hi) hi = t }
			END { printf "%.2f\n", n ? (hi - lo) / 1e9 : 0 }'
}

# check_top LABEL EXPERIMENT EVENT FIELD: FIELD is the top field row, with
# at least twice the samples of the next one
check_top() {
	"$DSPROF" report -i "$2" -v dataobjects -f csv >do.csv 2>do.err || echo "# report failed: $(cat do.err)"
	awk -F, -v ev="samples:$3" 'NR == 1 { for (i = 1; i <= NF; i++) { sub(/\r$/, "", $i); if ($i == ev) k = i } next }
		$2 == "field" { v = $k; sub(/\r$/, "", v); print v "," $1 }' do.csv | sort -t, -k1,1nr >fields.txt
	top=$(sed -n 1p fields.txt | cut -d, -f2-)
	n1=$(sed -n 1p fields.txt | cut -d, -f1)
	n2=$(sed -n 2p fields.txt | cut -d, -f1)
	if [ "$top" = "$4" ] && [ "${n1:-0}" -ge 10 ] && [ "${n1:-0}" -ge $((2 * ${n2:-0})) ]; then
		ok "$1: $4 on top ($n1 samples, next ${n2:-0})"
	else
		not_ok "$1: want $4 on top by 2x, got: $(head -3 fields.txt | tr '\n' ' ')"
	fi
}
