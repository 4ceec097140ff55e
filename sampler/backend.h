/*
 * sampler/backend.h (internal to sampler/): what the recording backends,
 * perf_event (record.c) and the simulator (sim.c), share: the command they
 * run (workload.c) and the host's description in perf.data (host.c).
 *
 * The command, as perf's evlist__prepare_workload runs it: forked first, it
 * waits on a pipe until the recorder is ready, so that nothing it does
 * goes unobserved; a failed exec comes back through a close-on-exec pipe
 * as its errno.  The stop signals (SIGINT, SIGTERM, SIGHUP) and SIGCHLD
 * are blocked and read from a signalfd in the recorder's poll loop: no
 * handler and no global flag.  The command gets the original mask back
 * before exec (the one before `dsprof record`'s ds_stop_hold).
 */
#ifndef DSPROF_SAMPLER_BACKEND_H
#define DSPROF_SAMPLER_BACKEND_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include <stdint.h>
#include <time.h>

#include "base/base.h"
#include "experiment/experiment.h"
#include "sampler/sampler.h"

typedef struct ds_workload {
	pid_t pid;            /* the command; 0 before it is forked and after a failed exec */
	int sigfd;            /* stop signals and SIGCHLD */
	sigset_t oldmask;     /* restored by ds_workload_fini */
	sigset_t command_mask; /* the command's, before exec */
	int go_fd, exec_err_fd;
	bool exited;
	int wait_status;      /* when exited */
} ds_workload;

/* Block the signals and open the signalfd; ds_workload_fini undoes it.
 * The command starts with command_mask (NULL: the mask before this call),
 * so that a ds_stop_hold around the recording is not its. */
int ds_workload_init(ds_workload *w, const sigset_t *command_mask, ds_err *err);
/* Fork argv[0] (found in PATH); it waits for ds_workload_start.  env, when
 * not NULL, is a NULL-terminated list of "NAME=VALUE" set in the command's
 * environment.  Unless
 * detach, the command is killed (SIGKILL, PR_SET_PDEATHSIG) when the
 * recorder dies without ending it (SIGKILL, a crash): it would run on
 * unobserved.  The signal follows the thread that called this, which must
 * live as long as the recording (dsprof records from its main thread);
 * the command's own children are not its concern. */
int ds_workload_fork(ds_workload *w, char *const *argv, char *const *env, bool detach, ds_err *err);
/* Let the command exec.  Returns 0 when it did; the errno of a failed exec
 * (the child is reaped); -1 with err when it could not be told to go. */
int ds_workload_start(ds_workload *w, ds_err *err);
/* Whether the command has ended (reaps it once, keeping its status). */
bool ds_workload_reap(ds_workload *w);
/* Reads the pending signals; returns how many asked to stop. */
int ds_workload_stop_requests(ds_workload *w);
/* Waits until the command ends.  After a stop request (now, when `stopped`,
 * or while waiting) it has GRACE seconds, then SIGTERM, then SIGKILL, as
 * `perf record` ends its workload.  poll_ms > 0 calls tick(arg) at least
 * that often (the simulator reads its streams meanwhile); a tick that
 * fails ends the wait with its error, as does a failing poll. */
int ds_workload_wait(ds_workload *w, bool stopped, int poll_ms, int (*tick)(void *arg, ds_err *err),
		     void *arg, ds_err *err);
/* Closes everything; a command that never started is killed, one still
 * running is waited for. */
void ds_workload_fini(ds_workload *w);

/* ---- the heap tracker's files (heap.c) ----
 * While the command runs, the recorder's poll loop watches the broker's
 * descriptors (at most DS_HEAP_BROKER_FDS, into p: how many) and lets it
 * answer what came (serve: it never waits).  Stopped once the recording
 * ends: processes that ask later get no file (their samples are not
 * recorded either), and none waits for dsprof.  NULL: none of it. */
#define DS_HEAP_BROKER_FDS 33
size_t ds_heap_broker_fds(const ds_heap_broker *b, struct pollfd *p);
void ds_heap_broker_serve(ds_heap_broker *b);
void ds_heap_broker_stop(ds_heap_broker *b);

/* ---- the perf.data header ---- */

/* A clock's reading in nanoseconds. */
uint64_t ds_clock_ns(clockid_t c);
/* The header's host fields (from h, which ds_host_probe fills and which
 * must outlive info) and dsprof's own command line; the clock fields and
 * sample times are the caller's. */
void ds_pdw_info_host(ds_pdw_info *info, ds_host *h, const ds_record_opts *o);

#endif
