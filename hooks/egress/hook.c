#include "hook.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "util/cleanup.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

int hook_state_pid(const char *json, size_t len, pid_t *pid, struct clasp_error *err)
{
	static const char *path[] = { "pid", NULL };
	_cleanup_free_ char *copy = strndup(json, len);
	char ebuf[256] = "";
	yajl_val root, v;

	if (!copy)
		return clasp_error_set(err, ENOMEM, "read container state");
	root = yajl_tree_parse(copy, ebuf, sizeof ebuf);
	if (!root)
		return clasp_error_set(err, 0, "container state on stdin is not JSON: %s", ebuf);
	v = yajl_tree_get(root, path, yajl_t_number);
	if (!v || !YAJL_IS_INTEGER(v) || YAJL_GET_INTEGER(v) <= 0 ||
	    YAJL_GET_INTEGER(v) > 0x3fffffff) {
		yajl_tree_free(root);
		return clasp_error_set(err, 0, "container state on stdin has no valid \"pid\"");
	}
	*pid = (pid_t)YAJL_GET_INTEGER(v);
	yajl_tree_free(root);
	return 0;
}

static int listen_sa(const struct sockaddr *sa, socklen_t len, const char *what,
		     struct clasp_error *err)
{
	int one = 1;
	_cleanup_close_ int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return clasp_error_set(err, errno, "socket for %s", what);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (sa->sa_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	if (bind(fd, sa, len) < 0)
		return clasp_error_set(err, errno, "bind %s", what);
	if (listen(fd, 4096) < 0)
		return clasp_error_set(err, errno, "listen %s", what);
	return steal_fd(&fd);
}

static int parse_sockaddr(const char *host, uint16_t port, struct sockaddr_storage *ss,
			  socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof *ss);
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		*len = sizeof *s4;
		return 0;
	}
	if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*len = sizeof *s6;
		return 0;
	}
	return -1;
}

int listen_on(const char *addr, struct clasp_error *err)
{
	char host[NETRULE_HOST_MAX + 1];
	struct sockaddr_storage ss;
	const char *colon = strrchr(addr, ':');
	uint16_t port;
	socklen_t len;
	size_t hl;

	if (!colon)
		return clasp_error_set(err, 0, "--listen %s: expected ADDR:PORT", addr);
	hl = (size_t)(colon - addr);
	if (hl >= 2 && addr[0] == '[' && addr[hl - 1] == ']') {
		addr++;
		hl -= 2;
	}
	if (hl >= sizeof host)
		return clasp_error_set(err, 0, "--listen: address too long");
	memcpy(host, addr, hl);
	host[hl] = '\0';
	if (netrule_parse_port(colon + 1, strlen(colon + 1), &port, err) < 0)
		return clasp_error_prefix(err, "--listen");
	if (parse_sockaddr(host, port, &ss, &len) < 0)
		return clasp_error_set(err, 0, "--listen: \"%s\" is not an IP address", host);
	return listen_sa((struct sockaddr *)&ss, len, addr, err);
}

static bool is_loopback_literal(const char *host)
{
	struct in_addr a4;

	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	return strcmp(host, "::1") == 0;
}

struct listeners {
	int fds[2];
	size_t n_fds;
	struct proxy_forward fw[32];
	size_t n_fw;
};

static void listeners_close(struct listeners *l)
{
	size_t i;

	for (i = 0; i < l->n_fds; i++)
		close(l->fds[i]);
	for (i = 0; i < l->n_fw; i++)
		close(l->fw[i].fd);
	l->n_fds = l->n_fw = 0;
}

/* Runs inside the container's network namespace. */
static int make_listeners(const struct egress_policy *p, struct listeners *l,
			  struct clasp_error *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char what[NETRULE_HOST_MAX + 96];
	size_t i, j;
	int fd;

	if (parse_sockaddr("127.0.0.1", p->port, &ss, &len) < 0)
		return clasp_error_set(err, EINVAL, "listen address 127.0.0.1:%u", p->port);
	snprintf(what, sizeof what, "127.0.0.1:%u in the container", p->port);
	fd = listen_sa((struct sockaddr *)&ss, len, what, err);
	if (fd < 0)
		return -1;
	l->fds[l->n_fds++] = fd;
	parse_sockaddr("::1", p->port, &ss, &len);
	snprintf(what, sizeof what, "[::1]:%u in the container", p->port);
	fd = listen_sa((struct sockaddr *)&ss, len, what, err);
	if (fd >= 0)
		l->fds[l->n_fds++] = fd;
	else if (err->code != EADDRNOTAVAIL && err->code != EAFNOSUPPORT)
		return -1; /* a container without IPv6 simply has no [::1] listener */
	for (i = 0; i < p->n_rules; i++) {
		const struct netrule *r = &p->rules[i];
		struct proxy_forward *f;
		bool dup = false;

		if (r->kind != NETRULE_TRUSTED || !is_loopback_literal(r->host))
			continue;
		for (j = 0; j < l->n_fw; j++)
			dup |= !strcmp(l->fw[j].host, r->host) && l->fw[j].port == r->port;
		if (dup)
			continue;
		if (l->n_fw == sizeof l->fw / sizeof l->fw[0])
			return clasp_error_set(err, 0, "too many trusted loopback URLs");
		f = &l->fw[l->n_fw];
		if (strlen(r->host) >= sizeof f->host)
			continue; /* loopback literals are short; unreachable */
		memcpy(f->host, r->host, strlen(r->host) + 1);
		f->port = r->port;
		parse_sockaddr(r->host, r->port, &f->dst, &f->dst_len);
		snprintf(what, sizeof what, "trusted URL forward %s%s%s:%u in the container",
			 strchr(r->host, ':') ? "[" : "", r->host, strchr(r->host, ':') ? "]" : "",
			 r->port);
		fd = listen_sa((struct sockaddr *)&f->dst, f->dst_len, what, err);
		if (fd < 0)
			return -1;
		f->fd = fd;
		l->n_fw++;
	}
	return 0;
}

/* Without privilege over the container's network namespace (rootless: it is
 * owned by the container's user namespace), a short-lived child joins the
 * user namespace first, binds, and hands the sockets back with SCM_RIGHTS.
 * The hook itself never enters the user namespace, which would be one-way. */
static int bind_via_userns(pid_t pid, const struct egress_policy *p, struct listeners *l,
			   struct clasp_error *err)
{
	int fds[2 + 32], sp[2], n = 0, status;
	union {
		char buf[CMSG_SPACE(sizeof fds)];
		struct cmsghdr align;
	} u;
	struct {
		int ok;
		char msg[CLASP_ERROR_MAX];
		struct listeners l;
	} *rep;
	struct iovec iov;
	struct msghdr mh = { 0 };
	struct cmsghdr *cm;
	pid_t child;
	ssize_t got;
	size_t i;

	rep = calloc(1, sizeof *rep);
	if (!rep)
		return clasp_error_set(err, ENOMEM, "bind in the container");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
		free(rep);
		return clasp_error_set(err, errno, "socketpair");
	}
	child = fork();
	if (child < 0) {
		close(sp[0]);
		close(sp[1]);
		free(rep);
		return clasp_error_set(err, errno, "fork");
	}
	if (child == 0) {
		struct clasp_error cerr = { 0 };
		char path[64];
		int ufd, nfd;

		close(sp[0]);
		snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
		ufd = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(path, sizeof path, "/proc/%d/ns/net", (int)pid);
		nfd = open(path, O_RDONLY | O_CLOEXEC);
		if (ufd < 0 || nfd < 0)
			clasp_error_set(&cerr, errno, "open the namespaces of %d", (int)pid);
		else if (setns(ufd, CLONE_NEWUSER) < 0)
			clasp_error_set(&cerr, errno, "enter the user namespace of %d", (int)pid);
		else if (setns(nfd, CLONE_NEWNET) < 0)
			clasp_error_set(&cerr, errno, "enter the network namespace of %d", (int)pid);
		else if (make_listeners(p, &rep->l, &cerr) == 0)
			rep->ok = 1;
		memcpy(rep->msg, cerr.msg, sizeof rep->msg);
		iov.iov_base = rep;
		iov.iov_len = sizeof *rep;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (rep->ok) {
			for (i = 0; i < rep->l.n_fds; i++)
				fds[n++] = rep->l.fds[i];
			for (i = 0; i < rep->l.n_fw; i++)
				fds[n++] = rep->l.fw[i].fd;
			mh.msg_control = u.buf;
			mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(n * sizeof(int));
			memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
		}
		/* A forked helper ends with _exit: nothing of the parent's to flush. */
		_exit(sendmsg(sp[1], &mh, MSG_NOSIGNAL) < 0 || !rep->ok);
	}
	close(sp[1]);
	iov.iov_base = rep;
	iov.iov_len = sizeof *rep;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof u.buf;
	got = recvmsg(sp[0], &mh, MSG_CMSG_CLOEXEC);
	close(sp[0]);
	waitpid(child, &status, 0);
	cm = got > 0 ? CMSG_FIRSTHDR(&mh) : NULL;
	if (got != (ssize_t)sizeof *rep || !rep->ok || !cm || cm->cmsg_type != SCM_RIGHTS) {
		if (got == (ssize_t)sizeof *rep && !rep->ok)
			clasp_error_set(err, 0, "%s", rep->msg);
		else
			clasp_error_set(err, 0, "bind in the container: helper process failed");
		free(rep);
		return -1;
	}
	n = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
	memcpy(fds, CMSG_DATA(cm), n * sizeof(int));
	if ((size_t)n != rep->l.n_fds + rep->l.n_fw || (mh.msg_flags & MSG_CTRUNC)) {
		while (n > 0)
			close(fds[--n]);
		free(rep);
		return clasp_error_set(err, 0, "bind in the container: sockets lost in transfer");
	}
	*l = rep->l;
	for (i = 0; i < l->n_fds; i++)
		l->fds[i] = fds[i];
	for (i = 0; i < l->n_fw; i++)
		l->fw[i].fd = fds[l->n_fds + i];
	free(rep);
	return 0;
}

static int bind_in_netns(pid_t pid, int pidfd, const struct egress_policy *p, struct listeners *l,
			 struct clasp_error *err)
{
	_cleanup_close_ int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	_cleanup_close_ int target = -1;
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	char path[64];
	int r;

	if (self < 0)
		return clasp_error_set(err, errno, "open /proc/self/ns/net");
	snprintf(path, sizeof path, "/proc/%d/ns/net", (int)pid);
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (target < 0)
		return clasp_error_set(err, errno, "open %s", path);
	/* The pidfd predates the open: if the process is still alive now, the
	 * namespace we opened is the container's, not a reused PID's. */
	if (poll(&pfd, 1, 0) != 0)
		return clasp_error_set(err, 0, "container process %d exited", (int)pid);
	if (setns(target, CLONE_NEWNET) < 0) {
		if (errno == EPERM)
			return bind_via_userns(pid, p, l, err);
		return clasp_error_set(err, errno, "enter the network namespace of %d", (int)pid);
	}
	r = make_listeners(p, l, err);
	if (setns(self, CLONE_NEWNET) < 0) {
		listeners_close(l);
		return clasp_error_set(err, errno, "return to the runtime network namespace");
	}
	return r;
}

static int write_pidfile(const char *dir, struct clasp_error *err)
{
	char path[4096], tmp[4200];
	unsigned long long start;
	int fd;

	if (egress_proc_starttime((int)getpid(), &start, err) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/egress.pid", dir);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return clasp_error_set(err, errno, "open %s", tmp);
	dprintf(fd, "%d %llu\n", (int)getpid(), start);
	close(fd);
	if (rename(tmp, path) < 0)
		return clasp_error_set(err, errno, "rename %s", tmp);
	return 0;
}

/* The long-lived proxy, in its own session, stdio on /dev/null. */
static int run_proxy(struct egress_policy *p, struct listeners *l, int pidfd, int ready,
		     struct clasp_error *err)
{
	struct proxy_config cfg = {
		.policy = p, .listen_fds = l->fds, .n_listen = l->n_fds, .forwards = l->fw,
		.n_forwards = l->n_fw, .pidfd = pidfd, .ready_fd = ready,
	};
	struct audit audit;
	char pidpath[4200];
	int devnull, r;

	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		close(devnull);
	}
	if (chdir("/") < 0)
		return clasp_error_set(err, errno, "chdir /");
	if (audit_open(&audit, p->audit_log, err) < 0)
		return -1;
	cfg.audit = &audit;
	if (p->state_dir && write_pidfile(p->state_dir, err) < 0) {
		audit_close(&audit);
		return -1;
	}
	r = proxy_run(&cfg, err);
	audit_close(&audit);
	if (p->state_dir) {
		snprintf(pidpath, sizeof pidpath, "%s/egress.pid", p->state_dir);
		unlink(pidpath);
	}
	return r;
}

int hook_run(const char *policy_path, const char *state_json, size_t state_len, int *role,
	     struct clasp_error *err)
{
	struct egress_policy p;
	struct listeners l = { .n_fds = 0 };
	_cleanup_close_ int pidfd = -1;
	int ready[2], status;
	char msg[CLASP_ERROR_MAX + 16];
	size_t got = 0;
	pid_t pid = 0, child;
	ssize_t n;

	*role = 0;
	if (hook_state_pid(state_json, state_len, &pid, err) < 0)
		return -1;
	if (egress_policy_read(policy_path, &p, err) < 0)
		return -1;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		egress_policy_free(&p);
		return clasp_error_set(err, errno, "pidfd_open %d", (int)pid);
	}
	if (bind_in_netns(pid, pidfd, &p, &l, err) < 0) {
		listeners_close(&l);
		egress_policy_free(&p);
		return -1;
	}
	if (pipe2(ready, O_CLOEXEC) < 0) {
		listeners_close(&l);
		egress_policy_free(&p);
		return clasp_error_set(err, errno, "pipe");
	}
	child = fork();
	if (child < 0) {
		listeners_close(&l);
		egress_policy_free(&p);
		return clasp_error_set(err, errno, "fork");
	}
	if (child == 0) {
		close(ready[0]);
		*role = 1;
		setsid();
		child = fork();
		if (child != 0)
			return child < 0 ? -1 : 0;
		*role = 2;
		if (run_proxy(&p, &l, pidfd, ready[1], err) < 0) {
			/* Before "ok" this reaches the hook; afterwards the pipe is gone. */
			dprintf(ready[1], "%s\n", err->msg);
			egress_policy_free(&p);
			return -1;
		}
		egress_policy_free(&p);
		return 0;
	}
	close(ready[1]);
	listeners_close(&l);
	egress_policy_free(&p);
	waitpid(child, &status, 0);
	while (got < sizeof msg - 1 && (n = read(ready[0], msg + got, sizeof msg - 1 - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		got += (size_t)n;
		if (got >= 3 && memcmp(msg, "ok\n", 3) == 0)
			break;
	}
	close(ready[0]);
	msg[got] = '\0';
	if (got >= 3 && memcmp(msg, "ok\n", 3) == 0)
		return 0;
	if (got && msg[got - 1] == '\n')
		msg[got - 1] = '\0';
	return clasp_error_set(err, 0, "egress proxy failed to start: %s",
			       got ? msg : "it exited before listening");
}
