# perf.data features this machine cannot record (no PMU, no tracefs),
# written with the kernel's and perf's layouts by tests/tools/mkperf.c:
# perf mem's data sources on kernel addresses, AMD IBS op samples, Arm SPE
# packets in AUXTRACE records, a fixed period with WEIGHT_STRUCT,
# HEADER_CACHE, a pipe's TRACING_DATA.  perf reads the mem, period and
# cache files; its counts are the reference where it does.
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
	"$(awk -F, 'NR > 1 { print $2 "/" $3 "/" $4 "=" $7 }' src.csv | tr '\n' ' ')" "L1/load/32-127=300 L1/load/8-31=200 "
# memory time: the weighted event's latency:NAME counts period x weight, so
# the user line holds 60% of the samples and 75% of the cycles
check_eq "perf mem: the latency event, by line" \
	"$(awk -F, 'NR > 1 && $3 == "line" { print $17 "/" $20 }' mem.csv | tr -d '\r' | tr '\n' ' ')" \
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
	"$(awk -F, 'NR > 1 { print $2 "/" $3 "=" $6 }' plat.csv)" "<no data source>/32-127=400"
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
	"$(awk -F, 'NR > 1 { print $2 "/" $3 "=" $6 "/" $9 }' ibs-src.csv | tr -d '\r' | tr '\n' ' ')" \
	"local DRAM/load=100/$((100 * 100000 * 300)) remote DRAM/load=60/$((60 * 100000 * 500)) L1/store=40/0 remote cache/load=40/$((40 * 100000 * 150)) "
"$DSPROF" report -i ibs --by snoop,tlb -f csv 2>/dev/null >ibs-snoop.csv
check_eq "IBS: --by snoop,tlb" "$(awk -F, 'NR > 1 { print $2 "/" $3 "=" $6 }' ibs-snoop.csv | tr -d '\r' | tr '\n' ' ')" \
	"none/L1 hit=140 none/walk=60 HITM/L1 hit=40 "
"$DSPROF" report -i ibs -v sharing -f csv 2>/dev/null >ibs-sh.csv
check_eq "IBS: the line two threads write is false sharing, its HITMs from the data source" \
	"$(awk -F, 'NR > 1 && $3 == "line" { print $5 "/" $6 "/" $11 }' ibs-sh.csv | tr -d '\r')" \
	"false-sharing/2/$((40 * 100000))"
"$DSPROF" report -i ibs -v hotlines -f json 2>/dev/null >ibs-hl.json
check_eq "IBS: the latency event's copies are no samples of their own (hotlines' samples_with_address)" \
	"$("$TOOLS/dsjq" .properties.samples_with_address ibs-hl.json)" 240

# ---- Arm SPE: packets in AUXTRACE records (a CPU's buffer in two chunks,
# cut inside a record), recorded on a Neoverse N1 (MIDR 0x410fd0c0), whose
# data source packets perf decodes; loads and stores become samples
"$TOOLS/mkperf" spe spe.data 0x00000000410fd0c0
"$DSPROF" report -i spe.data -v summary >spe-raw.csv 2>&1
check_contains "SPE: a report of perf's file says its AUX area holds the records" spe-raw.csv \
	"holds 13032 bytes of Arm SPE records \\(an AUX area\\), which are no samples until 'dsprof import' decodes them"
"$DSPROF" import spe.data -o spe 2>spe.err
check_eq "SPE: imported" "$?" 0
check_contains "SPE: what the records were" spe.err \
	"note: Arm SPE: 260 records decoded: 200 loads and 40 stores are samples; 20 other operations"
check_eq "SPE: no bytes skipped, and no AUX area left" "$(grep -c 'bytes of the AUX data\|AUX area' spe.err)" 0
check_eq "SPE: the samples" "$("$TOOLS/dsjq" .samples spe/meta.json)" 240
check_eq "SPE: its event samples the operation itself (precise)" "$("$TOOLS/dsjq" '.events[0].precise' spe/meta.json)" true
"$DSPROF" report -i spe --by memlevel,op -f csv 2>/dev/null >spe-src.csv
check_eq "SPE: --by memlevel,op, with each one's memory cycles (total latency x period 1024)" \
	"$(awk -F, 'NR > 1 { print $2 "/" $3 "=" $6 "/" $9 }' spe-src.csv | tr -d '\r' | tr '\n' ' ')" \
	"local DRAM/load=100/$((100 * 1024 * 300)) remote cache/load=60/$((60 * 1024 * 500)) <unknown>/store=40/0 L2/load=40/$((40 * 1024 * 150)) "
"$DSPROF" report -i spe --by snoop,tlb -f csv 2>/dev/null >spe-snoop.csv
check_eq "SPE: --by snoop,tlb (a line from another core's cache is a peer snoop)" \
	"$(awk -F, 'NR > 1 { print $2 "/" $3 "=" $6 }' spe-snoop.csv | tr -d '\r' | tr '\n' ' ')" \
	"none/hit=100 peer/walk=60 peer/hit=40 <unknown>/hit=40 "
"$DSPROF" report -i spe -v sharing -f csv 2>/dev/null >spe-sh.csv
check_eq "SPE: the line two threads write is false sharing, its peer loads as HITMs" \
	"$(awk -F, 'NR > 1 && $3 == "line" { print $5 "/" $6 "/" $11 }' spe-sh.csv | tr -d '\r')" \
	"false-sharing/2/$((40 * 1024))"
check_eq "SPE: the second thread, named by context packets and its COMM" \
	"$(awk -F, '$3 == "thread" { print $7 "=" $8 }' spe-sh.csv | tr '\n' ' ')" "42=? 43=worker "
# another CPU (a Cortex-A76, MIDR 0x410fd0b0): levels from the events
"$TOOLS/mkperf" spe spe-a76.data 0x00000000410fd0b0
"$DSPROF" import spe-a76.data -o spe-a76 2>/dev/null
"$DSPROF" report -i spe-a76 --by memlevel,op -f csv 2>/dev/null >spe-a76.csv
check_eq "SPE without a data source encoding: the level that missed" \
	"$(awk -F, 'NR > 1 { print $2 "/" $3 "=" $6 }' spe-a76.csv | tr -d '\r' | tr '\n' ' ')" \
	"L3 miss/load=160 L1/store=40 L1 miss/load=40 "

# ---- precise memory samples down to struct fields: PEBS, IBS and SPE
# records at two loads of a real program (tests/programs/heapobj.c's walk:
# item->key and item->next, found by a simulated run), each format's
# levels and latencies under the field
"$DSPROF" record -q --sim -c 1 -e sim:loads -o hw -- "$PROGS/heapobj" 1000 1 >/dev/null 2>&1
load_of() { # FIELD: the address of walk's load of it
	"$DSPROF" report -i hw -v pcs -f csv --filter "FUNC == \"walk\" && FIELD == \"$1\"" 2>/dev/null |
		awk -F, 'NR == 2 { print $2 }'
}
key=$(load_of 'struct item.key')
next=$(load_of 'struct item.next')
check "heapobj's walk: the loads of key and next" test -n "$key" -a -n "$next"
"$TOOLS/mkperf" mem fmem.data "$PROGS/heapobj" "$key" "$next"
"$TOOLS/mkperf" ibs fibs.data "$PROGS/heapobj" "$key" "$next"
"$TOOLS/mkperf" spe fspe.data 0x00000000410fd0c0 "$PROGS/heapobj" "$key" "$next"
for f in fmem fibs fspe; do
	"$DSPROF" import $f.data -o $f 2>/dev/null
	"$DSPROF" report -i $f --by memlevel,field -f csv 2>/dev/null >$f.csv
done
check_eq "PEBS (DATA_SRC, WEIGHT) at the fields: --by memlevel,field" \
	"$(awk -F, 'NR > 1 { print $2 "/" $3 "=" $7 "/" $10 }' fmem.csv | tr -d '\r' | tr '\n' ' ')" \
	"L1/<kernel>=200/$((200 * 2003 * 30)) L1/struct item.key=150/$((150 * 2003 * 90)) L1/struct item.next=150/$((150 * 2003 * 90)) "
check_eq "IBS op at the fields: --by memlevel,field" \
	"$(awk -F, 'NR > 1 { print $2 "/" $3 "=" $7 "/" $10 }' fibs.csv | tr -d '\r' | tr '\n' ' ')" \
	"local DRAM/struct item.key=100/$((100 * 100000 * 300)) remote DRAM/struct item.next=60/$((60 * 100000 * 500)) L1/struct item.next=40/0 remote cache/struct item.key=40/$((40 * 100000 * 150)) "
check_eq "SPE at the fields: --by memlevel,field" \
	"$(awk -F, 'NR > 1 { print $2 "/" $3 "=" $7 "/" $10 }' fspe.csv | tr -d '\r' | tr '\n' ' ')" \
	"local DRAM/struct item.key=100/$((100 * 1024 * 300)) remote cache/struct item.next=60/$((60 * 1024 * 500)) <unknown>/struct item.next=40/0 L2/struct item.key=40/$((40 * 1024 * 150)) "
"$DSPROF" report -i fibs -v dataobjects -f csv 2>/dev/null >fibs-do.csv
check_eq "IBS: dataobjects, struct item.key's samples and memory cycles" \
	"$(csv_lookup fibs-do.csv name 'struct item.key' 'samples:ibs_op//')/$(csv_lookup fibs-do.csv name 'struct item.key' 'count:latency:ibs_op//')" \
	"140/$((100 * 100000 * 300 + 40 * 100000 * 150))"
# memory time per row: the average latency of an access that has one (the
# stores of IBS and SPE have none), and the levels its cycles came from
check_eq "IBS: dataobjects, struct item.key's average latency (100 x 300 + 40 x 150) / 140" \
	"$(csv_lookup fibs-do.csv name 'struct item.key' 'avg_latency:ibs_op//')" 257
check_eq "IBS: dataobjects, where struct item.key's cycles came from" \
	"$(csv_lookup fibs-do.csv name 'struct item.key' 'latency_from:ibs_op//')" "83% local DRAM; 17% remote cache"
check_eq "IBS: dataobjects, struct item.next's loads: its stores do not lower the average" \
	"$(csv_lookup fibs-do.csv name 'struct item.next' 'avg_latency:ibs_op//')" 500
check_eq "IBS: dataobjects, the type's row over both fields" \
	"$(csv_lookup fibs-do.csv name 'struct item' 'avg_latency:ibs_op//')/$(csv_lookup fibs-do.csv name 'struct item' 'latency_from:ibs_op//')" \
	"330/45% local DRAM; 45% remote DRAM; 9% remote cache"
"$DSPROF" report -i fibs -v datalayout -f csv 2>/dev/null >fibs-dl.csv
check_eq "IBS: datalayout, each member's memory time" \
	"$(awk -F, '$3 == "member" && $6 <= 8 { print $1 "=" $11 "/" $12 }' fibs-dl.csv | tr '\n' ' ')" \
	"next=500/100% remote DRAM key=257/83% local DRAM; 17% remote cache "
"$DSPROF" report -i fibs -v hotlines -f csv 2>/dev/null >fibs-hl.csv
check_eq "IBS: hotlines, the line two threads share: its loads' memory time" \
	"$(awk -F, '$3 == "line" && $4 == "0x5555cafe0080" { print $15 "/" $16 }' fibs-hl.csv)" "150/100% remote cache"
"$DSPROF" report -i fibs -v sharing -f csv 2>/dev/null >fibs-sh.csv
check_eq "IBS: sharing, each thread's memory time on the line" \
	"$(awk -F, '$3 == "thread" { print $(NF - 5) "/" $(NF - 4) }' fibs-sh.csv | tr '\n' ' ')" \
	"150/100% remote cache 150/100% remote cache "
"$DSPROF" report -i fibs -v sharing 2>/dev/null >fibs-sh.txt
check_contains "IBS: sharing, the line's memory time" fibs-sh.txt '^ .*0x5555cafe0080 .* 150  *100% remote cache *$'
"$DSPROF" report -i fibs --machine "$TOP/docs/machines/amd-k8.machine" -v memobj:L1D_line -f csv 2>/dev/null >fibs-mo.csv
check_eq "IBS: memobj:L1D_line, a line's memory time" \
	"$(awk -F, '$1 == "0x5555cafe0040" { print $4 "/" $5 }' fibs-mo.csv)" "500/100% remote DRAM"
check_eq "IBS: a code view (functions) has where the cycles came from too" \
	"$("$DSPROF" report -i fibs -f csv 2>/dev/null | awk -F, '$1 == "walk" { print $4 "/" $5 }')" \
	"330/45% local DRAM; 45% remote DRAM; 9% remote cache"
"$DSPROF" report -i fspe --by field,memlevel -f csv 2>/dev/null >fspe-by.csv
check_eq "SPE: --by field,memlevel, each row's own memory time (a store row has none)" \
	"$(awk -F, 'NR > 1 { print $2 "/" $4 "=" $5 "/" $6 }' fspe-by.csv | tr '\n' ' ')" \
	"struct item.key/local DRAM=300/100% local DRAM struct item.key/L2=150/100% L2 struct item.next/remote cache=500/100% remote cache struct item.next/<unknown>=/ "
"$DSPROF" report -i fspe -v hotlines -f csv 2>/dev/null >fspe-hl.csv
check_eq "SPE: hotlines, the DRAM line's data object" \
	"$(awk -F, '$3 == "line" && $4 == "0x5555cafe0000" { print $6 }' fspe-hl.csv)" 100
check_eq "SPE: hotlines, the DRAM line's object is struct item.key" \
	"$(awk -F, '$3 == "object" && $4 == "0x5555cafe0000" { print $1 "=" $6 }' fspe-hl.csv)" "struct item.key=100"
"$DSPROF" report -i fspe -v sharing -f csv 2>/dev/null >fspe-sh.csv
check_eq "SPE: sharing, each thread's fields on the line" \
	"$(awk -F, '$3 == "thread" { print $7 ":" $12 }' fspe-sh.csv | tr '\n' ' ')" "42:key 0-7 (20480) 43:key 32-39 (20480) "

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
