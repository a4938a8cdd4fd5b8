#include "conn.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "deny.h"

#define CIN_CAP ((size_t)HTTP_MAX_HEAD * 2)
#define IO_CAP 65536
#define CONNECT_TIMEOUT_MS 10000
#define CLOSING_TIMEOUT_MS 5000
#define LINGER_MS 2000
#define TIMER_TICK_MS 250

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

size_t buf_avail(const struct buf *b)
{
	return b->len - b->off;
}

size_t buf_space(struct buf *b)
{
	if (b->off && b->cap - b->len < b->cap / 2) {
		memmove(b->d, b->d + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
	}
	return b->cap - b->len;
}

bool buf_append(struct buf *b, const void *p, size_t n)
{
	if (buf_space(b) < n) {
		if (b->off) {
			memmove(b->d, b->d + b->off, b->len - b->off);
			b->len -= b->off;
			b->off = 0;
		}
		if (b->cap - b->len < n)
			return false;
	}
	memcpy(b->d + b->len, p, n);
	b->len += n;
	return true;
}

void buf_consume(struct buf *b, size_t n)
{
	b->off += n;
	if (b->off == b->len)
		b->off = b->len = 0;
}

static int buf_alloc(struct buf *b, size_t cap)
{
	if (b->d)
		return 0;
	b->d = malloc(cap);
	if (!b->d)
		return -1;
	b->cap = cap;
	b->off = b->len = 0;
	return 0;
}

static void buf_free(struct buf *b)
{
	free(b->d);
	memset(b, 0, sizeof *b);
}

static void set_mask(struct conn *c, int fd, struct ep_ref *ref, uint32_t want, uint32_t *mask,
		     bool *reg)
{
	struct epoll_event ev = { .events = want, .data.ptr = ref };

	if (fd < 0)
		return;
	/* A socket with nothing to do is removed, so a pending HUP or ERR on it
	 * cannot spin the level-triggered loop. */
	if (!want) {
		if (*reg)
			epoll_ctl(c->px->ep, EPOLL_CTL_DEL, fd, NULL);
		*reg = false;
	} else if (!*reg) {
		if (epoll_ctl(c->px->ep, EPOLL_CTL_ADD, fd, &ev) == 0)
			*reg = true;
	} else if (*mask != want) {
		epoll_ctl(c->px->ep, EPOLL_CTL_MOD, fd, &ev);
	}
	*mask = want;
}

static void conn_update(struct conn *c)
{
	uint32_t cw = 0, uw = 0;

	if (c->dead)
		return;
	switch (c->st) {
	case S_HEAD:
	case S_RESOLVING:
	case S_CONNECTING:
	case S_HTTP:
		if (!c->c_eof && buf_space(&c->cin))
			cw |= EPOLLIN;
		if (c->st == S_CONNECTING)
			uw |= EPOLLOUT;
		if (c->st == S_HTTP && !c->u_eof && c->uin.d && buf_space(&c->uin))
			uw |= EPOLLIN;
		if (c->st == S_HTTP && c->uout.d && buf_avail(&c->uout))
			uw |= EPOLLOUT;
		break;
	case S_TUNNEL:
		if (!c->c_eof && c->pend_cu == 0 && !buf_avail(&c->uout))
			cw |= EPOLLIN;
		if (!c->u_eof && c->pend_uc == 0 && !buf_avail(&c->cout))
			uw |= EPOLLIN;
		if (c->pend_cu || buf_avail(&c->uout))
			uw |= EPOLLOUT;
		/* Without this a full client socket stalls the download until
		 * the client happens to send something (or the idle timeout). */
		if (c->pend_uc)
			cw |= EPOLLOUT;
		break;
	case S_CLOSING:
		break;
	case S_LINGER:
		cw |= EPOLLIN;
		break;
	}
	if (c->cout.d && buf_avail(&c->cout))
		cw |= EPOLLOUT;
	set_mask(c, c->cfd, &c->cref, cw, &c->cmask, &c->creg);
	set_mask(c, c->ufd, &c->uref, uw, &c->umask, &c->ureg);
}

void conn_close_upstream(struct conn *c)
{
	if (c->ufd >= 0) {
		if (c->ureg)
			epoll_ctl(c->px->ep, EPOLL_CTL_DEL, c->ufd, NULL);
		close(c->ufd);
	}
	c->ufd = -1;
	c->ureg = false;
	c->umask = 0;
	c->up_reusable = false;
	c->u_eof = false;
	if (c->uin.d)
		c->uin.off = c->uin.len = 0;
	/* uout survives: a failed connect retries the next address with it. */
}

void conn_close(struct conn *c, bool teardown)
{
	int i;

	if (c->dead)
		return;
	if (c->job) {
		c->job->owner = NULL; /* the resolver thread finishes it; we drop it */
		c->job = NULL;
	}
	if (c->tunnel_id)
		audit_tunnel_closed(c->px->cfg->audit, c->tunnel_id, c->host, c->port, c->bytes_in,
				    c->bytes_out, c->px->now - c->t_start, teardown);
	conn_close_upstream(c);
	if (c->cfd >= 0)
		close(c->cfd);
	c->cfd = -1;
	for (i = 0; i < 2; i++) {
		if (c->p_cu[i] >= 0)
			close(c->p_cu[i]);
		if (c->p_uc[i] >= 0)
			close(c->p_uc[i]);
		c->p_cu[i] = c->p_uc[i] = -1;
	}
	buf_free(&c->cin);
	buf_free(&c->cout);
	buf_free(&c->uin);
	buf_free(&c->uout);
	c->dead = true;
	if (c->prev)
		c->prev->next = c->next;
	else
		c->px->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->px->n_conns--;
	/* Freed after the current batch of events, which may still name it. */
	c->next = c->px->dead;
	c->px->dead = c;
}

void conn_deny(struct conn *c, int code)
{
	char resp[512];
	size_t n = deny_response((enum deny_code)code, resp, sizeof resp);

	conn_close_upstream(c);
	if (buf_alloc(&c->cout, IO_CAP) < 0) {
		conn_close(c, false);
		return;
	}
	c->cout.off = c->cout.len = 0;
	buf_append(&c->cout, resp, n);
	c->st = S_CLOSING;
	c->deadline = c->px->now + CLOSING_TIMEOUT_MS;
}

static struct conn *conn_new(struct proxy *px, int cfd)
{
	struct conn *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	c->px = px;
	c->cfd = cfd;
	c->ufd = -1;
	c->p_cu[0] = c->p_cu[1] = c->p_uc[0] = c->p_uc[1] = -1;
	c->cref.type = EP_CLIENT;
	c->cref.ptr = c;
	c->uref.type = EP_UPSTREAM;
	c->uref.ptr = c;
	if (buf_alloc(&c->cin, CIN_CAP) < 0 || buf_alloc(&c->cout, IO_CAP) < 0) {
		buf_free(&c->cin);
		free(c);
		return NULL;
	}
	c->last_active = px->now;
	c->next = px->conns;
	if (px->conns)
		px->conns->prev = c;
	px->conns = c;
	px->n_conns++;
	return c;
}

int conn_start_connect(struct conn *c)
{
	while (c->next_addr < c->n_addrs) {
		const struct sockaddr_storage *sa = &c->addrs[c->next_addr++];
		socklen_t len = sa->ss_family == AF_INET ? sizeof(struct sockaddr_in)
							 : sizeof(struct sockaddr_in6);
		int one = 1, fd;

		fd = socket(sa->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		/* Our TIME_WAITs then never block a later listener on that port. */
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (connect(fd, (const struct sockaddr *)sa, len) == 0 || errno == EINPROGRESS) {
			c->ufd = fd;
			c->ureg = false;
			c->umask = 0;
			c->st = S_CONNECTING;
			c->deadline = c->px->now + CONNECT_TIMEOUT_MS;
			return 0;
		}
		close(fd);
	}
	return -1;
}

static void upstream_failed(struct conn *c)
{
	bool connecting = c->st == S_CONNECTING;

	conn_close_upstream(c);
	/* Only a failed connect is retried; once bytes went out, never. */
	if (connecting && conn_start_connect(c) == 0)
		return;
	if (c->is_forward || c->resp_started)
		conn_close(c, false);
	else
		conn_deny(c, DENY_UPSTREAM_ERROR);
}

int conn_tunnel_setup(struct conn *c)
{
	if (pipe2(c->p_cu, O_NONBLOCK | O_CLOEXEC) < 0)
		return -1;
	if (pipe2(c->p_uc, O_NONBLOCK | O_CLOEXEC) < 0)
		return -1;
	if (buf_alloc(&c->uout, IO_CAP) < 0)
		return -1;
	c->st = S_TUNNEL;
	c->t_start = c->px->now;
	return 0;
}

static void on_connected(struct conn *c)
{
	static const char established[] = "HTTP/1.1 200 Connection Established\r\n\r\n";

	if (c->is_forward || c->is_connect) {
		if (conn_tunnel_setup(c) < 0) {
			if (c->is_forward)
				conn_close(c, false);
			else
				conn_deny(c, DENY_UPSTREAM_ERROR);
			return;
		}
		if (c->is_connect)
			buf_append(&c->cout, established, sizeof established - 1);
		/* Bytes the client sent ahead of our 200 (a TLS ClientHello, say). */
		buf_append(&c->uout, c->cin.d + c->cin.off, buf_avail(&c->cin));
		c->cin.off = c->cin.len = 0;
		return;
	}
	c->st = S_HTTP;
	c->up_reusable = false;
}

static void check_connect(struct conn *c)
{
	int soerr = 0;
	socklen_t l = sizeof soerr;

	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &soerr, &l) < 0 || soerr) {
		upstream_failed(c);
		return;
	}
	on_connected(c);
}

/* Returns -1 on a fatal error, 0 otherwise. */
static int flush(struct conn *c, int fd, struct buf *b, uint64_t *count)
{
	while (b->d && buf_avail(b)) {
		ssize_t n = send(fd, b->d + b->off, buf_avail(b), MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		buf_consume(b, (size_t)n);
		if (count)
			*count += (uint64_t)n;
		c->last_active = c->px->now;
	}
	return 0;
}

/* Returns 1 on data, 0 on EOF or nothing, -1 on error. */
static int fill(struct conn *c, int fd, struct buf *b, bool *eof)
{
	size_t space = buf_space(b);
	ssize_t n;

	if (!space || *eof)
		return 0;
	n = recv(fd, b->d + b->len, space, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (n == 0) {
		*eof = true;
		return 0;
	}
	b->len += (size_t)n;
	c->last_active = c->px->now;
	return 1;
}

/* One direction of a tunnel: src -> pipe -> dst. Returns -1 to close. */
static int splice_dir(struct conn *c, int src, int dst, int p[2], size_t *pend, bool readable,
		      bool *eof, bool *shut, uint64_t *count)
{
	ssize_t n;

	if (readable && *pend == 0 && !*eof) {
		n = splice(src, NULL, p[1], NULL, 1 << 16, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0)
			*pend = (size_t)n;
		else if (n == 0)
			*eof = true;
		else if (errno != EAGAIN && errno != EINTR)
			return -1;
	}
	while (*pend) {
		n = splice(p[0], NULL, dst, NULL, *pend, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		*pend -= (size_t)n;
		*count += (uint64_t)n;
		c->last_active = c->px->now;
	}
	if (*eof && !*shut) {
		shutdown(dst, SHUT_WR);
		*shut = true;
	}
	return 0;
}

static void tunnel_pump(struct conn *c, bool cr, bool ur)
{
	if (flush(c, c->ufd, &c->uout, &c->bytes_out) < 0 || flush(c, c->cfd, &c->cout, NULL) < 0) {
		conn_close(c, false);
		return;
	}
	if (!buf_avail(&c->uout) &&
	    splice_dir(c, c->cfd, c->ufd, c->p_cu, &c->pend_cu, cr, &c->c_eof, &c->shut_u,
		       &c->bytes_out) < 0) {
		conn_close(c, false);
		return;
	}
	if (!buf_avail(&c->cout) &&
	    splice_dir(c, c->ufd, c->cfd, c->p_uc, &c->pend_uc, ur, &c->u_eof, &c->shut_c,
		       &c->bytes_in) < 0) {
		conn_close(c, false);
		return;
	}
	if (c->shut_u && c->shut_c)
		conn_close(c, false);
}

static void conn_io(struct conn *c, bool cr, bool ur, bool uw)
{
	bool progress;

	if (c->st == S_CONNECTING && uw)
		check_connect(c);
	if (c->dead)
		return;
	if (c->st == S_TUNNEL) {
		tunnel_pump(c, cr, ur);
		return;
	}
	if (c->st == S_LINGER) {
		char junk[4096];
		ssize_t n = recv(c->cfd, junk, sizeof junk, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			conn_close(c, false);
		return;
	}
	if (cr && c->st != S_CLOSING && fill(c, c->cfd, &c->cin, &c->c_eof) < 0) {
		conn_close(c, false);
		return;
	}
	if (ur && c->st == S_HTTP && fill(c, c->ufd, &c->uin, &c->u_eof) < 0)
		c->u_eof = true; /* a reset upstream ends its response like a close */
	do {
		enum conn_state before = c->st;

		progress = false;
		if (c->st == S_HEAD)
			relay_head(c);
		if (c->dead)
			return;
		if (c->st == S_HTTP)
			progress = relay_http(c);
		if (c->dead)
			return;
		if (c->st == S_TUNNEL) {
			tunnel_pump(c, false, false);
			return;
		}
		if (c->st == S_HTTP && flush(c, c->ufd, &c->uout, NULL) < 0) {
			upstream_failed(c);
			if (c->dead)
				return;
		}
		if (flush(c, c->cfd, &c->cout, NULL) < 0) {
			conn_close(c, false);
			return;
		}
		if (c->st == S_CLOSING && !buf_avail(&c->cout)) {
			shutdown(c->cfd, SHUT_WR);
			c->st = S_LINGER;
			c->deadline = c->px->now + LINGER_MS;
		}
		if (c->st != before)
			progress = true;
	} while (progress && !c->dead);
}

static void accept_clients(struct proxy *px, int lfd, const struct proxy_forward *fw)
{
	for (;;) {
		int one = 1, fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *c;

		if (fd < 0)
			return;
		if (px->n_conns >= px->cfg->policy->max_connections) {
			char resp[512];
			size_t n = deny_response(DENY_TOO_MANY_CONNECTIONS, resp, sizeof resp);
			ssize_t w = send(fd, resp, n, MSG_NOSIGNAL | MSG_DONTWAIT);
			(void)w;
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		c = conn_new(px, fd);
		if (!c) {
			close(fd);
			continue;
		}
		c->deadline = px->now + px->cfg->policy->header_timeout_ms;
		if (fw) {
			c->is_forward = true;
			snprintf(c->host, sizeof c->host, "%s", fw->host);
			c->port = fw->port;
			c->tunnel_id = ++px->next_tunnel;
			audit_decision(px->cfg->audit, true, "trusted_url_match", fw->host,
				       strlen(fw->host), fw->port, "", 0, "tcp", c->tunnel_id, NULL);
			memcpy(&c->addrs[0], &fw->dst, sizeof fw->dst);
			c->n_addrs = 1;
			if (conn_start_connect(c) < 0) {
				conn_close(c, false);
				continue;
			}
		}
		conn_update(c);
	}
}

static void run_timers(struct proxy *px)
{
	const struct egress_policy *p = px->cfg->policy;
	struct conn *c, *next;

	for (c = px->conns; c; c = next) {
		next = c->next;
		switch (c->st) {
		case S_HEAD:
			if (px->now >= c->deadline) {
				if (!buf_avail(&c->cin) && c->requests)
					conn_close(c, false);
				else
					conn_deny(c, DENY_REQUEST_TIMEOUT);
			}
			break;
		case S_RESOLVING:
			if (px->now >= c->deadline) {
				c->job->owner = NULL;
				c->job = NULL;
				conn_deny(c, DENY_UPSTREAM_ERROR);
			}
			break;
		case S_CONNECTING:
			if (px->now >= c->deadline)
				upstream_failed(c);
			break;
		case S_HTTP:
		case S_TUNNEL:
			if (px->now - c->last_active >= p->idle_timeout_ms)
				conn_close(c, false);
			break;
		case S_CLOSING:
		case S_LINGER:
			if (px->now >= c->deadline)
				conn_close(c, false);
			break;
		}
		if (!c->dead)
			conn_update(c);
	}
}

static void raise_nofile(size_t max_conns)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)max_conns * 6 + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int ep_add(int ep, int fd, struct ep_ref *ref, struct clasp_error *err)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ref };

	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		return clasp_error_set(err, errno, "epoll_ctl");
	return 0;
}

int proxy_run(const struct proxy_config *cfg, struct clasp_error *err)
{
	struct proxy px = { .cfg = cfg };
	struct ep_ref *lrefs = NULL, sref = { EP_SIGNAL, NULL }, pref = { EP_PIDFD, NULL };
	struct ep_ref rref = { EP_RESOLVER, NULL };
	struct epoll_event evs[256];
	uint64_t last_tick = 0;
	bool stop = false;
	sigset_t mask;
	size_t i;
	int sfd = -1, rc = -1;

	signal(SIGPIPE, SIG_IGN);
	raise_nofile(cfg->policy->max_connections);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	px.ep = epoll_create1(EPOLL_CLOEXEC);
	if (px.ep < 0)
		return clasp_error_set(err, errno, "epoll_create1");
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0) {
		clasp_error_set(err, errno, "signalfd");
		goto out;
	}
	lrefs = calloc(cfg->n_listen + cfg->n_forwards, sizeof *lrefs);
	if (!lrefs) {
		clasp_error_set(err, ENOMEM, "listeners");
		goto out;
	}
	if (ep_add(px.ep, sfd, &sref, err) < 0)
		goto out;
	if (resolver_start(&px.resolver, 4, err) < 0)
		goto out;
	if (ep_add(px.ep, resolver_fd(px.resolver), &rref, err) < 0)
		goto out;
	if (cfg->pidfd >= 0 && ep_add(px.ep, cfg->pidfd, &pref, err) < 0)
		goto out;
	for (i = 0; i < cfg->n_listen; i++) {
		lrefs[i].type = EP_LISTEN;
		lrefs[i].ptr = NULL;
		if (ep_add(px.ep, cfg->listen_fds[i], &lrefs[i], err) < 0)
			goto out;
	}
	for (i = 0; i < cfg->n_forwards; i++) {
		struct ep_ref *r = &lrefs[cfg->n_listen + i];
		r->type = EP_FORWARD;
		r->ptr = (void *)&cfg->forwards[i];
		if (ep_add(px.ep, cfg->forwards[i].fd, r, err) < 0)
			goto out;
	}
	px.now = now_ms();
	audit_started(cfg->audit, cfg->policy);
	if (cfg->ready_fd >= 0) {
		ssize_t w = write(cfg->ready_fd, "ok\n", 3);
		(void)w;
		close(cfg->ready_fd);
	}
	while (!stop) {
		int n = epoll_wait(px.ep, evs, 256, TIMER_TICK_MS);

		if (n < 0 && errno != EINTR) {
			clasp_error_set(err, errno, "epoll_wait");
			goto out;
		}
		px.now = now_ms();
		for (int k = 0; k < n; k++) {
			struct ep_ref *ref = evs[k].data.ptr;
			uint32_t e = evs[k].events;
			struct conn *c = ref->ptr;

			switch (ref->type) {
			case EP_SIGNAL:
			case EP_PIDFD:
				stop = true;
				break;
			case EP_RESOLVER: {
				struct dns_job *job;
				while ((job = resolver_done(px.resolver))) {
					struct conn *o = job->owner;
					if (o && !o->dead) {
						o->job = NULL;
						relay_resolved(o, job);
						if (!o->dead)
							conn_io(o, false, false, false);
						conn_update(o);
					}
					free(job);
				}
				break;
			}
			case EP_LISTEN:
				accept_clients(&px, cfg->listen_fds[ref - lrefs], NULL);
				break;
			case EP_FORWARD: {
				const struct proxy_forward *fw = ref->ptr;
				accept_clients(&px, fw->fd, fw);
				break;
			}
			case EP_CLIENT:
				if (c->dead)
					break;
				if ((e & EPOLLERR) && c->st != S_CONNECTING) {
					conn_close(c, false);
					break;
				}
				conn_io(c, e & (EPOLLIN | EPOLLHUP), false, false);
				conn_update(c);
				break;
			case EP_UPSTREAM:
				if (c->dead)
					break;
				conn_io(c, false, e & (EPOLLIN | EPOLLHUP | EPOLLERR),
					e & (EPOLLOUT | EPOLLERR | EPOLLHUP));
				conn_update(c);
				break;
			}
		}
		while (px.dead) {
			struct conn *d = px.dead;
			px.dead = d->next;
			free(d);
		}
		if (px.now - last_tick >= TIMER_TICK_MS) {
			last_tick = px.now;
			run_timers(&px);
			while (px.dead) {
				struct conn *d = px.dead;
				px.dead = d->next;
				free(d);
			}
		}
	}
	rc = 0;
out:
	px.now = now_ms();
	while (px.conns)
		conn_close(px.conns, true);
	while (px.dead) {
		struct conn *d = px.dead;
		px.dead = d->next;
		free(d);
	}
	if (rc == 0)
		audit_stopped(cfg->audit);
	if (px.resolver) {
		struct dns_job *job;
		while ((job = resolver_done(px.resolver)))
			free(job);
		resolver_stop(px.resolver);
	}
	free(lrefs);
	if (sfd >= 0)
		close(sfd);
	close(px.ep);
	return rc;
}
