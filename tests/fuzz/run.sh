#!/bin/sh
# Run each libFuzzer target for a bounded time on a corpus made of real
# recordings.  Any crash, leak or sanitizer report fails `make check`.
#
#   tests/fuzz/run.sh BUILD_DIR SECONDS
set -u
BUILD=$(cd "${1:?usage: run.sh BUILD SECONDS}" && pwd)
SECONDS_EACH=${2:-30}
FUZZ="$BUILD/fuzz"
# leaks inside libraries we cannot fix (see the file)
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")/.." && pwd)/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fail=0

seed_perfdata() {
	c="$FUZZ/corpus/perfdata"
	mkdir -p "$c"
	d=$(mktemp -d)
	"$BUILD/dsprof" record -q -o "$d/a" -e cpu-clock -e page-faults -- "$BUILD/tests/programs/behave" spin 0.05 >/dev/null 2>&1 &&
		cp "$d/a/perf.data" "$c/dsprof-two-events.data"
	"$BUILD/dsprof" record -q -o "$d/b" --call-graph=none -- "$BUILD/tests/programs/behave" spin 0.02 >/dev/null 2>&1 &&
		cp "$d/b/perf.data" "$c/dsprof-nochain.data"
	perf record -q -o "$d/p.data" -e cpu-clock -c 100000 -g "$BUILD/tests/programs/behave" spin 0.02 >/dev/null 2>&1 &&
		cp "$d/p.data" "$c/perf-record.data"
	perf record -q -o - -e cpu-clock -c 100000 "$BUILD/tests/programs/behave" spin 0.02 2>/dev/null >"$c/perf-pipe.data"
	perf record -q -z -o "$d/z.data" -e cpu-clock -c 100000 -g "$BUILD/tests/programs/behave" spin 0.02 >/dev/null 2>&1 &&
		cp "$d/z.data" "$c/perf-zstd.data"
	perf record -q -z -o - -e cpu-clock -c 100000 "$BUILD/tests/programs/behave" spin 0.02 2>/dev/null >"$c/perf-pipe-zstd.data"
	# layouts this machine cannot record (tests/tools/mkperf.c)
	for k in mem period cache tracing; do
		"$BUILD/tests/tools/mkperf" $k "$c/mkperf-$k.data"
	done
	# HEADER_BUILD_ID records in a pipe
	"$BUILD/tests/tools/mkperf" buildid "$c/mkperf-buildid-pipe.data" /opt/mkperf/lib.so \
		00112233445566778899aabbccddeeff00112233 0x1000 pipe
	rm -rf "$d"
	ls "$c" | grep -q . || { echo "not ok - fuzz: no seed corpus could be recorded"; exit 1; }
}

seed_json() {
	c="$FUZZ/corpus/json"
	mkdir -p "$c"
	d=$(mktemp -d)
	"$BUILD/dsprof" record -q -o "$d/a" -- "$BUILD/tests/programs/behave" spin 0.02 >/dev/null 2>&1 &&
		cp "$d/a/meta.json" "$c/meta.json"
	"$BUILD/dsprof" report -i "$d/a" --format json >"$c/report.json" 2>/dev/null
	rm -rf "$d"
}

# Expressions and filters, one per file: the first byte picks the compiler
# (bit 0: filter; bit 1: syntax only, without a machine).
seed_mobj() {
	c="$FUZZ/corpus/mobj"
	mkdir -p "$c"
	printf '\000(VADDR>>6)&63' >"$c/set"
	printf '\000VADDR / L1D_LINE * L1D_LINE' >"$c/line"
	printf '\000VADDR>255 ? VADDR>>6 : -1' >"$c/oracle"
	printf '\000PADDR < 0 ? -1 : PADDR < 0x10000000 ? 0 : 1' >"$c/numa"
	printf '\002(PADDR >> 8 ^ PADDR >> 13) & 1 || !~-THRID %% 0x7f' >"$c/bits"
	printf '\001FUNC == "main" && MOBJ(L1D_set) != 5 || FIELD != "struct node.next"' >"$c/filter"
	printf '\001DOBJ == "a\\"b" ? CPUID <= 3 : TSTAMP / 0' >"$c/escape"
}

# Small programs with their DWARF in every form the readers meet: DWARF 5
# from GCC, DWARF 4 from Clang, GNU-compressed sections, relocatable
# objects (RELA from x86-64, REL from i386, RISC-V's sums of relocations),
# and code that is hand-written assembly in part (verdicts.c).
seed_elf() {
	c="$FUZZ/corpus/elf"
	mkdir -p "$c"
	src="$(dirname "$0")/../programs"
	gcc -O2 -g -o "$c/gcc-dwarf5" "$src/selftime.c" 2>/dev/null
	clang -O2 -gdwarf-4 -Wno-unknown-attributes -o "$c/clang-dwarf4" "$src/selftime.c" 2>/dev/null
	objcopy --compress-debug-sections=zlib-gnu "$c/gcc-dwarf5" "$c/zlib-gnu" 2>/dev/null
	gcc -O2 -g -c -o "$c/object.o" "$src/dsfields.c" 2>/dev/null
	gcc -m32 -ffreestanding -O2 -g -c -o "$c/object-i386.o" "$src/objtypes.c" 2>/dev/null
	clang --target=riscv64-linux-gnu -ffreestanding -O2 -g -c -o "$c/object-riscv.o" \
		"$src/objtypes.c" 2>/dev/null
	gcc -O2 -g -o "$c/verdicts" "$src/verdicts.c" 2>/dev/null
	ls "$c" | grep -q . || { echo "not ok - fuzz: no ELF seed could be built"; exit 1; }
}

# Inputs that once crashed a target (tests/fuzz/regressions/TARGET/): each
# must run clean before the target fuzzes again, and seeds its corpus.
regress() { # target corpus
	for f in "$(dirname "$0")/regressions/$1"/*; do
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

run() { # target corpus
	mkdir -p "$FUZZ/artifacts"
	if "$FUZZ/$1" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$FUZZ/artifacts/$1-" -print_final_stats=0 "$FUZZ/corpus/$2" \
		>"$FUZZ/$1.log" 2>&1; then
		echo "ok - fuzz $1 for ${SECONDS_EACH}s: $(grep -Eo '#[0-9]+' "$FUZZ/$1.log" | tail -1 | tr -d '#') runs"
	else
		echo "not ok - fuzz $1: a crash; see $FUZZ/$1.log and $FUZZ/artifacts/"
		tail -30 "$FUZZ/$1.log"
		fail=1
	fi
}

seed_perfdata
seed_json
seed_mobj
seed_elf
regress fuzz_elf elf
run fuzz_perfdata perfdata
run fuzz_json json
run fuzz_mobj mobj
run fuzz_elf elf
exit $fail
