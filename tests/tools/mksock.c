/* mksock PATH...: a Unix socket bound at each path, left there when the
 * program exits: a special file a shell cannot make, for the tests of
 * names dsprof opens (tests/e2e/hostile.sh). */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (strlen(argv[i]) >= sizeof a.sun_path || fd < 0) {
			fprintf(stderr, "mksock: cannot make '%s'\n", argv[i]);
			return 1;
		}
		strcpy(a.sun_path, argv[i]);
		if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) {
			perror(argv[i]);
			return 1;
		}
		close(fd);
	}
	return 0;
}
