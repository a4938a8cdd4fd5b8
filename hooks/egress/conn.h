/* Internal to the proxy: one client connection and its upstream. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "http.h"
#include "proxy.h"
#include "resolver.h"
#include "sandbox/netrule.h"

struct buf {
	char *d;
	size_t off, len, cap;
};

enum conn_state { S_HEAD, S_RESOLVING, S_CONNECTING, S_HTTP, S_TUNNEL, S_CLOSING, S_LINGER };

enum ep_type { EP_LISTEN, EP_FORWARD, EP_CLIENT, EP_UPSTREAM, EP_SIGNAL, EP_PIDFD, EP_RESOLVER };

struct ep_ref {
	enum ep_type type;
	void *ptr;
};

struct proxy;

struct conn {
	struct proxy *px;
	struct conn *prev, *next;
	struct ep_ref cref, uref;
	int cfd, ufd;
	uint32_t cmask, umask;
	bool creg, ureg, dead;
	enum conn_state st;
	bool is_forward;
	bool c_eof, u_eof;
	struct buf cin, cout, uin, uout;

	/* the request in progress */
	char host[NETRULE_HOST_MAX + 1];
	uint16_t port;
	char method[25];
	size_t method_len;
	const char *scheme;
	bool rule_trusted;
	struct dns_job *job;
	bool is_connect, req_ka, head_req, want_ws;
	enum http_body req_body;
	uint64_t req_left;
	struct http_chunked req_ch;
	bool req_done;
	bool resp_head_done, resp_started, resp_done, resp_ka, client_ka;
	enum http_body resp_body;
	uint64_t resp_left;
	struct http_chunked resp_ch;
	unsigned requests;

	/* upstream */
	char up_host[NETRULE_HOST_MAX + 1];
	uint16_t up_port;
	bool up_reusable;
	struct sockaddr_storage addrs[DNS_MAX_ADDRS];
	size_t n_addrs, next_addr;

	/* tunnel */
	int p_cu[2], p_uc[2];
	size_t pend_cu, pend_uc;
	bool shut_u, shut_c;
	unsigned long tunnel_id;
	uint64_t bytes_in, bytes_out, t_start;

	uint64_t deadline, last_active;
};

struct proxy {
	int ep;
	const struct proxy_config *cfg;
	struct conn *conns, *dead;
	size_t n_conns;
	unsigned long next_tunnel;
	uint64_t now;
	struct resolver *resolver;
};

/* buffers */
size_t buf_avail(const struct buf *b);
size_t buf_space(struct buf *b);
bool buf_append(struct buf *b, const void *p, size_t n);
void buf_consume(struct buf *b, size_t n);

/* proxy.c */
void conn_close(struct conn *c, bool teardown);
void conn_deny(struct conn *c, int code);
int conn_start_connect(struct conn *c);
int conn_tunnel_setup(struct conn *c);
void conn_close_upstream(struct conn *c);

/* relay.c: request head handling and HTTP relaying */
void relay_head(struct conn *c);
/* The DNS answer for the request in S_RESOLVING arrived. */
void relay_resolved(struct conn *c, const struct dns_job *job);
bool relay_http(struct conn *c);
