/* libFuzzer harness for the egress allowlist rules: every input line is parsed
 * as an allowlist entry and as a trusted URL (netrule_parse_allow/trusted),
 * and the accepted rules are matched against every line parsed as a request
 * target "host:port" (netrule_parse_target + netrule_match/_kind). Checked:
 * parsed hosts are normalised and bounded, a matched rule comes from the
 * array and agrees with the target's host and port. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/netrule.h"

#define MAX_RULES 64

static void check_rule(const struct netrule *r)
{
	size_t n = strnlen(r->host, sizeof r->host);
	size_t i;

	if (n == 0 || n > NETRULE_HOST_MAX)
		abort();
	for (i = 0; i < n; i++)
		if (isupper((unsigned char)r->host[i]))
			abort(); /* hosts are lowercased */
	if (n > 1 && r->host[n - 1] == '.')
		abort(); /* no trailing dot */
	if (r->kind == NETRULE_TRUSTED && r->port == 0)
		abort(); /* a trusted URL always has a port */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct netrule rules[MAX_RULES];
	const char *p = (const char *)data, *end = p + size;
	size_t n = 0;
	struct clasp_error err;

	if (size > 1 << 16)
		return 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		char *line = strndup(p, len);
		const char *colon;
		char host[NETRULE_HOST_MAX + 1];
		uint16_t port = 0;

		if (!line)
			return 0;
		if (n < MAX_RULES && netrule_parse_allow(line, &rules[n], &err) == 0)
			check_rule(&rules[n++]);
		if (n < MAX_RULES && netrule_parse_trusted(line, &rules[n], &err) == 0)
			check_rule(&rules[n++]);
		/* as a request target: host part up to the last colon, port after */
		colon = memrchr(p, ':', len);
		if (netrule_parse_target(p, colon ? (size_t)(colon - p) : len, colon ? colon + 1 : "",
					 colon ? len - (size_t)(colon - p) - 1 : 0, host, &port, &err) == 0) {
			const struct netrule *m;
			if (strlen(host) > NETRULE_HOST_MAX || port == 0)
				abort();
			m = netrule_match(rules, n, host, port);
			if (m && (m < rules || m >= rules + n))
				abort();
			if (m && m->port != 0 && m->port != port)
				abort();
			m = netrule_match_kind(rules, n, NETRULE_TRUSTED, host, port);
			if (m && m->kind != NETRULE_TRUSTED)
				abort();
		}
		free(line);
		p = nl ? nl + 1 : end;
	}
	return 0;
}
