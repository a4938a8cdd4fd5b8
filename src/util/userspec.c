#include "util/userspec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Parse exactly [s, s+len) as a decimal id. */
static int parse_span(const char *s, size_t len, const char *what, uint32_t *out, struct clasp_error *err)
{
	uint64_t v = 0;
	size_t i;

	if (len == 0)
		return clasp_error_set(err, 0, "%s: empty id", what);
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return clasp_error_set(err, 0, "%s: \"%.*s\" is not a non-negative decimal number", what,
					       (int)len, s);
		v = v * 10 + (uint64_t)(s[i] - '0');
		/* (uid_t)-1 means "unchanged" to setresuid: never a real id. */
		if (v >= UINT32_MAX)
			return clasp_error_set(err, ERANGE, "%s: \"%.*s\" is out of range", what, (int)len, s);
	}
	*out = (uint32_t)v;
	return 0;
}

int userspec_parse_id(const char *s, const char *what, uint32_t *out, struct clasp_error *err)
{
	if (!s)
		return clasp_error_set(err, 0, "%s: empty id", what);
	return parse_span(s, strlen(s), what, out, err);
}

int userspec_parse(const char *s, struct userspec *out, struct clasp_error *err)
{
	const char *colon;
	struct userspec u = {0};

	if (!s || !*s)
		return clasp_error_set(err, 0, "--user: empty; expected uid[:gid]");
	colon = strchr(s, ':');
	if (parse_span(s, colon ? (size_t)(colon - s) : strlen(s), "--user: uid", &u.uid, err) < 0)
		return -1;
	if (colon) {
		if (strchr(colon + 1, ':'))
			return clasp_error_set(err, 0, "--user: \"%s\": expected uid[:gid]", s);
		if (parse_span(colon + 1, strlen(colon + 1), "--user: gid", &u.gid, err) < 0)
			return -1;
		u.has_gid = true;
	}
	*out = u;
	return 0;
}

int userspec_parse_gid_list(const char *s, uint32_t **gids, size_t *n, struct clasp_error *err)
{
	size_t count = 1, k = 0, i;
	const char *p, *comma;
	uint32_t *tmp, *grown;

	if (!s || !*s)
		return clasp_error_set(err, 0, "--additional-gids: empty list");
	for (p = s; *p; p++)
		if (*p == ',')
			count++;
	tmp = calloc(count, sizeof *tmp);
	if (!tmp)
		return clasp_error_set(err, ENOMEM, "--additional-gids");
	for (p = s;; p = comma + 1) {
		comma = strchr(p, ',');
		if (parse_span(p, comma ? (size_t)(comma - p) : strlen(p), "--additional-gids", &tmp[k], err) < 0) {
			free(tmp);
			return -1;
		}
		k++;
		if (!comma)
			break;
	}
	if (*n > SIZE_MAX / sizeof **gids - k) {
		free(tmp);
		return clasp_error_set(err, ENOMEM, "--additional-gids");
	}
	grown = realloc(*gids, (*n + k) * sizeof **gids);
	if (!grown) {
		free(tmp);
		return clasp_error_set(err, ENOMEM, "--additional-gids");
	}
	for (i = 0; i < k; i++)
		grown[*n + i] = tmp[i];
	free(tmp);
	*gids = grown;
	*n += k;
	return 0;
}
