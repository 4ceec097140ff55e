/*
 * dsprofsim: dsprof's simulated PMU, as a Valgrind tool.
 *
 * Every data access of the client goes through the memory model
 * (sim_model.c), which counts the simulated events and samples every
 * period-th one into the process's stream (sim_stream.c), together with
 * the side-band records a profile needs: the client's file mappings (from
 * Valgrind's address-space manager, at start-up and at every mmap), its
 * name, and the birth and death of its threads and processes.
 *
 * Valgrind runs each forked child with a copy of this tool's state, so a
 * child opens its own stream; an exec starts a new Valgrind (with
 * --trace-children=yes), which continues the logical clock from a hand-off
 * file the old one left.  dsprof (sampler/sim.c) starts the tool and reads
 * the streams; docs/simulator.md describes both.
 */
#include "sim.h"

#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

/* ---- options ---- */

static const HChar *opt_dir;
static const HChar *opt_events;
static const HChar *opt_cache;
static Bool opt_callchain = True;
static const HChar *opt_latency;
static sim_config cfg = {.lat = SIM_LAT_DEFAULTS};

/* "N/PERIOD,..." into cfg.period and cfg.slot. */
static Bool parse_events(const HChar *s)
{
	UInt slot = 0;

	while (*s) {
		HChar *end;
		Long ev = VG_(strtoll10)(s, &end);
		ULong period;
		if (end == s || *end != '/' || ev < 0 || ev >= SIM_NEVENTS)
			return False;
		s = end + 1;
		period = VG_(strtoull10)(s, &end);
		if (end == s || period == 0 || (*end && *end != ','))
			return False;
		cfg.period[ev] = period;
		cfg.slot[ev] = slot++;
		s = *end ? end + 1 : end;
	}
	return slot > 0;
}

/* "SIZE:WAYS:LINE" after the level's name. */
static Bool parse_geom(const HChar *s, HChar **end, sim_geom *g)
{
	HChar *e;
	g->size = VG_(strtoull10)(s, &e);
	if (*e != ':')
		return False;
	g->ways = (UInt)VG_(strtoull10)(e + 1, &e);
	if (*e != ':')
		return False;
	g->line = (UInt)VG_(strtoull10)(e + 1, &e);
	*end = e;
	/* the model finds lines with a shift */
	return g->ways > 0 && g->ways <= 1024 && g->line >= 8 && VG_(log2)(g->line) >= 0 &&
	       g->size % ((ULong)g->line * g->ways) == 0 && g->size / g->line / g->ways > 0;
}

/* "L1D:S:W:L,L2:S:W:L,L3:S:W:L" (L2 and L3 optional). */
static Bool parse_cache(const HChar *s)
{
	while (*s) {
		HChar *end;
		sim_geom *g;
		if (VG_(strncmp)(s, "L1D:", 4) == 0)
			g = &cfg.l1;
		else if (VG_(strncmp)(s, "L2:", 3) == 0)
			g = &cfg.l2;
		else if (VG_(strncmp)(s, "L3:", 3) == 0)
			g = &cfg.llc;
		else
			return False;
		s = VG_(strchr)(s, ':') + 1;
		if (!parse_geom(s, &end, g) || (*end && *end != ','))
			return False;
		s = *end ? end + 1 : end;
	}
	return cfg.l1.size > 0;
}

/* "L1,L2,LLC,HITM,RAM" cycles into cfg.lat. */
static Bool parse_latency(const HChar *s)
{
	for (UInt i = 0; i < SIM_NLAT; i++) {
		HChar *end;
		ULong v = VG_(strtoull10)(s, &end);
		if (end == s || v == 0 || v > 100000 || (i + 1 < SIM_NLAT ? *end != ',' : *end != 0))
			return False;
		cfg.lat[i] = v;
		s = end + (i + 1 < SIM_NLAT);
	}
	return True;
}

static Bool process_option(const HChar *arg)
{
	if (VG_STR_CLO(arg, "--dsprof-dir", opt_dir)) {
	} else if (VG_STR_CLO(arg, "--dsprof-events", opt_events)) {
		if (!parse_events(opt_events))
			VG_(fmsg_bad_option)(arg, "expected EVENT/PERIOD,... with events 0-%d\n",
					     SIM_NEVENTS - 1);
	} else if (VG_STR_CLO(arg, "--dsprof-cache", opt_cache)) {
		if (!parse_cache(opt_cache))
			VG_(fmsg_bad_option)(arg, "expected L1D:SIZE:WAYS:LINE[,L2:...][,L3:...] with "
					     "power-of-two lines and whole sets\n");
	} else if (VG_STR_CLO(arg, "--dsprof-latency", opt_latency)) {
		if (!parse_latency(opt_latency))
			VG_(fmsg_bad_option)(arg, "expected L1,L2,LLC,HITM,RAM: five latencies in cycles\n");
	} else if (VG_BOOL_CLO(arg, "--dsprof-callchain", opt_callchain)) {
	} else {
		return False;
	}
	return True;
}

static void print_usage(void)
{
	VG_(printf)("    --dsprof-dir=DIR             where the streams go (required)\n"
		    "    --dsprof-events=N/PERIOD,... events to sample (required)\n"
		    "    --dsprof-cache=L1D:S:W:L,... cache geometry (required)\n"
		    "    --dsprof-callchain=yes|no    record call chains [yes]\n"
		    "    --dsprof-latency=L1,L2,LLC,HITM,RAM  cycles of each level [4,14,40,100,200]\n");
}

static void print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

/* ---- the process ---- */

static Int pid;
static UInt generation;
static sim_thread **threads;      /* by Valgrind ThreadId */
static ULong *born_clock;         /* by ThreadId: the clock a new thread starts at */
static Int *born_parent;          /* by ThreadId: its creator's lwp, 0 for none */
static ULong start_clock;         /* the clock when this Valgrind started */
static ULong exited_clock;        /* the latest clock of a thread that ended */
static Bool *woken;               /* by ThreadId: back from a futex wait, not yet run */

/* The latest time any thread of the process has reached. */
static ULong frontier(void)
{
	ULong max = exited_clock > start_clock ? exited_clock : start_clock;
	for (UInt i = 0; i < VG_N_THREADS; i++)
		if (threads[i] && sim_thread_clock(threads[i]) > max)
			max = sim_thread_clock(threads[i]);
	return max;
}

static ULong now(void)
{
	sim_thread *t = sim_current();
	return t ? sim_thread_clock(t) : frontier();
}

ULong sim_time_of(ThreadId tid)
{
	return tid < VG_N_THREADS && threads[tid] ? sim_thread_clock(threads[tid]) : frontier();
}

Int sim_lwp_of(ThreadId tid)
{
	return tid < VG_N_THREADS && threads[tid] ? sim_thread_lwp(threads[tid]) : pid;
}

/* The time of a mapping: no later than any thread's clock, so that every
 * access made after it in Valgrind's order, by any thread, comes after it
 * in logical time too. */
static ULong mapping_time(void)
{
	ULong min = now();
	for (UInt i = 0; i < VG_N_THREADS; i++)
		if (threads[i] && sim_thread_clock(threads[i]) < min)
			min = sim_thread_clock(threads[i]);
	return min;
}

static void emit_stats(Bool final)
{
	struct sim_rec_stats s;

	VG_(memset)(&s, 0, sizeof s);
	s.header.type = SIM_REC_STATS;
	s.header.size = sizeof s;
	s.pid = (UInt)pid;
	s.generation = generation;
	s.final = final;
	sim_model_stats(&s);
	sim_emit_stats(&s);
}

static void exec_handoff_path(HChar *buf, SizeT n)
{
	VG_(snprintf)(buf, (Int)n, "%s/%d.exec", opt_dir, pid);
}

/* The clock and generation a previous Valgrind of this process left
 * before it exec'd us; 0 when we are the first. */
static ULong take_handoff(void)
{
	HChar path[VKI_PATH_MAX];
	struct sim_exec_handoff h;
	SysRes r;
	Int n;

	exec_handoff_path(path, sizeof path);
	r = VG_(open)(path, VKI_O_RDONLY, 0);
	if (sr_isError(r))
		return 0;
	n = VG_(read)((Int)sr_Res(r), &h, sizeof h);
	VG_(close)((Int)sr_Res(r));
	VG_(unlink)(path);
	if (n != sizeof h || h.magic != SIM_EXEC_MAGIC)
		return 0;
	generation = h.generation + 1;
	return h.clock + 1;
}

static void leave_handoff(void)
{
	HChar path[VKI_PATH_MAX];
	struct sim_exec_handoff h = {SIM_EXEC_MAGIC, now(), generation, 0};
	SysRes r;

	exec_handoff_path(path, sizeof path);
	r = VG_(open)(path, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC, 0600);
	if (sr_isError(r))
		return;
	VG_(write)((Int)sr_Res(r), &h, sizeof h);
	VG_(close)((Int)sr_Res(r));
}

/* ---- mappings ---- */

/* MMAP2 records for the client's mappings in [a, a+len). */
static void report_mappings(Addr a, SizeT len)
{
	Addr end = a + len;

	while (a < end) {
		NSegment const *seg = VG_(am_find_nsegment)(a);
		const HChar *name = NULL;
		Addr stop;
		UInt prot;

		if (!seg)
			break;
		stop = seg->end + 1 < end ? seg->end + 1 : end;
		if (seg->kind == SkFileC)
			name = VG_(am_get_filename)(seg);
		else if (seg->kind == SkAnonC || seg->kind == SkShmC)
			name = "//anon";
		if (name) {
			prot = (seg->hasR ? VKI_PROT_READ : 0) | (seg->hasW ? VKI_PROT_WRITE : 0) |
			       (seg->hasX ? VKI_PROT_EXEC : 0);
			sim_emit_mmap2(pid, pid, mapping_time(), a, stop - a,
				       seg->kind == SkFileC ? (ULong)seg->offset + (a - seg->start) : 0,
				       seg->dev, seg->ino, prot, seg->kind == SkShmC, name);
		}
		a = stop;
	}
}

static void new_mem_startup(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
	report_mappings(a, len);
}

static void new_mem_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
	report_mappings(a, len);
}

/* ---- threads ---- */

static void thread_created(ThreadId parent, ThreadId child)
{
	sim_thread *p = parent == VG_INVALID_THREADID ? NULL : threads[parent];

	sim_sched_thread_new(parent, child);
	/* the main thread is created without a parent, before it runs */
	if (!p)
		return;
	born_clock[child] = sim_thread_clock(p);
	born_parent[child] = sim_thread_lwp(p);
	/* a second thread: from now on threads share lines */
	sim_enable_coherence(threads, VG_N_THREADS);
}

/* The first time a thread runs: it gets its core. */
static sim_thread *thread_start(ThreadId tid)
{
	Int lwp = VG_(gettid)();
	sim_thread *t = sim_thread_new(tid, lwp, born_clock[tid]);

	threads[tid] = t;
	if (born_parent[tid])
		sim_emit_task(PERF_RECORD_FORK, pid, pid, lwp, born_parent[tid], born_clock[tid]);
	born_parent[tid] = 0;
	return t;
}

static void start_client_code(ThreadId tid, ULong blocks)
{
	sim_thread *t = threads[tid];

	if (!t)
		t = thread_start(tid);
	if (sim_sched_may_run(tid) && woken[tid]) {
		/* woken by another thread: whatever it did before waking us
		 * happened before what we do next */
		ULong f = frontier();
		if (f > sim_thread_clock(t))
			sim_thread_set_clock(t, f);
		woken[tid] = False;
	}
	sim_set_current(t);
	if (sim_stream_due()) {
		emit_stats(False);
		sim_stream_flush();
	}
}

static void stop_client_code(ThreadId tid, ULong blocks)
{
	sim_sched_stopped(tid);
}

static void thread_exit(ThreadId tid)
{
	sim_thread *t = threads[tid];

	sim_sched_thread_exit(tid);
	woken[tid] = False;
	if (!t)
		return;
	if (sim_thread_clock(t) > exited_clock)
		exited_clock = sim_thread_clock(t);
	sim_thread_end(t);
	sim_emit_task(PERF_RECORD_EXIT, pid, pid, sim_thread_lwp(t), sim_thread_lwp(t), sim_thread_clock(t));
	sim_thread_free(t);
	threads[tid] = NULL;
}

/* ---- system calls ---- */

static Bool futex_waits(UWord op)
{
	switch (op & 0x7f) { /* FUTEX_CMD_MASK */
	case 0:  /* FUTEX_WAIT */
	case 6:  /* FUTEX_LOCK_PI */
	case 9:  /* FUTEX_WAIT_BITSET */
	case 11: /* FUTEX_WAIT_REQUEUE_PI */
	case 13: /* FUTEX_LOCK_PI2 */
		return True;
	}
	return False;
}

static void pre_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs)
{
	sim_sched_pre_syscall(tid, no, args);
	if (no == __NR_execve || no == __NR_execveat) {
		/* the next Valgrind goes on from here; if exec fails, the
		 * hand-off is taken back after the call */
		emit_stats(False);
		sim_stream_flush();
		sim_heap_exec(tid);
		leave_handoff();
	}
}

static void post_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs, SysRes res)
{
	sim_thread *t = threads[tid];

	sim_sched_post_syscall(tid);
	if (no == __NR_execve || no == __NR_execveat) {
		HChar path[VKI_PATH_MAX];
		exec_handoff_path(path, sizeof path);
		VG_(unlink)(path);
	} else if (no == __NR_futex && t && !sr_isError(res) && futex_waits(args[1])) {
		/* its clock moves on when it runs again: by then the threads
		 * have run as the schedule says, however late it got back */
		woken[tid] = True;
	} else if (no == __NR_prctl && t && !sr_isError(res) && args[0] == VKI_PR_SET_NAME) {
		HChar name[17];
		VG_(memset)(name, 0, sizeof name);
		if (VG_(am_is_valid_for_client)(args[1], 16, VKI_PROT_READ))
			VG_(memcpy)(name, (const void *)args[1], 16);
		sim_emit_comm(pid, sim_thread_lwp(t), sim_thread_clock(t), name, False);
	}
}

/* ---- fork ---- */

static void fork_pre(ThreadId tid)
{
	sim_stream_flush();
	sim_heap_flush();
}

static void fork_child(ThreadId tid)
{
	Int parent = pid, parent_lwp = threads[tid] ? sim_thread_lwp(threads[tid]) : pid;

	pid = VG_(getpid)();
	generation = 0;
	sim_stream_close();
	if (!sim_stream_open(opt_dir, pid))
		VG_(umsg)("dsprofsim: cannot open the stream of process %d in %s\n", pid, opt_dir);
	/* only the forking thread lives on in the child */
	for (UInt i = 0; i < VG_N_THREADS; i++)
		if (threads[i] && i != tid) {
			sim_thread_free(threads[i]);
			threads[i] = NULL;
		}
	if (threads[tid]) {
		sim_model_after_fork(threads[tid], pid);
		sim_set_current(threads[tid]);
	}
	sim_sched_after_fork(tid);
	sim_emit_task(PERF_RECORD_FORK, pid, parent, pid, parent_lwp, now());
	if (!sim_heap_open(pid, True, now()))
		VG_(umsg)("dsprofsim: cannot open the heap file of process %d\n", pid);
}

/* ---- instrumentation ---- */

static IRDirty *add_call(IRSB *sb, const HChar *name, void *fn, IRExpr *addr, Addr pc, Int size,
			 IRExpr *guard)
{
	IRExpr **args = mkIRExprVec_2(addr, mkIRExpr_HWord(SIM_PACK(pc, size)));
	IRDirty *d = unsafeIRDirty_0_N(2, name, VG_(fnptr_to_fnentry)(fn), args);

	/* the largest access on amd64 (xsave's area) is a few KiB */
	tl_assert(size > 0 && size <= 0xffff);
	if (guard)
		d->guard = guard;
	addStmtToIRSB(sb, IRStmt_Dirty(d));
	return d;
}

#define CALL(sb, kind, addr, pc, size, guard) \
	add_call(sb, sim_model_helper(kind)->name, sim_model_helper(kind)->fn, addr, pc, size, guard)

static IRSB *instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			const VexGuestExtents *vge, const VexArchInfo *archinfo, IRType gword,
			IRType hword)
{
	IRSB *out = deepCopyIRSBExceptStmts(in);
	IRTypeEnv *tyenv = in->tyenv;
	Addr pc = 0;
	/* the instruction's last load, which a store or a compare-and-swap
	 * to the same place turns into a read-modify-write (one access, as
	 * Cachegrind has it) */
	IRDirty *load = NULL;
	IRExpr *load_addr = NULL;
	Int load_size = 0;

	for (Int i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];
		IRDirty *last = NULL;

		switch (st->tag) {
		case Ist_IMark:
			pc = (Addr)st->Ist.IMark.addr;
			break;
		case Ist_WrTmp:
			if (st->Ist.WrTmp.data->tag == Iex_Load) {
				IRExpr *e = st->Ist.WrTmp.data;
				Int size = sizeofIRType(e->Iex.Load.ty);
				last = CALL(out, SIM_LOAD, e->Iex.Load.addr, pc, size, NULL);
				load_addr = e->Iex.Load.addr;
				load_size = size;
			}
			break;
		case Ist_Store: {
			Int size = sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Store.data));
			if (load && load_size == size && eqIRAtom(load_addr, st->Ist.Store.addr)) {
				load->cee = mkIRCallee(2, sim_model_helper(SIM_MODIFY)->name,
						      VG_(fnptr_to_fnentry)(sim_model_helper(SIM_MODIFY)->fn));
				break;
			}
			CALL(out, SIM_STORE, st->Ist.Store.addr, pc, size, NULL);
			break;
		}
		case Ist_StoreG: {
			IRStoreG *sg = st->Ist.StoreG.details;
			CALL(out, SIM_STORE, sg->addr, pc, sizeofIRType(typeOfIRExpr(tyenv, sg->data)), sg->guard);
			break;
		}
		case Ist_LoadG: {
			IRLoadG *lg = st->Ist.LoadG.details;
			IRType ty = Ity_INVALID, wide = Ity_INVALID;
			typeOfIRLoadGOp(lg->cvt, &wide, &ty);
			CALL(out, SIM_LOAD, lg->addr, pc, sizeofIRType(ty), lg->guard);
			break;
		}
		case Ist_CAS: {
			IRCAS *cas = st->Ist.CAS.details;
			Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo)) * (cas->dataHi ? 2 : 1);
			/* a locked add, xadd or xchg is a load and a CAS of what
			 * it loaded: one read-modify-write */
			if (load && load_size == size && eqIRAtom(load_addr, cas->addr)) {
				load->cee = mkIRCallee(2, sim_model_helper(SIM_MODIFY)->name,
						      VG_(fnptr_to_fnentry)(sim_model_helper(SIM_MODIFY)->fn));
				break;
			}
			CALL(out, SIM_MODIFY, cas->addr, pc, size, NULL);
			break;
		}
		case Ist_LLSC:
			if (st->Ist.LLSC.storedata)
				CALL(out, SIM_STORE, st->Ist.LLSC.addr, pc,
				     sizeofIRType(typeOfIRExpr(tyenv, st->Ist.LLSC.storedata)), NULL);
			else
				CALL(out, SIM_LOAD, st->Ist.LLSC.addr, pc,
				     sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)), NULL);
			break;
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;
			if (d->mFx == Ifx_Read)
				CALL(out, SIM_LOAD, d->mAddr, pc, d->mSize, NULL);
			else if (d->mFx == Ifx_Write)
				CALL(out, SIM_STORE, d->mAddr, pc, d->mSize, NULL);
			else if (d->mFx == Ifx_Modify)
				CALL(out, SIM_MODIFY, d->mAddr, pc, d->mSize, NULL);
			break;
		}
		default:
			break;
		}
		/* a load pairs only with a store or a compare-and-swap right
		 * after it in the same instruction */
		if (st->tag == Ist_IMark || st->tag == Ist_Exit || st->tag == Ist_Store || st->tag == Ist_StoreG ||
		    st->tag == Ist_LoadG || st->tag == Ist_CAS || st->tag == Ist_LLSC ||
		    st->tag == Ist_Dirty || last)
			load = last;
		addStmtToIRSB(out, st);
	}
	/* a spin loop's pause: its turn ends soon (sim_sched.c) */
	if (in->jumpkind == Ijk_Yield)
		addStmtToIRSB(out, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&sim_paused),
						IRExpr_Const(IRConst_U32(1))));
	return out;
}

/* ---- start and end ---- */

static void post_clo_init(void)
{
	HChar exe[VKI_PATH_MAX];
	ULong clock;

	if (!opt_dir || !opt_events || !opt_cache)
		VG_(fmsg_bad_option)("--dsprof-dir, --dsprof-events and --dsprof-cache",
				     "dsprofsim is started by 'dsprof record --sim', which gives them\n");
	cfg.callchain = opt_callchain;
	pid = VG_(getpid)();
	if (!sim_stream_open(opt_dir, pid))
		VG_(fmsg_bad_option)("--dsprof-dir", "cannot create a stream in '%s'\n", opt_dir);
	threads = VG_(calloc)("sim.threads", VG_N_THREADS, sizeof *threads);
	born_clock = VG_(calloc)("sim.born", VG_N_THREADS, sizeof *born_clock);
	born_parent = VG_(calloc)("sim.born", VG_N_THREADS, sizeof *born_parent);
	woken = VG_(calloc)("sim.woken", VG_N_THREADS, sizeof *woken);
	clock = start_clock = take_handoff();
	born_clock[1] = clock;
	sim_model_init(&cfg, pid);
	sim_heap_post_clo_init();
	if (!sim_heap_open(pid, False, clock))
		VG_(fmsg_bad_option)("DSPROF_SIM_HEAP", "cannot create a heap file in '%s'\n",
				     VG_(getenv)("DSPROF_SIM_HEAP"));
	VG_(client_fname)(exe, sizeof exe, True);
	sim_emit_comm(pid, pid, clock, VG_(basename)(exe), True);
}

static void fini(Int exitcode)
{
	sim_heap_exit(VG_INVALID_THREADID);
	for (UInt i = 0; i < VG_N_THREADS; i++)
		thread_exit((ThreadId)i);
	emit_stats(True);
	sim_stream_close();
}

static void pre_clo_init(void)
{
	VG_(details_name)("dsprofsim");
	VG_(details_version)(NULL);
	VG_(details_description)("dsprof's simulated PMU");
	VG_(details_copyright_author)("dsprof");
	VG_(details_bug_reports_to)("the dsprof project");
	VG_(details_avg_translation_sizeB)(500);

	VG_(basic_tool_funcs)(post_clo_init, instrument, fini);
	VG_(needs_command_line_options)(process_option, print_usage, print_debug_usage);
	VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
	VG_(track_new_mem_startup)(new_mem_startup);
	VG_(track_new_mem_mmap)(new_mem_mmap);
	VG_(track_start_client_code)(start_client_code);
	VG_(track_stop_client_code)(stop_client_code);
	VG_(track_pre_thread_ll_create)(thread_created);
	VG_(track_pre_thread_ll_exit)(thread_exit);
	VG_(atfork)(fork_pre, NULL, fork_child);
	sim_heap_pre_clo_init();
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
