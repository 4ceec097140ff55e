/*
 * The schedule: which thread runs when, the same on every run.
 *
 * Valgrind runs one thread at a time, but which one is up to the host:
 * a thread that leaves the big lock for a system call, a new thread after
 * clone, a thread woken from a futex, all take it back whenever the
 * kernel lets them, so two runs of a program interleave its threads
 * differently (and the program itself takes other paths: a join finds the
 * thread gone or waits for it).  The simulated caches see the interleaving,
 * so their counts would change from run to run.
 *
 * So threads take turns, in the order of their Valgrind thread ids, each
 * for SLICE superblocks.  Valgrind counts down the superblocks a thread
 * may run before it gives up the lock (the event counter in its guest
 * state, which the tool may set like any register): the thread whose turn
 * it is runs for what is left of its turn, and one that gets the lock out
 * of its turn runs none, sleeps until its turn comes (or a while), and
 * gives the lock back (--fair-sched=yes: first come, first served).  A
 * turn ends when its blocks are used, when the thread yields (a `pause`
 * in a spin loop caps its turn as Valgrind caps its time slice; a
 * sched_yield ends it), when it waits, or when it exits.
 *
 * Waiting is known from the thread's own state, not from time: a futex
 * wait waits when the futex still holds the expected value (nothing else
 * runs between the check and the call), and a few system calls always wait
 * (poll, sleeps, reads from pipes, sockets and terminals, ...).  A waiting
 * thread is out of the rotation until another thread's futex wake names
 * it (the oldest waiters on the address first, as the kernel wakes them:
 * nobody runs until a thread that goes to wait is in the kernel's queue,
 * so that the queue's order is the model's) or a thread it joins exits
 * (the kernel clears and wakes the exiting thread's CLONE_CHILD_CLEARTID
 * word: nobody runs until the word is clear, so that a join never sees
 * the thread half gone).  Any other system call returns by itself: its
 * thread keeps its turn and the others wait for it.
 *
 * What time alone decides (a timeout, a signal, another process) stays
 * as it falls: such a thread rejoins the rotation when it returns.  And
 * lest a wrong guess hang the program, a thread whose turn it is but that
 * does not come for GRACE_MS of wall time is taken for waiting.
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
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "libvex_guest_amd64.h"

#define SLICE 100000      /* superblocks a turn lasts (Valgrind's own time slice) */
#define PAUSE_SLICE 300   /* what a spin loop's `pause` leaves of it, as in Valgrind */
#define GRACE_MS 2000     /* how long the others wait for a thread that does not come */
#define DOZE_NS 20000000  /* a thread out of its turn sleeps this long, unless its turn comes */
#define NAP_NS 50000      /* the threads held up by a thread on its way into the kernel */
Int sim_paused;

enum state {
	T_NONE,    /* no such thread */
	T_RUN,     /* runnable: it comes when its turn does */
	T_SYSCALL, /* in a system call that returns by itself */
	T_WAIT,    /* waiting for another thread, or for time */
	T_WOKEN,   /* its wait ended by another thread's action: it comes */
};

typedef struct sched_thread {
	UInt bell;    /* a futex the thread dozes on out of its turn, rung when its turn comes */
	UChar state;
	Int lwp;      /* the kernel's id of the thread */
	Addr futex;   /* T_WAIT on a futex: its address */
	ULong since;  /* T_WAIT: order of the waits, the kernel's wake order */
	Addr ctid;    /* the word the kernel clears at its exit, 0 for none */
} sched_thread;

static sched_thread *th;    /* by ThreadId */
static Bool active;         /* the process has had a second thread */
static ThreadId turn;       /* whose turn it is; 0: nobody's (every thread waits) */
static Int left;            /* the blocks left of that turn */
static Bool on_turn;        /* the thread running client code now runs on its turn */
static Int run_blocks;      /* the blocks it was given for this run */
static ULong waits;         /* waits begun */
static Addr exit_ctid;      /* an exited thread's word the kernel has yet to clear */
static ThreadId exit_tid;   /* that thread */
static UInt held_ms;        /* since when the others wait (for the turn thread, an exit, a
			     * thread getting into its wait); 0: they do not */
static Addr clone_ctid;     /* the clear-on-exit word of the thread being made */
static ThreadId entering;   /* a thread on its way into a wait: nobody runs before it is in */

/* Valgrind's own (pub_core_scheduler.h, pub_core_syscall.h and the state
 * VgTs_Yielding of pub_core_threadstate.h; the tool links all of
 * libcoregrind): a thread out of its turn sleeps without the big lock,
 * rather than take it over and over from the thread whose turn it is. */
extern void VG_(acquire_BigLock)(ThreadId tid, const HChar *who);
extern void VG_(release_BigLock)(ThreadId tid, Int sleepstate, const HChar *who);
extern SysRes VG_(do_syscall)(UWord sysno, RegWord a1, RegWord a2, RegWord a3, RegWord a4, RegWord a5,
			      RegWord a6, RegWord a7, RegWord a8);
#define VGTS_YIELDING 4

/* Sleep without the lock until the bell rings or ns pass. */
static void doze(ThreadId tid, ULong ns)
{
	UInt rung = th[tid].bell;
	struct vki_timespec ts = {0, (Long)ns};

	VG_(release_BigLock)(tid, VGTS_YIELDING, "dsprofsim: out of turn");
	VG_(do_syscall)(__NR_futex, (RegWord)&th[tid].bell, VKI_FUTEX_WAIT | VKI_FUTEX_PRIVATE_FLAG, rung,
			(RegWord)&ts, 0, 0, 0, 0);
	VG_(acquire_BigLock)(tid, "dsprofsim: out of turn");
}

static void ring(ThreadId t)
{
	th[t].bell++;
	VG_(do_syscall)(__NR_futex, (RegWord)&th[t].bell, VKI_FUTEX_WAKE | VKI_FUTEX_PRIVATE_FLAG, 1, 0, 0, 0,
			0, 0);
}

static Bool comes(ThreadId t)
{
	return th[t].state == T_RUN || th[t].state == T_SYSCALL || th[t].state == T_WOKEN;
}

/* The turn goes to the next thread after t (in thread-id order, t last)
 * that comes; to nobody when every thread waits. */
static void pass(ThreadId t)
{
	turn = 0;
	for (UInt i = 1; i <= VG_N_THREADS; i++) {
		ThreadId n = (ThreadId)((t + i) % VG_N_THREADS);
		if (n && comes(n)) {
			turn = n;
			break;
		}
	}
	left = SLICE;
	held_ms = 0;
	if (turn)
		ring(turn);
}

void sim_sched_thread_new(ThreadId parent, ThreadId child)
{
	if (!th)
		th = VG_(calloc)("sim.sched", VG_N_THREADS, sizeof *th);
	th[child].state = T_RUN;
	th[child].ctid = clone_ctid;
	clone_ctid = 0;
	if (!active && parent != VG_INVALID_THREADID) {
		/* a second thread: from now on, turns; the creator has one */
		active = True;
		turn = parent;
		left = SLICE;
	}
}

/* Waiters on a futex, oldest first: up to n are woken, then up to
 * `requeue` more move to `to`. */
static void wake(Addr futex, Long n, Long requeue, Addr to)
{
	while (n > 0 || requeue > 0) {
		ThreadId oldest = 0;
		for (ThreadId t = 1; t < VG_N_THREADS; t++)
			if (th[t].state == T_WAIT && th[t].futex == futex &&
			    (!oldest || th[t].since < th[oldest].since))
				oldest = t;
		if (!oldest)
			return;
		if (n > 0) {
			th[oldest].state = T_WOKEN;
			n--;
		} else {
			th[oldest].futex = to;
			requeue--;
		}
	}
}

void sim_sched_thread_exit(ThreadId tid)
{
	if (!active)
		return;
	if (th[tid].ctid) {
		/* the kernel clears the word and wakes one waiter on it, once
		 * the thread is gone */
		wake(th[tid].ctid, 1, 0, 0);
		exit_ctid = th[tid].ctid;
		exit_tid = tid;
	}
	VG_(memset)(&th[tid], 0, sizeof th[tid]);
	if (turn == tid)
		pass(tid);
}

/* Whether thread lwp sleeps in the kernel.  A thread that leaves the big
 * lock to wait has still to get into the kernel's wait; were another
 * thread to run first, the kernel would queue waiters in another order
 * than they came (and wake another one than the model thinks), or find a
 * futex already changed. */
static Bool asleep(Int lwp)
{
	HChar path[64], buf[512], *p;
	Int n;
	SysRes r;

	VG_(snprintf)(path, sizeof path, "/proc/self/task/%d/stat", lwp);
	r = VG_(open)(path, VKI_O_RDONLY, 0);
	if (sr_isError(r))
		return True; /* gone */
	n = VG_(read)((Int)sr_Res(r), buf, sizeof buf - 1);
	VG_(close)((Int)sr_Res(r));
	buf[n > 0 ? n : 0] = 0;
	p = VG_(strrchr)(buf, ')'); /* after the name, which may hold anything */
	return !p || (p[1] == ' ' && (p[2] == 'S' || p[2] == 'D'));
}

/* Whether a read-like call on fd can wait for another thread: everything
 * but files and disks. */
static Bool fd_waits(UWord fd)
{
	struct vg_stat st;

	if (VG_(fstat)((Int)fd, &st) != 0)
		return False;
	return !VKI_S_ISREG(st.mode) && !VKI_S_ISBLK(st.mode);
}

/* Whether system call no, about to be made, will wait for something other
 * than the kernel's own work. */
static Bool waits_for_others(UInt no, const UWord *args)
{
	switch (no) {
	case __NR_futex:
		switch (args[1] & 0x7f) {
		case VKI_FUTEX_WAIT:
		case VKI_FUTEX_WAIT_BITSET:
			/* nothing runs until the kernel compares: what it will see */
			return VG_(am_is_valid_for_client)(args[0], 4, VKI_PROT_READ) &&
			       *(const Int *)args[0] == (Int)args[2];
		case VKI_FUTEX_LOCK_PI:
		case VKI_FUTEX_WAIT_REQUEUE_PI:
		case 13: /* FUTEX_LOCK_PI2 */
			return True;
		}
		return False;
	case __NR_read:
	case __NR_readv:
	case __NR_recvfrom:
	case __NR_recvmsg:
	case __NR_recvmmsg:
		return fd_waits(args[0]);
	case __NR_poll:
	case __NR_ppoll:
	case __NR_select:
	case __NR_pselect6:
	case __NR_epoll_wait:
	case __NR_epoll_pwait:
	case __NR_nanosleep:
	case __NR_clock_nanosleep:
	case __NR_pause:
	case __NR_rt_sigsuspend:
	case __NR_rt_sigtimedwait:
	case __NR_wait4:
	case __NR_waitid:
	case __NR_accept:
	case __NR_accept4:
	case __NR_msgrcv:
	case __NR_semop:
	case __NR_semtimedop:
	case __NR_flock:
		return True;
	}
	return False;
}

/* A futex call that wakes waiters: they are marked before the call, since
 * one may be back (and have the lock) before the waker is.  Every waiter is
 * in the kernel's queue, in the order the model has them (`entering`), so
 * the kernel wakes the oldest as it is asked to. */
static void futex_wakes(const UWord *args)
{
	switch (args[1] & 0x7f) {
	case VKI_FUTEX_WAKE:
	case VKI_FUTEX_WAKE_BITSET:
		wake(args[0], (Int)args[2], 0, 0);
		break;
	case VKI_FUTEX_UNLOCK_PI:
		wake(args[0], 1, 0, 0);
		break;
	case VKI_FUTEX_WAKE_OP:
		wake(args[0], (Int)args[2], 0, 0);
		wake(args[4], (Int)args[3], 0, 0);
		break;
	case VKI_FUTEX_CMP_REQUEUE:
		if (!VG_(am_is_valid_for_client)(args[0], 4, VKI_PROT_READ) ||
		    *(const Int *)args[0] != (Int)args[5])
			break;
		/* fall through */
	case VKI_FUTEX_REQUEUE:
		wake(args[0], (Int)args[2], (Int)args[3], args[4]);
		break;
	}
}

void sim_sched_pre_syscall(ThreadId tid, UInt no, const UWord *args)
{
	if (no == __NR_clone && (args[0] & VKI_CLONE_CHILD_CLEARTID))
		clone_ctid = args[3];
	else if (no == __NR_set_tid_address)
		th[tid].ctid = args[0];
	if (!active)
		return;
	if (waits_for_others(no, args)) {
		th[tid].state = T_WAIT;
		th[tid].lwp = VG_(gettid)();
		th[tid].futex = no == __NR_futex ? args[0] : 0;
		th[tid].since = ++waits;
		entering = tid;
		if (turn == tid)
			pass(tid);
	} else {
		th[tid].state = T_SYSCALL;
		if (no == __NR_futex)
			futex_wakes(args);
		if (no == __NR_sched_yield && turn == tid)
			left = 0;
	}
}

void sim_sched_post_syscall(ThreadId tid)
{
	if (!active)
		return;
	if (th[tid].state != T_NONE)
		th[tid].state = T_RUN;
	if (entering == tid)
		entering = 0;
	if (turn == 0)
		turn = tid; /* every thread waited: the first back goes on */
}

/* Valgrind's count of the blocks thread tid may still run before it
 * gives up the lock: it stops at -1. */
#define COUNTER_AT offsetof(VexGuestAMD64State, host_EvC_COUNTER)

static Int counter(ThreadId tid)
{
	Int c;
	VG_(get_shadow_regs_area)(tid, (UChar *)&c, 0, COUNTER_AT, sizeof c);
	return c;
}

static void set_counter(ThreadId tid, Int c)
{
	VG_(set_shadow_regs_area)(tid, 0, COUNTER_AT, sizeof c, (const UChar *)&c);
}

/* Whether the others have been held up for GRACE_MS (counted from the
 * first time this is asked since held_ms was last cleared); if so, says
 * that the order of this run may not repeat. */
static Bool held_too_long(ThreadId t, const HChar *what)
{
	UInt now = VG_(read_millisecond_timer)();

	if (!held_ms) {
		held_ms = now ? now : 1;
		return False;
	}
	if (now - held_ms <= GRACE_MS)
		return False;
	VG_(umsg)("dsprofsim: thread %u %s for %d ms; the order of threads in this run may not "
		  "repeat\n", t, what, GRACE_MS);
	held_ms = 0;
	return True;
}

static Bool word_clear(Addr a)
{
	return !VG_(am_is_valid_for_client)(a, 4, VKI_PROT_READ) || *(const Int *)a == 0;
}

Bool sim_sched_may_run(ThreadId tid)
{
	Int c;

	on_turn = False;
	if (!active)
		return True;
	if ((exit_ctid && !word_clear(exit_ctid) && !held_too_long(exit_tid, "did not finish exiting")) ||
	    (entering && th[entering].state == T_WAIT && !asleep(th[entering].lwp) &&
	     !held_too_long(entering, "did not get into its wait"))) {
		/* the kernel is about to do it */
		doze(tid, NAP_NS);
		goto hold;
	}
	exit_ctid = 0;
	entering = 0;
	if (turn == 0) {
		turn = tid;
		left = SLICE;
	}
	if (turn == tid && left <= 0)
		pass(tid);
	if (turn != tid) {
		if (!held_too_long(turn, "did not come back")) {
			doze(tid, DOZE_NS);
			goto hold;
		}
		/* take it for waiting: it rejoins when it comes */
		th[turn].state = T_WAIT;
		th[turn].futex = 0;
		pass(turn);
		if (turn != tid)
			goto hold;
	}
	held_ms = 0;
	c = counter(tid);
	run_blocks = left < c ? left : c;
	set_counter(tid, run_blocks);
	on_turn = True;
	return True;
hold:
	/* out through Valgrind's scheduler, which stops a thread the process
	 * no longer runs (an exit, an exec) */
	set_counter(tid, 0);
	return False;
}

void sim_sched_stopped(ThreadId tid)
{
	Int c;

	if (!on_turn || turn != tid)
		return;
	on_turn = False;
	c = counter(tid);
	left -= run_blocks - (c > 0 ? c : 0);
	/* a spin loop's pause: the others get the lock soon */
	if (sim_paused && left > PAUSE_SLICE)
		left = PAUSE_SLICE;
	sim_paused = 0;
}

void sim_sched_after_fork(ThreadId survivor)
{
	sched_thread me = th[survivor];

	VG_(memset)(th, 0, VG_N_THREADS * sizeof *th);
	th[survivor] = me;
	th[survivor].state = T_RUN;
	active = False;
	on_turn = False;
	turn = 0;
	exit_ctid = 0;
	entering = 0;
}
