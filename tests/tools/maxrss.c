/*
 * maxrss COMMAND [ARG...]: run the command and print the most memory it
 * held at once (its peak resident set, in KiB) on stderr's last line, as
 * "maxrss KIB"; exits with the command's status.  For tests that bound a
 * program's memory (tests/e2e/heapmem.sh).
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int st;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: maxrss COMMAND [ARG...]\n");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("maxrss: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("maxrss: exec");
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) < 0) {
		perror("maxrss: wait4");
		return 2;
	}
	fprintf(stderr, "maxrss %ld\n", ru.ru_maxrss);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
