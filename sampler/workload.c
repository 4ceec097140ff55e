/* The command a recording runs (see workload.h). */
#include "sampler/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long a command asked to stop may take before SIGTERM, and after it
 * before SIGKILL (perf record waits likewise). */
#define GRACE_SECONDS 2.0

/* The signals that ask a recording to stop. */
static void stop_signals(sigset_t *s)
{
	sigemptyset(s);
	sigaddset(s, SIGINT);
	sigaddset(s, SIGTERM);
	sigaddset(s, SIGHUP);
}

void ds_stop_hold_begin(ds_stop_hold *h)
{
	sigset_t stop;

	stop_signals(&stop);
	sigprocmask(SIG_BLOCK, &stop, &h->before);
}

int ds_stop_hold_take(ds_stop_hold *h)
{
	static const struct timespec now = {0, 0};
	sigset_t stop;
	int n = 0;

	(void)h;
	stop_signals(&stop);
	while (sigtimedwait(&stop, NULL, &now) > 0)
		n++;
	return n;
}

void ds_stop_hold_end(ds_stop_hold *h)
{
	ds_stop_hold_take(h);
	sigprocmask(SIG_SETMASK, &h->before, NULL);
}

int ds_workload_init(ds_workload *w, const sigset_t *command_mask, ds_err *err)
{
	sigset_t stop;

	memset(w, 0, sizeof *w);
	w->sigfd = w->go_fd = w->exec_err_fd = -1;
	stop_signals(&stop);
	sigaddset(&stop, SIGCHLD);
	sigprocmask(SIG_BLOCK, &stop, &w->oldmask);
	w->command_mask = command_mask ? *command_mask : w->oldmask;
	w->sigfd = signalfd(-1, &stop, SFD_NONBLOCK | SFD_CLOEXEC);
	if (w->sigfd < 0)
		return ds_err_set(err, DS_EENV, "cannot create a signalfd: %s", strerror(errno));
	return 0;
}

int ds_workload_fork(ds_workload *w, char *const *argv, char *const *env, bool detach, ds_err *err)
{
	int go[2], ex[2];
	pid_t recorder = getpid();

	if (pipe2(go, O_CLOEXEC) < 0)
		return ds_err_set(err, DS_EENV, "cannot create a pipe: %s", strerror(errno));
	if (pipe2(ex, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return ds_err_set(err, DS_EENV, "cannot create a pipe: %s", strerror(errno));
	}
	w->pid = fork();
	if (w->pid < 0) {
		w->pid = 0;
		close(go[0]), close(go[1]), close(ex[0]), close(ex[1]);
		return ds_err_set(err, DS_EENV, "cannot fork: %s", strerror(errno));
	}
	if (w->pid == 0) {
		char c;
		int e;
		close(go[1]);
		close(ex[0]);
		/* SIGKILL when the recorder dies, unless asked otherwise: a
		 * command nobody records must not run on, orphaned.  The kernel
		 * sends it when the thread that forked ends, and the recorder
		 * forks from the thread that runs it to the end; a recorder that
		 * died before this line is seen as a new parent. */
		if (!detach && (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != recorder))
			_exit(127);
		sigprocmask(SIG_SETMASK, &w->command_mask, NULL);
		/* wait until the recorder is ready; EOF means it gave up */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		for (size_t i = 0; env && env[i]; i++)
			putenv(env[i]); /* the strings outlive the exec: they are the parent's */
		execvp(argv[0], argv);
		e = errno;
		if (write(ex[1], &e, sizeof e) < 0)
			_exit(126);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	w->go_fd = go[1];
	w->exec_err_fd = ex[0];
	return 0;
}

int ds_workload_start(ds_workload *w, ds_err *err)
{
	int e = 0;
	ssize_t n;

	if (write(w->go_fd, "g", 1) != 1)
		return ds_err_set(err, DS_EENV, "cannot start the command: %s", strerror(errno));
	close(w->go_fd);
	w->go_fd = -1;
	do
		n = read(w->exec_err_fd, &e, sizeof e);
	while (n < 0 && errno == EINTR);
	close(w->exec_err_fd);
	w->exec_err_fd = -1;
	if (n == sizeof e) {
		waitpid(w->pid, NULL, 0);
		w->pid = 0;
		return e ? e : ENOEXEC;
	}
	return 0;
}

bool ds_workload_reap(ds_workload *w)
{
	int st;
	if (w->pid <= 0 || w->exited)
		return w->exited;
	if (waitpid(w->pid, &st, WNOHANG) == w->pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
		w->wait_status = st;
		w->exited = true;
	}
	return w->exited;
}

int ds_workload_stop_requests(ds_workload *w)
{
	struct signalfd_siginfo si;
	int stops = 0;
	while (read(w->sigfd, &si, sizeof si) == sizeof si)
		if (si.ssi_signo != SIGCHLD)
			stops++;
	return stops;
}

int ds_workload_wait(ds_workload *w, bool stopped, int poll_ms, int (*tick)(void *arg, ds_err *err),
		     void *arg, ds_err *err)
{
	double deadline = stopped ? ds_now() + GRACE_SECONDS : 0;
	int stage = 0;
	struct pollfd p = {w->sigfd, POLLIN, 0};

	while (w->pid > 0 && !ds_workload_reap(w)) {
		int timeout = poll_ms > 0 ? poll_ms : -1;
		if (deadline) {
			double left = deadline - ds_now();
			if (left <= 0) {
				kill(w->pid, stage == 0 ? SIGTERM : SIGKILL);
				stage++;
				deadline = stage < 2 ? ds_now() + GRACE_SECONDS : 0;
				continue;
			}
			if (timeout < 0 || left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		if (poll(&p, 1, timeout) < 0 && errno != EINTR)
			return ds_err_set(err, DS_EENV, "poll: %s", strerror(errno));
		if (tick && tick(arg, err))
			return -1;
		if (ds_workload_stop_requests(w) && !deadline)
			deadline = ds_now() + GRACE_SECONDS;
	}
	return 0;
}

void ds_workload_fini(ds_workload *w)
{
	if (w->go_fd >= 0) {
		/* it never ran, and must not run unobserved */
		close(w->go_fd);
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
		w->pid = 0;
	}
	if (w->exec_err_fd >= 0)
		close(w->exec_err_fd);
	if (w->pid > 0 && !w->exited) {
		ds_err ignored = {0};
		ds_workload_wait(w, false, 0, NULL, NULL, &ignored); /* recording failed while it ran: let it finish */
	}
	if (w->sigfd >= 0)
		close(w->sigfd);
	sigprocmask(SIG_SETMASK, &w->oldmask, NULL);
	w->go_fd = w->exec_err_fd = w->sigfd = -1;
}
