# make demo: the bundled example's report, then the false-sharing story
# (the shared line, its fields and fix, and the diff that proves the fix).
. "$TOP/tests/lib.sh"

sh "$TOP/tests/demo.sh" "$BUILD" "$PWD" >demo.out 2>&1
check_eq "demo ran" "$?" 0
check_contains "the example's functions" demo.out '^# dsprof report: functions'
check_contains "the example's instructions" demo.out '^# dsprof report: pcs'
check_contains "the example's struct cell, field by field" demo.out '^ +[0-9.]+% +[0-9]+ +[0-9.]+s +count +8 +8 '
check_contains "the sharing view" demo.out '^# dsprof report: sharing'
check_contains "the counters' line is false sharing" demo.out \
	' line +false-sharing .*struct worker_stats'
check_contains "the evidence: disjoint bytes" demo.out 'evidence: .*disjoint bytes'
check_contains "the fix: pad struct worker_stats to a line" demo.out \
	'fix: .*pad the type to 64 bytes .*_Alignas\(64\)'
check_contains "the 128-byte check" demo.out 'at other line sizes: 128 bytes'
check_contains "the diff" demo.out '^# dsprof diff: sharing'
check_contains "the diff's verdict: the misses are gone" demo.out \
	'^#   coherence misses: sim:HITM [0-9.]+k -> [0-9]+ \(-[0-9.]+k, -(100|99)\.[0-9]+%\)'
check_contains "the diff's verdict: the line stopped being shared" demo.out \
	'^#   stopped being shared: .*struct worker_stats'
