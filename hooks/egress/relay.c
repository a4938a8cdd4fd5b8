/* Request heads (policy decision, DNS, rewrite) and the HTTP relay of
 * bodies and responses between client and upstream. */
#include "conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "deny.h"

static const char *const hop_by_hop[] = {
	"connection", "proxy-connection", "keep-alive", "te", "trailer", "upgrade",
	"proxy-authorization", "host", NULL,
};

static bool is_hop(const struct http_msg *m, const struct http_header *h)
{
	for (int i = 0; hop_by_hop[i]; i++)
		if (http_header_is(h, hop_by_hop[i]))
			return true;
	return http_connection_names(m, h->name, h->name_len);
}

static bool put(char *out, size_t cap, size_t *n, const char *s, size_t len)
{
	if (*n + len > cap)
		return false;
	memcpy(out + *n, s, len);
	*n += len;
	return true;
}

#define PUTS(s) put(out, cap, &n, (s), strlen(s))
#define PUTN(s, l) put(out, cap, &n, (s), (l))

size_t proxy_rewrite_request(const struct http_msg *m, const struct http_target *u,
			     const char *host, uint16_t port, int want_ws, char *out, size_t cap)
{
	char hostline[NETRULE_HOST_MAX + 32];
	bool v6 = strchr(host, ':') != NULL;
	size_t n = 0, i;
	bool ok = true;

	if (port == 80)
		snprintf(hostline, sizeof hostline, "Host: %s%s%s\r\n", v6 ? "[" : "", host, v6 ? "]" : "");
	else
		snprintf(hostline, sizeof hostline, "Host: %s%s%s:%u\r\n", v6 ? "[" : "", host,
			 v6 ? "]" : "", port);
	ok &= PUTN(m->method, m->method_len) && PUTS(" ");
	if (u->path_len == 0 || u->path[0] == '?')
		ok &= PUTS("/");
	ok &= PUTN(u->path, u->path_len);
	ok &= PUTS(m->minor ? " HTTP/1.1\r\n" : " HTTP/1.0\r\n");
	ok &= PUTS(hostline);
	for (i = 0; i < m->n_headers && ok; i++) {
		const struct http_header *h = &m->headers[i];
		if (is_hop(m, h))
			continue;
		ok &= PUTN(h->name, h->name_len) && PUTS(": ") && PUTN(h->value, h->value_len) &&
		      PUTS("\r\n");
	}
	if (want_ws)
		ok &= PUTS("Connection: Upgrade\r\nUpgrade: websocket\r\n");
	ok &= PUTS("\r\n");
	return ok ? n : 0;
}

static size_t rewrite_response(const struct http_msg *m, const char *raw, bool add_close,
			       char *out, size_t cap)
{
	const char *eol = memmem(raw, m->head_len, "\r\n", 2);
	size_t n = 0, i;
	bool ok;

	ok = PUTN(raw, (size_t)(eol - raw) + 2);
	for (i = 0; i < m->n_headers && ok; i++) {
		const struct http_header *h = &m->headers[i];
		if (http_header_is(h, "connection") || http_header_is(h, "proxy-connection") ||
		    http_header_is(h, "keep-alive") ||
		    http_connection_names(m, h->name, h->name_len))
			continue;
		ok &= PUTN(h->name, h->name_len) && PUTS(": ") && PUTN(h->value, h->value_len) &&
		      PUTS("\r\n");
	}
	if (add_close)
		ok &= PUTS("Connection: close\r\n");
	ok &= PUTS("\r\n");
	return ok ? n : 0;
}

static void deny_logged(struct conn *c, int code, const char *reason, const char *host,
			size_t host_len, const char *scheme, const struct http_msg *m)
{
	audit_decision(c->px->cfg->audit, false, reason, host, host_len, c->port, m->method,
		       m->method_len, scheme, 0, NULL);
	conn_deny(c, code);
}

/* IP literals are connected to as written; no DNS, no range check. */
static bool literal_addr(struct conn *c)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)&c->addrs[0];
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&c->addrs[0];

	c->n_addrs = c->next_addr = 0;
	memset(&c->addrs[0], 0, sizeof c->addrs[0]);
	if (inet_pton(AF_INET, c->host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(c->port);
	} else if (inet_pton(AF_INET6, c->host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(c->port);
	} else {
		return false;
	}
	c->n_addrs = 1;
	return true;
}

/* An idle keep-alive upstream may have closed meanwhile: reusing it would
 * turn a harmless close into a 502. */
static bool upstream_alive(int fd)
{
	char b;
	ssize_t n = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);

	return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

static void reset_request(struct conn *c)
{
	c->is_connect = c->req_ka = c->head_req = c->want_ws = false;
	c->req_done = c->resp_head_done = c->resp_started = c->resp_done = false;
	c->resp_ka = c->client_ka = false;
	c->req_left = c->resp_left = 0;
}

static int buf_ready(struct buf *b, size_t cap)
{
	if (!b->d) {
		b->d = malloc(cap);
		if (!b->d)
			return -1;
		b->cap = cap;
	}
	return 0;
}

#define RESOLVE_TIMEOUT_MS 30000

/* The policy allowed the target and its addresses are known (result 0), or
 * DNS failed (-1), or every answer was in a forbidden range (-2). */
static void target_ready(struct conn *c, int result)
{
	if (result == -2) {
		audit_decision(c->px->cfg->audit, false, "network_target_denied", c->host,
			       strlen(c->host), c->port, c->method, c->method_len, c->scheme, 0,
			       "forbidden_address");
		conn_deny(c, DENY_TARGET_DENIED);
		return;
	}
	if (c->is_connect)
		c->tunnel_id = ++c->px->next_tunnel;
	audit_decision(c->px->cfg->audit, true,
		       c->rule_trusted ? "trusted_url_match" : "allowlist_match", c->host,
		       strlen(c->host), c->port, c->method, c->method_len, c->scheme, c->tunnel_id,
		       NULL);
	if (result < 0 || conn_start_connect(c) < 0)
		conn_deny(c, DENY_UPSTREAM_ERROR);
}

void relay_head(struct conn *c)
{
	bool reuse;
	struct http_msg m;
	struct http_target u;
	struct clasp_error err;
	const struct netrule *rule;
	const struct egress_policy *p = c->px->cfg->policy;
	const char *scheme;
	int r;

	r = http_parse_request(c->cin.d + c->cin.off, buf_avail(&c->cin), &m);
	if (r == HTTP_INCOMPLETE) {
		if (c->c_eof)
			conn_close(c, false);
		return;
	}
	if (r == HTTP_TOO_LARGE) {
		conn_deny(c, DENY_HEADER_TOO_LARGE);
		return;
	}
	if (r == HTTP_BAD) {
		conn_deny(c, DENY_BAD_REQUEST);
		return;
	}
	reset_request(c);
	c->requests++;
	c->port = 0;
	c->is_connect = m.is_connect;
	c->req_ka = m.keep_alive;
	c->head_req = m.method_len == 4 && memcmp(m.method, "HEAD", 4) == 0;
	if (m.is_connect) {
		scheme = "connect";
		if (http_parse_authority(m.target, m.target_len, &u) != HTTP_URL_OK ||
		    netrule_parse_target(u.host, u.host_len, u.port, u.port_len, c->host, &c->port,
					 &err) < 0) {
			/* The same bytes as a policy denial: a probe learns nothing. */
			c->port = 0;
			deny_logged(c, DENY_TARGET_DENIED, "invalid_connect_target",
				    u.host ? u.host : m.target, u.host ? u.host_len : m.target_len,
				    scheme, &m);
			return;
		}
	} else {
		scheme = "http";
		r = http_parse_absolute_url(m.target, m.target_len, &u);
		if (r == HTTP_URL_HTTPS) {
			const char *h = m.target + 8;
			size_t hl = strcspn(h, "/?#: \r");
			if (hl > m.target_len - 8)
				hl = m.target_len - 8;
			c->port = 443;
			deny_logged(c, DENY_HTTPS_REQUIRES_CONNECT, "https_requires_connect", h, hl,
				    "https", &m);
			return;
		}
		if (r != HTTP_URL_OK) {
			deny_logged(c, DENY_INVALID_REQUEST_URL, "invalid_request_url", "", 0, scheme,
				    &m);
			return;
		}
		if (netrule_parse_target(u.host, u.host_len, u.port, u.port_len, c->host, &c->port,
					 &err) < 0) {
			c->port = 0;
			deny_logged(c, DENY_TARGET_DENIED, "invalid_request_url", u.host, u.host_len,
				    scheme, &m);
			return;
		}
		c->want_ws = m.upgrade_websocket && m.conn_upgrade;
	}
	rule = netrule_match(p->rules, p->n_rules, c->host, c->port);
	if (!rule) {
		deny_logged(c, DENY_TARGET_DENIED, "network_target_denied", c->host,
			    strlen(c->host), scheme, &m);
		return;
	}
	c->method_len = m.method_len < sizeof c->method ? m.method_len : sizeof c->method - 1;
	memcpy(c->method, m.method, c->method_len);
	c->scheme = scheme;
	c->rule_trusted = rule->kind == NETRULE_TRUSTED;
	reuse = c->ufd >= 0 && c->up_reusable && !m.is_connect && c->up_port == c->port &&
		strcmp(c->up_host, c->host) == 0 && upstream_alive(c->ufd);
	if (!reuse) {
		conn_close_upstream(c);
		if (c->uout.d)
			c->uout.off = c->uout.len = 0;
	}
	if (!m.is_connect) {
		size_t n;
		if (buf_ready(&c->uout, 65536) < 0 || buf_ready(&c->uin, 65536) < 0) {
			conn_deny(c, DENY_UPSTREAM_ERROR);
			return;
		}
		n = proxy_rewrite_request(&m, &u, c->host, c->port, c->want_ws,
					  c->uout.d + c->uout.len, c->uout.cap - c->uout.len);
		if (!n) {
			conn_deny(c, DENY_HEADER_TOO_LARGE);
			return;
		}
		c->uout.len += n;
		c->req_body = m.body;
		c->req_left = m.content_length;
		c->req_done = m.body == HTTP_BODY_NONE;
		http_chunked_init(&c->req_ch);
		snprintf(c->up_host, sizeof c->up_host, "%s", c->host);
		c->up_port = c->port;
	}
	buf_consume(&c->cin, m.head_len);
	if (reuse) {
		audit_decision(c->px->cfg->audit, true,
			       c->rule_trusted ? "trusted_url_match" : "allowlist_match", c->host,
			       strlen(c->host), c->port, c->method, c->method_len, scheme, 0, NULL);
		c->st = S_HTTP;
		return;
	}
	if (literal_addr(c)) {
		target_ready(c, 0);
		return;
	}
	c->job = calloc(1, sizeof *c->job);
	if (!c->job) {
		conn_deny(c, DENY_UPSTREAM_ERROR);
		return;
	}
	c->job->owner = c;
	memcpy(c->job->host, c->host, sizeof c->host);
	c->job->port = c->port;
	/* Only hostname rules are range-checked: an IP-literal rule or a
	 * trusted URL may name loopback on purpose. */
	c->job->check_ranges = rule->kind == NETRULE_ALLOW;
	c->st = S_RESOLVING;
	c->deadline = c->px->now + RESOLVE_TIMEOUT_MS;
	resolver_submit(c->px->resolver, c->job);
}

void relay_resolved(struct conn *c, const struct dns_job *job)
{
	if (c->st != S_RESOLVING)
		return;
	memcpy(c->addrs, job->addrs, sizeof c->addrs);
	c->n_addrs = job->n_addrs;
	c->next_addr = 0;
	target_ready(c, job->result);
}

static void move(struct buf *from, struct buf *to, size_t n)
{
	buf_append(to, from->d + from->off, n);
	buf_consume(from, n);
}

static size_t min3(size_t a, size_t b, uint64_t c)
{
	size_t m = a < b ? a : b;
	return (uint64_t)m < c ? m : (size_t)c;
}

/* Failure after the response may have started: only closing is honest. */
static void fail(struct conn *c, int code)
{
	if (c->resp_started)
		conn_close(c, false);
	else
		conn_deny(c, code);
}

static bool relay_request_body(struct conn *c)
{
	size_t avail = buf_avail(&c->cin), space = buf_space(&c->uout), n;
	bool done = false;

	if (c->req_done)
		return false;
	if (c->req_body == HTTP_BODY_LENGTH) {
		n = min3(avail, space, c->req_left);
		move(&c->cin, &c->uout, n);
		c->req_left -= n;
		c->req_done = c->req_left == 0;
	} else {
		ssize_t k;
		n = avail < space ? avail : space;
		k = http_chunked_feed(&c->req_ch, c->cin.d + c->cin.off, n, &done);
		if (k < 0) {
			fail(c, DENY_BAD_REQUEST);
			return false;
		}
		move(&c->cin, &c->uout, (size_t)k);
		c->req_done = done;
		n = (size_t)k;
	}
	if (!c->req_done && c->c_eof && !buf_avail(&c->cin)) {
		conn_close(c, false);
		return false;
	}
	return n > 0;
}

static bool relay_response_head(struct conn *c)
{
	struct http_msg m;
	size_t n;
	int r = http_parse_response(c->uin.d + c->uin.off, buf_avail(&c->uin), c->head_req, &m);

	if (r == HTTP_INCOMPLETE) {
		if (c->u_eof)
			fail(c, DENY_UPSTREAM_ERROR);
		return false;
	}
	if (r != HTTP_DONE) {
		fail(c, DENY_UPSTREAM_ERROR);
		return false;
	}
	if (m.status == 101) {
		if (!c->want_ws) {
			fail(c, DENY_UPSTREAM_ERROR);
			return false;
		}
		if (buf_space(&c->cout) < buf_avail(&c->uin))
			return false;
		move(&c->uin, &c->cout, buf_avail(&c->uin));
		move(&c->cin, &c->uout, buf_avail(&c->cin) < buf_space(&c->uout) ?
						buf_avail(&c->cin) : buf_space(&c->uout));
		c->tunnel_id = 0;
		if (conn_tunnel_setup(c) < 0)
			conn_close(c, false);
		return true;
	}
	if (m.status < 200) {
		if (buf_space(&c->cout) < m.head_len)
			return false;
		move(&c->uin, &c->cout, m.head_len);
		c->resp_started = true;
		return true;
	}
	c->client_ka = c->req_ka && m.body != HTTP_BODY_CLOSE && !c->want_ws;
	if (buf_space(&c->cout) < m.head_len + 32)
		return false;
	n = rewrite_response(&m, c->uin.d + c->uin.off, !c->client_ka, c->cout.d + c->cout.len,
			     c->cout.cap - c->cout.len);
	if (!n) {
		fail(c, DENY_UPSTREAM_ERROR);
		return false;
	}
	c->cout.len += n;
	buf_consume(&c->uin, m.head_len);
	c->resp_head_done = c->resp_started = true;
	c->resp_body = m.body;
	c->resp_left = m.content_length;
	c->resp_ka = m.keep_alive;
	c->resp_done = m.body == HTTP_BODY_NONE;
	http_chunked_init(&c->resp_ch);
	return true;
}

static bool relay_response_body(struct conn *c)
{
	size_t avail = buf_avail(&c->uin), space = buf_space(&c->cout), n = 0;
	bool done = false;

	switch (c->resp_body) {
	case HTTP_BODY_LENGTH:
		n = min3(avail, space, c->resp_left);
		move(&c->uin, &c->cout, n);
		c->resp_left -= n;
		c->resp_done = c->resp_left == 0;
		break;
	case HTTP_BODY_CHUNKED: {
		ssize_t k = http_chunked_feed(&c->resp_ch, c->uin.d + c->uin.off,
					      avail < space ? avail : space, &done);
		if (k < 0) {
			conn_close(c, false);
			return false;
		}
		n = (size_t)k;
		move(&c->uin, &c->cout, n);
		c->resp_done = done;
		break;
	}
	case HTTP_BODY_CLOSE:
		n = avail < space ? avail : space;
		move(&c->uin, &c->cout, n);
		c->resp_done = c->u_eof && !buf_avail(&c->uin);
		break;
	case HTTP_BODY_NONE:
		c->resp_done = true;
		break;
	}
	if (!c->resp_done && c->u_eof && !buf_avail(&c->uin)) {
		conn_close(c, false); /* truncated response: the client must see the cut */
		return false;
	}
	return n > 0;
}

bool relay_http(struct conn *c)
{
	bool progress = relay_request_body(c);

	if (c->dead)
		return false;
	if (!c->resp_head_done) {
		progress |= relay_response_head(c);
		if (c->dead || c->st != S_HTTP)
			return progress;
	}
	if (c->resp_head_done && !c->resp_done)
		progress |= relay_response_body(c);
	if (c->dead || !c->resp_done)
		return progress;
	if (!c->req_done || !c->client_ka) {
		conn_close_upstream(c);
		c->st = S_CLOSING;
		c->deadline = c->px->now + 5000;
		return true;
	}
	c->up_reusable = c->resp_ka && c->resp_body != HTTP_BODY_CLOSE && !c->u_eof &&
			 !buf_avail(&c->uin) && !buf_avail(&c->uout);
	if (!c->up_reusable)
		conn_close_upstream(c);
	reset_request(c);
	c->st = S_HEAD;
	c->deadline = c->px->now + c->px->cfg->policy->header_timeout_ms;
	return true;
}
