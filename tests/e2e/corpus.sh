# Recordings made by perf, ours and public ones (tests/corpus/perf, see ORIGINS there): dsprof
# imports each and counts, per event and module, the samples and the event
# count that perf report printed for it (EXPECTED).
. "$TOP/tests/lib.sh"

C="$TOP/tests/corpus/perf"

# ours for one experiment: "FILE EVENT MODULE SAMPLES COUNT", sorted
our_counts() { # file experiment
	"$DSPROF" report -i "$2" -f csv 2>/dev/null | tr -d '\r' | awk -F, -v f="$1" '
		NR == 1 { for (i = 1; i <= NF; i++) { h = $i; gsub(/"/, "", h)
				if (h ~ /^samples:/) { e = h; sub(/^samples:/, "", e); se[i] = e }
				if (h ~ /^count:/) { e = h; sub(/^count:/, "", e); ce[e] = i }
				if (h == "module") m = i }
			next }
		{ for (i in se) { n[se[i] " " $m] += $i; c[se[i] " " $m] += $(ce[se[i]]) } }
		END { for (k in n) if (n[k] > 0) print f, k, n[k], c[k] }' | sort
}

files=$(grep -v '^#' "$C/EXPECTED" | awk '{ print $1 }' | sort -u)
check_ge "the corpus lists its files" "$(echo "$files" | wc -l)" 27
for f in $files; do
	n=$(echo "$f" | tr / _)
	"$DSPROF" import "$C/$f" -o "exp-$n" >/dev/null 2>"$n.err"
	check_eq "$f: imported" "$?" 0
	if grep -qx "$f" "$C/DAMAGED"; then
		check_eq "$f: its damage said" "$(grep -c 'note:.*corrupt' "$n.err")" 1
	else
		check_eq "$f: no damage said" "$(grep -c 'note:' "$n.err")" 0
	fi
	grep "^$f " "$C/EXPECTED" | sort >"$n.want"
	our_counts "$f" "exp-$n" >"$n.got"
	if cmp -s "$n.want" "$n.got"; then
		ok "$f: per event and module, samples and count equal perf's ($(wc -l <"$n.want") rows)"
	else
		not_ok "$f: perf / ours: $(diff "$n.want" "$n.got" | grep '^[<>]' | head -4 | tr '\n' ' ')"
	fi
done
