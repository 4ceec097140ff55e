/*
 * A program hostile to what dsprof preloads into it (tests/e2e/hostile.sh):
 * it closes every descriptor above 2 (close_range, closefrom, a loop of
 * close), puts files at numbers it picks (dup2, dup3: low ones, and every
 * number /proc/self/fd lists, where a tracker's are), closes and replaces
 * descriptors by raw system calls, opens and writes files between its
 * allocations and reads them back, changes its user to nobody, forks,
 * _exits, and execs itself, once with the environment cleared of what
 * dsprof set.  Each stage allocates from a function of its own, a known
 * number of blocks, and says so.  What it prints is the same with a
 * tracker in it and without: the test compares the two outputs and the
 * files byte for byte.
 *
 *   hostile DIR          the whole run (as root: the user change); files in DIR
 *   hostile DIR exec     the image it execs
 *   hostile DIR bare     the image it execs without dsprof's environment:
 *                        it allocates, and runs 0.3 s of CPU to be sampled
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLOCKS 20000   /* a stage's: about 800 KB of records, a dozen of a tracker's 64 KiB chunks */
#define FILE_BYTES 65536

static const char *dir;
extern char **environ;

/* Printed with one write: children share the output. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	char b[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	if (write(1, b, (size_t)n) != n)
		exit(3);
}

/* A stage's allocations: BLOCKS blocks from the function of its own name
 * (its allocation site), freed at once; between every 1000th, fd (when
 * >= 0) gets the next 4 KiB of its file, so that a tracker writes its
 * records between the program's writes. */
#define STAGE(name)                                                                                            \
	__attribute__((noinline)) static void name(int fd, unsigned seed)                                     \
	{                                                                                                      \
		for (int i = 0; i < BLOCKS; i++) {                                                             \
			char *volatile p = malloc(16 + (size_t)(i % 64));                                      \
			p[0] = (char)i;                                                                        \
			free(p);                                                                               \
			if (fd >= 0 && i % 1000 == 0)                                                          \
				put(fd, seed, (size_t)(i / 1000));                                             \
		}                                                                                              \
		say(#name ": %d blocks\n", BLOCKS);                                                            \
	}

/* Byte k of file seed's contents. */
static unsigned char byte_of(unsigned seed, size_t k)
{
	return (unsigned char)(seed * 131 + k * 7 + (k >> 8));
}

/* Piece i (4 KiB) of file seed, at its offset, with the file's own offset
 * (a write): a tracker that wrote into the file moves it. */
static void put(int fd, unsigned seed, size_t i)
{
	unsigned char b[4096];
	if (i * sizeof b >= FILE_BYTES)
		return;
	for (size_t k = 0; k < sizeof b; k++)
		b[k] = byte_of(seed, i * sizeof b + k);
	if (write(fd, b, sizeof b) != (ssize_t)sizeof b)
		say("write of %zu bytes failed: %s\n", sizeof b, strerror(errno));
}

STAGE(at_start)
STAGE(after_close_range)
STAGE(after_closefrom)
STAGE(after_close_loop)
STAGE(after_dup2)
STAGE(after_raw)
STAGE(in_child)
STAGE(in_child_exit_now)
STAGE(in_lost_child)
STAGE(after_exec)
STAGE(bare)
STAGE(after_user_change)

static int out(const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		say("cannot create %s: %s\n", name, strerror(errno));
		exit(2);
	}
	return fd;
}

/* The file's bytes are the stage's, all of them and nothing else. */
static void check(const char *name, unsigned seed)
{
	char path[4096];
	unsigned char b[4096];
	size_t at = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		say("%s: cannot read it back: %s\n", name, strerror(errno));
		return;
	}
	while ((n = read(fd, b, sizeof b)) > 0)
		for (ssize_t k = 0; k < n; k++, at++)
			if (at >= FILE_BYTES || b[k] != byte_of(seed, at)) {
				say("%s: not what was written, from byte %zu on\n", name, at);
				close(fd);
				return;
			}
	close(fd);
	say("%s: %zu bytes, as written\n", name, at);
}

/* Three descriptors of its own, open: the numbers into fds. */
static void open_three(int *fds)
{
	for (int i = 0; i < 3; i++)
		fds[i] = open("/dev/null", O_RDONLY);
}

static const char *closed(const int *fds)
{
	for (int i = 0; i < 3; i++)
		if (fcntl(fds[i], F_GETFD) != -1 || errno != EBADF)
			return "no";
	return "yes";
}

/* The numbers from 3 on that /proc/self/fd lists (its own reading's left
 * out), into fds; how many. */
static int listed(int *fds, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (atoi(e->d_name) >= 3 && atoi(e->d_name) != dirfd(d) && n < max)
			fds[n++] = atoi(e->d_name);
	if (d)
		closedir(d);
	return n;
}

/* The program's own file at every listed number (dup2, the first half;
 * dup3, the others): each must be it then; then they are closed. */
static void onto_listed(void)
{
	int fds[256], n = listed(fds, 256), null = open("/dev/null", O_RDWR), ok = 1;
	struct stat a, b;

	fstat(null, &a);
	for (int i = 0; i < n; i++) {
		int r = fds[i] == null ? null : i < n / 2 ? dup2(null, fds[i]) : dup3(null, fds[i], O_CLOEXEC);
		if (r != fds[i] || fstat(fds[i], &b) || b.st_ino != a.st_ino)
			ok = 0;
	}
	for (int i = 0; i < n; i++)
		close(fds[i]);
	close(null);
	say("dup2 and dup3 onto every listed number: %s\n", ok ? "each is the program's file" : "FAILED");
}

/* Raw system calls, which no interposer sees: every number above 2
 * closed, then file name, made, at each number listed before; its
 * descriptor. */
static int take_all(const char *name)
{
	int fds[256], n = listed(fds, 256), fd;

	syscall(SYS_close_range, 3, ~0U, 0);
	fd = out(name);
	for (int i = 0; i < n; i++)
		if (fds[i] != fd)
			syscall(SYS_dup3, fd, fds[i], 0);
	return fd;
}

/* A child that cannot ask dsprof for anything (a network namespace of its
 * own has none of its sockets) and whose descriptors raw calls take: what
 * it allocates after that is lost, and said so.  root only. */
static void lost_child(void)
{
	pid_t c = fork();
	if (c == 0) {
		if (unshare(CLONE_NEWNET) != 0) {
			say("lost child: no network namespace of its own: %s\n", strerror(errno));
			exit(0);
		}
		in_lost_child(take_all("lost.txt"), 6);
		check("lost.txt", 6);
		exit(0);
	}
	waitpid(c, NULL, 0);
}

/* Its own image again: as it is, or without the environment dsprof
 * gave it (no tracker: nothing records what it allocates). */
static void exec_self(const char *self, const char *how)
{
	char *env[512];
	size_t k = 0;

	for (char **e = environ; *e && k + 1 < sizeof env / sizeof env[0]; e++)
		if (strcmp(how, "bare") || (strncmp(*e, "LD_PRELOAD=", 11) && strncmp(*e, "DSPROF_", 7)))
			env[k++] = *e;
	env[k] = NULL;
	execve(self, (char *[]){(char *)self, (char *)dir, (char *)how, NULL}, env);
	say("exec of itself failed: %s\n", strerror(errno));
	_exit(1);
}

static void spin(double seconds)
{
	struct timespec t;
	do
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	while ((double)t.tv_sec + (double)t.tv_nsec / 1e9 < seconds);
}

int main(int argc, char **argv)
{
	char self[4096];
	int fd, mine[3];
	ssize_t n;

	if (argc < 2) {
		fprintf(stderr, "usage: hostile DIR [exec|bare]\n");
		return 1;
	}
	dir = argv[1];
	if (argc > 2 && strcmp(argv[2], "exec") == 0) {
		after_exec(-1, 0);
		return 0;
	}
	if (argc > 2 && strcmp(argv[2], "bare") == 0) {
		bare(-1, 0);
		spin(0.3);
		return 0;
	}
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = 0;
	at_start(-1, 0);

	open_three(mine);
	say("close_range: %d, its own closed: ", close_range(3, ~0U, 0));
	say("%s\n", closed(mine));
	fd = out("range.txt");
	after_close_range(fd, 1);

	open_three(mine);
	closefrom(3);
	say("closefrom: its own closed: %s\n", closed(mine));
	fd = out("from.txt");
	after_closefrom(fd, 2);

	open_three(mine);
	{
		int shut = 0;
		for (int i = 3; i < 4096; i++)
			shut += close(i) == 0;
		say("a loop of close: %d closed, its own closed: %s\n", shut, closed(mine));
	}
	fd = out("loop.txt");
	after_close_loop(fd, 3);

	/* low numbers of its choosing, then every listed one */
	fd = out("dup.txt");
	say("dup2 onto 5: %d, dup3 onto 6: %d\n", dup2(fd, 5), dup3(fd, 6, O_CLOEXEC));
	close(fd);
	onto_listed();
	fd = out("dup2.txt");
	after_dup2(fd, 4);

	fd = take_all("raw.txt");
	after_raw(fd, 5);
	syscall(SYS_close_range, 3, ~0U, 0);
	for (unsigned i = 1; i <= 5; i++) {
		static const char *const names[] = {"", "range.txt", "from.txt", "loop.txt", "dup2.txt", "raw.txt"};
		check(names[i], i);
	}

	/* as nobody from here on: children, one that _exits, one that execs
	 * itself, one that does so without dsprof's environment */
	if (geteuid() == 0) {
		lost_child();
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534)) {
			say("cannot become nobody: %s\n", strerror(errno));
			return 1;
		}
	}
	say("user %d\n", (int)geteuid());
	for (int k = 0; k < 4; k++) {
		pid_t c = fork();
		if (c == 0) {
			if (k == 0)
				in_child(-1, 0);
			else if (k == 1)
				in_child_exit_now(-1, 0), _exit(0);
			else
				exec_self(self, k == 2 ? "exec" : "bare");
			exit(0);
		}
		waitpid(c, NULL, 0);
	}
	after_user_change(-1, 0);
	say("done\n");
	return 0;
}
