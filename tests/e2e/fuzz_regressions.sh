# The fuzz targets' regression corpora (tests/fuzz/regressions/fuzz_TARGET/):
# each input that once found something runs clean through its target,
# built without libFuzzer (tests/fuzz/replay.c) with this build's compiler
# and sanitizers.  fuzz_tui's keys run over the fixed experiments
# tests/fuzz/run.sh fuzzes them over, recorded here the same way.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fuzz/experiments.sh"

if said=$(fuzz_experiments "$T/fixed"); then
	ok "the fixed experiments are recorded (${said#\# fixed experiments: })"
else
	not_ok "the fixed experiments could not be recorded"
fi
export DSPROF_FUZZ_EXPERIMENT="$T/fixed/a" DSPROF_FUZZ_EXPERIMENT2="$T/fixed/b"

for src in "$TOP"/tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	dir="$TOP/tests/fuzz/regressions/$t"
	n=$(ls "$dir" 2>/dev/null | wc -l)
	check_ge "$t has a regression corpus" "$n" 1
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		timeout 120 "$BUILD/tests/fuzz/$t-replay" "$f" >"$t.out" 2>&1
		rc=$?
		if [ "$rc" -eq 0 ]; then
			ok "$t: $(basename "$f") runs clean"
		else
			not_ok "$t: $(basename "$f"): status $rc$([ "$rc" -eq 124 ] && echo ' (a hang)'): $(grep -m 3 -E 'ERROR|error|fuzz_|runtime' "$t.out" | tr '\n' ' ')"
		fi
	done
done
