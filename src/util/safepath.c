/* Resolution confined to a root: openat2(RESOLVE_IN_ROOT) first, an O_PATH
 * walk where the kernel lacks it, and the same walk for creating missing
 * components (openat2 cannot create directories). See safepath.h. */
#include "util/safepath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/cleanup.h"

#define MAX_SYMLINKS 40 /* the kernel's own limit */

static bool force_walk;

void safepath_force_walk(bool on) { force_walk = on; }

const char *safepath_fd_path(int fd, char buf[SAFEPATH_FD_PATH_MAX])
{
	snprintf(buf, SAFEPATH_FD_PATH_MAX, "/proc/self/fd/%d", fd);
	return buf;
}

enum walk_create { WALK_NONE, WALK_DIR, WALK_FILE };

/* The directories walked so far; ".." pops one, which is how ".." stays
 * inside the root without ever asking the kernel for a parent. */
struct walk_stack {
	int rootfd; /* not owned */
	int *fds;
	size_t n, cap;
};

static int walk_top(const struct walk_stack *w) { return w->n ? w->fds[w->n - 1] : w->rootfd; }

static void walk_pop(struct walk_stack *w)
{
	if (w->n)
		close(w->fds[--w->n]);
}

static void walk_reset(struct walk_stack *w)
{
	while (w->n)
		walk_pop(w);
}

static void walk_push(struct walk_stack *w, int fd)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		w->fds = realloc(w->fds, w->cap * sizeof *w->fds);
		if (!w->fds)
			abort();
	}
	w->fds[w->n++] = fd;
}

static bool rest_is_empty(const char *p)
{
	for (; *p; p++)
		if (*p != '/')
			return false;
	return true;
}

/* Create the missing component NAME under DIRFD as the walk requires. */
static int walk_create_comp(int dirfd, const char *name, bool dir, mode_t mode)
{
	int fd;

	if (dir)
		return mkdirat(dirfd, name, mode) < 0 && errno != EEXIST ? -1 : 0;
	fd = openat(dirfd, name, O_CREAT | O_EXCL | O_NOFOLLOW | O_RDONLY | O_CLOEXEC, mode);
	if (fd < 0)
		return errno == EEXIST ? 0 : -1;
	close(fd);
	return 0;
}

static int walk(int rootfd, const char *path, enum walk_create create, bool follow_last, mode_t mode,
		struct clasp_error *err)
{
	struct walk_stack w = { .rootfd = rootfd };
	_cleanup_free_ char *rest = strdup(path);
	char *p = rest;
	unsigned links = 0;
	int ret = -1;

	if (!rest)
		abort();
	for (;;) {
		char comp[NAME_MAX + 1];
		struct stat st;
		char *end;
		bool last;
		int fd;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchrnul(p, '/');
		if ((size_t)(end - p) > NAME_MAX) {
			clasp_error_set(err, ENAMETOOLONG, "resolve %s", path);
			goto out;
		}
		memcpy(comp, p, (size_t)(end - p));
		comp[end - p] = '\0';
		p = end;
		last = rest_is_empty(p);
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			walk_pop(&w);
			continue;
		}
		fd = openat(walk_top(&w), comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && create != WALK_NONE) {
			/* Parents get 0755 whatever MODE the last component asked for. */
			if (walk_create_comp(walk_top(&w), comp, !last || create == WALK_DIR, last ? mode : 0755) < 0) {
				clasp_error_set(err, errno, "create %s", path);
				goto out;
			}
			fd = openat(walk_top(&w), comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd < 0) {
			clasp_error_set(err, errno, "resolve %s", path);
			goto out;
		}
		if (fstat(fd, &st) < 0) {
			clasp_error_set(err, errno, "resolve %s", path);
			close(fd);
			goto out;
		}
		if (S_ISLNK(st.st_mode) && (!last || follow_last)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(fd, "", target, sizeof target - 1);
			char *next;

			close(fd);
			if (n < 0 || ++links > MAX_SYMLINKS) {
				clasp_error_set(err, n < 0 ? errno : ELOOP, "resolve %s", path);
				goto out;
			}
			target[n] = '\0';
			/* The link's text replaces the component; an absolute one
			 * starts again at the root, not at the host's "/". */
			if (asprintf(&next, "%s/%s", target, p) < 0)
				abort();
			if (target[0] == '/')
				walk_reset(&w);
			free(rest);
			rest = p = next;
			continue;
		}
		if (!last && !S_ISDIR(st.st_mode)) {
			close(fd);
			clasp_error_set(err, ENOTDIR, "resolve %s", path);
			goto out;
		}
		walk_push(&w, fd);
	}
	if (w.n) {
		ret = w.fds[--w.n];
	} else {
		ret = openat(rootfd, ".", O_PATH | O_CLOEXEC);
		if (ret < 0)
			clasp_error_set(err, errno, "resolve %s", path);
	}
out:
	walk_reset(&w);
	free(w.fds);
	return ret;
}

static int open_in_root(int rootfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	/* EAGAIN: a rename raced with a ".." step; the kernel asks us to retry. */
	for (int i = 0; i < 32; i++) {
		fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof how);
		if (fd >= 0 || errno != EAGAIN)
			return fd;
	}
	return -1;
}

int safepath_open(int rootfd, const char *path, int flags, struct clasp_error *err)
{
	_cleanup_close_ int pfd = -1;
	char buf[SAFEPATH_FD_PATH_MAX];
	struct stat st;
	int fd;

	if (!*path)
		path = "/";
	if (!force_walk) {
		fd = open_in_root(rootfd, path, flags);
		if (fd >= 0)
			return fd;
		/* ENOSYS: before Linux 5.6. EPERM: a seccomp profile of an outer
		 * container that does not know openat2. The walk is as safe. */
		if (errno != ENOSYS && errno != EPERM)
			return clasp_error_set(err, errno, "open %s", path);
	}
	pfd = walk(rootfd, path, WALK_NONE, !(flags & O_NOFOLLOW), 0, err);
	if (pfd < 0)
		return -1;
	if (fstat(pfd, &st) < 0)
		return clasp_error_set(err, errno, "open %s", path);
	if ((flags & O_DIRECTORY) && !S_ISDIR(st.st_mode))
		return clasp_error_set(err, ENOTDIR, "open %s", path);
	if (flags & O_PATH)
		return steal_fd(&pfd);
	if (S_ISLNK(st.st_mode))
		return clasp_error_set(err, ELOOP, "open %s", path);
	/* Reopen the resolved object itself: no second lookup of PATH. */
	fd = open(safepath_fd_path(pfd, buf), (flags & ~(O_NOFOLLOW | O_CREAT | O_EXCL)) | O_CLOEXEC);
	if (fd < 0)
		return clasp_error_set(err, errno, "open %s", path);
	return fd;
}

static int open_or_create(int rootfd, const char *path, enum walk_create create, mode_t mode,
			  struct clasp_error *err)
{
	int fd = safepath_open(rootfd, path, O_PATH, err);

	if (fd >= 0 || err->code != ENOENT)
		return fd;
	return walk(rootfd, path, create, true, mode, err);
}

int safepath_mkdir_all(int rootfd, const char *path, mode_t mode, struct clasp_error *err)
{
	_cleanup_close_ int fd = open_or_create(rootfd, path, WALK_DIR, mode, err);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		return clasp_error_set(err, errno, "stat %s", path);
	if (!S_ISDIR(st.st_mode))
		return clasp_error_set(err, ENOTDIR, "mkdir %s", path);
	return steal_fd(&fd);
}

int safepath_create_file(int rootfd, const char *path, mode_t mode, struct clasp_error *err)
{
	return open_or_create(rootfd, path, WALK_FILE, mode, err);
}

int safepath_open_parent(int rootfd, const char *path, bool create_dirs, char base[SAFEPATH_NAME_MAX],
			 struct clasp_error *err)
{
	_cleanup_free_ char *dir = strdup(path);
	size_t len;
	char *slash;

	if (!dir)
		abort();
	len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		dir[--len] = '\0';
	slash = strrchr(dir, '/');
	const char *name = slash ? slash + 1 : dir;
	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strlen(name) >= SAFEPATH_NAME_MAX)
		return clasp_error_set(err, EINVAL, "%s: not a path to a file", path);
	strcpy(base, name);
	if (slash)
		slash[1] = '\0';
	else
		strcpy(dir, "/");
	if (create_dirs)
		return safepath_mkdir_all(rootfd, dir, 0755, err);
	return safepath_open(rootfd, dir, O_PATH | O_DIRECTORY, err);
}
