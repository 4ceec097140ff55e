#!/bin/sh
# Experiment groups at scale: `dsprof report` of a group of N experiments
# (256 by default) of about 87k samples each, merged (--merge sum), against
# reading the same experiments one after another (`dsprof report -i E`,
# each on its own: the work a merge cannot avoid).  Wall time (RUNS runs,
# the minimum kept) and peak memory (GNU time's maximum resident set).
#
#   bench/group.sh BUILD_DIR
#
# Targets: the merged report within 2x the time of the reports one after
# another, and its peak memory within 2x that of one experiment's report:
# bounded by one experiment and the merged tables, not by the sum of the
# samples.  The group's members are four recorded runs of one program
# (the simulator's L1D misses of sim_chase, every one sampled), each hard-
# linked into the group N/4 times: every member is read whole, and the disk
# holds four experiments.
set -eu
BUILD=$(cd "${1:?usage: bench/group.sh BUILD_DIR}" && pwd)
DSPROF="$BUILD/dsprof"
RUNS=${RUNS:-3}
N=${GROUP_SIZE:-256}
W=$(mktemp -d /tmp/dsprof-bench-group.XXXXXX)
trap 'rm -rf "$W"' EXIT

. "$(dirname "$0")/timing.sh"

echo
echo "== experiment groups: report of $N experiments merged vs one after another"
if [ ! -x /usr/bin/time ] || ! command -v valgrind >/dev/null 2>&1; then
	echo "skipped: needs GNU time and valgrind ('make deps' installs valgrind; time is Debian's 'time')"
	exit 0
fi
"$DSPROF" record -q --repeat 4 --sim -e sim:L1D_MISS -c 1 -o "$W/runs" -- "$BUILD/tests/programs/sim_chase" \
	>/dev/null 2>&1
mkdir "$W/g"
printf 'dsprof-group 1\n' >"$W/g/group"
i=1
while [ "$i" -le "$N" ]; do
	cp -al "$W/runs/run.$(((i - 1) % 4 + 1))" "$W/g/run.$i"
	printf 'run.%d\trun\t%d\n' "$i" "$i" >>"$W/g/group"
	i=$((i + 1))
done
samples=$("$DSPROF" report -i "$W/g/run.1" -v summary -f json | "$BUILD/tests/tools/dsjq" .properties.samples)

# peak memory of one process, in MB
peak() {
	/usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1 | awk '{ printf "%.0f\n", $1 / 1024 }'
}
one_after_another() {
	k=1
	while [ "$k" -le "$N" ]; do
		"$DSPROF" report -i "$W/g/run.$k" -f csv >/dev/null 2>&1
		k=$((k + 1))
	done
}
: >"$W/tm"; : >"$W/ts"
r=0
while [ "$r" -lt "$RUNS" ]; do
	time_of "$DSPROF" report -i "$W/g" --merge sum -f csv >>"$W/tm"
	time_of one_after_another >>"$W/ts"
	r=$((r + 1))
done
pm=$(peak "$DSPROF" report -i "$W/g" --merge sum -f csv)
p1=$(peak "$DSPROF" report -i "$W/g/run.1" -f csv)
awk -v n="$N" -v s="$samples" -v m="$(min <"$W/tm")" -v o="$(min <"$W/ts")" -v pm="$pm" -v p1="$p1" 'BEGIN {
	printf "%d experiments of %d samples: merged %.2f s   one after another %.2f s   ratio %.2f (target <= 2.00): %s\n",
		n, s, m, o, m / o, (m / o <= 2.0) ? "PASS" : "FAIL"
	printf "peak memory: merged %d MB   one experiment %d MB   ratio %.2f (target <= 2.00): %s\n",
		pm, p1, pm / p1, (pm / p1 <= 2.0) ? "PASS" : "FAIL" }'
