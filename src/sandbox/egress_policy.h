/* The normalised egress policy that clasp writes into the container's state
 * directory and the clasp-egress hook reads. Line-based text, one directive a
 * line, so the hook needs no JSON parser:
 *
 *   clasp-egress-policy 1
 *   port 31337
 *   audit-log /abs/path            (optional)
 *   max-connections 1024           (optional)
 *   idle-timeout-ms 600000         (optional)
 *   header-timeout-ms 30000        (optional; request headers deadline, 408)
 *   state-dir /run/clasp/ID        (where the hook records the proxy's pid)
 *   allow HOST PORT|*              (one per allowlist rule)
 *   trusted SCHEME HOST PORT       (one per trusted URL)
 */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sandbox/netrule.h"
#include "util/error.h"

struct egress_policy {
	uint16_t port;
	char *audit_log;       /* NULL = off */
	unsigned max_connections;
	unsigned idle_timeout_ms;
	unsigned header_timeout_ms;
	char *state_dir;       /* NULL = none */
	struct netrule *rules; /* allow rules first, then trusted */
	size_t n_rules;
};

#define EGRESS_DEFAULT_PORT 31337
#define EGRESS_DEFAULT_MAX_CONNECTIONS 1024
#define EGRESS_DEFAULT_IDLE_TIMEOUT_MS 600000
#define EGRESS_DEFAULT_HEADER_TIMEOUT_MS 30000

/* Zero-initialise with the defaults above. */
void egress_policy_init(struct egress_policy *p);
/* Append a rule (copied). */
int egress_policy_add_rule(struct egress_policy *p, const struct netrule *r, struct clasp_error *err);
/* Unknown directives, duplicate scalars, non-absolute paths and invalid
 * hosts or ports are errors that name the line. */
int egress_policy_write(const struct egress_policy *p, const char *path, struct clasp_error *err);
int egress_policy_read(const char *path, struct egress_policy *out, struct clasp_error *err);
void egress_policy_free(struct egress_policy *p);
/* Stop the proxy recorded in STATE_DIR/egress.pid ("PID STARTTIME\n", written
 * by the hook): SIGTERM, then SIGKILL after timeout_ms, but only if that PID
 * still has the recorded start time, so a reused PID is never signalled.
 * Removes the file. A missing file or a finished proxy is success. For
 * `clasp delete`. */
int egress_proxy_stop(const char *state_dir, unsigned timeout_ms, struct clasp_error *err);
/* Field 22 of /proc/PID/stat (clock ticks since boot), for egress.pid. */
int egress_proc_starttime(int pid, unsigned long long *out, struct clasp_error *err);

/* First 16 hex digits of sha256 over the sorted rule lines. */
void egress_policy_digest(const struct egress_policy *p, char out[17]);
