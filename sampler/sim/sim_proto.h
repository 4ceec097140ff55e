/*
 * The simulator's protocol: what dsprof (sampler/sim.c) tells the Valgrind
 * tool on its command line, and the stream the tool writes back.
 *
 * Both sides include this header; the tool is built without libc, so it
 * holds only constants and plain structs (<linux/perf_event.h> is types and
 * macros only).  docs/simulator.md describes the stream.
 *
 * A stream is one file per process, DIR/PID.stream, appended to by every
 * Valgrind instance that runs as that process (the first one, then one per
 * exec).  It is a sequence of perf_event_header-framed records: perf
 * records (SAMPLE, MMAP2, COMM, FORK, EXIT) laid out exactly as perf.data
 * wants them for the attrs below, which dsprof copies untouched, and
 * records of the private types below, which dsprof consumes.
 */
#ifndef DSPROF_SIM_PROTO_H
#define DSPROF_SIM_PROTO_H

#include <linux/perf_event.h>

#define SIM_TOOL "dsprofsim"

/* The simulated events.  Their order is the protocol's event number. */
enum sim_event {
	SIM_EV_LOADS,
	SIM_EV_STORES,
	SIM_EV_L1D_MISS,
	SIM_EV_L2_MISS,
	SIM_EV_LLC_MISS,
	SIM_EV_HITM,
	SIM_EV_INVAL,
	SIM_EV_MEM_CYCLES,
	SIM_EV_L1D_EVICT,
	SIM_NEVENTS
};

/* perf_event_attr of a simulated event: PERF_TYPE_RAW with this config,
 * precise_ip 3 (the sample's IP is the access itself). */
#define SIM_RAW_CONFIG(ev) (0x5d0000ull + (unsigned long long)(ev))

/* Sample ids: the N-th event of the recording (in dsprof's order) has id
 * SIM_ID(N).  Side-band records carry the id of event 0. */
#define SIM_ID(n) (0x5d0000000ull + (unsigned long long)(n))

/* Every sample carries these fields (with call chains, CALLCHAIN too). */
#define SIM_SAMPLE_TYPE                                                                       \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |        \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT |        \
	 PERF_SAMPLE_DATA_SRC)

/* With call chains, REGS_USER too: the stack pointer and the IP at the
 * access (perf's amd64 numbers 7 and 8, so written in that order), from
 * which analysis tells the frame that holds an address in the stack. */
#define SIM_REGS_USER ((1ull << 7) | (1ull << 8))

/* Deepest call chain the tool records (frames, the sample's IP included). */
#define SIM_MAX_STACK 128

/* Latencies, in cycles, that samples carry as their weight (and
 * sim:MEM_CYCLES counts): by default a typical modern x86 core's
 * load-to-use latency for the level that served the access; a machine
 * model file may give its own (--dsprof-latency).  They rank accesses;
 * they do not time the program. */
enum sim_lat { SIM_LAT_L1, SIM_LAT_L2, SIM_LAT_LLC, SIM_LAT_HITM, SIM_LAT_RAM, SIM_NLAT };
#define SIM_LAT_DEFAULTS {4, 14, 40, 100, 200}

/* ---- the tool's options (all given by dsprof) ----
 * --dsprof-dir=DIR        where the streams go
 * --dsprof-events=E/P,... event numbers and periods, in the recording's order
 * --dsprof-cache=L1D:SIZE:WAYS:LINE,L2:...,LLC:...  the geometry (L2 and LLC optional)
 * --dsprof-callchain=yes|no
 * --dsprof-latency=L1,L2,LLC,HITM,RAM  cycles (default SIM_LAT_DEFAULTS)
 */

/* ---- private records ---- */

/* Totals of one Valgrind instance so far; written now and then and when
 * the instance ends (`final` set).  A process that execs continues in a
 * new instance with the next `generation`. */
#define SIM_REC_STATS 0x5d01

struct sim_rec_stats {
	struct perf_event_header header;
	unsigned int pid;
	unsigned int generation;
	unsigned long long accesses;     /* data accesses simulated */
	unsigned long long count[SIM_NEVENTS]; /* events, exact */
	unsigned long long final;
};

/* Handed from an instance that execs to the next one, as DIR/PID.exec:
 * the logical clock goes on and the generation grows. */
struct sim_exec_handoff {
	unsigned long long magic;
	unsigned long long clock;
	unsigned int generation;
	unsigned int pad;
};
#define SIM_EXEC_MAGIC 0x646570726f6673ull

#endif
