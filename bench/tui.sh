#!/bin/sh
# dsprof tui on a ten-million-sample experiment: how soon the first screen
# shows, how long reading everything takes, how fast keys are answered
# after that, and the memory it holds against the number of samples.
#
#   bench/tui.sh BUILD_DIR
#
# The experiment is the bundled example under the simulator with every load
# a sample (dsprof record --sim -c 1 -e sim:loads, TUI_ROUNDS rounds: about
# 10.2 million samples, 1.4 GB); a second one of a quarter of the rounds
# (the same unique instructions and objects, a quarter of the samples)
# shows how memory grows with samples.  The interface runs inside tmux, a
# real terminal, and writes its own timings (--stats): the first screen
# with rows in a table (from the samples read so far: the worker thread
# reads them in steps and the functions tab refills as they come), every
# sample read and attributed to data, and for each key after that the time
# until its screen showed with nothing left to wait for.  Keys visit every
# tab, drill down and back, and search.  Peak memory (VmHWM) is compared
# with `dsprof report --view dataobjects` on the same experiment: the
# interface keeps the same session plus its tables, which grow with unique
# instructions and objects, not with samples (the timeline's per-thread
# stream of compact samples aside).
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
trap 'tm kill-server 2>/dev/null || true; rm -rf "$W"' EXIT
trap 'exit 1' INT TERM

record() { # DIR ROUNDS
	"$DSPROF" record --sim -c 1 -e sim:loads -q -o "$1" -- "$BUILD/tests/programs/example" "$2" >/dev/null
	cat "$1/perf.data" >/dev/null # in the page cache, as for every run below
}
samples_of() {
	"$DSPROF" report -i "$1" -v summary -f json | "$BUILD/tests/tools/dsjq" .properties.samples
}

# peak_kb PID: the process's peak memory until it exits, "HWM ANON": VmHWM
# (which counts the pages of the mmapped perf.data, a cache the kernel can
# drop) and the largest RssAnon seen (its own memory), sampled every 0.1 s;
# a zombie's status is still readable, without the numbers: that ends it
peak_kb() {
	hwm=0 anon=0
	while [ -r "/proc/$1/status" ]; do
		set -- "$1" $(awk '/^VmHWM/ { h = $2 } /^RssAnon/ { a = $2 } END { print h, a }' "/proc/$1/status" 2>/dev/null)
		[ -n "${2:-}" ] || break
		hwm=$2
		[ "${3:-0}" -gt "$anon" ] && anon=$3
		sleep 0.1
	done
	echo "$hwm $anon"
}

# idle NAME [REGEX]: until the interface has nothing left to compute (and
# shows REGEX), five minutes at most
idle() {
	i=0
	while [ "$i" -lt 3000 ]; do
		tm capture-pane -p -t "$1" >"$W/pane"
		if grep -Eq "${2:-.}" "$W/pane" && ! grep -Eq 'reading samples|attributing|computing' "$W/pane"; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
}
# tui DIR NAME: run the interface on DIR in tmux, send the keys, and set
# first, partial, loaded, kmax, kavg (the keys of every tab but HotLines and
# Sharing, whose views are timed apart: hot, shr; and the Functions tab
# regrouped by field with b: by), tui_hwm and tui_anon
tui() {
	dir=$1 ses=$2
	rm -f "$W/stats" "$W/peak"
	tm new-session -d -s "$ses" -x 120 -y 40 "'$DSPROF' tui -i '$dir' --stats '$W/stats'; sleep 30"
	sleep 0.2
	pid=$(pgrep -n -f "dsprof tui -i $dir " || true)
	peak_kb "$pid" >"$W/peak" &
	idle "$ses" walk_cells
	set -- Down Down Up 2 3 4 5 Right 6 7 0 i 1 Enter BSpace / w a l k Enter End Home
	nmain=$#
	for k in "$@"; do
		tm send-keys -t "$ses" "$k"
		sleep 0.3
	done
	idle "$ses"
	for k in 8 9; do
		tm send-keys -t "$ses" "$k"
		sleep 0.3
		idle "$ses"
	done
	# regroup Functions by field (the ninth key of b's list)
	for k in 1 b Down Down Down Down Down Down Down Down Enter; do
		tm send-keys -t "$ses" "$k"
		sleep 0.3
	done
	idle "$ses" "by field"
	tm send-keys -t "$ses" q
	wait
	read -r tui_hwm tui_anon <"$W/peak"
	tm kill-session -t "$ses" 2>/dev/null || true
	first=$(stat first_screen_s); partial=$(stat first_screen_partial); loaded=$(stat loaded_s)
	set -- $(awk '$1 == "key_ms" { for (i = 2; i <= NF; i++) print $i }' "$W/stats")
	kn=$(($# - 13)); kmax=0; ksum=0; k=0
	for v in "$@"; do
		k=$((k + 1))
		if [ "$k" -le "$kn" ]; then
			kmax=$(awk -v a="$kmax" -v b="$v" 'BEGIN { print (b > a) ? b : a }')
			ksum=$(awk -v a="$ksum" -v b="$v" 'BEGIN { print a + b }')
		elif [ "$k" -eq $((kn + 1)) ]; then
			hot=$v
		elif [ "$k" -eq $((kn + 2)) ]; then
			shr=$v
		fi
		by=$v # the last: Enter, the grouping shown
	done
	kavg=$(awk -v s="$ksum" -v n="$kn" 'BEGIN { print n ? s / n : 0 }')
	if [ "$kn" -ne "$nmain" ]; then
		echo "note: $nmain keys gave $kn timings (keys sent while a view was built count once)"
	fi
}
stat() { awk -v k="$1" '$1 == k { print $2 }' "$W/stats"; }

if [ -n "${TUI_EXP:-}" ]; then
	big=$TUI_EXP # an experiment recorded before: bench/tui.sh records none
	cat "$big/perf.data" >/dev/null
else
	big=$W/big
	record "$big" "$ROUNDS"
fi
samples=$(samples_of "$big")

"$DSPROF" report -i "$big" -v dataobjects >/dev/null &
rpid=$!
read -r report_hwm report_anon <<EOF2
$(peak_kb "$rpid")
EOF2
wait "$rpid"

tui "$big" b
awk -v n="$samples" -v f="$first" -v p="$partial" -v l="$loaded" -v k="$kn" -v mx="$kmax" -v av="$kavg" \
	-v hot="$hot" -v shr="$shr" -v by="$by" -v th="$tui_hwm" -v ta="$tui_anon" -v rh="$report_hwm" -v ra="$report_anon" 'BEGIN {
	printf "%d samples: first screen %.3f s (%s), everything read and attributed %.1f s (target <= 1 s): %s\n",
		n, f, p == "yes" ? "from the samples read so far" : "complete", l, (f >= 0 && f <= 1.0) ? "PASS" : "FAIL";
	printf "%d keys after loading (every tab but HotLines and Sharing, drilling, searching): slowest %.1f ms, mean %.1f ms (target <= 50 ms): %s\n",
		k, mx, av, (k > 0 && mx <= 50) ? "PASS" : "FAIL";
	printf "HotLines tab: %.0f ms, Sharing tab: %.0f ms until their views showed (target <= 50 ms): %s\n",
		hot, shr, (hot <= 50 && shr <= 50) ? "PASS" : "FAIL";
	printf "Functions regrouped by field (b, dsprof report --by field): %.0f ms until it showed (target <= 50 ms): %s\n",
		by, by <= 50 ? "PASS" : "FAIL";
	printf "peak memory: tui %.0f MB own (%.0f MB with the mapped perf.data), report --view dataobjects %.0f MB own (%.0f MB)\n",
		ta / 1024, th / 1024, ra / 1024, rh / 1024 }'
big_anon=$tui_anon

# a quarter of the samples: what memory the samples themselves cost
rounds4=$(( (ROUNDS + 3) / 4 ))
record "$W/small" "$rounds4"
small_samples=$(samples_of "$W/small")
tui "$W/small" s
awk -v n="$samples" -v m="$small_samples" -v b="$big_anon" -v s="$tui_anon" 'BEGIN {
	printf "tui memory against samples: %.0f MB at %d samples, %.0f MB at %d: %.0f bytes a sample more\n",
		s / 1024, m, b / 1024, n, (n > m ? (b - s) * 1024 / (n - m) : 0) }'
