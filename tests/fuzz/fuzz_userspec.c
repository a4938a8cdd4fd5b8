/* libFuzzer harness for `exec -u` and `--additional-gids` parsing
 * (src/util/userspec.h). Checked: an accepted spec never holds the reserved id
 * 4294967295, and a failing gid list leaves the caller's array unchanged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/userspec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = strndup((const char *)data, size);
	struct clasp_error err;
	struct userspec u;
	uint32_t id, *gids = NULL;
	size_t n = 0;

	if (!s)
		return 0;
	if (userspec_parse(s, &u, &err) == 0 && (u.uid == UINT32_MAX || (u.has_gid && u.gid == UINT32_MAX)))
		abort();
	if (userspec_parse_id(s, "uid", &id, &err) == 0 && id == UINT32_MAX)
		abort();
	if (userspec_parse_gid_list("7", &gids, &n, &err) < 0 || n != 1)
		abort();
	if (userspec_parse_gid_list(s, &gids, &n, &err) < 0) {
		if (n != 1 || gids[0] != 7)
			abort();
	} else {
		size_t i;
		for (i = 0; i < n; i++)
			if (gids[i] == UINT32_MAX)
				abort();
	}
	free(gids);
	free(s);
	return 0;
}
