/*
 * The heap tracker asks dsprof record for its file (heapask.h).
 *
 * Every descriptor of the exchange is the guard's as soon as it exists:
 * the socket is moved high before it connects, and the file's descriptor
 * as it arrives, checked to be the file the answer names (a number the
 * program reused in the moment between is not taken for it).  The
 * exchange happens when an image starts and in a fork's child (one
 * thread), and when the program took the file's descriptor (one thread
 * at a time: heap.c).
 */
#include "sampler/preload/heapask.h"
#include "sampler/preload/fdguard.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static ds_fdslot conn;

/* The descriptor that came with message m, or -1. */
static int sent_fd(struct msghdr *m)
{
	int fd = -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof fd))
			memcpy(&fd, CMSG_DATA(c), sizeof fd);
	return fd;
}

int ds_heap_ask(struct ds_fdslot *s, __u32 op, const struct ds_heap_header *h, struct ds_heap_answer *a)
{
	const char *name = getenv("DSPROF_HEAP");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct ds_heap_ask q = {DS_HEAP_ASK_MAGIC, op, *h};
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {a, sizeof *a};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof ctl.b};
	size_t len = name ? strlen(name) : 0;
	ssize_t n;
	int sock, fd, err = 0;

	if (!len || len + 1 > sizeof sa.sun_path)
		return ENOENT;
	memcpy(sa.sun_path + 1, name, len); /* abstract: a NUL, then the name */
	ds_fdguard_drop(&conn); /* a fork's child's copy of its parent's */
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return errno;
	if ((sock = ds_fdguard_keep(&conn, sock, 0, 0)) < 0)
		return EMFILE;
	if (connect(sock, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) != 0 ||
	    send(sock, &q, sizeof q, MSG_NOSIGNAL) != (ssize_t)sizeof q) {
		err = errno;
		ds_fdguard_drop(&conn);
		return err;
	}
	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	err = n < 0 ? errno : 0;
	ds_fdguard_drop(&conn);
	fd = n > 0 ? sent_fd(&m) : -1;
	if (err)
		return err;
	if (n != (ssize_t)sizeof *a || a->magic != DS_HEAP_ASK_MAGIC)
		err = EPROTO;
	else if (a->err)
		err = a->err;
	else if (fd < 0)
		err = EMFILE; /* the descriptor did not fit (MSG_CTRUNC) */
	else if (ds_fdguard_keep(s, fd, (dev_t)a->dev, (ino_t)a->ino) < 0)
		return EBADF;
	if (err && fd >= 0)
		close(fd);
	return err;
}
