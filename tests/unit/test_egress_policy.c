/* The policy file clasp writes and the hook reads, its digest, and sha256. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>

#include "audit.h"
#include "hook.h"
#include "sandbox/egress_policy.h"
#include "unit.h"
#include "util/sha256.h"

static char dir[] = "/tmp/test_egress_policy.XXXXXX";
static struct clasp_error err;

static int write_text(const char *name, const char *text, char *path)
{
	FILE *f;
	sprintf(path, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	return 0;
}

TEST(sha256_vectors)
{
	char hex[65];
	sha256_hex("", 0, hex);
	CHECK_STREQ(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, hex);
	CHECK_STREQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	CHECK_STREQ(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	{
		char *a = malloc(1000000);
		memset(a, 'a', 1000000);
		sha256_hex(a, 1000000, hex);
		CHECK_STREQ(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
		free(a);
	}
}

TEST(roundtrip)
{
	struct egress_policy p, q;
	struct netrule r;
	char path[512], d1[17], d2[17];

	egress_policy_init(&p);
	CHECK(p.port == 31337 && p.max_connections == 1024 && p.idle_timeout_ms == 600000 &&
	      p.header_timeout_ms == 30000);
	p.port = 4000;
	p.audit_log = strdup("/var/log/egress.jsonl");
	p.state_dir = strdup("/run/clasp/abc");
	CHECK(netrule_parse_allow("Example.com", &r, &err) == 0);
	CHECK(egress_policy_add_rule(&p, &r, &err) == 0);
	CHECK(netrule_parse_allow("https://api.example.com", &r, &err) == 0);
	CHECK(egress_policy_add_rule(&p, &r, &err) == 0);
	CHECK(netrule_parse_allow("[::1]:8080", &r, &err) == 0);
	CHECK(egress_policy_add_rule(&p, &r, &err) == 0);
	CHECK(netrule_parse_trusted("http://127.0.0.1:3100/api", &r, &err) == 0);
	CHECK(egress_policy_add_rule(&p, &r, &err) == 0);
	sprintf(path, "%s/policy", dir);
	CHECK(egress_policy_write(&p, path, &err) == 0);
	CHECK(egress_policy_read(path, &q, &err) == 0);
	CHECK(q.port == 4000);
	CHECK_STREQ(q.audit_log, "/var/log/egress.jsonl");
	CHECK_STREQ(q.state_dir, "/run/clasp/abc");
	CHECK(q.n_rules == 4);
	CHECK_STREQ(q.rules[0].host, "example.com");
	CHECK(q.rules[0].port == 0 && q.rules[0].kind == NETRULE_ALLOW);
	CHECK(q.rules[1].port == 443);
	CHECK_STREQ(q.rules[2].host, "::1");
	CHECK(q.rules[2].is_ip && q.rules[2].port == 8080);
	CHECK(q.rules[3].kind == NETRULE_TRUSTED && q.rules[3].port == 3100);
	CHECK_STREQ(q.rules[3].scheme, "http");
	egress_policy_digest(&p, d1);
	egress_policy_digest(&q, d2);
	CHECK(strlen(d1) == 16);
	CHECK_STREQ(d1, d2);
	/* The digest is over sorted rules: order does not matter. */
	r = q.rules[0];
	q.rules[0] = q.rules[3];
	q.rules[3] = r;
	egress_policy_digest(&q, d2);
	CHECK_STREQ(d1, d2);
	q.rules[0].port = 3101;
	egress_policy_digest(&q, d2);
	CHECK(strcmp(d1, d2) != 0);
	egress_policy_free(&p);
	egress_policy_free(&q);
}

TEST(digest_known)
{
	struct egress_policy p;
	struct netrule r;
	char d[17], hex[65];
	const char *lines = "allow a.example *\nallow b.example 443\n";

	egress_policy_init(&p);
	netrule_parse_allow("b.example:443", &r, &err);
	egress_policy_add_rule(&p, &r, &err);
	netrule_parse_allow("a.example", &r, &err);
	egress_policy_add_rule(&p, &r, &err);
	egress_policy_digest(&p, d);
	sha256_hex(lines, strlen(lines), hex);
	hex[16] = 0;
	CHECK_STREQ(d, hex);
	egress_policy_free(&p);
}

#define BAD(text, want)                                                                \
	do {                                                                           \
		struct egress_policy _p;                                               \
		char _path[512];                                                       \
		write_text("bad", text, _path);                                        \
		clasp_error_clear(&err);                                               \
		CHECK(egress_policy_read(_path, &_p, &err) < 0);                       \
		CHECK_CONTAINS(err.msg, want);                                         \
	} while (0)

TEST(refusals)
{
	struct egress_policy p;
	char path[512];

	BAD("", "empty egress policy");
	BAD("clasp-egress-policy 2\n", "not a clasp egress policy");
	BAD("clasp-egress-policy 1\nbogus 1\n", ":2: unknown directive \"bogus\"");
	BAD("clasp-egress-policy 1\nport 0\n", "outside 1-65535");
	BAD("clasp-egress-policy 1\nport 70000\n", "outside 1-65535");
	BAD("clasp-egress-policy 1\nport 80\nport 81\n", "duplicate directive");
	BAD("clasp-egress-policy 1\naudit-log rel/path\n", "path must be absolute");
	BAD("clasp-egress-policy 1\nmax-connections 0\n", "invalid value");
	BAD("clasp-egress-policy 1\nidle-timeout-ms x\n", "invalid value");
	BAD("clasp-egress-policy 1\nallow 127.1 *\n", "canonical");
	BAD("clasp-egress-policy 1\nallow Example.com *\n", "not normalised");
	BAD("clasp-egress-policy 1\nallow example.com\n", "expected 2 fields");
	BAD("clasp-egress-policy 1\nallow example.com 80 x\n", "too many fields");
	BAD("clasp-egress-policy 1\nallow *.example.com *\n", "wildcards are not supported");
	BAD("clasp-egress-policy 1\ntrusted ftp h 80\n", "scheme must be http or https");
	BAD("clasp-egress-policy 1\ntrusted http h *\n", "not a number");
	write_text("ok", "clasp-egress-policy 1\n# comment\n\nallow example.com *\n", path);
	CHECK(egress_policy_read(path, &p, &err) == 0 && p.n_rules == 1 && p.port == 31337);
	egress_policy_free(&p);
	CHECK(egress_policy_read("/nonexistent/policy", &p, &err) < 0);
	CHECK_CONTAINS(err.msg, "no such file or directory");
}

TEST(audit_sanitize)
{
	char out[254];
	char longh[400];

	audit_sanitize_host("Ex\"ample.COM\n", 13, out);
	CHECK_STREQ(out, "ex?ample.com?");
	memset(longh, 'a', sizeof longh);
	audit_sanitize_host(longh, sizeof longh, out);
	CHECK(strlen(out) == 253);
	audit_sanitize_host("[::1]", 5, out);
	CHECK_STREQ(out, "?::1?");
}

TEST(state_pid)
{
	pid_t pid = 0;
	const char *ok = "{\"ociVersion\":\"1.0.2\",\"id\":\"x\",\"status\":\"created\",\"pid\":4242,"
			 "\"bundle\":\"/tmp\",\"annotations\":{\"a\":\"\\\"pid\\\":1\"}}";

	CHECK(hook_state_pid(ok, strlen(ok), &pid, &err) == 0 && pid == 4242);
	CHECK(hook_state_pid("{\"pid\":0}", 9, &pid, &err) < 0);
	CHECK_CONTAINS(err.msg, "no valid \"pid\"");
	CHECK(hook_state_pid("{\"pid\":-5}", 10, &pid, &err) < 0);
	CHECK(hook_state_pid("{\"pid\":\"5\"}", 11, &pid, &err) < 0);
	CHECK(hook_state_pid("{\"pid\":1.5}", 11, &pid, &err) < 0);
	CHECK(hook_state_pid("{\"x\":{\"pid\":5}}", 16, &pid, &err) < 0);
	CHECK(hook_state_pid("nope", 4, &pid, &err) < 0);
	CHECK_CONTAINS(err.msg, "not JSON");
	CHECK(hook_state_pid("", 0, &pid, &err) < 0);
}

TEST(proxy_stop)
{
	unsigned long long st;
	char path[512];
	int status;
	pid_t child;

	CHECK(egress_proxy_stop(dir, 1000, &err) == 0); /* no file: nothing to do */
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	CHECK(egress_proc_starttime(child, &st, &err) == 0);
	/* a wrong start time: a reused PID is left alone */
	sprintf(path, "%s/egress.pid", dir);
	{
		FILE *f = fopen(path, "w");
		fprintf(f, "%d %llu\n", (int)child, st + 1);
		fclose(f);
	}
	CHECK(egress_proxy_stop(dir, 1000, &err) == 0);
	CHECK(kill(child, 0) == 0);
	CHECK(access(path, F_OK) != 0);
	{
		FILE *f = fopen(path, "w");
		fprintf(f, "%d %llu\n", (int)child, st);
		fclose(f);
	}
	CHECK(egress_proxy_stop(dir, 1000, &err) == 0);
	CHECK(waitpid(child, &status, 0) == child && WIFSIGNALED(status) &&
	      WTERMSIG(status) == SIGTERM);
	CHECK(access(path, F_OK) != 0);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(sha256_vectors);
	RUN(roundtrip);
	RUN(digest_known);
	RUN(refusals);
	RUN(audit_sanitize);
	RUN(state_pid);
	RUN(proxy_stop);
	{
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		if (system(cmd) != 0)
			return 1;
	}
	return unit_summary("egress_policy");
}
