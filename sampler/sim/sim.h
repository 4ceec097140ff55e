/*
 * The dsprofsim Valgrind tool: declarations shared by its files.
 *
 *   sim_main.c    the tool's life: options, instrumentation, threads,
 *                 processes, mappings
 *   sim_model.c   the memory model: caches, coherence, events, samples
 *   sim_sched.c   the order threads run in, the same on every run
 *   sim_stream.c  the per-process stream of perf records
 *   sim_heap.c    the client's allocator, replaced, and its heap file
 *                 (record --heap)
 *
 * Built against Valgrind's headers and static libraries only (no libc):
 * everything goes through VG_(...).  docs/simulator.md is the design.
 */
#ifndef DSPROF_SIM_H
#define DSPROF_SIM_H

#include "pub_tool_basics.h"

#include "sim_proto.h"

/* ---- the model (sim_model.c) ---- */

/* One cache level's geometry. */
typedef struct sim_geom {
	ULong size;
	UInt ways;
	UInt line;
} sim_geom;

/* The configuration dsprof asked for. */
typedef struct sim_config {
	sim_geom l1, l2, llc;   /* l2/llc size 0: the level does not exist */
	ULong period[SIM_NEVENTS]; /* 0: the event is not recorded */
	UInt slot[SIM_NEVENTS];    /* its index in the recording's event list */
	Bool callchain;
	ULong lat[SIM_NLAT];       /* cycles, by enum sim_lat */
} sim_config;

typedef struct sim_thread sim_thread;

void sim_model_init(const sim_config *c, Int pid);
/* A new simulated core for a thread: private caches, clock at `clock`. */
sim_thread *sim_thread_new(ThreadId vgtid, Int lwp, ULong clock);
void sim_thread_free(sim_thread *t);
/* The thread ends: the lines in its L1 leave it (sim:L1D_EVICT). */
void sim_thread_end(sim_thread *t);
/* The thread Valgrind runs now; the access helpers charge it. */
void sim_set_current(sim_thread *t);
sim_thread *sim_current(void);
ULong sim_thread_clock(const sim_thread *t);
void sim_thread_set_clock(sim_thread *t, ULong clock);
Int sim_thread_lwp(const sim_thread *t);
/* The process became multi-threaded: coherence is tracked from now on,
 * for these threads and the ones made later. */
void sim_enable_coherence(sim_thread **threads, UInt n);
/* In a forked child: its own totals, its one thread, no coherence yet. */
void sim_model_after_fork(sim_thread *survivor, Int child_pid);
void sim_model_stats(struct sim_rec_stats *s);

/* The helpers the instrumentation calls for a load, a store and a
 * read-modify-write: addr, and the instruction's address and access size
 * packed as pc << 16 | size.  Which ones depends on the recording (with
 * sim:L1D_EVICT, ones that also mark the bytes used, so that the others
 * pay nothing for it): valid after sim_model_init. */
typedef struct sim_helper {
	const HChar *name;
	void *fn;
} sim_helper;
enum sim_access { SIM_LOAD, SIM_STORE, SIM_MODIFY, SIM_NACCESS };
const sim_helper *sim_model_helper(enum sim_access kind);
#define SIM_PACK(pc, size) (((UWord)(pc) << 16) | (UWord)(size))

/* ---- the schedule (sim_sched.c) ---- */

/* Set by a superblock that ends in a yield (a spin loop's `pause`). */
extern Int sim_paused;

/* A thread made by parent (VG_INVALID_THREADID: the first one). */
void sim_sched_thread_new(ThreadId parent, ThreadId child);
void sim_sched_thread_exit(ThreadId tid);
void sim_sched_pre_syscall(ThreadId tid, UInt no, const UWord *args);
void sim_sched_post_syscall(ThreadId tid);
/* tid is about to run client code: whether it is its turn (else it runs
 * none and gives the lock back). */
Bool sim_sched_may_run(ThreadId tid);
/* tid stopped running client code. */
void sim_sched_stopped(ThreadId tid);
/* In a forked child: one thread, no turns. */
void sim_sched_after_fork(ThreadId survivor);

/* ---- the stream (sim_stream.c) ---- */

/* Open DIR/PID.stream for appending; False when it cannot be opened. */
Bool sim_stream_open(const HChar *dir, Int pid);
void sim_stream_close(void);
/* Write out what is buffered (the file stays open). */
void sim_stream_flush(void);
/* Whether the last flush is older than a moment: then the caller writes
 * its statistics and flushes, so that dsprof shows progress and a hard
 * kill loses little. */
Bool sim_stream_due(void);

/* Records.  `time` is the logical clock; pid/tid are the OS's ids.  A
 * sample with a chain carries the stack pointer sp too. */
void sim_emit_sample(UInt slot, Int pid, Int tid, ULong time, Addr ip, Addr addr, ULong period,
		     ULong weight, ULong data_src, const Addr *chain, UInt nchain, Addr sp);
void sim_emit_comm(Int pid, Int tid, ULong time, const HChar *comm, Bool exec);
void sim_emit_mmap2(Int pid, Int tid, ULong time, Addr start, ULong len, ULong pgoff, ULong dev,
		    ULong ino, UInt prot, Bool shared, const HChar *filename);
void sim_emit_task(UInt type, Int pid, Int ppid, Int tid, Int ptid, ULong time);
void sim_emit_stats(const struct sim_rec_stats *s);

/* ---- the process (sim_main.c) ---- */

/* The logical time of thread tid now, and its OS thread id (the
 * process's latest time, and its pid, for VG_INVALID_THREADID). */
ULong sim_time_of(ThreadId tid);
Int sim_lwp_of(ThreadId tid);

/* ---- the heap (sim_heap.c) ---- */

/* With $DSPROF_SIM_HEAP (a folder), replace the client's allocator and
 * record its blocks there; else nothing (the client's allocator runs, as
 * simulated code). */
void sim_heap_pre_clo_init(void);
void sim_heap_post_clo_init(void);
Bool sim_heap_tracking(void);
/* Start the process image's heap file (at start, in a fork's child). */
Bool sim_heap_open(Int pid, Bool forked, ULong start);
/* Write out what is buffered (before a fork or an exec). */
void sim_heap_flush(void);
/* The process exits: its exit record, then everything. */
void sim_heap_exit(ThreadId tid);
/* Thread tid execs: an end record (the image's records are all there),
 * then everything. */
void sim_heap_exec(ThreadId tid);

#endif
