/* mount(2) in place of the new mount API (see mount_legacy.h).
 *
 * On kernels without fsopen/open_tree/move_mount/mount_setattr a mount cannot
 * be built detached, so it is made where it belongs: mount(2) onto
 * "/proc/self/fd/N" of the destination's O_PATH fd, which safepath resolved
 * inside the rootfs (runc's defence against CVE-2021-30465). Flags that
 * mount(2) cannot give a bind at creation are set afterwards with
 * MS_REMOUNT|MS_BIND on the new mount, keeping the flags the mount already
 * has (a user namespace cannot clear locked nosuid/nodev/ro), as runc does.
 *
 * That remount needs an fd of the new mount, and the destination fd still
 * names the directory underneath it. The new mount is found by its path and
 * accepted only if mountinfo shows it mounted on the destination's mount at
 * that same path; a destination swapped meanwhile makes the mount fail, never
 * lands the flags elsewhere.
 *
 * What mount(2) cannot do at all is refused with a message that says so:
 * idmapped mounts, and recursive flags (rro, rnosuid, ...) asked for a tree
 * that has submounts. Only the host-sysfs fallback of a user namespace
 * remounts a tree mount by mount, because that is what the new-API path gives
 * it without being asked. */
#include "linux/mount_legacy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/mount_opts.h"
#include "util/cleanup.h"
#include "util/safepath.h"

#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 0x2000
#endif

bool mount_legacy(void)
{
	static int state = -1;

	/* Invalid arguments: a kernel that has the call rejects them without
	 * doing anything (EFAULT, EBADF, EINVAL); one that lacks it says ENOSYS.
	 * mount_setattr came last (5.12), so 5.2-5.11 use mount(2) too. */
	if (state < 0)
		state = (syscall(SYS_fsopen, NULL, 0) < 0 && errno == ENOSYS) ||
			(syscall(SYS_fsconfig, -1, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 && errno == ENOSYS) ||
			(syscall(SYS_fsmount, -1, 0, 0) < 0 && errno == ENOSYS) ||
			(syscall(SYS_open_tree, -1, NULL, 0) < 0 && errno == ENOSYS) ||
			(syscall(SYS_move_mount, -1, NULL, -1, NULL, 0) < 0 && errno == ENOSYS) ||
			(syscall(SYS_mount_setattr, -1, NULL, 0, NULL, 0) < 0 && errno == ENOSYS);
	return state == 1;
}

/* ---- tokens: what a detached mount would have been ---- */

struct token {
	int fd; /* -1: free. A bind's token is the O_PATH fd of its source */
	dev_t dev;
	ino_t ino;
	bool bind, rec;
	char *type, *source, *data;
	char *alt_data, *host_path; /* retries, see mount_legacy_set_retry */
	unsigned long ms;           /* fresh filesystem: the mount(2) flags */
	bool walk;                  /* recursive flags: remount each submount */
	uint64_t set, clr, rset, rclr;
	unsigned long prop[MOUNT_OPTS_MAX_PROP];
	unsigned n_prop;
};

static struct token tokens[32];

static void token_free(struct token *t)
{
	free(t->type);
	free(t->source);
	free(t->data);
	free(t->alt_data);
	free(t->host_path);
	memset(t, 0, sizeof *t);
	t->fd = -1;
}

static struct token *token_find(int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return NULL;
	for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++)
		if (tokens[i].type && tokens[i].fd == fd && tokens[i].dev == st.st_dev && tokens[i].ino == st.st_ino)
			return &tokens[i];
	return NULL;
}

/* Takes FD; returns it registered, or -1. */
static int token_new(int fd, bool bind, bool rec, const char *type, struct token **out, struct clasp_error *err)
{
	struct token *t = NULL;
	struct stat st;

	if (fstat(fd, &st) < 0) {
		close(fd);
		return clasp_error_set(err, errno, "mount token");
	}
	for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++) {
		/* A slot holding this fd number is stale: that fd was closed. */
		if (tokens[i].type && tokens[i].fd == fd)
			token_free(&tokens[i]);
		if (!t && !tokens[i].type)
			t = &tokens[i];
	}
	if (!t) {
		close(fd);
		return clasp_error_set(err, EMFILE, "too many mounts in flight");
	}
	memset(t, 0, sizeof *t);
	t->fd = fd;
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	t->bind = bind;
	t->rec = rec;
	t->type = strdup(type);
	if (!t->type)
		abort();
	*out = t;
	return fd;
}

bool mount_legacy_is_token(int fd)
{
	return mount_legacy() && token_find(fd) != NULL;
}

static unsigned long attrs_to_ms(uint64_t a)
{
	unsigned long ms = 0;

	ms |= a & MOUNT_ATTR_RDONLY ? MS_RDONLY : 0;
	ms |= a & MOUNT_ATTR_NOSUID ? MS_NOSUID : 0;
	ms |= a & MOUNT_ATTR_NODEV ? MS_NODEV : 0;
	ms |= a & MOUNT_ATTR_NOEXEC ? MS_NOEXEC : 0;
	ms |= a & MOUNT_ATTR_NODIRATIME ? MS_NODIRATIME : 0;
	ms |= a & MOUNT_ATTR_NOSYMFOLLOW ? MS_NOSYMFOLLOW : 0;
	switch (a & MOUNT_ATTR__ATIME) {
	case MOUNT_ATTR_NOATIME:
		return ms | MS_NOATIME;
	case MOUNT_ATTR_STRICTATIME:
		return ms | MS_STRICTATIME;
	default:
		return ms | MS_RELATIME;
	}
}

int mount_legacy_new_fs(const char *type, const char *source, const char *data, unsigned sb_flags,
			uint64_t attrs, struct clasp_error *err)
{
	static const unsigned long sb_ms[] = { MS_SYNCHRONOUS, MS_DIRSYNC, MS_MANDLOCK, MS_LAZYTIME };
	struct token *t;
	int fd = memfd_create("clasp-mount", MFD_CLOEXEC);

	if (fd < 0)
		return clasp_error_set(err, errno, "%s", type);
	if (token_new(fd, false, false, type, &t, err) < 0)
		return -1;
	t->source = strdup(source ? source : type);
	t->data = data ? strdup(data) : NULL;
	if (!t->source || (data && !t->data))
		abort();
	t->ms = attrs_to_ms(attrs);
	for (unsigned i = 0; i < sizeof sb_ms / sizeof sb_ms[0]; i++)
		if (sb_flags & (1u << i))
			t->ms |= sb_ms[i];
	return fd;
}

int mount_legacy_clone(const char *src, bool rec, struct clasp_error *err)
{
	struct token *t;
	int fd = open(src, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return clasp_error_set(err, errno, "bind source \"%s\"", src);
	return token_new(fd, true, rec, "bind", &t, err);
}

void mount_legacy_set_retry(int token, const char *data_without_gid, const char *host_path)
{
	struct token *t = token_find(token);

	if (!t)
		return;
	if (data_without_gid && !(t->alt_data = strdup(data_without_gid)))
		abort();
	if (host_path && !(t->host_path = strdup(host_path)))
		abort();
}

/* ---- mounts already in the tree ---- */

static int mnt_id_of(int fd, int *id, struct clasp_error *err)
{
	char path[64], line[256];
	_cleanup_fclose_ FILE *f = NULL;

	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return clasp_error_set(err, errno, "open %s", path);
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "mnt_id: %d", id) == 1)
			return 0;
	return clasp_error_set(err, ENOTSUP, "%s has no mnt_id", path);
}

static void unescape_octal(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
		    r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* From mountinfo: the parent and mount point of mount ID, and whether any
 * mount has ID as its parent. Returns 1 when ID was found, 0 when not. */
static int mountinfo_lookup(int id, int *parent, char *mp, size_t mplen, bool *has_children,
			    struct clasp_error *err)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (!f)
		return clasp_error_set(err, errno, "open /proc/self/mountinfo");
	if (has_children)
		*has_children = false;
	while (getline(&line, &cap, f) > 0) {
		char point[PATH_MAX];
		int mid, pid;

		if (sscanf(line, "%d %d %*s %*s %4095s", &mid, &pid, point) != 3)
			continue;
		if (mid == id) {
			found = 1;
			if (parent)
				*parent = pid;
			if (mp) {
				unescape_octal(point);
				snprintf(mp, mplen, "%s", point);
			}
		} else if (pid == id && has_children) {
			*has_children = true;
		}
	}
	return found;
}

/* The mount just made on TARGETFD's object, as an O_PATH fd. */
static int new_mount_fd(int targetfd, const char *dest, struct clasp_error *err)
{
	char link[PATH_MAX], mp[PATH_MAX], buf[SAFEPATH_FD_PATH_MAX];
	_cleanup_close_ int fd = -1;
	int tid, nid, parent = -1, r;
	ssize_t n = readlink(safepath_fd_path(targetfd, buf), link, sizeof link - 1);

	if (n <= 0 || link[0] != '/')
		return clasp_error_set(err, n < 0 ? errno : EINVAL, "mount on \"%s\": locate the destination", dest);
	link[n] = '\0';
	fd = open(link, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return clasp_error_set(err, errno, "mount on \"%s\": reopen", dest);
	if (mnt_id_of(targetfd, &tid, err) < 0 || mnt_id_of(fd, &nid, err) < 0)
		return clasp_error_prefix(err, "mount on \"%s\"", dest);
	r = mountinfo_lookup(nid, &parent, mp, sizeof mp, NULL, err);
	if (r < 0)
		return clasp_error_prefix(err, "mount on \"%s\"", dest);
	if (nid == tid || !r || parent != tid || strcmp(mp, link) != 0)
		return clasp_error_set(err, EXDEV, "mount on \"%s\": the destination changed while it was mounted",
				       dest);
	return steal_fd(&fd);
}

static int remount_tree(int id, uint64_t set, uint64_t clr, struct clasp_error *err);

/* Flags of the attached mount FD changed as mount_setattr would: clear CLR,
 * set SET, keep the rest. REC with submounts: each of them too when WALK,
 * otherwise an error. */
static int remount_flags(int fd, bool rec, bool walk, uint64_t set, uint64_t clr, struct clasp_error *err)
{
	char buf[SAFEPATH_FD_PATH_MAX];
	const char *path = safepath_fd_path(fd, buf);
	struct statvfs sv;
	uint64_t cur = 0;
	int id, r;
	bool children = false;

	if (!set && !clr)
		return 0;
	if ((set | clr) & MOUNT_ATTR_IDMAP)
		return clasp_error_set(err, ENOSYS, "idmapped mounts need mount_setattr (Linux 5.12)");
	if (mnt_id_of(fd, &id, err) < 0)
		return -1;
	r = mountinfo_lookup(id, NULL, NULL, 0, &children, err);
	if (r < 0)
		return -1;
	if (r == 0)
		return clasp_error_set(err, ENOSYS, "mount flags on a detached mount need mount_setattr (Linux 5.12)");
	if (rec && children && walk && remount_tree(id, set, clr, err) < 0)
		return -1;
	if (rec && children && !walk)
		return clasp_error_set(err, ENOSYS,
				       "recursive mount flags (rro, rnosuid, ...) on a tree with submounts need "
				       "mount_setattr (Linux 5.12)");
	if (statvfs(path, &sv) < 0)
		return clasp_error_set(err, errno, "statvfs");
	cur |= sv.f_flag & ST_RDONLY ? MOUNT_ATTR_RDONLY : 0;
	cur |= sv.f_flag & ST_NOSUID ? MOUNT_ATTR_NOSUID : 0;
	cur |= sv.f_flag & ST_NODEV ? MOUNT_ATTR_NODEV : 0;
	cur |= sv.f_flag & ST_NOEXEC ? MOUNT_ATTR_NOEXEC : 0;
	cur |= sv.f_flag & ST_NODIRATIME ? MOUNT_ATTR_NODIRATIME : 0;
	cur |= sv.f_flag & ST_NOSYMFOLLOW ? MOUNT_ATTR_NOSYMFOLLOW : 0;
	cur |= sv.f_flag & ST_NOATIME ? MOUNT_ATTR_NOATIME
	       : sv.f_flag & ST_RELATIME ? MOUNT_ATTR_RELATIME : MOUNT_ATTR_STRICTATIME;
	if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | attrs_to_ms((cur & ~clr) | set), NULL) < 0)
		return clasp_error_set(err, errno, "remount");
	return 0;
}

struct mnt_row {
	int id, parent;
	char *point;
};

/* Every mount below ID, each found by its mount point and accepted only if
 * that path leads to exactly it, then given the flags. A mount hidden under
 * another one of the tree is left to that one (the cover cannot be removed
 * from inside: rbind copies keep the kernel's lock on them). */
static int remount_tree(int id, uint64_t set, uint64_t clr, struct clasp_error *err)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	_cleanup_free_ char *line = NULL;
	struct mnt_row *rows = NULL;
	bool *in = NULL;
	size_t cap = 0, n = 0;
	int r = -1;

	if (!f)
		return clasp_error_set(err, errno, "open /proc/self/mountinfo");
	while (getline(&line, &cap, f) > 0) {
		char point[PATH_MAX];
		struct mnt_row row;

		if (sscanf(line, "%d %d %*s %*s %4095s", &row.id, &row.parent, point) != 3)
			continue;
		unescape_octal(point);
		struct mnt_row *grown = realloc(rows, (n + 1) * sizeof *rows);

		row.point = strdup(point);
		/* out of memory in the runtime: nothing sensible is left to do */
		if (!grown || !row.point)
			abort();
		rows = grown;
		rows[n++] = row;
	}
	in = calloc(n + 1, sizeof *in);
	if (!in)
		abort();
	for (bool grew = true; grew;) {
		grew = false;
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n && !in[i] && rows[i].id != id; j++)
				if (rows[i].parent == id || (in[j] && rows[i].parent == rows[j].id)) {
					in[i] = true;
					grew = true;
				}
	}
	for (size_t i = 0; i < n; i++) {
		_cleanup_close_ int fd = -1;
		int got = -1;
		bool covered = false;

		if (!in[i] || rows[i].id == id)
			continue;
		fd = open(rows[i].point, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || mnt_id_of(fd, &got, err) < 0) {
			clasp_error_set(err, fd < 0 ? errno : err->code, "submount %s", rows[i].point);
			goto out;
		}
		for (size_t j = 0; j < n; j++)
			covered |= in[j] && rows[j].id == got && got != rows[i].id;
		if (covered)
			continue;
		if (got != rows[i].id) {
			clasp_error_set(err, EXDEV, "submount %s changed while remounted", rows[i].point);
			goto out;
		}
		if (remount_flags(fd, false, false, set, clr, err) < 0) {
			clasp_error_prefix(err, "submount %s", rows[i].point);
			goto out;
		}
	}
	r = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(rows[i].point);
	free(rows);
	free(in);
	return r;
}

static int set_propagation(int fd, unsigned long prop, struct clasp_error *err)
{
	char buf[SAFEPATH_FD_PATH_MAX];

	if (mount(NULL, safepath_fd_path(fd, buf), NULL, prop, NULL) < 0)
		return clasp_error_set(err, errno, "mount propagation");
	return 0;
}

int mount_legacy_set_attrs(int fd, bool rec, uint64_t set, uint64_t clr, uint64_t propagation,
			   struct clasp_error *err)
{
	struct token *t = token_find(fd);

	if (t) {
		uint64_t *s = rec ? &t->rset : &t->set, *c = rec ? &t->rclr : &t->clr;

		*c |= clr;
		*s = (*s & ~clr) | set;
		if (propagation) {
			if (t->n_prop == MOUNT_OPTS_MAX_PROP)
				return clasp_error_set(err, EINVAL, "too many propagation changes");
			t->prop[t->n_prop++] = propagation | (rec ? MS_REC : 0);
		}
		return 0;
	}
	if (remount_flags(fd, rec, false, set, clr, err) < 0)
		return -1;
	return propagation ? set_propagation(fd, propagation | (rec ? MS_REC : 0), err) : 0;
}

/* mount(2) of a fresh filesystem with the retries mount_new_fs's caller
 * would have made; a host bind replaces it as the user-namespace fallback. */
static int mount_fresh(struct token *t, const char *target)
{
	if (mount(t->source, target, t->type, t->ms, t->data) == 0)
		return 0;
	if (errno == EINVAL && t->alt_data)
		return mount(t->source, target, t->type, t->ms, t->alt_data);
	if ((errno == EPERM || errno == EACCES) && t->host_path) {
		/* As runc: the host's instance, flags on its top mount. */
		if (mount(t->host_path, target, NULL, MS_BIND | MS_REC, NULL) < 0)
			return -1;
		t->walk = true;
		t->rset |= (t->ms & MS_RDONLY ? MOUNT_ATTR_RDONLY : 0) | (t->ms & MS_NOSUID ? MOUNT_ATTR_NOSUID : 0) |
			  (t->ms & MS_NODEV ? MOUNT_ATTR_NODEV : 0) | (t->ms & MS_NOEXEC ? MOUNT_ATTR_NOEXEC : 0);
		return 0;
	}
	return -1;
}

int mount_legacy_attach(int token, int targetfd, const char *what, const char *dest, struct clasp_error *err)
{
	struct token *t = token_find(token);
	char tbuf[SAFEPATH_FD_PATH_MAX], sbuf[SAFEPATH_FD_PATH_MAX];
	const char *target = safepath_fd_path(targetfd, tbuf);
	_cleanup_close_ int mfd = -1;
	int r;

	if (!t)
		return clasp_error_set(err, EBADF, "mount %s on \"%s\": not a pending mount", what, dest);
	if (t->bind)
		r = mount(safepath_fd_path(t->fd, sbuf), target, NULL, MS_BIND | (t->rec ? MS_REC : 0), NULL);
	else
		r = mount_fresh(t, target);
	if (r < 0)
		return clasp_error_set(err, errno, "mount %s on \"%s\"", what, dest);
	mfd = new_mount_fd(targetfd, dest, err);
	if (mfd < 0)
		return -1;
	if (remount_flags(mfd, false, false, t->set, t->clr, err) < 0 ||
	    remount_flags(mfd, true, t->walk, t->rset, t->rclr, err) < 0)
		return clasp_error_prefix(err, "mount %s on \"%s\"", what, dest);
	for (unsigned i = 0; i < t->n_prop; i++)
		if (set_propagation(mfd, t->prop[i], err) < 0)
			return clasp_error_prefix(err, "mount %s on \"%s\"", what, dest);
	/* The token's number now names the mount, as after move_mount. */
	if (dup3(mfd, token, O_CLOEXEC) < 0)
		return clasp_error_set(err, errno, "mount %s on \"%s\"", what, dest);
	token_free(t);
	return 0;
}
