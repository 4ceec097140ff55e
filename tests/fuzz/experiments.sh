# The fixed experiments that fuzz targets run over (fuzz_tui), recorded
# alike by tests/fuzz/run.sh and by the regression replay
# (tests/e2e/fuzz_regressions.sh).  Sourced; needs BUILD.
#
#   fuzz_experiments DIR   records DIR/a and DIR/b (to compare with), says
#                          on stdout what they are, and fails when neither
#                          way could record
#
# Simulated false sharing (small, precise addresses, HITM: every tab has
# rows), adjacent then padded; without the simulator, a sampled run of
# dsfields twice.
fuzz_experiments() {
	mkdir -p "$1"
	if [ -x "$BUILD/sim/lib/dsprofsim-amd64-linux" ] &&
		"$BUILD/dsprof" record -q --sim -e sim:L1D_MISS/50 -e sim:HITM/5 -o "$1/a" -- \
			"$BUILD/tests/programs/sim_false_sharing" adjacent 1000 >/dev/null 2>&1 &&
		"$BUILD/dsprof" record -q --sim -e sim:L1D_MISS/50 -e sim:HITM/5 -o "$1/b" -- \
			"$BUILD/tests/programs/sim_false_sharing" padded 1000 >/dev/null 2>&1; then
		echo "# fixed experiments: simulated false sharing, adjacent and padded"
		return 0
	fi
	rm -rf "$1/a" "$1/b"
	for x in a b; do
		"$BUILD/dsprof" record -q -e cpu-clock/1000000 -d 0.1 -o "$1/$x" -- \
			"$BUILD/tests/programs/dsfields" stream 1000 >/dev/null 2>&1 || return 1
	done
	echo "# fixed experiments: sampled dsfields stream (no simulator in $BUILD/sim)"
}
