#include "util/sockpath.h"

#include <string.h>
#include <sys/un.h>

_Static_assert(sizeof(((struct sockaddr_un *)0)->sun_path) == SOCKPATH_MAX + 1,
	       "sun_path size differs from the Linux limit");

int sockpath_check(const char *path, struct clasp_error *err)
{
	size_t n = strlen(path);

	if (n > SOCKPATH_MAX)
		return clasp_error_set(err, 0,
				       "socket path is %zu bytes, exceeding the Linux limit of %d: %s",
				       n, SOCKPATH_MAX, path);
	return 0;
}
