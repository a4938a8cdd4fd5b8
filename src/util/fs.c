#include "util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "util/cleanup.h"

int mkdir_p(const char *path, mode_t mode)
{
	char buf[4096];
	size_t i, n = strlen(path);

	if (n == 0 || n >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] == '/' || buf[i] == '\0') {
			char c = buf[i];
			buf[i] = '\0';
			if (mkdir(buf, mode) < 0 && errno != EEXIST)
				return -1;
			buf[i] = c;
		}
	}
	return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int write_file_atomic(const char *dir, const char *name, const void *data, size_t len, mode_t mode,
		      struct clasp_error *err)
{
	char tmp[4096], dst[4096];
	int fd;

	snprintf(tmp, sizeof tmp, "%s/.%s.tmp%d", dir, name, (int)getpid());
	snprintf(dst, sizeof dst, "%s/%s", dir, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return clasp_error_set(err, errno, "create %s", tmp);
	if (write_all(fd, data, len) < 0) {
		int e = errno;
		close(fd);
		unlink(tmp);
		return clasp_error_set(err, e, "write %s", tmp);
	}
	close(fd);
	if (rename(tmp, dst) < 0) {
		int e = errno;
		unlink(tmp);
		return clasp_error_set(err, e, "rename %s", dst);
	}
	return 0;
}

int read_file(const char *path, char **out, size_t *len, struct clasp_error *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *buf;

	if (fd < 0)
		return clasp_error_set(err, errno, "open %s", path);
	buf = malloc(cap);
	if (!buf)
		abort();
	for (;;) {
		ssize_t r;
		if (n + 1 >= cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				abort();
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			int e = errno;
			if (e == EINTR)
				continue;
			free(buf);
			return clasp_error_set(err, e, "read %s", path);
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

static int rm_rf_at(int parent, const char *name, dev_t dev)
{
	struct stat st;
	int fd;
	DIR *d;
	struct dirent *de;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(parent, name, 0) < 0 && errno != ENOENT ? -1 : 0;
	if (st.st_dev != dev) {
		/* A mount point: never descend into another file system. */
		errno = EBUSY;
		return -1;
	}
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		rm_rf_at(dirfd(d), de->d_name, dev);
	}
	closedir(d);
	return unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT ? -1 : 0;
}

int rm_rf(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -1;
	return rm_rf_at(AT_FDCWD, path, st.st_dev);
}
