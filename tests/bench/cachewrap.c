/*
 * cachewrap: exec clasp, optionally emptying its seccomp cache first, so the
 * shared bench harness (which only takes a runtime binary) can time clasp
 * with a cold cache. Built twice by tests/bench/lifecycle.sh, because the
 * harness labels a runtime by its file name:
 *   clasp-cold  removes <root>/.seccomp-cache/ entries before `run`/`create`
 *   clasp-hot   does nothing but exec: the same extra exec as clasp-cold, so
 *               clasp-cold minus clasp-hot is the cost of a cache miss.
 * The harness calls RUNTIME --root DIR SUBCOMMAND ...
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef CLASP_PATH
#error "build with -DCLASP_PATH='\"/path/to/clasp\"'"
#endif
#ifndef COLD
#define COLD 0
#endif

static void empty_cache(const char *root)
{
	char path[4096];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof path, "%s/.seccomp-cache", root);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}

int main(int argc, char **argv)
{
	if (COLD && argc > 3 && !strcmp(argv[1], "--root") &&
	    (!strcmp(argv[3], "run") || !strcmp(argv[3], "create")))
		empty_cache(argv[2]);
	argv[0] = (char *)CLASP_PATH;
	execv(CLASP_PATH, argv);
	perror("cachewrap: exec " CLASP_PATH);
	return 127;
}
