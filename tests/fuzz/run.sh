#!/bin/sh
# Run each libFuzzer target for a bounded time on a corpus made of real
# recordings and real objects, built here.  Any crash, leak, sanitizer
# report or hang (10 s for one input) fails `make check`.
#
#   tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
#
# TARGETs (perfdata, session, ...) pick some targets; none: all.  Each
# target's regression corpus (tests/fuzz/regressions/fuzz_TARGET/) must run
# clean first, and seeds its corpus.  Corpora, logs and findings stay in
# BUILD_DIR/fuzz/.  What was seeded is said on lines starting with '#'.
# The targets run one per CPU at a time, each for SECONDS.
set -u
BUILD=$(cd "${1:?usage: run.sh BUILD SECONDS [TARGET...]}" && pwd)
SECONDS_EACH=${2:-30}
shift 2 2>/dev/null || shift $#
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FUZZ="$BUILD/fuzz"
PROGS="$BUILD/tests/programs"
SRC="$TOP/tests/programs"
# leaks inside libraries we cannot fix (see the file)
export LSAN_OPTIONS="suppressions=$TOP/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
. "$TOP/tests/fuzz/experiments.sh"
fail=0
WORKDIR=$(mktemp -d)
trap 'rm -rf "$WORKDIR"' EXIT

# begin TARGET: c, its corpus, and d, a scratch folder for its seeds
begin() {
	c="$FUZZ/corpus/$1" d="$WORKDIR/$1"
	mkdir -p "$c" "$d"
}

# seeded TARGET WHAT...: empty seeds (what could not be made) go; a corpus
# left empty fails
seeded() {
	t=$1; shift
	find "$FUZZ/corpus/$t" -size 0 -delete
	ls "$FUZZ/corpus/$t" | grep -q . || { echo "not ok - fuzz: no seed for $t could be made ($*)"; exit 1; }
	echo "# corpus of $t: $(ls "$FUZZ/corpus/$t" | wc -l) inputs, seeded with $*"
}

# need_sim WHAT: the simulator is built, else fail saying what it records
need_sim() {
	[ -x "$BUILD/sim/lib/dsprofsim-amd64-linux" ] && return
	echo "not ok - fuzz: no simulator in $BUILD/sim to record $1 with ('make sim')"
	exit 1
}

# An input of several files (tests/fuzz/fuzz.h): bundle OUT NAME=FILE...
# (missing files are left out)
bundle() {
	out=$1; shift
	: >"$out"
	for spec in "$@"; do
		f=${spec#*=}
		[ -f "$f" ] || continue
		[ -s "$out" ] && printf '\n' >>"$out"
		printf -- '--- %s\n' "${spec%%=*}" >>"$out"
		cat "$f" >>"$out"
	done
}

seed_perfdata() {
	begin perfdata
	"$BUILD/dsprof" record -q -o "$d/a" -e cpu-clock -e page-faults -- "$PROGS/behave" spin 0.05 >/dev/null 2>&1 &&
		cp "$d/a/perf.data" "$c/dsprof-two-events.data"
	"$BUILD/dsprof" record -q -o "$d/b" --call-graph=none -- "$PROGS/behave" spin 0.02 >/dev/null 2>&1 &&
		cp "$d/b/perf.data" "$c/dsprof-nochain.data"
	perf record -q -o "$d/p.data" -e cpu-clock -c 100000 -g "$PROGS/behave" spin 0.02 >/dev/null 2>&1 &&
		cp "$d/p.data" "$c/perf-record.data"
	perf record -q -o - -e cpu-clock -c 100000 "$PROGS/behave" spin 0.02 2>/dev/null >"$c/perf-pipe.data"
	perf record -q -z -o "$d/z.data" -e cpu-clock -c 100000 -g "$PROGS/behave" spin 0.02 >/dev/null 2>&1 &&
		cp "$d/z.data" "$c/perf-zstd.data"
	perf record -q -z -o - -e cpu-clock -c 100000 "$PROGS/behave" spin 0.02 2>/dev/null >"$c/perf-pipe-zstd.data"
	# layouts this machine cannot record (tests/tools/mkperf.c)
	for k in mem period cache tracing; do
		"$BUILD/tests/tools/mkperf" $k "$c/mkperf-$k.data"
	done
	"$BUILD/tests/tools/mkperf" spe "$c/mkperf-spe.data" 0x00000000410fd0c0
	# HEADER_BUILD_ID records in a pipe
	"$BUILD/tests/tools/mkperf" buildid "$c/mkperf-buildid-pipe.data" /opt/mkperf/lib.so \
		00112233445566778899aabbccddeeff00112233 0x1000 pipe
	seeded perfdata "dsprof and perf recordings, mkperf layouts, build-id records"
}

seed_json() {
	begin json
	"$BUILD/dsprof" record -q -o "$d/a" -- "$PROGS/behave" spin 0.02 >/dev/null 2>&1 &&
		cp "$d/a/meta.json" "$c/meta.json"
	"$BUILD/dsprof" report -i "$d/a" --format json >"$c/report.json" 2>/dev/null
	seeded json "a meta.json and a JSON report"
}

# Expressions and filters, one per file: the first byte picks the compiler
# (bit 0: filter; bit 1: syntax only, without a machine).
seed_mobj() {
	begin mobj
	printf '\000(VADDR>>6)&63' >"$c/set"
	printf '\000VADDR / L1D_LINE * L1D_LINE' >"$c/line"
	printf '\000VADDR>255 ? VADDR>>6 : -1' >"$c/oracle"
	printf '\000PADDR < 0 ? -1 : PADDR < 0x10000000 ? 0 : 1' >"$c/numa"
	printf '\002(PADDR >> 8 ^ PADDR >> 13) & 1 || !~-THRID %% 0x7f' >"$c/bits"
	printf '\001FUNC == "main" && MOBJ(L1D_set) != 5 || FIELD != "struct node.next"' >"$c/filter"
	printf '\001DOBJ == "a\\"b" ? CPUID <= 3 : TSTAMP / 0' >"$c/escape"
	seeded mobj "expressions and filters"
}

# Objects with their DWARF in every form the readers meet: DWARF 5 from
# GCC, DWARF 4 from Clang, GNU-compressed sections, relocatable objects
# (RELA from x86-64, REL from i386, RISC-V's sums of relocations), code
# that is hand-written assembly in part (verdicts.c), C++ templates, split
# debug files in a /usr/lib/debug tree (by build-id and by
# .gnu_debuglink), MiniDebugInfo, and real-world code: SQLite and LevelDB
# when their Debian sources are in BUILD_DIR/real, where make bench fetches
# and builds them (README.md, Fuzzing).
seed_elf() {
	begin elf
	what="toy programs"
	gcc -O2 -g -o "$c/gcc-dwarf5" "$SRC/selftime.c" 2>/dev/null
	clang -O2 -gdwarf-4 -Wno-unknown-attributes -o "$c/clang-dwarf4" "$SRC/selftime.c" 2>/dev/null
	objcopy --compress-debug-sections=zlib-gnu "$c/gcc-dwarf5" "$c/zlib-gnu" 2>/dev/null
	gcc -O2 -g -c -o "$c/object.o" "$SRC/dsfields.c" 2>/dev/null
	gcc -m32 -ffreestanding -O2 -g -c -o "$c/object-i386.o" "$SRC/objtypes.c" 2>/dev/null
	clang --target=riscv64-linux-gnu -ffreestanding -O2 -g -c -o "$c/object-riscv.o" \
		"$SRC/objtypes.c" 2>/dev/null
	gcc -O2 -g -o "$c/verdicts" "$SRC/verdicts.c" 2>/dev/null
	# C++: templates, namespaces, inheritance, the standard library's types
	for cc in "$TOP/tests/fuzz/templates.cc" "$SRC"/*.cc; do
		[ -f "$cc" ] || continue
		n=$(basename "$cc" .cc)
		g++ -O2 -g -o "$c/cxx-$n" "$cc" 2>/dev/null
		clang++ -O1 -gdwarf-4 -c -o "$c/cxx-$n-clang.o" "$cc" 2>/dev/null
	done
	ls "$c"/cxx-* >/dev/null 2>&1 && what="$what, C++ templates"
	# split debug files, found by build-id and by .gnu_debuglink
	if gcc -O2 -g -Wl,--build-id -o "$d/prog" "$SRC/dsfields.c" 2>/dev/null &&
		objcopy --only-keep-debug "$d/prog" "$d/prog.debug" &&
		objcopy --strip-debug "$d/prog" "$d/stripped" &&
		objcopy --add-gnu-debuglink="$d/prog.debug" "$d/stripped" "$d/linked"; then
		id=$(readelf -n "$d/prog" | awk '/Build ID/ { print $3 }')
		bundle "$c/split-build-id" elf="$d/stripped" \
			"debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug=$d/prog.debug"
		objcopy --remove-section .note.gnu.build-id "$d/linked" "$d/linked-noid"
		bundle "$c/split-debuglink" elf="$d/linked-noid" bin/.debug/prog.debug="$d/prog.debug"
		cp "$d/prog.debug" "$c/debug-only"
		# MiniDebugInfo: the symbols, xz-compressed, in .gnu_debugdata
		objcopy --strip-all "$d/prog" "$d/bare" &&
			objcopy --only-keep-debug --strip-debug "$d/prog" "$d/mini" &&
			xz -f "$d/mini" && objcopy --add-section .gnu_debugdata="$d/mini.xz" "$d/bare" "$c/minidebuginfo"
		what="$what, split debug files, MiniDebugInfo"
	fi
	# real-world code, as small objects: SQLite's extensions, LevelDB's
	# units (C++); their sources are where make bench puts them
	sq=$(ls -d "$BUILD"/real/sqlite3-[0-9]*/ 2>/dev/null | head -1)
	if [ -z "$sq" ]; then
		echo "# fuzz_elf: no SQLite source in $BUILD/real (apt-get source sqlite3 there, or make bench): no SQLite seeds"
	elif [ ! -f "$BUILD/real/sqlite-build/sqlite3.h" ]; then
		echo "# fuzz_elf: SQLite is not configured in $BUILD/real/sqlite-build (make bench does it): no SQLite seeds"
	else
		for f in series csv carray uint decimal regexp; do
			gcc -O2 -g -I"$BUILD/real/sqlite-build" -I"$sq/src" -c -o "$c/sqlite-$f.o" "$sq/ext/misc/$f.c" 2>/dev/null
		done
		what="$what, SQLite ($(ls "$c"/sqlite-* 2>/dev/null | wc -l) objects)"
	fi
	lv=$(ls -d "$BUILD"/real/leveldb-[0-9]*/ 2>/dev/null | head -1)
	if [ -n "$lv" ]; then
		for f in util/hash util/coding util/cache db/dbformat table/block table/format; do
			g++ -std=c++11 -O2 -g -DLEVELDB_PLATFORM_POSIX=1 -DLEVELDB_IS_BIG_ENDIAN=0 -I"$lv" \
				-I"$lv/include" -c -o "$c/leveldb-$(basename $f).o" "$lv/$f.cc" 2>/dev/null
		done
		what="$what, LevelDB ($(ls "$c"/leveldb-* 2>/dev/null | wc -l) objects)"
	else
		echo "# fuzz_elf: no LevelDB source in $BUILD/real (apt-get source leveldb there, or make bench): no LevelDB seeds"
	fi
	seeded elf "$what"
}

# Recordings of every kind a session meets, as fuzz_session inputs
# (tests/fuzz/fuzz_session.c): sampled and simulated, with and without
# meta.json, kernel symbols, the vDSO, an unfinished one, and pairs to
# compare, with filters, memory objects, a machine and view options.
seed_session() {
	begin session
	what=""
	"$BUILD/dsprof" record -q -o "$d/ds" -e cpu-clock/1000000 -d 0.08 -- "$PROGS/dsfields" stream 1 \
		>/dev/null 2>&1
	"$BUILD/dsprof" record -q -o "$d/pf" -e page-faults -- "$PROGS/pagefault" 48 >/dev/null 2>&1
	perf record -q -o "$d/perf.data" -e cpu-clock -c 100000 -g "$PROGS/behave" spin 0.02 >/dev/null 2>&1
	"$BUILD/tests/tools/mkperf" mem "$d/mem.data"
	bundle "$c/sampled" a/perf.data="$d/ds/perf.data" a/meta.json="$d/ds/meta.json" \
		a/kallsyms="$d/ds/kallsyms" a/vdso.so="$d/ds/vdso.so"
	bundle "$c/pagefaults" a/perf.data="$d/pf/perf.data" a/meta.json="$d/pf/meta.json"
	printf 'fFUNC == "touch" || VADDR > 0' >"$d/filter"
	printf 'bank = VADDR >> 3 & 7\nhalf=VADDR>>5\n' >"$d/mobj"
	printf 'sort=count\nlimit=5\nline=128\nlevel=L2\nslices=4\nwindow=0:100000000\ndiff=dataobjects\n' >"$d/opts"
	bundle "$c/pagefaults-filtered" a/perf.data="$d/pf/perf.data" a/meta.json="$d/pf/meta.json" \
		filter="$d/filter" mobj="$d/mobj" machine="$TOP/docs/machines/amd-k8.machine" opts="$d/opts"
	bundle "$c/perf-record" a/perf.data="$d/perf.data"
	bundle "$c/mkperf-mem" a/perf.data="$d/mem.data"
	bundle "$c/diff-sampled-pagefaults" a/perf.data="$d/ds/perf.data" a/meta.json="$d/ds/meta.json" \
		b/perf.data="$d/pf/perf.data" b/meta.json="$d/pf/meta.json"
	# an unfinished recording: its mark, no meta.json
	printf '{"format": "dsprof-recording", "pid": 1, "host": "%s", "kernel": "%s", "boot_id": "%s"}\n' \
		"$(uname -n)" "$(uname -r)" "$(cat /proc/sys/kernel/random/boot_id)" >"$d/mark"
	bundle "$c/unfinished" a/perf.data="$d/ds/perf.data" a/recording.json="$d/mark"
	# heap files (record --heap) of a program that forks: two images
	"$BUILD/dsprof" record -q -o "$d/hp" --heap -e cpu-clock/1000000 -- "$PROGS/heapleak" fork >/dev/null 2>&1
	set -- "$d"/hp/heap/*.heap
	bundle "$c/heap" a/perf.data="$d/hp/perf.data" a/meta.json="$d/hp/meta.json" a/heap/1-1.heap="$1" \
		a/heap/2-2.heap="${2:-}"
	what="sampled, page faults, perf record, mkperf mem, unfinished, a diff, heap files"
	if said=$(fuzz_experiments "$d/sim"); then
		for x in a b; do
			bundle "$c/fixed-$x" a/perf.data="$d/sim/$x/perf.data" a/meta.json="$d/sim/$x/meta.json"
		done
		printf 'sort=samples\nfunction=main\ntype=struct counters\ndiff=sharing\n' >"$d/simopts"
		bundle "$c/fixed-diff" a/perf.data="$d/sim/a/perf.data" a/meta.json="$d/sim/a/meta.json" \
			b/perf.data="$d/sim/b/perf.data" b/meta.json="$d/sim/b/meta.json" opts="$d/simopts"
		what="$what, ${said#\# fixed experiments: }"
	fi
	seeded session "$what"
}

# meta.json as dsprof writes it for each backend, and as import makes it.
seed_meta() {
	begin meta
	"$BUILD/dsprof" record -q -o "$d/rec" -e cpu-clock -e page-faults -- "$PROGS/behave" spin 0.02 >/dev/null 2>&1 &&
		cp "$d/rec/meta.json" "$c/record.json"
	"$BUILD/dsprof" record -q -o "$d/att" -d 0.05 -p $$ >/dev/null 2>&1 && cp "$d/att/meta.json" "$c/attach.json"
	"$BUILD/dsprof" import "$TOP/tests/corpus/perf/pipe.data" -o "$d/imp" >/dev/null 2>&1 &&
		cp "$d/imp/meta.json" "$c/import.json"
	fuzz_experiments "$d/sim" >/dev/null && cp "$d/sim/a/meta.json" "$c/fixed.json"
	seeded meta "record, attach, import, the fixed experiment"
}

# kallsyms: what experiments keep, and pieces of this kernel's (module
# symbols included) when it shows addresses.
seed_kallsyms() {
	begin kallsyms
	"$BUILD/dsprof" record -q -o "$d/a" -e cpu-clock -- "$PROGS/behave" spin 0.05 >/dev/null 2>&1 &&
		cp "$d/a/kallsyms" "$c/kept" 2>/dev/null
	head -400 /proc/kallsyms >"$c/head"
	grep -m 200 '\[' /proc/kallsyms >"$c/modules"
	awk 'NR % 997 == 0' /proc/kallsyms >"$c/sparse"
	sed 's/^[0-9a-f]*/0000000000000000/' "$c/head" >"$c/hidden"
	seeded kallsyms "kept by record, pieces of /proc/kallsyms, addresses hidden"
}

# Machine model files, user memory-object files and edits of them.
seed_machine() {
	begin machine
	printf '# mine\nbank = VADDR >> 3 & 7\n\nnode = PADDR < 0 ? -1 : PADDR >> 30\n' >"$d/mobj"
	printf 'half = VADDR >> 5\nbank = VADDR >> 4 & 3\nnode = 1\n' >"$d/define"
	printf 'L1D=32K:8:64,L2=1M:16:64,L3=32M:16:64,PAGE_SIZE=4K,HUGE_PAGE_SIZE=2M' >"$d/override"
	for m in "$TOP"/docs/machines/*.machine; do
		n=$(basename "$m" .machine)
		bundle "$c/$n" machine="$m" mobj="$d/mobj" define="$d/define"
		bundle "$c/$n-override" machine="$m" override="$d/override"
	done
	bundle "$c/user-only" mobj="$d/mobj" define="$d/define"
	seeded machine "docs/machines, a user file, edits, an override"
}

# The simulator's streams as the Valgrind tool writes them, with the seven
# events in the protocol's order (fuzz_simstream.c), with and without call
# chains, and of a program that forks and execs (several streams).
seed_simstream() {
	begin simstream
	need_sim streams
	for run in "chain yes sim_false_sharing adjacent 300" "nochain no sim_false_sharing padded 300" \
		"fork yes sim_fork $PROGS/sim_stride 1"; do
		set -- $run
		d="$WORKDIR/simstream/$1"
		mkdir -p "$d"
		name=$1 chain=$2
		shift 2
		prog=$1
		shift
		VALGRIND_LIB="$BUILD/sim/lib" valgrind --tool=dsprofsim -q --trace-children=yes \
			--log-file="$d/valgrind.%p.log" --dsprof-dir="$d" \
			--dsprof-events=0/9973,1/9973,2/101,3/53,4/31,5/7,6/7 \
			--dsprof-cache=L1D:32768:8:64,L2:262144:8:64,L3:2097152:16:64 \
			--dsprof-callchain=$chain "$PROGS/$prog" "$@" >/dev/null 2>&1
		set --
		for s in "$d"/*.stream; do
			[ -f "$s" ] && set -- "$@" "$(basename "$s")=$s"
		done
		[ "$chain" = yes ] && set -- "$@" callchain=/dev/null
		[ $# -gt 0 ] && bundle "$c/$name" "$@"
	done
	seeded simstream "the tool's streams: call chains or not, fork and exec"
}

# Key sequences (one key a byte after a settings byte: fuzz_tui.c), from
# what the TUI's unit tests type.
seed_tui() {
	begin tui
	printf '\0001234567890i?' >"$c/tabs"
	printf '\001\n\n\b\b5\x83\x81\n\b\x80\n\x81\x81\x81\n' >"$c/compare-enter"
	printf '\010/count_h\ns\x87\x80\x80\nm\x81\x81 \033' >"$c/search-sort"
	printf '\000fFUNC == "main"\nf(\nf\n7\n\x81\nehalf = VADDR >> 5\nwfDOBJ == "struct counters"\n5' >"$c/filter-mobj"
	printf '\0306l\x87\n8l\x86\x81\n6' >"$c/layout-lines"
	printf '\002\x9b\x9e\x9c\x9f5\x835\x836?' >"$c/resize-ascii"
	printf '\0210++\x86d' >"$c/timeline"
	printf '\0019\n\x81\n9vq' >"$c/sharing-compare"
	seeded tui "tab, filter, memory-object, search, sort, resize and compare scripts"
}

# Heap files as record --heap writes them: of a program that forks (two
# images), of the simulator (a logical clock), and one cut short.
seed_heap() {
	begin heap
	"$BUILD/dsprof" record -q -o "$d/fork" --heap -e cpu-clock/1000000 -- "$PROGS/heapleak" fork >/dev/null 2>&1
	"$BUILD/dsprof" record -q -o "$d/sim" --heap --sim -c 1000 -e sim:loads --call-graph=none -- \
		"$PROGS/heapobj" 1000 2 >/dev/null 2>&1
	for f in "$d"/fork/heap/*.heap "$d"/sim/heap/*.heap; do
		[ -f "$f" ] && cp "$f" "$c/$(basename "$(dirname "$(dirname "$f")")")-$(basename "$f")"
	done
	for f in "$c"/fork-*.heap; do
		[ -f "$f" ] && head -c 100000 "$f" >"$c/cut.heap" && break
	done
	seeded heap "record --heap of a forking program, record --heap --sim, a file cut short"
}

# member SIDE EXP [NAME]: experiment EXP's files as SIDE/NAME/FILE of an
# input (SIDE/FILE without NAME): bundle's specs, one a line
member() {
	for f in perf.data meta.json; do
		echo "$1${3:+/$3}/$f=$2/$f"
	done
}

# Groups as record makes them (--repeat: runs; --follow-exec: the programs
# a script ran), and one of ranks; merged by several views.
seed_group() {
	begin group
	what=""
	"$BUILD/dsprof" record -q --repeat 2 -o "$d/runs" -e cpu-clock/1000000 -d 0.03 --call-graph=none -- \
		"$PROGS/dsfields" stream 1 >/dev/null 2>&1
	"$BUILD/dsprof" record -q --follow-exec -o "$d/exec" -e cpu-clock/1000000 --call-graph=none -- \
		sh -c "$PROGS/behave spin 0.02; $PROGS/behave spin 0.01" >/dev/null 2>&1
	printf 'view=functions\nadd=run 0 x\n' >"$d/opts-runs"
	printf 'view=dataobjects\nmerge=sum\nfilter=FUNC == "main" || VADDR > 0\nadd=process 7 sh\n' >"$d/opts-exec"
	printf 'view=by:experiment,function\nsort=count\nlimit=5\nadd=rank 2 -\n' >"$d/opts-ranks"
	if [ -f "$d/runs/group" ]; then
		bundle "$c/runs" g/group="$d/runs/group" $(member g "$d/runs/run.1" run.1) \
			$(member g "$d/runs/run.2" run.2) opts="$d/opts-runs"
		printf 'dsprof-group 1\nrank.0\trank\t0\nrank.1\trank\t1\n' >"$d/ranks"
		bundle "$c/ranks" g/group="$d/ranks" $(member g "$d/runs/run.1" rank.0) \
			$(member g "$d/runs/run.2" rank.1) opts="$d/opts-ranks"
		what="runs, ranks"
	fi
	if [ -f "$d/exec/group" ]; then
		set -- g/group="$d/exec/group" opts="$d/opts-exec"
		for m in "$d"/exec/*/; do
			set -- "$@" $(member g "${m%/}" "$(basename "$m")")
		done
		bundle "$c/exec" "$@"
		what="$what, the programs of a script"
	fi
	if said=$(fuzz_experiments "$d/sim"); then
		printf 'view=sharing\nmerge=mean\n' >"$d/opts-sim"
		printf 'dsprof-group 1\nrun.1\trun\t1\nrun.2\trun\t2\n' >"$d/sim-runs"
		bundle "$c/fixed" g/group="$d/sim-runs" $(member g "$d/sim/a" run.1) $(member g "$d/sim/b" run.2) \
			opts="$d/opts-sim"
		what="$what, ${said#\# fixed experiments: }"
	fi
	seeded group "${what#, }"
}

# Pairs to compare: sampled runs, groups of repeated runs (intervals), the
# fixed experiments' sharing, with each option and format.
seed_diff() {
	begin diff
	what=""
	for x in a b; do
		"$BUILD/dsprof" record -q --repeat 2 -o "$d/$x" -e cpu-clock/1000000 -d 0.03 -- \
			"$PROGS/dsfields" stream 1 >/dev/null 2>&1
	done
	printf 'format=json\n' >"$d/json"
	printf 'by=function,field\nsort=change\nmetrics=samples,count\nformat=csv\n' >"$d/by"
	printf 'view=lines\nsort=before\nlimit=3\nascii=1\n' >"$d/lines"
	if [ -f "$d/a/group" ] && [ -f "$d/b/group" ]; then
		bundle "$c/runs" $(member a "$d/a/run.1") $(member b "$d/b/run.1") opts="$d/by"
		bundle "$c/groups" a/group="$d/a/group" $(member a "$d/a/run.1" run.1) $(member a "$d/a/run.2" run.2) \
			b/group="$d/b/group" $(member b "$d/b/run.1" run.1) $(member b "$d/b/run.2" run.2) opts="$d/json"
		bundle "$c/group-and-run" a/group="$d/a/group" $(member a "$d/a/run.1" run.1) \
			$(member a "$d/a/run.2" run.2) $(member b "$d/b/run.2") opts="$d/lines"
		what="sampled runs, groups of runs"
	fi
	if said=$(fuzz_experiments "$d/sim"); then
		printf 'view=sharing\nformat=json\nsort=delta\n' >"$d/sharing"
		bundle "$c/fixed" $(member a "$d/sim/a") $(member b "$d/sim/b") opts="$d/sharing"
		what="$what, ${said#\# fixed experiments: }"
	fi
	seeded diff "${what#, }"
}

# Experiments to archive: recorded (the program, libc, the vDSO, the
# kernel), and build-id lists mkperf writes (a program of the tests by its
# build-id, in a file and in a pipe; names that must not become paths; an
# archive there already, with a wrong file in it).
seed_archive() {
	begin archive
	"$BUILD/dsprof" record -q -o "$d/rec" -e cpu-clock/1000000 -- "$PROGS/behave" spin 0.02 >/dev/null 2>&1 &&
		bundle "$c/recorded" perf.data="$d/rec/perf.data" vdso.so="$d/rec/vdso.so"
	prog=$PROGS/dsfields
	id=$(readelf -n "$prog" | awk '/Build ID/ { print $3 }')
	"$BUILD/tests/tools/mkperf" buildid "$d/prog.data" "$prog" "$id" 0x1000 &&
		bundle "$c/program" perf.data="$d/prog.data"
	"$BUILD/tests/tools/mkperf" buildid "$d/pipe.data" "$prog" "$id" 0x1000 pipe &&
		bundle "$c/pipe" perf.data="$d/pipe.data"
	k=0
	for name in "/../..$prog" "$PROGS/../programs/dsfields" "relative/dsfields" "$prog/." "[vdso]"; do
		"$BUILD/tests/tools/mkperf" buildid "$d/name.data" "$name" "$id" 0x1000 &&
			bundle "$c/name-$((k += 1))" perf.data="$d/name.data" vdso.so="$prog"
	done
	mkdir -p "$d/kept" && cp "$d/prog.data" "$d/kept/perf.data" && "$BUILD/dsprof" archive -q -i "$d/kept" &&
		bundle "$c/kept" perf.data="$d/kept/perf.data" "archive$prog/$id/elf=$d/kept/archive$prog/$id/elf"
	bundle "$c/kept-wrong" perf.data="$d/prog.data" "archive$prog/$id/elf=$PROGS/behave"
	seeded archive "a recording, build-id lists of a program, unsafe names, an archive there"
}

# Recordings to import and split: perf's own (tests/corpus/perf), mkperf's
# layouts (Arm SPE, perf mem), a script's programs recorded by perf (execs
# to split), and imports into a folder holding an experiment, or a file of
# the user's.
seed_import() {
	begin import
	for f in "$TOP"/tests/corpus/perf/*.data; do
		bundle "$c/corpus-$(basename "$f" .data)" perf.data="$f"
	done
	"$BUILD/tests/tools/mkperf" spe "$d/spe.data" 0x00000000410fd0c0 && bundle "$c/mkperf-spe" perf.data="$d/spe.data"
	"$BUILD/tests/tools/mkperf" mem "$d/mem.data" && bundle "$c/mkperf-mem" perf.data="$d/mem.data"
	perf record -q -o "$d/script.data" -e cpu-clock -c 200000 -- \
		sh -c "$PROGS/behave spin 0.01; $PROGS/behave spin 0.01" >/dev/null 2>&1 &&
		bundle "$c/script" perf.data="$d/script.data"
	"$BUILD/dsprof" import -o "$d/old" "$TOP/tests/corpus/perf/pipe.data" >/dev/null 2>&1
	printf 'mine\n' >"$d/notes"
	bundle "$c/over-an-experiment" perf.data="$d/mem.data" out/perf.data="$d/old/perf.data" \
		out/meta.json="$d/old/meta.json"
	bundle "$c/over-a-file" perf.data="$d/mem.data" out/perf.data="$d/old/perf.data" \
		out/meta.json="$d/old/meta.json" out/notes="$d/notes" out.old/perf.data="$d/old/perf.data"
	seeded import "perf's recordings, mkperf's SPE and mem, a script's execs, folders there already"
}

# The programs of tests/e2e/suggest.sh, recorded under the simulator (few
# samples: each input stays fast), with each option.
seed_suggest() {
	begin suggest
	need_sim "the suggestions' programs"
	for run in "spread sim:L1D_MISS/500 struct_spread 4" "falseshare sim:HITM/500 struct_counters" \
		"hotcold sim:L1D_MISS/2000 struct_particle 20" "coaccess sim:loads/1000 struct_quad 2"; do
		set -- $run
		"$BUILD/dsprof" record -q -o "$d/$1" --sim -e "$2" --call-graph=none -- "$PROGS/$1" ${4:-} \
			>/dev/null 2>&1 || continue
		printf 'type=%s\n' "$(echo "$3" | tr _ ' ')" >"$d/$1.opts"
		bundle "$c/$1" $(member a "$d/$1") opts="$d/$1.opts"
	done
	printf 'line=32\nkeep-abi=1\n' >"$d/keep"
	bundle "$c/spread-keep-abi" $(member a "$d/spread") opts="$d/keep"
	printf 'all=1\nline=128\n' >"$d/all"
	bundle "$c/falseshare-all" $(member a "$d/falseshare") opts="$d/all"
	seeded suggest "spread, falseshare, hotcold and coaccess under the simulator; --keep-abi, --line, --all"
}

# Inputs that once crashed a target (tests/fuzz/regressions/TARGET/): each
# must run clean before the target fuzzes again, and seeds its corpus.
regress() { # target corpus
	for f in "$TOP/tests/fuzz/regressions/$1"/*; do
		[ -f "$f" ] || continue
		cp "$f" "$FUZZ/corpus/$2/"
		if "$FUZZ/$1" "$f" >"$FUZZ/$1.regress.log" 2>&1; then
			echo "ok - fuzz $1: $(basename "$f") runs clean"
		else
			echo "not ok - fuzz $1: $(basename "$f") crashes again; see $FUZZ/$1.regress.log"
			fail=1
		fi
	done
}

# Inputs of several files get a dictionary of their names; a session's a
# cap on size (fewer samples: each input stays fast), the TUI's on keys.
run() { # target corpus [libFuzzer options]
	t=$1 corpus=$2
	shift 2
	mkdir -p "$FUZZ/artifacts"
	# libFuzzer's own timeout can deadlock in its handler (it allocates
	# while the sanitizer's allocator may hold its lock): a wall-clock
	# limit over it, so that a hang fails instead of waiting forever
	if timeout -s KILL $((SECONDS_EACH + 300)) "$FUZZ/$t" -max_total_time="$SECONDS_EACH" -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="$FUZZ/artifacts/$t-" -print_final_stats=1 "$@" \
		"$FUZZ/corpus/$corpus" >"$FUZZ/$t.log" 2>&1; then
		echo "ok - fuzz $t for ${SECONDS_EACH}s: $(awk '/stat::number_of_executed_units/ { print $2 }' "$FUZZ/$t.log") runs"
	else
		echo "not ok - fuzz $t: a finding; see $FUZZ/$t.log and $FUZZ/artifacts/"
		tail -30 "$FUZZ/$t.log"
		fail=1
	fi
}

picked() {
	[ -z "$TARGETS" ] && return 0
	for p in $TARGETS; do
		[ "$p" = "$1" ] && return 0
	done
	return 1
}

TARGETS="$*"
ALL="perfdata json mobj elf session meta kallsyms machine simstream tui heap group diff archive import suggest"
for t in ${TARGETS:-$ALL}; do
	case " $ALL " in *" $t "*) ;; *) echo "run.sh: no fuzz target '$t' (targets: $ALL)" >&2; exit 1 ;; esac
done
if picked tui; then
	fuzz_experiments "$WORKDIR/fixed" || { echo "not ok - fuzz: no fixed experiment could be recorded"; exit 1; }
	export DSPROF_FUZZ_EXPERIMENT="$WORKDIR/fixed/a" DSPROF_FUZZ_EXPERIMENT2="$WORKDIR/fixed/b"
fi
for t in ${TARGETS:-$ALL}; do
	"seed_$t"
	regress "fuzz_$t" "$t"
done
# The targets fuzz side by side, one per CPU (each is one process); their
# lines come out at the end, in order.
fuzz_one() { # target: its run's lines in $WORKDIR/run.TARGET, then .done
	case $1 in
	session) run "fuzz_$1" "$1" -max_len=262144 -dict="$TOP/tests/fuzz/fuzz.dict" ;;
	simstream | machine | group | diff | archive | import | suggest) run "fuzz_$1" "$1" -dict="$TOP/tests/fuzz/fuzz.dict" ;;
	tui) run "fuzz_$1" "$1" -max_len=256 ;;
	*) run "fuzz_$1" "$1" ;;
	esac >"$WORKDIR/run.$1"
	: >"$WORKDIR/run.$1.done"
}
JOBS=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
set -- ${TARGETS:-$ALL}
started=0
for t in "$@"; do
	while [ "$started" -ge "$JOBS" ] && [ "$(ls "$WORKDIR" | grep -c '^run\..*\.done$')" -le $((started - JOBS)) ]; do
		sleep 1
	done
	fuzz_one "$t" &
	started=$((started + 1))
done
wait
for t in "$@"; do
	cat "$WORKDIR/run.$t"
	grep -q '^not ok' "$WORKDIR/run.$t" && fail=1
done
exit $fail
