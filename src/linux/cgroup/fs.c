/* Small file helpers for cgroupfs: one write per value (the kernel parses a
 * whole write as one value), errors that name the OCI key being applied. */
#include "linux/cgroup/cg_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cleanup.h"

int cg_write_raw(const char *path, const char *val)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(val);
	ssize_t w;

	if (fd < 0)
		return -1;
	do {
		w = write(fd, val, len);
	} while (w < 0 && errno == EINTR);
	if (w < 0)
		return -1;
	if ((size_t)w != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int cg_write(const char *dir, const char *file, const char *val, const char *key,
	     struct clasp_error *err)
{
	char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if (cg_write_raw(path, val) == 0)
		return 0;
	if (errno == ENOENT)
		return clasp_error_set(err, 0, "%s: not supported on this host (%s does not exist)",
				       key, path);
	return clasp_error_set(err, errno, "%s: write \"%s\" to %s", key, val, path);
}

bool cg_file_exists(const char *dir, const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/%s", dir, file);
	return access(path, F_OK) == 0;
}

char *cg_read(const char *dir, const char *file)
{
	char path[PATH_MAX];
	_cleanup_close_ int fd = -1;
	char *buf = NULL;
	size_t len = 0, cap = 0;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t r;

		if (cap - len < 4096) {
			char *nb = realloc(buf, cap + 8192);
			if (!nb) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap += 8192;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	return buf;
}

int cg_read_u64(const char *dir, const char *file, uint64_t *v)
{
	_cleanup_free_ char *s = cg_read(dir, file);
	char *end;

	if (!s)
		return -1;
	if (strncmp(s, "max", 3) == 0) {
		*v = UINT64_MAX;
		return 0;
	}
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || end == s) {
		/* v1 prints -1 for some "unlimited" values */
		if (s[0] == '-') {
			*v = UINT64_MAX;
			return 0;
		}
		errno = EINVAL;
		return -1;
	}
	return 0;
}

bool cg_kv_get(const char *text, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (strncmp(p, key, kl) == 0 && p[kl] == ' ') {
			*v = strtoull(p + kl + 1, NULL, 10);
			return true;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

static int add_pids_from(const char *dir, pid_t **pids, size_t *n, size_t *cap)
{
	_cleanup_free_ char *s = cg_read(dir, "cgroup.procs");
	char *p;

	if (!s)
		return errno == ENOENT ? 0 : -1;
	for (p = s; *p;) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			pid_t *np = realloc(*pids, nc * sizeof *np);
			if (!np)
				return -1;
			*pids = np;
			*cap = nc;
		}
		(*pids)[(*n)++] = (pid_t)v;
		p = end;
		while (*p == '\n')
			p++;
	}
	return 0;
}

static int walk_pids(const char *dir, bool recursive, pid_t **pids, size_t *n, size_t *cap)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	if (add_pids_from(dir, pids, n, cap) < 0)
		return -1;
	if (!recursive)
		return 0;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d))) {
		char sub[PATH_MAX];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
		if (walk_pids(sub, true, pids, n, cap) < 0)
			return -1;
	}
	return 0;
}

int cg_list_pids(const char *dir, bool recursive, pid_t **pids, size_t *n, struct clasp_error *err)
{
	size_t cap = 0;

	*pids = NULL;
	*n = 0;
	if (walk_pids(dir, recursive, pids, n, &cap) < 0) {
		int e = errno;
		free(*pids);
		*pids = NULL;
		*n = 0;
		return clasp_error_set(err, e, "read %s/cgroup.procs", dir);
	}
	return 0;
}
