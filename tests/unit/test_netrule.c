/* The allowlist rule parser and matcher: every IP-literal trick is refused,
 * never normalised into a match. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "sandbox/netrule.h"
#include "unit.h"
#include "util/sockpath.h"

static struct clasp_error err;

static int allow(const char *e, struct netrule *r)
{
	clasp_error_clear(&err);
	return netrule_parse_allow(e, r, &err);
}

static int target(const char *host, const char *port, char *out, uint16_t *p)
{
	clasp_error_clear(&err);
	return netrule_parse_target(host, strlen(host), port, port ? strlen(port) : 0, out, p, &err);
}

#define ALLOW_OK(entry, host_, port_)                                                 \
	do {                                                                          \
		struct netrule _r;                                                    \
		CHECK(allow(entry, &_r) == 0);                                        \
		CHECK_STREQ(_r.host, host_);                                          \
		CHECK(_r.port == (port_));                                            \
	} while (0)

#define ALLOW_ERR(entry, want)                                                         \
	do {                                                                          \
		struct netrule _r;                                                    \
		CHECK(allow(entry, &_r) < 0);                                         \
		CHECK_CONTAINS(err.msg, want);                                        \
	} while (0)

TEST(allow_forms)
{
	struct netrule r;

	ALLOW_OK("api.github.com", "api.github.com", 0);
	ALLOW_OK("API.GitHub.COM.", "api.github.com", 0);
	ALLOW_OK("registry.npmjs.org:443", "registry.npmjs.org", 443);
	ALLOW_OK("https://example.com", "example.com", 443);
	ALLOW_OK("http://example.com", "example.com", 80);
	ALLOW_OK("HTTPS://Example.com:8443", "example.com", 8443);
	ALLOW_OK("https://example.com/", "example.com", 443);
	ALLOW_OK("[::1]:443", "::1", 443);
	ALLOW_OK("[2001:db8::1]", "2001:db8::1", 0);
	ALLOW_OK("10.0.0.1:8080", "10.0.0.1", 8080);
	ALLOW_OK("127.0.0.1", "127.0.0.1", 0);
	ALLOW_OK("internal_gw.corp", "internal_gw.corp", 0);
	CHECK(allow("10.0.0.1", &r) == 0 && r.is_ip);
	CHECK(allow("[::1]", &r) == 0 && r.is_ip);
	CHECK(allow("example.com", &r) == 0 && !r.is_ip && r.kind == NETRULE_ALLOW);
	CHECK(allow("https://example.com", &r) == 0 && strcmp(r.scheme, "https") == 0);
}

TEST(allow_refusals)
{
	ALLOW_ERR("*.example.com", "use an exact hostname; wildcards are not supported");
	ALLOW_ERR("*", "use an exact hostname; wildcards are not supported");
	ALLOW_ERR("https://*.example.com", "use an exact hostname; wildcards are not supported");
	ALLOW_ERR("", "allowlist entry is empty");
	ALLOW_ERR("   ", "allowlist entry is empty");
	ALLOW_ERR("user@example.com", "userinfo");
	ALLOW_ERR("https://user:pw@example.com", "userinfo");
	ALLOW_ERR("example.com/path", "must not carry a path");
	ALLOW_ERR("https://example.com/path", "must not carry a path");
	ALLOW_ERR("https://example.com?q=1", "must not carry a query");
	ALLOW_ERR("https://example.com#frag", "must not carry a fragment");
	ALLOW_ERR("example.com?x", "must not carry a query");
	ALLOW_ERR("ftp://example.com", "scheme must be http or https");
	ALLOW_ERR("example.com:0", "outside 1-65535");
	ALLOW_ERR("example.com:65536", "outside 1-65535");
	ALLOW_ERR("example.com:99999999999999999999", "outside 1-65535");
	ALLOW_ERR("example.com:8a", "not a number");
	ALLOW_ERR("example.com:+80", "not a number");
	ALLOW_ERR("example.com: 80", "whitespace");
	ALLOW_ERR("example.com:", "port is empty");
	ALLOW_ERR("::1", "brackets");
	ALLOW_ERR("[::1", "missing \"]\"");
	ALLOW_ERR("[fe80::1%eth0]:443", "zone ids are not supported");
	ALLOW_ERR("[fe80::1%25eth0]", "zone ids are not supported");
	ALLOW_ERR("[0:0:0:0:0:0:0:1]:443", "not in canonical form; write [::1]");
	ALLOW_ERR("[::FFFF:7f00:1]", "not in canonical form");
	ALLOW_ERR("a..b", "empty label");
	ALLOW_ERR("exa mple.com", "whitespace");
	ALLOW_ERR("example.com..", "empty label");
	ALLOW_ERR("ex%41mple.com", "percent-encoded");
	ALLOW_ERR("a/b", "path");
}

TEST(ip_tricks_refused)
{
	static const char *const tricks[] = {
		"0x7f.1", "0x7f000001", "2130706433", "127.1", "127.0.1", "0177.0.0.1",
		"0177.1", "127.0.0.01", "127.000.0.1", "0x7f.0.0.1", "127.0.0.0x1", "1.2.3.4.5",
		"256.0.0.1", "127.0.0.1.", /* trailing dot on an IP is fine: see below */
		"017700000001", "0", "0.0.0.0.0", "1.2.3", "example.0x", "example.123",
		NULL,
	};
	struct netrule r;
	for (int i = 0; tricks[i]; i++) {
		if (strcmp(tricks[i], "127.0.0.1.") == 0) {
			CHECK(allow(tricks[i], &r) == 0);
			CHECK_STREQ(r.host, "127.0.0.1");
			continue;
		}
		CHECK(allow(tricks[i], &r) < 0);
		if (strcmp(tricks[i], "example.123") && strcmp(tricks[i], "example.0x"))
			CHECK_CONTAINS(err.msg, "canonical");
	}
}

TEST(trusted_urls)
{
	struct netrule r;

	clasp_error_clear(&err);
	CHECK(netrule_parse_trusted("http://127.0.0.1:3100", &r, &err) == 0);
	CHECK_STREQ(r.host, "127.0.0.1");
	CHECK(r.port == 3100 && r.kind == NETRULE_TRUSTED && r.is_ip);
	CHECK(netrule_parse_trusted("https://Control.Example.com/api/v1?x=1", &r, &err) == 0);
	CHECK_STREQ(r.host, "control.example.com");
	CHECK(r.port == 443);
	CHECK_STREQ(r.scheme, "https");
	CHECK(netrule_parse_trusted("http://mcp.local", &r, &err) == 0 && r.port == 80);
	CHECK(netrule_parse_trusted("http://[::1]:3100/", &r, &err) == 0 && r.port == 3100);
	CHECK_STREQ(r.host, "::1");
	CHECK(netrule_parse_trusted("ftp://x", &r, &err) < 0);
	CHECK_CONTAINS(err.msg, "must be an http:// or https:// URL");
	CHECK(netrule_parse_trusted("127.0.0.1:3100", &r, &err) < 0);
	CHECK(netrule_parse_trusted("http://u@h", &r, &err) < 0);
	CHECK_CONTAINS(err.msg, "userinfo");
	CHECK(netrule_parse_trusted("http://*.x", &r, &err) < 0);
	CHECK_CONTAINS(err.msg, "use an exact hostname; wildcards are not supported");
	CHECK(netrule_parse_trusted("http://127.1:3100", &r, &err) < 0);
	CHECK(netrule_parse_trusted("http://h:0", &r, &err) < 0);
	CHECK(netrule_parse_trusted("", &r, &err) < 0);
}

TEST(targets)
{
	char h[NETRULE_HOST_MAX + 1];
	uint16_t p;

	CHECK(target("Example.COM.", "443", h, &p) == 0);
	CHECK_STREQ(h, "example.com");
	CHECK(p == 443);
	CHECK(target("[::1]", "443", h, &p) == 0);
	CHECK_STREQ(h, "::1");
	CHECK(target("[::ffff:127.0.0.1]", "80", h, &p) == 0);
	CHECK_STREQ(h, "::ffff:127.0.0.1");
	CHECK(target("example.com", NULL, h, &p) < 0);
	CHECK(target("example.com", "0", h, &p) < 0);
	CHECK(target("example.com", "65536", h, &p) < 0);
	CHECK(target("example.com", "65535", h, &p) == 0 && p == 65535);
	CHECK(target("example.com", "1", h, &p) == 0 && p == 1);
	CHECK(target("example.com", "44x", h, &p) < 0);
	CHECK(target("example.com", "-1", h, &p) < 0);
	CHECK(target("0x7f.1", "80", h, &p) < 0);
	CHECK(target("2130706433", "80", h, &p) < 0);
	CHECK(target("127.1", "80", h, &p) < 0);
	CHECK(target("0177.0.0.1", "80", h, &p) < 0);
	CHECK(target("[fe80::1%lo]", "80", h, &p) < 0);
	CHECK(target("[0::1]", "80", h, &p) < 0);
	CHECK(target("::1", "80", h, &p) < 0);
	CHECK(target("u@example.com", "80", h, &p) < 0);
	CHECK(target("", "80", h, &p) < 0);
	CHECK(target(".", "80", h, &p) < 0);
	CHECK(target("*.example.com", "80", h, &p) < 0);
	CHECK(target("exa\tmple.com", "80", h, &p) < 0);
	CHECK(target("exa\x01mple.com", "80", h, &p) < 0);
	{
		char longh[300];
		memset(longh, 'a', 299);
		longh[299] = 0;
		CHECK(target(longh, "80", h, &p) < 0);
	}
}

TEST(matching)
{
	struct netrule rules[4];
	char h[NETRULE_HOST_MAX + 1];
	uint16_t p;

	CHECK(netrule_parse_allow("example.com", &rules[0], &err) == 0);
	CHECK(netrule_parse_allow("api.example.com:8443", &rules[1], &err) == 0);
	CHECK(netrule_parse_allow("127.0.0.1:9000", &rules[2], &err) == 0);
	CHECK(netrule_parse_trusted("http://127.0.0.1:3100", &rules[3], &err) == 0);
	CHECK(netrule_match(rules, 4, "example.com", 1) == &rules[0]);
	CHECK(netrule_match(rules, 4, "example.com", 65535) == &rules[0]);
	CHECK(netrule_match(rules, 4, "www.example.com", 443) == NULL);
	CHECK(netrule_match(rules, 4, "api.example.com", 8443) == &rules[1]);
	CHECK(netrule_match(rules, 4, "api.example.com", 443) == NULL);
	CHECK(netrule_match(rules, 4, "127.0.0.1", 9000) == &rules[2]);
	CHECK(netrule_match(rules, 4, "127.0.0.1", 3100) == &rules[3]);
	CHECK(netrule_match(rules, 4, "127.0.0.1", 80) == NULL);
	CHECK(netrule_match(rules, 4, "examplexcom", 80) == NULL);
	CHECK(netrule_match(rules, 4, "example.co", 80) == NULL);
	/* A case or trailing-dot variant matches after normalisation only. */
	CHECK(target("EXAMPLE.com.", "80", h, &p) == 0);
	CHECK(netrule_match(rules, 4, h, p) == &rules[0]);
	/* An IPv4-mapped literal is a different target. */
	CHECK(target("[::ffff:127.0.0.1]", "9000", h, &p) == 0);
	CHECK(netrule_match(rules, 4, h, p) == NULL);
	CHECK(netrule_match_kind(rules, 4, NETRULE_ALLOW, "127.0.0.1", 3100) == NULL);
}

static bool forbidden(const char *addr)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };

	if (inet_pton(AF_INET, addr, &s4.sin_addr) == 1)
		return netrule_addr_forbidden_for_hostname((struct sockaddr *)&s4);
	inet_pton(AF_INET6, addr, &s6.sin6_addr);
	return netrule_addr_forbidden_for_hostname((struct sockaddr *)&s6);
}

TEST(forbidden_ranges)
{
	CHECK(forbidden("127.0.0.1"));
	CHECK(forbidden("127.255.255.254"));
	CHECK(forbidden("169.254.169.254"));
	CHECK(forbidden("0.0.0.0"));
	CHECK(forbidden("0.1.2.3"));
	CHECK(forbidden("::1"));
	CHECK(forbidden("::"));
	CHECK(forbidden("fe80::1"));
	CHECK(forbidden("febf::1"));
	CHECK(forbidden("::ffff:127.0.0.1"));
	CHECK(forbidden("::ffff:169.254.169.254"));
	CHECK(forbidden("::ffff:0.0.0.0"));
	CHECK(forbidden("64:ff9b::7f00:1"));
	CHECK(forbidden("64:ff9b::a9fe:a9fe"));
	CHECK(!forbidden("10.0.0.1"));
	CHECK(!forbidden("192.168.1.1"));
	CHECK(!forbidden("172.16.0.1"));
	CHECK(!forbidden("100.64.0.1"));
	CHECK(!forbidden("8.8.8.8"));
	CHECK(!forbidden("fc00::1"));
	CHECK(!forbidden("fd12::1"));
	CHECK(!forbidden("fec0::1"));
	CHECK(!forbidden("2001:db8::1"));
	CHECK(!forbidden("::ffff:10.0.0.1"));
	CHECK(!forbidden("64:ff9b::808:808"));
	CHECK(!forbidden("169.253.0.1"));
	CHECK(!forbidden("128.0.0.1"));
}

TEST(sockpath)
{
	char p[200];

	memset(p, 'a', sizeof p);
	p[0] = '/';
	p[107] = '\0';
	CHECK(sockpath_check(p, &err) == 0);
	p[107] = 'a';
	p[108] = '\0';
	CHECK(sockpath_check(p, &err) < 0);
	CHECK_CONTAINS(err.msg, "socket path is 108 bytes, exceeding the Linux limit of 107: /aaa");
}

int main(void)
{
	RUN(allow_forms);
	RUN(allow_refusals);
	RUN(ip_tricks_refused);
	RUN(trusted_urls);
	RUN(targets);
	RUN(matching);
	RUN(forbidden_ranges);
	RUN(sockpath);
	return unit_summary("netrule");
}
