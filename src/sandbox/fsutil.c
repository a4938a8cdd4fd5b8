/* File-system helpers for the sandbox's side effects: lookups that never
 * follow a symlink (the copy and the authoritative tree can both hold links
 * the agent planted), and a removal that never leaves the tree it removes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/sandbox_int.h"
#include "util/cleanup.h"

static int openat2_unavailable;

static int walk_beneath(int rootfd, const char *rel, int flags, mode_t mode)
{
	_cleanup_free_ char *copy = strdup(rel);
	int fd, next;
	char *p, *slash;

	if (!copy) {
		errno = ENOMEM;
		return -1;
	}
	fd = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (p = copy; (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		if (!*p)
			continue;
		if (!strcmp(p, "..") || !strcmp(p, ".")) {
			close(fd);
			errno = EXDEV;
			return -1;
		}
		next = openat(fd, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return errno == ENOTDIR ? (errno = ELOOP, -1) : -1;
		fd = next;
	}
	if (!*p) {
		next = openat(fd, ".", flags | O_CLOEXEC, mode);
	} else if (!strcmp(p, "..") || !strcmp(p, ".")) {
		errno = EXDEV;
		next = -1;
	} else {
		next = openat(fd, p, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	}
	{
		int e = errno;
		close(fd);
		errno = e;
	}
	return next;
}

int sb_open_beneath(int rootfd, const char *rel, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW),
		.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	while (*rel == '/')
		rel++;
	if (!*rel)
		rel = ".";
	if (!openat2_unavailable) {
		fd = (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof how);
		if (fd >= 0 || errno != ENOSYS)
			return fd;
		openat2_unavailable = 1;
	}
	return walk_beneath(rootfd, rel, flags, mode);
}

int sb_mkdir_p(const char *path, mode_t mode, struct clasp_error *err)
{
	_cleanup_free_ char *p = strdup(path);
	char *s;

	if (!p)
		return clasp_error_set(err, ENOMEM, "mkdir %s", path);
	for (s = strchr(p + 1, '/');; s = strchr(s + 1, '/')) {
		if (s)
			*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return clasp_error_set(err, errno, "mkdir %s", p);
		if (!s)
			break;
		*s = '/';
	}
	return 0;
}

struct rm_frame {
	char *name;     /* of the directory entered, in its parent */
	ino_t parent;   /* the parent's inode, checked when coming back up */
};

/* One directory level: unlink what can go now; return in *sub the name of
 * the first non-empty subdirectory (to enter), or NULL when none is left. */
static int remove_level(int dfd, dev_t dev, const char *path, const char *rel, char **sub,
			struct clasp_error *err)
{
	DIR *d;
	struct dirent *de;
	int r = 0, fd = dup(dfd);

	*sub = NULL;
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return clasp_error_set(err, errno, "open %s%s", path, rel);
	}
	rewinddir(d); /* the dup shares its offset with dfd */
	while ((de = readdir(d))) {
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			r = clasp_error_set(err, errno, "stat %s%s/%s", path, rel, de->d_name);
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			if (st.st_dev != dev) {
				r = clasp_error_set(err, EBUSY, "remove %s%s/%s: a mount is in the way", path, rel,
						    de->d_name);
				break;
			}
			if (unlinkat(dfd, de->d_name, AT_REMOVEDIR) == 0 || errno == ENOENT)
				continue;
			if (errno != ENOTEMPTY && errno != EEXIST && errno != EACCES && errno != EPERM) {
				r = clasp_error_set(err, errno, "remove %s%s/%s", path, rel, de->d_name);
				break;
			}
			if (!(*sub = strdup(de->d_name)))
				r = clasp_error_set(err, ENOMEM, "remove %s", path);
			break;
		} else if (unlinkat(dfd, de->d_name, 0) < 0 && errno != ENOENT) {
			r = clasp_error_set(err, errno, "remove %s%s/%s", path, rel, de->d_name);
			break;
		}
	}
	closedir(d);
	return r;
}

/* Removes everything below the directory open as top (which stays open).
 * Depth first, with a constant number of descriptors (the directory being
 * emptied, one listing of it, and the child or parent being opened): a
 * create that failed for want of fds (EMFILE) must still be able to undo its
 * workspace copy, however deep. Coming back up goes through "..", checked
 * against the inode seen on the way down, so a directory moved meanwhile
 * cannot lead the walk out of the tree. */
static int remove_children(int top, dev_t dev, const char *path, struct clasp_error *err)
{
	struct rm_frame *stack = NULL;
	size_t depth = 0, cap = 0, i;
	_cleanup_free_ char *rel = strdup("");
	struct stat st;
	ino_t cur_ino;
	int cur = top, r = 0;

	if (!rel)
		return clasp_error_set(err, ENOMEM, "remove %s", path);
	if (fstat(top, &st) < 0)
		return clasp_error_set(err, errno, "stat %s", path);
	cur_ino = st.st_ino;
	for (;;) {
		char *sub;
		if (remove_level(cur, dev, path, rel, &sub, err) < 0) {
			r = -1;
			break;
		}
		if (sub) {
			int fd = openat(cur, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			char *nrel = NULL;
			if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != dev) {
				r = clasp_error_set(err, fd < 0 ? errno : EBUSY, "open %s%s/%s", path, rel, sub);
				if (fd >= 0)
					close(fd);
				free(sub);
				break;
			}
			/* Directories the agent made read-only (chmod 0500) must still go. */
			if ((st.st_mode & 0700) != 0700)
				(void)fchmod(fd, (st.st_mode & 07777) | 0700);
			if (depth == cap) {
				size_t ncap = cap ? 2 * cap : 16;
				void *grown = reallocarray(stack, ncap, sizeof *stack);
				/* keep the old stack on failure: the caller still frees it */
				if (grown) {
					stack = grown;
					cap = ncap;
				}
			}
			if (depth == cap || asprintf(&nrel, "%s/%s", rel, sub) < 0) {
				r = clasp_error_set(err, ENOMEM, "remove %s", path);
				close(fd);
				free(sub);
				break;
			}
			stack[depth++] = (struct rm_frame){.name = sub, .parent = cur_ino};
			free(rel);
			rel = nrel;
			if (cur != top)
				close(cur);
			cur = fd;
			cur_ino = st.st_ino;
			continue;
		}
		if (depth == 0)
			break;
		/* cur is empty: go back up and remove it. */
		{
			struct rm_frame f = stack[--depth];
			int up = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (up < 0 || fstat(up, &st) < 0 || st.st_dev != dev || st.st_ino != f.parent) {
				r = clasp_error_set(err, up < 0 ? errno : ESTALE, "remove %s%s: moved during removal",
						    path, rel);
				if (up >= 0)
					close(up);
				free(f.name);
				break;
			}
			if (cur != top)
				close(cur);
			cur = up;
			cur_ino = st.st_ino;
			rel[strlen(rel) - strlen(f.name) - 1] = '\0';
			if (unlinkat(cur, f.name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
				r = clasp_error_set(err, errno, "remove %s%s/%s", path, rel, f.name);
				free(f.name);
				break;
			}
			free(f.name);
		}
	}
	if (cur != top)
		close(cur);
	for (i = 0; i < depth; i++)
		free(stack[i].name);
	free(stack);
	return r;
}

int sb_remove_tree(const char *path, struct clasp_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : clasp_error_set(err, errno, "stat %s", path);
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) < 0 && errno != ENOENT)
			return clasp_error_set(err, errno, "remove %s", path);
		return 0;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return clasp_error_set(err, errno, "open %s", path);
	if (remove_children(fd, st.st_dev, path, err) < 0)
		return -1;
	if (rmdir(path) < 0 && errno != ENOENT)
		return clasp_error_set(err, errno, "remove %s", path);
	return 0;
}
