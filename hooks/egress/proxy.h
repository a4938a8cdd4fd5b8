/* The egress proxy: one epoll loop, no thread or process per connection.
 * Listeners are created by the caller (in the container's network namespace
 * in hook mode); upstream sockets are created here, in the namespace the
 * proxy runs in (the host's). */
#pragma once
#include <stdint.h>
#include <sys/socket.h>

#include "audit.h"
#include "sandbox/egress_policy.h"

/* A trusted loopback URL: accept in the container, connect to the same
 * address and port on the host, and move bytes like a CONNECT tunnel. */
struct proxy_forward {
	int fd;
	struct sockaddr_storage dst;
	socklen_t dst_len;
	char host[64];
	uint16_t port;
};

struct proxy_config {
	const struct egress_policy *policy;
	const int *listen_fds;
	size_t n_listen;
	const struct proxy_forward *forwards;
	size_t n_forwards;
	int pidfd;        /* -1 = none; the proxy stops when it becomes readable */
	int ready_fd;     /* -1 = none; "ok\n" is written once the loop runs */
	struct audit *audit;
};

/* Runs until SIGTERM/SIGINT or the pidfd fires; 0 on a clean stop. */
int proxy_run(const struct proxy_config *cfg, struct clasp_error *err);

/* Rewrite a parsed absolute-form request head into origin form for the
 * upstream: hop-by-hop headers dropped, Host set from the URL. Returns the
 * length written or 0 when out is too small. Exposed for unit tests. */
struct http_msg;
struct http_target;
size_t proxy_rewrite_request(const struct http_msg *m, const struct http_target *u,
			     const char *host, uint16_t port, int want_ws, char *out, size_t cap);
