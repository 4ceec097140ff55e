#!/bin/sh
# dsprof tui on a ten-million-sample experiment: how soon the first screen
# shows, how long reading everything takes, how fast keys are answered
# after that, and the memory it holds.
#
#   bench/tui.sh BUILD_DIR
#
# The experiment is the bundled example under the simulator with every load
# a sample (dsprof record --sim -c 1 -e sim:loads, TUI_ROUNDS rounds: about
# 10.2 million samples, 1 GB).  The interface runs inside tmux, a real
# terminal, and writes its own timings (--stats): the first screen with
# rows in a table (from the samples read so far: the worker thread reads
# them in steps and the functions tab refills as they come), every sample
# read and attributed to data, and for each key after that the time until
# its screen showed with nothing left to wait for.  Keys visit every tab,
# drill down and back, and search.  Peak memory (VmHWM) is compared with
# `dsprof report --view dataobjects` on the same experiment: the interface
# keeps the same session plus its tables, which grow with unique
# instructions and objects, not with samples.
# Targets: first screen <= 1 s; every key <= 50 ms after loading.
set -eu
BUILD=$(cd "${1:?usage: bench/tui.sh BUILD_DIR}" && pwd)
DSPROF="$BUILD/dsprof"
ROUNDS=${TUI_ROUNDS:-19}

echo "== dsprof tui on a ten-million-sample experiment"
if ! command -v tmux >/dev/null 2>&1 || ! command -v valgrind >/dev/null 2>&1; then
	echo "skipped: tmux and valgrind are needed ('make deps' installs them)"
	exit 0
fi
W=$(mktemp -d /tmp/dsprof-bench-tui.XXXXXX)
SOCK="$W/tmux.sock"
tm() { tmux -S "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$W"' EXIT

"$DSPROF" record --sim -c 1 -e sim:loads -q -o "$W/big" -- "$BUILD/tests/programs/example" "$ROUNDS" >/dev/null
samples=$("$DSPROF" report -i "$W/big" -v summary -f json | "$BUILD/tests/tools/dsjq" .properties.samples)
cat "$W/big/perf.data" >/dev/null # in the page cache, as for every run below

# peak_kb PID: the process's peak resident memory until it exits
peak_kb() {
	p=0
	while [ -r "/proc/$1/status" ]; do
		v=$(awk '/^VmHWM/ { print $2 }' "/proc/$1/status" 2>/dev/null || true)
		[ -n "$v" ] && p=$v
		sleep 0.2
	done
	echo "$p"
}
"$DSPROF" report -i "$W/big" -v dataobjects >/dev/null &
rpid=$!
report_kb=$(peak_kb "$rpid")
wait "$rpid"

tm new-session -d -s b -x 120 -y 40 "'$DSPROF' tui -i '$W/big' --stats '$W/stats'; sleep 30"
# loaded: the status line stops saying what is being read (five minutes at most)
i=0
while [ "$i" -lt 3000 ]; do
	tm capture-pane -p -t b >"$W/pane"
	if grep -q 'walk_cells' "$W/pane" && ! grep -Eq 'reading samples|attributing|computing' "$W/pane"; then
		break
	fi
	sleep 0.1
	i=$((i + 1))
done
pid=$(pgrep -n -f "dsprof tui -i $W/big" || true)
for k in Down Down Up 2 3 4 5 Right 6 7 8 0 i 1 Enter BSpace / w a l k Enter End Home; do
	tm send-keys -t b "$k"
	sleep 0.3
done
tui_kb=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
tm send-keys -t b q
i=0
while [ ! -s "$W/stats" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
stat() { awk -v k="$1" '$1 == k { print $2 }' "$W/stats"; }
first=$(stat first_screen_s); partial=$(stat first_screen_partial); loaded=$(stat loaded_s)
nkeys=$(stat keys); kmax=$(stat key_max_ms); kavg=$(stat key_avg_ms)
awk -v n="$samples" -v f="$first" -v p="$partial" -v l="$loaded" -v k="$nkeys" -v mx="$kmax" -v av="$kavg" \
	-v t="$tui_kb" -v r="$report_kb" 'BEGIN {
	printf "%d samples: first screen %.3f s (%s), everything read and attributed %.1f s (target <= 1 s): %s\n",
		n, f, p == "yes" ? "from the samples read so far" : "complete", l, (f >= 0 && f <= 1.0) ? "PASS" : "FAIL";
	printf "%d keys after loading: slowest %.1f ms, mean %.1f ms (target <= 50 ms): %s\n",
		k, mx, av, (k > 0 && mx <= 50) ? "PASS" : "FAIL";
	printf "peak memory: tui %.0f MB, report --view dataobjects %.0f MB (%.2fx)\n",
		t / 1024, r / 1024, r ? t / r : 0 }'
