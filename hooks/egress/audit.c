#include "audit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int audit_open(struct audit *a, const char *path, struct clasp_error *err)
{
	a->fd = -1;
	a->allow_count = a->deny_count = 0;
	if (!path)
		return 0;
	a->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0640);
	if (a->fd < 0)
		return clasp_error_set(err, errno, "open audit log %s", path);
	return 0;
}

void audit_close(struct audit *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}

void audit_sanitize_host(const char *in, size_t len, char out[254])
{
	size_t i;

	if (len > 253)
		len = 253;
	for (i = 0; i < len; i++) {
		char c = in[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		out[i] = ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
			  c == ':' || c == '-') ? c : '?';
	}
	out[len] = '\0';
}

static void sanitize_method(const char *in, size_t len, char out[25])
{
	size_t i;

	if (len > 24)
		len = 24;
	for (i = 0; i < len; i++) {
		char c = in[i];
		out[i] = ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			  c == '-' || c == '_' || c == '.') ? c : '?';
	}
	out[len] = '\0';
}

/* Writes one line "{"ts":...,"schemaVersion":2,"event":EV<rest>}\n" in a
 * single write(2), so concurrent appenders never interleave within a line. */
static void emit(struct audit *a, const char *event, const char *rest)
{
	char line[1024], ts[40];
	struct timespec now;
	struct tm tm;
	int n;

	if (a->fd < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
	n = snprintf(line, sizeof line, "{\"ts\":\"%s.%03ldZ\",\"schemaVersion\":2,\"event\":\"%s\"%s}\n",
		     ts, now.tv_nsec / 1000000, event, rest);
	if (n > 0 && (size_t)n < sizeof line) {
		ssize_t w = write(a->fd, line, (size_t)n);
		(void)w; /* an audit write failure must not take the proxy down */
	}
}

void audit_started(struct audit *a, const struct egress_policy *p)
{
	char rest[256], digest[17];
	size_t i, allow = 0, trusted = 0;

	for (i = 0; i < p->n_rules; i++)
		p->rules[i].kind == NETRULE_TRUSTED ? trusted++ : allow++;
	egress_policy_digest(p, digest);
	snprintf(rest, sizeof rest,
		 ",\"allowRuleCount\":%zu,\"trustedUrlCount\":%zu,\"rulesetDigest\":\"%s\","
		 "\"port\":%u,\"pid\":%d",
		 allow, trusted, digest, p->port, (int)getpid());
	emit(a, "sandbox.network.proxy.started", rest);
}

void audit_decision(struct audit *a, bool allow, const char *reason, const char *host,
		    size_t host_len, uint16_t port, const char *method, size_t method_len,
		    const char *scheme, unsigned long tunnel_id, const char *detail)
{
	char rest[768], h[254], m[25], tid[48] = "", det[64] = "";

	if (allow)
		a->allow_count++;
	else
		a->deny_count++;
	audit_sanitize_host(host ? host : "", host ? host_len : 0, h);
	sanitize_method(method ? method : "", method ? method_len : 0, m);
	if (tunnel_id)
		snprintf(tid, sizeof tid, ",\"tunnelId\":\"t%lu\"", tunnel_id);
	if (detail)
		snprintf(det, sizeof det, ",\"detail\":\"%s\"", detail);
	snprintf(rest, sizeof rest,
		 ",\"decision\":\"%s\",\"reason\":\"%s\",\"hostname\":\"%s\",\"port\":%u,"
		 "\"method\":\"%s\",\"scheme\":\"%s\"%s%s",
		 allow ? "allow" : "deny", reason, h, port, m, scheme, tid, det);
	emit(a, "sandbox.network.decision", rest);
}

void audit_tunnel_closed(struct audit *a, unsigned long tunnel_id, const char *host, uint16_t port,
			 uint64_t bytes_in, uint64_t bytes_out, uint64_t duration_ms, bool teardown)
{
	char rest[512], h[254];

	audit_sanitize_host(host, strlen(host), h);
	snprintf(rest, sizeof rest,
		 ",\"tunnelId\":\"t%lu\",\"hostname\":\"%s\",\"port\":%u,\"bytesIn\":%llu,"
		 "\"bytesOut\":%llu,\"durationMs\":%llu,\"closedAtTeardown\":%s",
		 tunnel_id, h, port, (unsigned long long)bytes_in, (unsigned long long)bytes_out,
		 (unsigned long long)duration_ms, teardown ? "true" : "false");
	emit(a, "sandbox.network.tunnel.closed", rest);
}

void audit_stopped(struct audit *a)
{
	char rest[128];

	snprintf(rest, sizeof rest, ",\"allowCount\":%lu,\"denyCount\":%lu", a->allow_count,
		 a->deny_count);
	emit(a, "sandbox.network.proxy.stopped", rest);
}
