#include "util/selfexec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"

#define SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

extern char **environ;

static int already_sealed(void)
{
	_cleanup_close_ int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	int seals;

	if (fd < 0)
		return 0;
	seals = fcntl(fd, F_GET_SEALS);
	return seals >= 0 && (seals & SEALS) == SEALS;
}

static char original_exe[4096];

const char *selfexec_original_path(void)
{
	if (!original_exe[0]) {
		const char *e = getenv("_CLASP_EXE");
		ssize_t n;
		if (e && *e) {
			snprintf(original_exe, sizeof original_exe, "%s", e);
		} else if ((n = readlink("/proc/self/exe", original_exe, sizeof original_exe - 1)) > 0) {
			original_exe[n] = '\0';
		}
		unsetenv("_CLASP_EXE");
	}
	return original_exe;
}

int selfexec_sealed(int argc, char **argv)
{
	_cleanup_close_ int src = -1;
	int mfd;
	struct stat st;
	off_t off = 0;

	(void)argc;
	if (already_sealed())
		return 0;
	src = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (src < 0 || fstat(src, &st) < 0)
		return -1;
	mfd = memfd_create("clasp", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd < 0)
		return -1;
	while (off < st.st_size) {
		ssize_t n = sendfile(mfd, src, NULL, (size_t)(st.st_size - off));
		if (n <= 0) {
			close(mfd);
			return -1;
		}
		off += n;
	}
	if (fcntl(mfd, F_ADD_SEALS, SEALS) < 0) {
		close(mfd);
		return -1;
	}
	/* The copy has no directory; remember where the real binary lives so
	 * that hooks installed beside it (clasp-egress) can still be found. */
	{
		char path[4096];
		ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
		if (n > 0) {
			path[n] = '\0';
			setenv("_CLASP_EXE", path, 1);
		}
	}
	fexecve(mfd, argv, environ);
	close(mfd);
	return -1;
}
