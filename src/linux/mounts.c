/* config.json mounts, in order, with the new mount API (mount(2) on kernels
 * without it: mount_legacy.c keeps the same detached-then-attach shape).
 *
 * Each mount is built detached (fsopen+fsmount for a fresh filesystem,
 * open_tree(OPEN_TREE_CLONE) for a bind), given its flags while nobody can
 * see it, and only then attached with move_mount onto an O_PATH fd of the
 * destination, which safepath resolved inside the rootfs. The destination is
 * never looked up by path again, so swapping a directory for a symlink during
 * setup (CVE-2021-30465) cannot move the mount out of the container. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/mount_legacy.h"
#include "linux/mount_opts.h"
#include "linux/rootfs.h"
#include "util/cleanup.h"
#include "util/safepath.h"

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif

int mount_set_attrs(int fd, bool rec, uint64_t set, uint64_t clr, uint64_t propagation,
		    struct clasp_error *err)
{
	struct mount_attr attr = { .attr_set = set, .attr_clr = clr, .propagation = propagation };

	if (!set && !clr && !propagation)
		return 0;
	if (mount_legacy())
		return mount_legacy_set_attrs(fd, rec, set, clr, propagation, err);
	if (mount_setattr(fd, "", AT_EMPTY_PATH | (rec ? AT_RECURSIVE : 0), &attr, sizeof attr) < 0)
		return clasp_error_set(err, errno, "mount_setattr");
	return 0;
}

int mount_attach(int mntfd, int targetfd, const char *what, const char *dest, struct clasp_error *err)
{
	if (mount_legacy_is_token(mntfd))
		return mount_legacy_attach(mntfd, targetfd, what, dest, err);
	if (move_mount(mntfd, "", targetfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return clasp_error_set(err, errno, "mount %s on \"%s\"", what, dest);
	return 0;
}

/* The kernel explains fsconfig failures in the context's log ("e tmpfs:
 * Bad value for 'mode'"); give the user that rather than a bare EINVAL. */
static int fs_error(int fsfd, int errnum, const char *type, struct clasp_error *err)
{
	char log[512] = "";
	ssize_t n = fsfd >= 0 ? read(fsfd, log, sizeof log - 1) : -1;

	if (n > 2) {
		log[n] = '\0';
		log[strcspn(log, "\n")] = '\0';
		return clasp_error_set(err, errnum, "%s: %s", type, log + 2);
	}
	return clasp_error_set(err, errnum, "%s", type);
}

int mount_new_fs(const char *type, const char *source, const char *data, unsigned sb_flags, uint64_t attrs,
		 struct clasp_error *err)
{
	static const char *const sb_names[] = { "sync", "dirsync", "mand", "lazytime" };
	_cleanup_close_ int fsfd = -1;
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;
	int mfd;

	if (mount_legacy())
		return mount_legacy_new_fs(type, source, data, sb_flags, attrs, err);
	fsfd = fsopen(type, FSOPEN_CLOEXEC);
	copy = data ? strdup(data) : NULL;
	if (fsfd < 0)
		return clasp_error_set(err, errno, "%s", type);
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "source", source ? source : type, 0) < 0)
		return fs_error(fsfd, errno, type, err);
	for (unsigned i = 0; i < sizeof sb_names / sizeof sb_names[0]; i++)
		if ((sb_flags & (1u << i)) && fsconfig(fsfd, FSCONFIG_SET_FLAG, sb_names[i], NULL, 0) < 0)
			return fs_error(fsfd, errno, type, err);
	for (char *kv = copy ? strtok_r(copy, ",", &save) : NULL; kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		int r;

		if (eq) {
			*eq = '\0';
			r = fsconfig(fsfd, FSCONFIG_SET_STRING, kv, eq + 1, 0);
		} else {
			r = fsconfig(fsfd, FSCONFIG_SET_FLAG, kv, NULL, 0);
		}
		if (r < 0)
			return fs_error(fsfd, errno, type, err);
	}
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return fs_error(fsfd, errno, type, err);
	mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, (unsigned)attrs);
	if (mfd < 0)
		return fs_error(fsfd, errno, type, err);
	return mfd;
}

int mount_clone_tree(const char *src, bool rec, struct clasp_error *err)
{
	int fd;

	if (mount_legacy())
		return mount_legacy_clone(src, rec, err);
	fd = open_tree(AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (rec ? AT_RECURSIVE : 0));
	if (fd < 0)
		return clasp_error_set(err, errno, "bind source \"%s\"", src);
	return fd;
}

static bool path_is(const char *p, const char *want)
{
	/* "/dev", "/dev/", "dev", "//dev" are all /dev. */
	while (*p == '/')
		p++;
	while (*want == '/')
		want++;
	size_t n = strlen(want);
	if (strncmp(p, want, n) != 0)
		return false;
	for (p += n; *p; p++)
		if (*p != '/')
			return false;
	return true;
}

static bool is_bind(const struct oci_mount *m)
{
	for (size_t i = 0; i < m->options.n; i++)
		if (strcmp(m->options.v[i], "bind") == 0 || strcmp(m->options.v[i], "rbind") == 0)
			return true;
	return m->type && strcmp(m->type, "bind") == 0;
}

bool mounts_dev_is_bind(const struct oci_config *cfg)
{
	for (size_t i = 0; i < cfg->n_mounts; i++)
		if (path_is(cfg->mounts[i].destination, "/dev") && is_bind(&cfg->mounts[i]))
			return true;
	return false;
}

bool mounts_dev_wants_ro(const struct oci_config *cfg)
{
	bool ro = false;

	for (size_t i = 0; i < cfg->n_mounts; i++) {
		const struct oci_mount *m = &cfg->mounts[i];

		if (!path_is(m->destination, "/dev") || is_bind(m))
			continue;
		ro = false; /* the last /dev mount is the one that is seen */
		for (size_t j = 0; j < m->options.n; j++) {
			if (!strcmp(m->options.v[j], "ro") || !strcmp(m->options.v[j], "rro"))
				ro = true;
			else if (!strcmp(m->options.v[j], "rw") || !strcmp(m->options.v[j], "rrw"))
				ro = false;
		}
	}
	return ro;
}

/* Mounting over /proc/... could hide what maskedPaths protect or fake what
 * tools trust; allow only the files lxcfs-style setups replace, and procfs
 * itself (runc's rule). */
static int check_proc_dest(const char *dest, const char *type, int srcfd, struct clasp_error *err)
{
	static const char *const allowed[] = {
		"/proc/cpuinfo", "/proc/diskstats", "/proc/meminfo", "/proc/stat", "/proc/swaps",
		"/proc/uptime", "/proc/loadavg", "/proc/slabinfo", "/proc/net/dev",
		"/proc/sys/kernel/ns_last_pid",
	};
	struct statfs sf;
	const char *p = dest;

	while (*p == '/')
		p++;
	if (strncmp(p, "proc", 4) != 0 || (p[4] != '/' && p[4] != '\0'))
		return 0;
	if (path_is(dest, "/proc"))
		return (type && strcmp(type, "proc") == 0) || srcfd >= 0 ? 0
		       : clasp_error_set(err, EINVAL, "\"%s\" cannot be mounted on /proc: only procfs can", type);
	for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
		if (path_is(dest, allowed[i]))
			return 0;
	if (srcfd >= 0 && fstatfs(srcfd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC)
		return 0;
	return clasp_error_set(err, EINVAL, "\"%s\" cannot be mounted because it is inside /proc", dest);
}

int mount_apply_propagation(int mfd, const struct mount_opts *mo, struct clasp_error *err)
{
	for (unsigned i = 0; i < mo->n_prop; i++) {
		unsigned long p = mo->prop[i];

		if (mount_set_attrs(mfd, p & MS_REC, 0, 0, p & ~(unsigned long)MS_REC, err) < 0)
			return -1;
	}
	return 0;
}

/* ---- idmapped mounts ("idmap", "ridmap") ----
 * mount_setattr(MOUNT_ATTR_IDMAP) takes a user namespace that carries the
 * mapping. One is made for the purpose: a helper child unshares a user
 * namespace, we write the mount's uidMappings/gidMappings into it, keep an
 * fd to it, and let the helper go. Without mappings in the mount, the
 * container's own user namespace is used (config.md allows it). */

static int write_idmap(const char *hostpid, const char *file, const struct oci_idmap *v, size_t n,
		       struct clasp_error *err)
{
	char path[64], buf[4096];
	size_t len = 0;
	int fd;
	ssize_t w;

	for (size_t i = 0; i < n && len < sizeof buf - 40; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%u %u %u\n", v[i].container_id, v[i].host_id,
					v[i].size);
	snprintf(path, sizeof path, "/proc/%s/%s", hostpid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return clasp_error_set(err, errno, "open %s", path);
	w = write(fd, buf, len);
	close(fd);
	if (w != (ssize_t)len)
		return clasp_error_set(err, w < 0 ? errno : EIO, "write %s", file);
	return 0;
}

static int idmap_userns(struct mount_ctx *ctx, const struct oci_mount *m, struct clasp_error *err)
{
	int ready[2], hold[2], fd = -1, status;
	char hostpid[32] = "", path[64];
	ssize_t n;
	pid_t pid;

	if (!m->n_uid_mappings && !m->n_gid_mappings) {
		if (!ctx->o->userns)
			return clasp_error_set(err, EINVAL, "idmap without uidMappings/gidMappings needs a user namespace");
		fd = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
		return fd < 0 ? clasp_error_set(err, errno, "open /proc/self/ns/user") : fd;
	}
	if (!m->n_uid_mappings || !m->n_gid_mappings)
		return clasp_error_set(err, EINVAL, "idmap needs both uidMappings and gidMappings");
	if (pipe2(ready, O_CLOEXEC) < 0)
		return clasp_error_set(err, errno, "pipe");
	if (pipe2(hold, O_CLOEXEC) < 0) {
		close(ready[0]);
		close(ready[1]);
		return clasp_error_set(err, errno, "pipe");
	}
	pid = fork();
	if (pid == 0) {
		char self[32] = "";
		char c;

		close(ready[0]);
		close(hold[1]);
		/* /proc here may belong to an ancestor pid namespace: the
		 * helper names itself as that /proc knows it. */
		if (readlink("/proc/self", self, sizeof self - 1) < 0 || unshare(CLONE_NEWUSER) < 0)
			self[0] = '\0';
		if (write(ready[1], self, strlen(self) + 1) < 0 || read(hold[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	if (pid < 0) {
		clasp_error_set(err, errno, "fork");
		goto out;
	}
	n = read(ready[0], hostpid, sizeof hostpid - 1);
	if (n <= 1 || !hostpid[0]) {
		clasp_error_set(err, EPERM, "create a user namespace for the idmapping");
		goto out;
	}
	if (write_idmap(hostpid, "uid_map", m->uid_mappings, m->n_uid_mappings, err) < 0 ||
	    write_idmap(hostpid, "gid_map", m->gid_mappings, m->n_gid_mappings, err) < 0)
		goto out;
	snprintf(path, sizeof path, "/proc/%s/ns/user", hostpid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		clasp_error_set(err, errno, "open %s", path);
out:
	close(ready[0]);
	close(hold[1]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return fd;
}

static int apply_idmap(struct mount_ctx *ctx, const struct oci_mount *m, const struct mount_opts *mo, int mfd,
		       struct clasp_error *err)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
	_cleanup_close_ int userns = -1;

	if (!mo->idmap && !mo->ridmap)
		return 0;
	if (mount_legacy())
		return clasp_error_set(err, ENOSYS, "idmapped mount on \"%s\": needs mount_setattr (Linux 5.12)",
				       m->destination);
	userns = idmap_userns(ctx, m, err);
	if (userns < 0)
		return clasp_error_prefix(err, "idmapped mount on \"%s\"", m->destination);
	attr.userns_fd = (uint64_t)userns;
	if (mount_setattr(mfd, "", AT_EMPTY_PATH | (mo->ridmap ? AT_RECURSIVE : 0), &attr, sizeof attr) < 0)
		return clasp_error_set(err, errno, "idmapped mount on \"%s\"", m->destination);
	return 0;
}

/* ---- tmpcopyup: a tmpfs that starts with what the image had there ---- */

static int copy_file(int sdir, int ddir, const char *name, const struct stat *st, struct clasp_error *err)
{
	_cleanup_close_ int in = openat(sdir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_close_ int out = -1;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return clasp_error_set(err, errno, "tmpcopyup: open %s", name);
	out = openat(ddir, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, st->st_mode & 07777);
	if (out < 0)
		return clasp_error_set(err, errno, "tmpcopyup: create %s", name);
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			return clasp_error_set(err, errno, "tmpcopyup: write %s", name);
	return n < 0 ? clasp_error_set(err, errno, "tmpcopyup: read %s", name) : 0;
}

static int copy_tree(int sdir, int ddir, int depth, struct clasp_error *err)
{
	int lfd = openat(sdir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_closedir_ DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
	struct dirent *e;

	if (!d) {
		if (lfd >= 0)
			close(lfd);
		return clasp_error_set(err, errno, "tmpcopyup: list");
	}
	if (depth > 64)
		return clasp_error_set(err, ELOOP, "tmpcopyup: too deep");
	while ((e = readdir(d))) {
		struct stat st;
		int r = 0;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(sdir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return clasp_error_set(err, errno, "tmpcopyup: stat %s", e->d_name);
		if (S_ISDIR(st.st_mode)) {
			_cleanup_close_ int s2 = -1, d2 = -1;

			if (mkdirat(ddir, e->d_name, st.st_mode & 07777) < 0)
				return clasp_error_set(err, errno, "tmpcopyup: mkdir %s", e->d_name);
			s2 = openat(sdir, e->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			d2 = openat(ddir, e->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (s2 < 0 || d2 < 0)
				return clasp_error_set(err, errno, "tmpcopyup: open %s", e->d_name);
			r = copy_tree(s2, d2, depth + 1, err);
		} else if (S_ISREG(st.st_mode)) {
			r = copy_file(sdir, ddir, e->d_name, &st, err);
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(sdir, e->d_name, target, sizeof target - 1);

			if (n < 0)
				return clasp_error_set(err, errno, "tmpcopyup: readlink %s", e->d_name);
			target[n] = '\0';
			if (symlinkat(target, ddir, e->d_name) < 0)
				r = clasp_error_set(err, errno, "tmpcopyup: symlink %s", e->d_name);
		} else if (mknodat(ddir, e->d_name, st.st_mode, st.st_rdev) < 0 && errno != EPERM) {
			r = clasp_error_set(err, errno, "tmpcopyup: mknod %s", e->d_name);
		}
		if (r < 0)
			return -1;
		/* Owners the user namespace cannot map stay the copier's. */
		if (fchownat(ddir, e->d_name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) < 0 && errno != EINVAL &&
		    errno != ENOENT)
			return clasp_error_set(err, errno, "tmpcopyup: chown %s", e->d_name);
	}
	return 0;
}

static int mount_bind(struct mount_ctx *ctx, const struct oci_mount *m, struct mount_opts *mo,
		      struct clasp_error *err)
{
	_cleanup_free_ char *src = NULL;
	_cleanup_close_ int tree = -1;
	_cleanup_close_ int target = -1;
	struct stat st;

	if (!m->source)
		return clasp_error_set(err, EINVAL, "bind mount on \"%s\" has no source", m->destination);
	if (m->source[0] == '/' || !ctx->o->bundle)
		src = strdup(m->source);
	else if (asprintf(&src, "%s/%s", ctx->o->bundle, m->source) < 0)
		src = NULL;
	if (!src)
		abort();
	tree = mount_clone_tree(src, mo->rbind, err);
	if (tree < 0 || fstat(tree, &st) < 0)
		return tree < 0 ? -1 : clasp_error_set(err, errno, "stat \"%s\"", src);
	if (check_proc_dest(m->destination, NULL, tree, err) < 0)
		return -1;
	target = S_ISDIR(st.st_mode) ? safepath_mkdir_all(ctx->rootfd, m->destination, 0755, err)
				     : safepath_create_file(ctx->rootfd, m->destination, 0644, err);
	if (target < 0)
		return clasp_error_prefix(err, "mount \"%s\" on \"%s\"", src, m->destination);
	/* Flags are set on the private clone: the host's mount is untouched and
	 * nothing in the container sees the mount writable even briefly. */
	if (mount_set_attrs(tree, false, mo->attr_set, mo->attr_clr, 0, err) < 0 ||
	    mount_set_attrs(tree, true, mo->rattr_set, mo->rattr_clr, 0, err) < 0)
		return clasp_error_prefix(err, "mount \"%s\" on \"%s\"", src, m->destination);
	if (apply_idmap(ctx, m, mo, tree, err) < 0)
		return -1;
	if (mount_attach(tree, target, src, m->destination, err) < 0)
		return -1;
	if (mount_apply_propagation(tree, mo, err) < 0)
		return clasp_error_prefix(err, "mount \"%s\" on \"%s\"", src, m->destination);
	return 0;
}

/* Redo the flags of what is already mounted at the destination. */
static int mount_remount(struct mount_ctx *ctx, const struct oci_mount *m, struct mount_opts *mo,
			 struct clasp_error *err)
{
	_cleanup_close_ int fd = safepath_open(ctx->rootfd, m->destination, O_PATH, err);
	char buf[SAFEPATH_FD_PATH_MAX];

	if (fd < 0)
		return clasp_error_prefix(err, "remount \"%s\"", m->destination);
	if (mo->bind) {
		if (mount_set_attrs(fd, false, mo->attr_set, mo->attr_clr, 0, err) < 0 ||
		    mount_set_attrs(fd, true, mo->rattr_set, mo->rattr_clr, 0, err) < 0)
			return clasp_error_prefix(err, "remount \"%s\"", m->destination);
	} else if (mount(NULL, safepath_fd_path(fd, buf), NULL, MS_REMOUNT | mo->ms_flags, mo->data) < 0) {
		return clasp_error_set(err, errno, "remount \"%s\"", m->destination);
	}
	return mount_apply_propagation(fd, mo, err) < 0 ? clasp_error_prefix(err, "remount \"%s\"", m->destination) : 0;
}

/* devpts rejects gid=5 when group 5 is not mapped into the user namespace;
 * crun and runc retry without it, and so do we. */
static char *without_gid(const char *data)
{
	_cleanup_free_ char *copy = strdup(data);
	char *out = calloc(1, strlen(data) + 1), *save = NULL;

	if (!copy || !out)
		abort();
	for (char *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		if (strncmp(kv, "gid=", 4) == 0)
			continue;
		if (*out)
			strcat(out, ",");
		strcat(out, kv);
	}
	return out;
}

/* A fresh mount of TYPE, falling back to a bind of the host's instance where
 * a user namespace may not create one (as runc does for sysfs and mqueue). */
static int new_fs_with_fallback(struct mount_ctx *ctx, const char *type, const char *source,
				const struct mount_opts *mo, uint64_t attrs, struct clasp_error *err)
{
	const char *host = NULL;
	int fd = mount_new_fs(type, source, mo->data, mo->sb_flags, attrs, err);

	if (fd >= 0 && mount_legacy_is_token(fd)) {
		/* mount(2) fails only when attached: leave the retries with it. */
		_cleanup_free_ char *d = strcmp(type, "devpts") == 0 && mo->data && strstr(mo->data, "gid=")
					 ? without_gid(mo->data) : NULL;
		bool fallback = ctx->o->userns && (!strcmp(type, "sysfs") || !strcmp(type, "mqueue"));

		mount_legacy_set_retry(fd, d, !fallback ? NULL : strcmp(type, "sysfs") == 0 ? "/sys" : "/dev/mqueue");
		return fd;
	}
	if (fd >= 0)
		return fd;
	if (strcmp(type, "devpts") == 0 && err->code == EINVAL && mo->data && strstr(mo->data, "gid=")) {
		_cleanup_free_ char *d = without_gid(mo->data);
		return mount_new_fs(type, source, d, mo->sb_flags, attrs, err);
	}
	if (strcmp(type, "sysfs") == 0)
		host = "/sys";
	else if (strcmp(type, "mqueue") == 0)
		host = "/dev/mqueue";
	if (!host || !ctx->o->userns || (err->code != EPERM && err->code != EACCES))
		return -1;
	fd = mount_clone_tree(host, true, err);
	if (fd < 0)
		return -1;
	if (mount_set_attrs(fd, true, attrs, attrs & MOUNT_ATTR__ATIME ? MOUNT_ATTR__ATIME : 0, 0, err) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int mount_apply_one(struct mount_ctx *ctx, const struct oci_mount *m, struct clasp_error *err)
{
	struct mount_opts mo __attribute__((cleanup(mount_opts_release))) = { 0 };
	_cleanup_close_ int target = -1;
	_cleanup_close_ int mfd = -1;
	const char *type = m->type;
	uint64_t attrs;

	if (!m->destination || !*m->destination)
		return clasp_error_set(err, EINVAL, "mount with an empty destination");
	if (mount_opts_parse(&m->options, &mo, err) < 0)
		return clasp_error_prefix(err, "mount on \"%s\"", m->destination);
	if (mo.tmpcopyup && (mo.bind || !type || strcmp(type, "tmpfs") != 0))
		return clasp_error_set(err, EINVAL, "mount on \"%s\": tmpcopyup applies to tmpfs only",
				       m->destination);
	if (path_is(m->destination, "/"))
		return clasp_error_set(err, EINVAL, "mount on \"/\": the root is root.path, not a mount");
	if (mo.remount)
		return mount_remount(ctx, m, &mo, err);
	if (mo.bind || (type && strcmp(type, "bind") == 0)) {
		mo.bind = true;
		return mount_bind(ctx, m, &mo, err);
	}
	if (!type || !*type)
		return clasp_error_set(err, EINVAL, "mount on \"%s\" has no type", m->destination);
	if (check_proc_dest(m->destination, type, -1, err) < 0)
		return -1;
	target = safepath_mkdir_all(ctx->rootfd, m->destination, 0755, err);
	if (target < 0)
		return clasp_error_prefix(err, "mount \"%s\" on \"%s\"", m->source ? m->source : type,
					  m->destination);
	if (strcmp(type, "cgroup") == 0 || strcmp(type, "cgroup2") == 0)
		return mount_cgroup(ctx, m, &mo, target, err);
	attrs = mount_opts_fresh_attrs(&mo);
	/* Devices are made in /dev after all mounts; a read-only /dev is
	 * applied by rootfs_finalize once they exist (runc does the same). */
	if (path_is(m->destination, "/dev") && (attrs & MOUNT_ATTR_RDONLY)) {
		attrs &= ~(uint64_t)MOUNT_ATTR_RDONLY;
		ctx->dev_ro = true;
	}
	mfd = new_fs_with_fallback(ctx, type, m->source, &mo, attrs, err);
	if (mfd < 0)
		return clasp_error_prefix(err, "mount \"%s\" on \"%s\"", m->source ? m->source : type,
					  m->destination);
	if (apply_idmap(ctx, m, &mo, mfd, err) < 0)
		return -1;
	if (mount_legacy_is_token(mfd)) {
		/* mount(2) cannot fill a tmpfs before attaching it; the
		 * destination fd still lists what it covers. */
		if (mount_attach(mfd, target, m->source ? m->source : type, m->destination, err) < 0)
			return -1;
		if (mo.tmpcopyup && copy_tree(target, mfd, 0, err) < 0)
			return clasp_error_prefix(err, "mount on \"%s\"", m->destination);
	} else {
		if (mo.tmpcopyup && copy_tree(target, mfd, 0, err) < 0)
			return clasp_error_prefix(err, "mount on \"%s\"", m->destination);
		if (mount_attach(mfd, target, m->source ? m->source : type, m->destination, err) < 0)
			return -1;
	}
	if (mount_apply_propagation(mfd, &mo, err) < 0)
		return clasp_error_prefix(err, "mount on \"%s\"", m->destination);
	return 0;
}

int mounts_apply(struct mount_ctx *ctx, struct clasp_error *err)
{
	for (size_t i = 0; i < ctx->cfg->n_mounts; i++)
		if (mount_apply_one(ctx, &ctx->cfg->mounts[i], err) < 0)
			return -1;
	return 0;
}
