/* seccomp-listener [-n N] [-e ERRNO | -c] [-t SECONDS] SOCKET: a tiny seccomp
 * agent for tests of SCMP_ACT_NOTIFY (config-linux.md, listenerPath).
 *
 * Listens on the unix socket SOCKET (SOCK_STREAM), accepts one connection,
 * reads the container process state JSON to EOF together with the notify fd
 * (SCM_RIGHTS, first message), and prints
 *     state: {...}
 *     fds: 1
 * Then it answers N notifications (default 1; 0 = until every filtered task
 * has exited) with -ERRNO (default EPERM) or, with -c, lets the syscall run
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE), printing one line per notification:
 *     notify: pid=123 nr=83 name=mkdir arg0=0x... -> errno 1
 * Exits 0 when done, 1 on any error (message on stderr), 2 on usage. The
 * whole run is bounded by -t (default 60 s). Stand-alone: libc + libseccomp
 * (for syscall names) only. */
#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define STATE_MAX (1 << 20)

static int fail(const char *what)
{
	fprintf(stderr, "seccomp-listener: %s: %s\n", what, strerror(errno));
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: seccomp-listener [-n N] [-e ERRNO | -c] [-t SECONDS] SOCKET\n");
	return 2;
}

/* Reads the state to EOF; *fd gets the first SCM_RIGHTS fd (others closed). */
static int read_state(int conn, char *buf, size_t cap, int *fd, int *nfds)
{
	size_t len = 0;
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int) * 8)];
	} ctl;

	*fd = -1;
	*nfds = 0;
	for (;;) {
		struct iovec iov = { .iov_base = buf + len, .iov_len = cap - 1 - len };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
				      .msg_controllen = sizeof(ctl.buf) };
		ssize_t n;

		if (len + 1 >= cap) {
			errno = EMSGSIZE;
			return -1;
		}
		n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < k; i++) {
				int f;
				memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				if (*fd < 0)
					*fd = f;
				else
					close(f);
				(*nfds)++;
			}
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	long count = 1, err_no = EPERM, timeout = 60;
	int cont = 0, opt, lsock, conn, nfd, nfds;
	char *state;

	while ((opt = getopt(argc, argv, "n:e:ct:")) != -1) {
		switch (opt) {
		case 'n': count = strtol(optarg, NULL, 10); break;
		case 'e': err_no = strtol(optarg, NULL, 10); break;
		case 'c': cont = 1; break;
		case 't': timeout = strtol(optarg, NULL, 10); break;
		default: return usage();
		}
	}
	if (optind != argc - 1 || count < 0 || err_no < 0 || err_no > 4095 || timeout <= 0)
		return usage();
	if (strlen(argv[optind]) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "seccomp-listener: socket path is %zu bytes, exceeding the Linux "
				"limit of %zu: %s\n",
			strlen(argv[optind]), sizeof(addr.sun_path) - 1, argv[optind]);
		return 1;
	}
	strcpy(addr.sun_path, argv[optind]);
	alarm((unsigned)timeout);

	lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lsock < 0)
		return fail("socket");
	unlink(addr.sun_path);
	if (bind(lsock, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return fail("bind");
	if (listen(lsock, 1) < 0)
		return fail("listen");
	conn = accept4(lsock, NULL, NULL, SOCK_CLOEXEC);
	if (conn < 0)
		return fail("accept");
	close(lsock);
	unlink(addr.sun_path);

	state = malloc(STATE_MAX);
	if (!state)
		return fail("malloc");
	if (read_state(conn, state, STATE_MAX, &nfd, &nfds) < 0)
		return fail("receiving the state");
	close(conn);
	printf("state: %s\nfds: %d\n", state, nfds);
	fflush(stdout);
	free(state);
	if (nfd < 0) {
		fprintf(stderr, "seccomp-listener: no fd received\n");
		return 1;
	}

	for (long done = 0; count == 0 || done < count; done++) {
		struct pollfd pfd = { .fd = nfd, .events = POLLIN };
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;
		char *name;

		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return fail("poll");
		}
		if (!(pfd.revents & POLLIN)) {
			if (count == 0)
				break; /* every task using the filter is gone */
			fprintf(stderr, "seccomp-listener: filter gone after %ld of %ld notifications\n",
				done, count);
			return 1;
		}
		memset(&req, 0, sizeof(req));
		if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == EINTR || errno == ENOENT) { /* interrupted or target died */
				done--;
				continue;
			}
			return fail("SECCOMP_IOCTL_NOTIF_RECV");
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		if (cont)
			resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		else
			resp.error = -(int32_t)err_no;
		name = seccomp_syscall_resolve_num_arch(req.data.arch, req.data.nr);
		printf("notify: pid=%u nr=%d name=%s arg0=0x%llx -> %s", req.pid, req.data.nr,
		       name ? name : "?", (unsigned long long)req.data.args[0],
		       cont ? "continue" : "errno");
		if (!cont)
			printf(" %ld", err_no);
		printf("\n");
		fflush(stdout);
		free(name);
		if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT)
			return fail("SECCOMP_IOCTL_NOTIF_SEND");
	}
	close(nfd);
	return 0;
}
