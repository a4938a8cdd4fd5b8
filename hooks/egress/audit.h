/* The audit log: JSON lines with Paperclip's event names (schemaVersion 2).
 * Only hostnames, ports, methods and counters are logged; never paths,
 * queries, headers or bodies. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sandbox/egress_policy.h"

struct audit {
	int fd; /* -1 = counting only */
	unsigned long allow_count, deny_count;
};

/* Opens path for appending (path NULL = no log). */
int audit_open(struct audit *a, const char *path, struct clasp_error *err);
void audit_close(struct audit *a);
void audit_started(struct audit *a, const struct egress_policy *p);
/* tunnel_id 0 = none. method is not NUL-terminated. detail may be NULL. */
void audit_decision(struct audit *a, bool allow, const char *reason, const char *host,
		    size_t host_len, uint16_t port, const char *method, size_t method_len,
		    const char *scheme, unsigned long tunnel_id, const char *detail);
void audit_tunnel_closed(struct audit *a, unsigned long tunnel_id, const char *host, uint16_t port,
			 uint64_t bytes_in, uint64_t bytes_out, uint64_t duration_ms, bool teardown);
void audit_stopped(struct audit *a);

/* Exposed for tests: hostname sanitising (cap 253, [a-z0-9.:-] else '?'). */
void audit_sanitize_host(const char *in, size_t len, char out[254]);
