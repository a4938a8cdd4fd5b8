#include "sandbox/netrule.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#define WILDCARD_MSG "use an exact hostname; wildcards are not supported"

int netrule_parse_port(const char *s, size_t len, uint16_t *out, struct clasp_error *err)
{
	unsigned long v = 0;
	size_t i;

	if (len == 0)
		return clasp_error_set(err, 0, "port is empty");
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return clasp_error_set(err, 0, "port \"%.*s\" is not a number",
					       (int)(len > 16 ? 16 : len), s);
		v = v * 10 + (unsigned long)(s[i] - '0');
		if (v > 65535)
			return clasp_error_set(err, 0, "port \"%.*s\" is outside 1-65535",
					       (int)(len > 16 ? 16 : len), s);
	}
	if (v == 0)
		return clasp_error_set(err, 0, "port 0 is outside 1-65535");
	*out = (uint16_t)v;
	return 0;
}

/* The URL standard treats a host whose last label is a number (decimal, or
 * 0x hex, or octal via leading zero) as IPv4, and accepts shorthand such as
 * 127.1, 0x7f.1 or 2130706433. We never normalise those: a host whose last
 * label looks numeric must be a canonical dotted quad, or it is refused. */
static bool last_label_numeric(const char *h, size_t len)
{
	size_t start = len;
	size_t i;

	while (start > 0 && h[start - 1] != '.')
		start--;
	if (start == len)
		return false;
	if (len - start >= 2 && h[start] == '0' && h[start + 1] == 'x') {
		for (i = start + 2; i < len; i++)
			if (!isxdigit((unsigned char)h[i]))
				return false;
		return true;
	}
	for (i = start; i < len; i++)
		if (!isdigit((unsigned char)h[i]))
			return false;
	return true;
}

static bool canonical_ipv4(const char *h, size_t len)
{
	int parts = 0;
	size_t i = 0;

	while (i < len) {
		size_t s = i;
		unsigned v = 0;
		while (i < len && isdigit((unsigned char)h[i])) {
			v = v * 10 + (unsigned)(h[i] - '0');
			if (v > 255 || i - s >= 3)
				return false;
			i++;
		}
		if (i == s || (i - s > 1 && h[s] == '0'))
			return false;
		parts++;
		if (i < len) {
			if (h[i] != '.' || i + 1 == len)
				return false;
			i++;
		}
	}
	return parts == 4;
}

static int normalize_ipv6(const char *h, size_t len, char out[NETRULE_HOST_MAX + 1],
			  struct clasp_error *err)
{
	char buf[INET6_ADDRSTRLEN + 8], canon[INET6_ADDRSTRLEN];
	struct in6_addr a;
	size_t i;

	if (memchr(h, '%', len))
		return clasp_error_set(err, 0, "IPv6 zone ids are not supported");
	if (len >= sizeof buf)
		return clasp_error_set(err, 0, "invalid IPv6 address");
	for (i = 0; i < len; i++)
		buf[i] = (char)tolower((unsigned char)h[i]);
	buf[len] = '\0';
	if (inet_pton(AF_INET6, buf, &a) != 1)
		return clasp_error_set(err, 0, "invalid IPv6 address \"%s\"", buf);
	inet_ntop(AF_INET6, &a, canon, sizeof canon);
	if (strcmp(buf, canon) != 0)
		return clasp_error_set(err, 0,
				       "IPv6 address \"%s\" is not in canonical form; write [%s]",
				       buf, canon);
	strcpy(out, canon);
	return 0;
}

int netrule_normalize_host(const char *host, size_t len, char out[NETRULE_HOST_MAX + 1],
			   bool *is_ip, struct clasp_error *err)
{
	char h[NETRULE_HOST_MAX + 2];
	size_t i, label = 0;

	*is_ip = false;
	if (len == 0)
		return clasp_error_set(err, 0, "host is empty");
	if (memchr(host, '*', len))
		return clasp_error_set(err, 0, WILDCARD_MSG);
	if (host[0] == '[') {
		if (len < 3 || host[len - 1] != ']')
			return clasp_error_set(err, 0, "invalid IPv6 address");
		*is_ip = true;
		return normalize_ipv6(host + 1, len - 2, out, err);
	}
	if (memchr(host, ':', len)) {
		if (memchr(host, '%', len))
			return clasp_error_set(err, 0, "IPv6 zone ids are not supported");
		*is_ip = true;
		return normalize_ipv6(host, len, out, err);
	}
	if (host[len - 1] == '.')
		len--;
	if (len == 0)
		return clasp_error_set(err, 0, "host is empty");
	if (len > NETRULE_HOST_MAX)
		return clasp_error_set(err, 0, "host is longer than %d bytes", NETRULE_HOST_MAX);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)tolower((unsigned char)host[i]);
		if (c == '.') {
			if (label == 0)
				return clasp_error_set(err, 0, "host has an empty label");
			label = 0;
		} else if (isalnum(c) || c == '-' || c == '_') {
			if (++label > 63)
				return clasp_error_set(err, 0, "host label is longer than 63 bytes");
		} else if (c == '%') {
			return clasp_error_set(err, 0, "percent-encoded hosts are not supported");
		} else {
			return clasp_error_set(err, 0, "host contains an invalid character");
		}
		h[i] = (char)c;
	}
	if (label == 0)
		return clasp_error_set(err, 0, "host has an empty label");
	h[len] = '\0';
	if (last_label_numeric(h, len)) {
		if (!canonical_ipv4(h, len))
			return clasp_error_set(err, 0,
					       "\"%s\" is not a canonical IPv4 address (write a.b.c.d in decimal)",
					       h);
		*is_ip = true;
	}
	memcpy(out, h, len + 1);
	return 0;
}

/* Split "host", "host:port", "[v6]" or "[v6]:port". port_len 0 = no port. */
static int split_hostport(const char *s, size_t len, const char **host, size_t *host_len,
			  const char **port, size_t *port_len, struct clasp_error *err)
{
	const char *colon;

	*port = NULL;
	*port_len = 0;
	if (len && s[0] == '[') {
		const char *close = memchr(s, ']', len);
		if (!close)
			return clasp_error_set(err, 0, "invalid IPv6 address: missing \"]\"");
		*host = s;
		*host_len = (size_t)(close - s) + 1;
		if (*host_len == len)
			return 0;
		if (close[1] != ':')
			return clasp_error_set(err, 0, "unexpected text after \"]\"");
		*port = close + 2;
		*port_len = len - *host_len - 1;
		if (*port_len == 0)
			return clasp_error_set(err, 0, "port is empty");
		return 0;
	}
	colon = memchr(s, ':', len);
	if (colon && memchr(colon + 1, ':', len - (size_t)(colon - s) - 1))
		return clasp_error_set(err, 0,
				       "IPv6 addresses must be written in brackets, e.g. [::1]:443");
	*host = s;
	*host_len = colon ? (size_t)(colon - s) : len;
	if (colon) {
		*port = colon + 1;
		*port_len = len - *host_len - 1;
		if (*port_len == 0)
			return clasp_error_set(err, 0, "port is empty");
	}
	return 0;
}

static int parse_authority(const char *s, size_t len, struct netrule *out, struct clasp_error *err)
{
	const char *host = NULL, *port = NULL;
	size_t host_len = 0, port_len = 0;

	if (memchr(s, '*', len))
		return clasp_error_set(err, 0, WILDCARD_MSG);
	if (memchr(s, '@', len))
		return clasp_error_set(err, 0, "userinfo (user@) is not allowed");
	if (split_hostport(s, len, &host, &host_len, &port, &port_len, err) < 0)
		return -1;
	if (netrule_normalize_host(host, host_len, out->host, &out->is_ip, err) < 0)
		return -1;
	if (port_len && netrule_parse_port(port, port_len, &out->port, err) < 0)
		return -1;
	return 0;
}

/* "http://" or "https://" prefix: returns its length and fills scheme, or 0. */
static size_t url_scheme(const char *s, char scheme[8])
{
	if (strncasecmp(s, "http://", 7) == 0) {
		strcpy(scheme, "http");
		return 7;
	}
	if (strncasecmp(s, "https://", 8) == 0) {
		strcpy(scheme, "https");
		return 8;
	}
	return 0;
}

int netrule_parse_allow(const char *entry, struct netrule *out, struct clasp_error *err)
{
	size_t len = strlen(entry), skip, alen;
	const char *a, *end;

	memset(out, 0, sizeof *out);
	out->kind = NETRULE_ALLOW;
	if (len == 0 || strspn(entry, " \t") == len)
		return clasp_error_set(err, 0, "allowlist entry is empty");
	if (strchr(entry, '*'))
		return clasp_error_set(err, 0, WILDCARD_MSG);
	if (strpbrk(entry, " \t\r\n"))
		return clasp_error_set(err, 0, "allowlist entry contains whitespace");
	skip = url_scheme(entry, out->scheme);
	if (!skip && strstr(entry, "://"))
		return clasp_error_set(err, 0, "allowlist URL scheme must be http or https");
	a = entry + skip;
	end = a + strcspn(a, "/?#");
	alen = (size_t)(end - a);
	if (memchr(a, '@', alen))
		return clasp_error_set(err, 0, "allowlist entry must not carry userinfo (user@)");
	if (*end == '/' && end[1] == '\0' && skip) {
		/* "https://h/" is the origin itself; only a non-root path is refused. */
	} else if (*end == '/') {
		return clasp_error_set(err, 0, "allowlist entry must not carry a path");
	} else if (*end == '?') {
		return clasp_error_set(err, 0, "allowlist entry must not carry a query");
	} else if (*end == '#') {
		return clasp_error_set(err, 0, "allowlist entry must not carry a fragment");
	}
	if (alen == 0)
		return clasp_error_set(err, 0, "allowlist entry has no host");
	if (parse_authority(a, alen, out, err) < 0)
		return -1;
	if (skip && out->port == 0)
		out->port = strcmp(out->scheme, "https") == 0 ? 443 : 80;
	return 0;
}

int netrule_parse_trusted(const char *url, struct netrule *out, struct clasp_error *err)
{
	size_t skip, alen;
	const char *a;

	memset(out, 0, sizeof *out);
	out->kind = NETRULE_TRUSTED;
	if (url[0] == '\0')
		return clasp_error_set(err, 0, "trusted URL is empty");
	if (strchr(url, '*'))
		return clasp_error_set(err, 0, WILDCARD_MSG);
	if (strpbrk(url, " \t\r\n"))
		return clasp_error_set(err, 0, "trusted URL contains whitespace");
	skip = url_scheme(url, out->scheme);
	if (!skip)
		return clasp_error_set(err, 0, "trusted URL must be an http:// or https:// URL");
	a = url + skip;
	alen = strcspn(a, "/?#");
	if (memchr(a, '@', alen))
		return clasp_error_set(err, 0, "trusted URL must not carry userinfo (user@)");
	if (alen == 0)
		return clasp_error_set(err, 0, "trusted URL has no host");
	if (parse_authority(a, alen, out, err) < 0)
		return -1;
	if (out->port == 0)
		out->port = strcmp(out->scheme, "https") == 0 ? 443 : 80;
	return 0;
}

int netrule_parse_target(const char *host, size_t host_len, const char *port, size_t port_len,
			 char out_host[NETRULE_HOST_MAX + 1], uint16_t *out_port,
			 struct clasp_error *err)
{
	bool is_ip;

	if (!port || port_len == 0)
		return clasp_error_set(err, 0, "target has no port");
	if (memchr(host, '@', host_len))
		return clasp_error_set(err, 0, "userinfo is not allowed");
	if (host_len && host[0] != '[' && memchr(host, ':', host_len))
		return clasp_error_set(err, 0, "IPv6 addresses must be written in brackets");
	if (netrule_normalize_host(host, host_len, out_host, &is_ip, err) < 0)
		return -1;
	return netrule_parse_port(port, port_len, out_port, err);
}

const struct netrule *netrule_match_kind(const struct netrule *rules, size_t n,
					 enum netrule_kind kind, const char *host, uint16_t port)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rules[i].kind == kind && strcmp(rules[i].host, host) == 0 &&
		    (rules[i].port == 0 || rules[i].port == port))
			return &rules[i];
	return NULL;
}

const struct netrule *netrule_match(const struct netrule *rules, size_t n, const char *host,
				    uint16_t port)
{
	const struct netrule *r = netrule_match_kind(rules, n, NETRULE_TRUSTED, host, port);
	return r ? r : netrule_match_kind(rules, n, NETRULE_ALLOW, host, port);
}

static bool v4_forbidden(const unsigned char *b)
{
	return b[0] == 127 || b[0] == 0 || (b[0] == 169 && b[1] == 254);
}

bool netrule_addr_forbidden_for_hostname(const struct sockaddr *sa)
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const unsigned char nat64[12] = { 0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const unsigned char zero[12];

	if (sa->sa_family == AF_INET)
		return v4_forbidden((const unsigned char *)&((const struct sockaddr_in *)sa)->sin_addr);
	if (sa->sa_family == AF_INET6) {
		const unsigned char *b = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
			return true; /* fe80::/10 */
		/* ::/96 covers :: and ::1 and the deprecated IPv4-compatible form. */
		if (memcmp(b, zero, 12) == 0)
			return true;
		if (memcmp(b, mapped, 12) == 0 || memcmp(b, nat64, 12) == 0)
			return v4_forbidden(b + 12);
		return false;
	}
	return true; /* anything that is not IP is never a valid answer */
}
