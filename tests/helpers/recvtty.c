/* recvtty SOCKET: a test stand-in for a --console-socket client (like runc's recvtty).
 * Listens on the unix socket SOCKET, accepts one connection, receives the pty master over
 * SCM_RIGHTS and copies everything the container writes to stdout until the pty closes.
 * Whatever arrives on our stdin is written to the master, so tests can type into the container.
 * Exits 0 after the pty hangs up, 1 on any setup error (with a message on stderr). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "recvtty: %s: %s\n", what, strerror(errno));
	return 1;
}

static int recv_fd(int conn)
{
	char name[256];
	struct iovec iov = { .iov_base = name, .iov_len = sizeof(name) };
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	if (recvmsg(conn, &msg, MSG_CMSG_CLOEXEC) < 0)
		return -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
		errno = EBADMSG;
		return -1;
	}
	int fd;
	memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	return fd;
}

static int write_all(int fd, const char *p, ssize_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= w;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: recvtty SOCKET\n");
		return 2;
	}
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	if (strlen(argv[1]) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "recvtty: socket path too long\n");
		return 1;
	}
	strcpy(addr.sun_path, argv[1]);
	int lis = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lis < 0)
		return fail("socket");
	unlink(argv[1]);
	if (bind(lis, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return fail("bind");
	if (listen(lis, 1) < 0)
		return fail("listen");
	int conn = accept4(lis, NULL, NULL, SOCK_CLOEXEC);
	if (conn < 0)
		return fail("accept");
	int master = recv_fd(conn);
	if (master < 0)
		return fail("recvmsg");
	close(conn);
	close(lis);

	struct pollfd pfd[2] = { { .fd = master, .events = POLLIN }, { .fd = 0, .events = POLLIN } };
	int nfds = 2;
	char buf[4096];
	for (;;) {
		if (poll(pfd, nfds, -1) < 0) {
			if (errno == EINTR)
				continue;
			return fail("poll");
		}
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = read(master, buf, sizeof(buf));
			if (n <= 0) /* EIO once the last slave fd closes */
				break;
			if (write_all(1, buf, n) < 0)
				return fail("write stdout");
		}
		if (nfds == 2 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t n = read(0, buf, sizeof(buf));
			if (n <= 0)
				nfds = 1;
			else if (write_all(master, buf, n) < 0)
				return fail("write pty");
		}
	}
	return 0;
}
