#include "linux/sync.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int send_msg(int sock, const void *data, size_t len, int fd)
{
	struct iovec iov = {.iov_base = (void *)data, .iov_len = len};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t r;

	if (fd >= 0) {
		struct cmsghdr *c;
		memset(&u, 0, sizeof u);
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof u.buf;
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		r = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -1 : 0;
}

int sync_send(int sock, enum sync_type type, int fd, struct clasp_error *err)
{
	return sync_send_val(sock, type, 0, fd, err);
}

int sync_send_val(int sock, enum sync_type type, int32_t val, int fd, struct clasp_error *err)
{
	struct sync_msg m = {.type = type, .code = val};

	/* Only the header matters for non-error messages. */
	if (send_msg(sock, &m, sizeof m.type + sizeof m.code, fd) < 0)
		return clasp_error_set(err, errno, "sync: send");
	return 0;
}

int sync_send_error(int sock, const struct clasp_error *e)
{
	struct sync_msg m = {.type = SYNC_ERROR, .code = e->code};
	size_t n = strnlen(e->msg, sizeof m.text - 1);

	memcpy(m.text, e->msg, n);
	m.text[n] = '\0';
	return send_msg(sock, &m, sizeof m.type + sizeof m.code + n + 1, -1);
}

int sync_recv(int sock, enum sync_type want, int *fd, struct clasp_error *err)
{
	return sync_recv_val(sock, want, NULL, fd, err);
}

int sync_recv_val(int sock, enum sync_type want, int32_t *val, int *fd, struct clasp_error *err)
{
	int32_t type;

	if (sync_recv_msg(sock, &type, val, fd, err) < 0)
		return -1;
	if (want && type != (int32_t)want) {
		if (fd && *fd >= 0) {
			close(*fd);
			*fd = -1;
		}
		return clasp_error_set(err, 0, "sync: unexpected message %d (wanted %d)", type, want);
	}
	return 0;
}

int sync_recv_msg(int sock, int32_t *type, int32_t *val, int *fd, struct clasp_error *err)
{
	struct sync_msg m;
	struct iovec iov = {.iov_base = &m, .iov_len = sizeof m};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof u.buf};
	struct cmsghdr *c;
	ssize_t r;
	int got = -1;

	if (fd)
		*fd = -1;
	memset(&m, 0, sizeof m);
	do
		r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return clasp_error_set(err, errno, "sync: receive");
	if (r == 0)
		return clasp_error_set(err, 0, "container init exited unexpectedly");
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&got, CMSG_DATA(c), sizeof(int));
	if (m.type == SYNC_ERROR) {
		if (got >= 0)
			close(got);
		m.text[sizeof m.text - 1] = '\0';
		err->code = m.code;
		memcpy(err->msg, m.text, sizeof err->msg);
		return -1;
	}
	*type = m.type;
	if (val)
		*val = m.code;
	if (fd)
		*fd = got;
	else if (got >= 0)
		close(got);
	return 0;
}

int send_fd(int sock, int fd, const char *name, struct clasp_error *err)
{
	if (send_msg(sock, name, strlen(name), fd) < 0)
		return clasp_error_set(err, errno, "send fd over socket");
	return 0;
}
