# Recordings made by perf (tests/corpus/perf, see ORIGINS there): dsprof
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
check_ge "the corpus lists its files" "$(echo "$files" | wc -l)" 6
for f in $files; do
	"$DSPROF" import "$C/$f" -o "exp-$f" >/dev/null 2>"$f.err"
	check_eq "$f: imported" "$?" 0
	check_eq "$f: no damage said" "$(grep -c 'note:' "$f.err")" 0
	grep "^$f " "$C/EXPECTED" | sort >"$f.want"
	our_counts "$f" "exp-$f" >"$f.got"
	if cmp -s "$f.want" "$f.got"; then
		ok "$f: per event and module, samples and count equal perf's ($(wc -l <"$f.want") rows)"
	else
		not_ok "$f: perf / ours: $(diff "$f.want" "$f.got" | grep '^[<>]' | head -4 | tr '\n' ' ')"
	fi
done
