/* Parsing the identity flags of `exec`: `-u uid[:gid]` and
 * `--additional-gids` (repeatable, each a number or a comma list, as runc's
 * `-g`). Pure functions, no lookups in any passwd file: runc and crun only
 * take numbers here, and the container's /etc/passwd is untrusted anyway. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct userspec {
	uint32_t uid;
	uint32_t gid;
	bool has_gid; /* "uid" alone keeps the process's configured gid (runc) */
};

/* "1000" or "1000:1000". Decimal digits only, no sign or space; each id below
 * 4294967295, which the kernel reserves as "no id". */
int userspec_parse(const char *s, struct userspec *out, struct clasp_error *err);

/* One decimal id with the same rules; `what` names it in errors. */
int userspec_parse_id(const char *s, const char *what, uint32_t *out, struct clasp_error *err);

/* Append the ids of "5,10,20" (or a single "5") to *gids (malloc'd, grown
 * with realloc; *n counts them). On error *gids and *n are unchanged. */
int userspec_parse_gid_list(const char *s, uint32_t **gids, size_t *n, struct clasp_error *err);
