# perf.data features this machine cannot record (no PMU, no tracefs),
# written with the kernel's and perf's layouts by tests/tools/mkperf.c:
# perf mem's data sources on kernel addresses, AMD IBS op samples, a fixed
# period with WEIGHT_STRUCT, HEADER_CACHE, a pipe's TRACING_DATA.  perf reads the first
# four; its counts are the reference where it does.
. "$TOP/tests/lib.sh"

if ! command -v perf >/dev/null; then
	not_ok "perf is not installed (make deps installs linux-perf)"
	exit 0
fi

# perf's "module samples count" per module, sorted
perf_modules() { # perf.data
	perf report -i "$1" --stdio --no-children -g none --sort dso -F sample,period,dso -t '|' 2>/dev/null |
		awk -F'|' '!/^#/ && NF == 3 { gsub(/ /, ""); print $3, $1, $2 }' | sort
}

# ---- perf mem: a data source saying load counts as a load, kernel lines too
"$TOOLS/mkperf" mem mem.data
"$DSPROF" import mem.data -o mem 2>/dev/null
"$DSPROF" report -i mem -v hotlines -f csv >mem.csv 2>mem.err
check_eq "perf mem: hotlines without --line-size (status 0)" "$?" 0
check_eq "perf mem: loads on the kernel line" \
	"$(awk -F, '$3 == "line" && $4 ~ /^0xffff/ { print $6 }' mem.csv)" 200
check_eq "perf mem: loads on the user line" \
	"$(awk -F, '$3 == "line" && $4 !~ /^0xffff/ { print $6 }' mem.csv)" 300
check_eq "perf mem: user samples per module as perf counts them" \
	"$(perf_modules mem.data | awk '$1 == "prog" { print $2 }')" 300
# perf mem's data sources and load latencies as keys (PEBS layout: DATA_SRC,
# WEIGHT): every sample an L1 load, of 90 cycles on the user line, 30 on
# the kernel one
"$DSPROF" report -i mem --by memlevel,op,latency -f csv 2>/dev/null >src.csv
check_eq "perf mem: --by memlevel,op,latency" \
	"$(awk -F, 'NR > 1 { print $2 "/" $3 "/" $4 "=" $5 }' src.csv | tr '\n' ' ')" "L1/load/32-127=300 L1/load/8-31=200 "
# memory time: the weighted event's latency:NAME counts period x weight, so
# the user line holds 60% of the samples and 75% of the cycles
check_eq "perf mem: the latency event, by line" \
	"$(awk -F, 'NR > 1 && $3 == "line" { print $15 "/" $18 }' mem.csv | tr -d '\r' | tr '\n' ' ')" \
	"300/$((300 * 2003 * 90)) 200/$((200 * 2003 * 30)) "
"$DSPROF" report -i mem 2>/dev/null >mem.txt
check_contains "perf mem: the text head gives the latency event's average (200 x 30 + 300 x 90) / 500" \
	mem.txt '^# latency:cpu/mem-loads,ldlat=30/P: 500 samples, count 66\.10M \(66\.0 cycles a sample on average\)$'
# the recording describes no caches and comes from another machine
check_contains "no caches: the view says which lines it used" mem.err \
	"note: the experiment describes no caches: cache lines are taken as 64 bytes"
"$DSPROF" report -i mem -v hotlines -f json 2>/dev/null >mem.json
check_eq "no caches: line_from property" "$("$TOOLS/dsjq" .properties.line_from mem.json)" \
	"default (the experiment describes no caches)"
"$DSPROF" report -i mem -v hotlines --line-size 128 -f json 2>/dev/null >mem128.json
check_eq "--line-size: line_from property" "$("$TOOLS/dsjq" .properties.line_from mem128.json)" "--line-size"

# ---- -c 10009 (no PERIOD field) with WEIGHT_STRUCT: the count is the period's
"$TOOLS/mkperf" period period.data
"$DSPROF" import period.data -o period 2>/dev/null
# WEIGHT_STRUCT's first 32 bits are the latency (120); no DATA_SRC
"$DSPROF" report -i period --by memlevel,latency -f csv 2>/dev/null >plat.csv
check_eq "WEIGHT_STRUCT: the latency bucket, and no data source" \
	"$(awk -F, 'NR > 1 { print $2 "/" $3 "=" $4 }' plat.csv)" "<no data source>/32-127=400"
"$DSPROF" report -i period -v summary -f csv >period.csv 2>/dev/null
check_eq "fixed period: the event count is samples x 10009" \
	"$(csv_lookup period.csv name cycles count:cycles)" $((400 * 10009))
check_eq "fixed period: count equals perf's" \
	"$(csv_lookup period.csv name cycles count:cycles)" "$(perf_modules period.data | awk '{ n += $3 } END { print n }')"
"$DSPROF" report -i period -v samples -f csv >psamples.csv 2>/dev/null
check_eq "fixed period: each sample's period" "$(csv_col psamples.csv period | sort -u)" 10009

# ---- AMD IBS op (the ibs_op PMU), data sources as the kernel decodes them:
# levels, remote, snoop and TLB; the latency event; false sharing from HITM
"$TOOLS/mkperf" ibs ibs.data
"$DSPROF" import ibs.data -o ibs 2>/dev/null
"$DSPROF" report -i ibs --by memlevel,op -f csv 2>/dev/null >ibs-src.csv
check_eq "IBS: --by memlevel,op, with each one's memory cycles" \
	"$(awk -F, 'NR > 1 { print $2 "/" $3 "=" $4 "/" $7 }' ibs-src.csv | tr -d '\r' | tr '\n' ' ')" \
	"local DRAM/load=100/$((100 * 100000 * 300)) remote DRAM/load=60/$((60 * 100000 * 500)) L1/store=40/0 remote cache/load=40/$((40 * 100000 * 150)) "
"$DSPROF" report -i ibs --by snoop,tlb -f csv 2>/dev/null >ibs-snoop.csv
check_eq "IBS: --by snoop,tlb" "$(awk -F, 'NR > 1 { print $2 "/" $3 "=" $4 }' ibs-snoop.csv | tr -d '\r' | tr '\n' ' ')" \
	"none/L1 hit=140 none/walk=60 HITM/L1 hit=40 "
"$DSPROF" report -i ibs -v sharing -f csv 2>/dev/null >ibs-sh.csv
check_eq "IBS: the line two threads write is false sharing, its HITMs from the data source" \
	"$(awk -F, 'NR > 1 && $3 == "line" { print $5 "/" $6 "/" $11 }' ibs-sh.csv | tr -d '\r')" \
	"false-sharing/2/$((40 * 100000))"
"$DSPROF" report -i ibs -v hotlines -f json 2>/dev/null >ibs-hl.json
check_eq "IBS: the latency event's copies are no samples of their own (hotlines' samples_with_address)" \
	"$("$TOOLS/dsjq" .properties.samples_with_address ibs-hl.json)" 240

# ---- HEADER_CACHE (pipe mode): the recording's geometry
"$TOOLS/mkperf" cache cache.data
"$DSPROF" import cache.data -o cache 2>/dev/null
check_eq "HEADER_CACHE: meta.json cache_source" "$("$TOOLS/dsjq" .cache_source cache/meta.json)" perf.data
check_eq "HEADER_CACHE: CPU 0's levels" "$("$TOOLS/dsjq" '.caches[].line' cache/meta.json | tr '\n' ' ')" "128 128 128 "
check_eq "HEADER_CACHE: L2 size" "$("$TOOLS/dsjq" '.caches[2].size' cache/meta.json)" $((2048 * 1024))
"$DSPROF" report -i cache -v hotlines -f json >cache.json 2>cache.err
check_eq "HEADER_CACHE: hotlines without --line-size" "$?" 0
check_eq "HEADER_CACHE: hotlines uses the recording's line" "$("$TOOLS/dsjq" .properties.line_size cache.json)" 128
check_eq "HEADER_CACHE: line_from property" "$("$TOOLS/dsjq" .properties.line_from cache.json)" \
	"the recording (perf.data)"
"$DSPROF" report -i cache -v sharing -f json >/dev/null 2>sharing.err
check_eq "HEADER_CACHE: sharing without --line-size" "$?" 0
check_eq "HEADER_CACHE: samples as perf counts them" "$(perf_modules cache.data | awk '{ n += $2 } END { print n }')" 250

# ---- a pipe's TRACING_DATA: its payload lies outside its size
"$TOOLS/mkperf" tracing tracing.data
"$DSPROF" import tracing.data -o tracing 2>tracing.err
check_eq "TRACING_DATA: imported" "$?" 0
check_eq "TRACING_DATA: no damage said" "$(grep -c note tracing.err)" 0
check_eq "TRACING_DATA: every sample" "$("$TOOLS/dsjq" .samples tracing/meta.json)" 150
