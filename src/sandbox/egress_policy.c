#include "sandbox/egress_policy.h"
#include "util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/sha256.h"

void egress_policy_init(struct egress_policy *p)
{
	memset(p, 0, sizeof *p);
	p->port = EGRESS_DEFAULT_PORT;
	p->max_connections = EGRESS_DEFAULT_MAX_CONNECTIONS;
	p->idle_timeout_ms = EGRESS_DEFAULT_IDLE_TIMEOUT_MS;
	p->header_timeout_ms = EGRESS_DEFAULT_HEADER_TIMEOUT_MS;
}

void egress_policy_free(struct egress_policy *p)
{
	free(p->audit_log);
	free(p->state_dir);
	free(p->rules);
	p->audit_log = p->state_dir = NULL;
	p->rules = NULL;
	p->n_rules = 0;
}

int egress_policy_add_rule(struct egress_policy *p, const struct netrule *r, struct clasp_error *err)
{
	struct netrule *n = realloc(p->rules, (p->n_rules + 1) * sizeof *n);

	if (!n)
		return clasp_error_set(err, ENOMEM, "add rule");
	p->rules = n;
	p->rules[p->n_rules++] = *r;
	return 0;
}

static void rule_line(const struct netrule *r, char *buf, size_t len)
{
	if (r->kind == NETRULE_TRUSTED)
		snprintf(buf, len, "trusted %s %s %u", r->scheme, r->host, r->port);
	else if (r->port)
		snprintf(buf, len, "allow %s %u", r->host, r->port);
	else
		snprintf(buf, len, "allow %s *", r->host);
}

int egress_policy_write(const struct egress_policy *p, const char *path, struct clasp_error *err)
{
	_cleanup_free_ char *tmp = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	char line[NETRULE_HOST_MAX + 64];
	size_t i;
	int fd;

	if (asprintf(&tmp, "%s.tmp", path) < 0)
		return clasp_error_set(err, ENOMEM, "write egress policy");
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return clasp_error_set(err, errno, "open %s", tmp);
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return clasp_error_set(err, errno, "fdopen %s", tmp);
	}
	fprintf(f, "clasp-egress-policy 1\nport %u\n", p->port);
	if (p->audit_log)
		fprintf(f, "audit-log %s\n", p->audit_log);
	fprintf(f, "max-connections %u\nidle-timeout-ms %u\nheader-timeout-ms %u\n",
		p->max_connections, p->idle_timeout_ms, p->header_timeout_ms);
	if (p->state_dir)
		fprintf(f, "state-dir %s\n", p->state_dir);
	for (i = 0; i < p->n_rules; i++) {
		rule_line(&p->rules[i], line, sizeof line);
		fprintf(f, "%s\n", line);
	}
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		return clasp_error_set(err, errno, "write %s", tmp);
	if (rename(tmp, path) < 0)
		return clasp_error_set(err, errno, "rename %s to %s", tmp, path);
	return 0;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || *end || *out > max)
		return -1;
	return 0;
}

static int parse_rule(char *args, bool trusted, struct netrule *r, struct clasp_error *err)
{
	char *f[3] = { NULL, NULL, NULL };
	int n = 0, want = trusted ? 3 : 2;
	char *save = NULL, *tok;
	const char *host;

	for (tok = strtok_r(args, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (n == want)
			return clasp_error_set(err, 0, "too many fields");
		f[n++] = tok;
	}
	if (n != want)
		return clasp_error_set(err, 0, "expected %d fields", want);
	memset(r, 0, sizeof *r);
	r->kind = trusted ? NETRULE_TRUSTED : NETRULE_ALLOW;
	if (trusted) {
		if (strcmp(f[0], "http") && strcmp(f[0], "https"))
			return clasp_error_set(err, 0, "scheme must be http or https");
		strcpy(r->scheme, f[0]);
	}
	host = f[n - 2];
	if (netrule_normalize_host(host, strlen(host), r->host, &r->is_ip, err) < 0)
		return -1;
	if (strcmp(r->host, host) != 0)
		return clasp_error_set(err, 0, "host \"%s\" is not normalised", host);
	if (!trusted && strcmp(f[1], "*") == 0)
		return 0;
	return netrule_parse_port(f[n - 1], strlen(f[n - 1]), &r->port, err);
}

static int set_path(char **dst, const char *v, struct clasp_error *err)
{
	if (*dst)
		return clasp_error_set(err, 0, "duplicate directive");
	if (v[0] != '/')
		return clasp_error_set(err, 0, "path must be absolute");
	*dst = strdup(v);
	return *dst ? 0 : clasp_error_set(err, ENOMEM, "strdup");
}

static int parse_line(struct egress_policy *p, char *line, unsigned *seen, struct clasp_error *err)
{
	char *sp = strchr(line, ' ');
	char *key = line, *val = sp ? sp + 1 : (char *)"";
	unsigned long v;
	struct netrule r;
	unsigned bit = 0;

	if (sp)
		*sp = '\0';
	if (!strcmp(key, "port") || !strcmp(key, "max-connections") ||
	    !strcmp(key, "idle-timeout-ms") || !strcmp(key, "header-timeout-ms")) {
		bit = key[0] == 'p' ? 1 : key[0] == 'm' ? 2 : key[0] == 'i' ? 4 : 8;
		if (*seen & bit)
			return clasp_error_set(err, 0, "duplicate directive \"%s\"", key);
		*seen |= bit;
		if (bit == 1) {
			uint16_t port;
			if (netrule_parse_port(val, strlen(val), &port, err) < 0)
				return -1;
			p->port = port;
			return 0;
		}
		if (parse_uint(val, bit == 2 ? 1000000 : 86400000, &v) < 0 || v == 0)
			return clasp_error_set(err, 0, "invalid value \"%s\" for %s", val, key);
		if (bit == 2)
			p->max_connections = (unsigned)v;
		else if (bit == 4)
			p->idle_timeout_ms = (unsigned)v;
		else
			p->header_timeout_ms = (unsigned)v;
		return 0;
	}
	if (!strcmp(key, "audit-log"))
		return set_path(&p->audit_log, val, err);
	if (!strcmp(key, "state-dir"))
		return set_path(&p->state_dir, val, err);
	if (!strcmp(key, "allow") || !strcmp(key, "trusted")) {
		if (parse_rule(val, key[0] == 't', &r, err) < 0)
			return -1;
		return egress_policy_add_rule(p, &r, err);
	}
	return clasp_error_set(err, 0, "unknown directive \"%s\"", key);
}

int egress_policy_read(const char *path, struct egress_policy *out, struct clasp_error *err)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	size_t cap = 0, lineno = 0;
	unsigned seen = 0;
	ssize_t n;

	egress_policy_init(out);
	f = fopen(path, "re");
	if (!f)
		return clasp_error_set(err, errno, "open egress policy %s", path);
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (lineno == 1) {
			if (strcmp(line, "clasp-egress-policy 1") != 0) {
				egress_policy_free(out);
				return clasp_error_set(err, 0,
						       "%s: not a clasp egress policy (version 1)", path);
			}
			continue;
		}
		if (n == 0 || line[0] == '#')
			continue;
		if (parse_line(out, line, &seen, err) < 0) {
			egress_policy_free(out);
			return clasp_error_prefix(err, "%s:%zu", path, lineno);
		}
	}
	if (lineno == 0) {
		egress_policy_free(out);
		return clasp_error_set(err, 0, "%s: empty egress policy", path);
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void egress_policy_digest(const struct egress_policy *p, char out[17])
{
	char **lines = calloc(p->n_rules ? p->n_rules : 1, sizeof *lines);
	char hex[65];
	struct sha256 s;
	unsigned char d[32];
	size_t i;

	sha256_init(&s);
	for (i = 0; lines && i < p->n_rules; i++) {
		lines[i] = malloc(NETRULE_HOST_MAX + 64);
		if (lines[i])
			rule_line(&p->rules[i], lines[i], NETRULE_HOST_MAX + 64);
		else
			lines[i] = strdup("");
	}
	if (lines) {
		qsort(lines, p->n_rules, sizeof *lines, cmp_str);
		for (i = 0; i < p->n_rules; i++) {
			if (lines[i]) {
				sha256_update(&s, lines[i], strlen(lines[i]));
				sha256_update(&s, "\n", 1);
			}
			free(lines[i]);
		}
	}
	free(lines);
	sha256_final(&s, d);
	for (i = 0; i < 8; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	memcpy(out, hex, 16);
	out[16] = '\0';
}

int egress_proc_starttime(int pid, unsigned long long *out, struct clasp_error *err)
{
	char path[64], stat[1024], *p;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return clasp_error_set(err, errno, "open %s", path);
	n = read(fd, stat, sizeof stat - 1);
	close(fd);
	if (n <= 0)
		return clasp_error_set(err, n < 0 ? errno : 0, "read %s", path);
	stat[n] = '\0';
	/* comm may contain spaces and ")": fields count from the last ")". */
	p = strrchr(stat, ')');
	for (i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", out) != 1)
		return clasp_error_set(err, 0, "parse %s", path);
	return 0;
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

int egress_proxy_stop(const char *state_dir, unsigned timeout_ms, struct clasp_error *err)
{
	_cleanup_free_ char *path = NULL;
	unsigned long long want, now = 0;
	char buf[64];
	ssize_t n;
	int fd, pid;

	if (asprintf(&path, "%s/egress.pid", state_dir) < 0)
		return clasp_error_set(err, ENOMEM, "stop egress proxy");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0 : clasp_error_set(err, errno, "open %s", path);
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (sscanf(buf, "%d %llu", &pid, &want) != 2 || pid <= 0) {
		unlink(path);
		return clasp_error_set(err, 0, "%s: malformed", path);
	}
	/* The recorded start time proves the PID still names the proxy;
	 * proc_signal checks it under a pidfd where the kernel has them. */
	if (proc_signal(pid, want, SIGTERM) < 0) {
		int e = errno;
		unlink(path);
		return e == ESRCH ? 0 : clasp_error_set(err, e, "signal egress proxy %d", pid);
	}
	for (now = 0; now < timeout_ms / 10 && proc_is_same(pid, want); now++)
		usleep(10000);
	if (proc_is_same(pid, want))
		proc_signal(pid, want, SIGKILL);
	unlink(path);
	return 0;
}
