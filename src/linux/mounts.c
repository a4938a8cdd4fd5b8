/* config.json mounts, in order, with the new mount API.
 *
 * Each mount is built detached (fsopen+fsmount for a fresh filesystem,
 * open_tree(OPEN_TREE_CLONE) for a bind), given its flags while nobody can
 * see it, and only then attached with move_mount onto an O_PATH fd of the
 * destination, which safepath resolved inside the rootfs. The destination is
 * never looked up by path again, so swapping a directory for a symlink during
 * setup (CVE-2021-30465) cannot move the mount out of the container. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

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
	if (mount_setattr(fd, "", AT_EMPTY_PATH | (rec ? AT_RECURSIVE : 0), &attr, sizeof attr) < 0)
		return clasp_error_set(err, errno, "mount_setattr");
	return 0;
}

int mount_attach(int mntfd, int targetfd, const char *what, const char *dest, struct clasp_error *err)
{
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
	_cleanup_close_ int fsfd = fsopen(type, FSOPEN_CLOEXEC);
	_cleanup_free_ char *copy = data ? strdup(data) : NULL;
	char *save = NULL;
	int mfd;

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

static int clone_tree(const char *src, bool rec, struct clasp_error *err)
{
	int fd = open_tree(AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (rec ? AT_RECURSIVE : 0));

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

static int apply_propagation(int mfd, const struct mount_opts *mo, struct clasp_error *err)
{
	for (unsigned i = 0; i < mo->n_prop; i++) {
		unsigned long p = mo->prop[i];

		if (mount_set_attrs(mfd, p & MS_REC, 0, 0, p & ~(unsigned long)MS_REC, err) < 0)
			return -1;
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
	tree = clone_tree(src, mo->rbind, err);
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
	if (mount_attach(tree, target, src, m->destination, err) < 0)
		return -1;
	if (apply_propagation(tree, mo, err) < 0)
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
	return apply_propagation(fd, mo, err) < 0 ? clasp_error_prefix(err, "remount \"%s\"", m->destination) : 0;
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
	fd = clone_tree(host, true, err);
	if (fd < 0)
		return -1;
	if (mount_set_attrs(fd, true, attrs, attrs & MOUNT_ATTR__ATIME ? MOUNT_ATTR__ATIME : 0, 0, err) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int mount_cgroup(struct mount_ctx *ctx, const struct oci_mount *m, struct mount_opts *mo, int target,
			struct clasp_error *err);

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
	if (mo.tmpcopyup || mo.idmap || mo.ridmap)
		return clasp_error_set(err, EINVAL, "mount on \"%s\": option \"%s\" is not supported by clasp",
				       m->destination, mo.tmpcopyup ? "tmpcopyup" : mo.idmap ? "idmap" : "ridmap");
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
	if (mount_attach(mfd, target, m->source ? m->source : type, m->destination, err) < 0)
		return -1;
	if (apply_propagation(mfd, &mo, err) < 0)
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

/* ---- cgroup and cgroup2 ----
 *
 * cgroup2 (or "cgroup" on a pure cgroup v2 host): a fresh cgroup2 mount when
 * the container has its own cgroup namespace (its root is then the
 * container's cgroup); otherwise a bind of the container's own cgroup
 * directory, so the host's tree stays out of sight.
 * "cgroup" on a v1 or hybrid host does what runc does: a tmpfs at the
 * destination, one directory per host hierarchy (named like the host's,
 * "cpu,cpuacct", "systemd", and "unified" for the hybrid v2 tree), each a
 * fresh mount of that hierarchy in a new cgroup namespace or a bind of the
 * container's cgroup in it otherwise, symlinks from each controller of a
 * co-mounted pair to the pair, and finally the tmpfs made read-only if asked. */

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

struct cg_hier {
	char mountpoint[PATH_MAX];
	char controllers[256]; /* "cpu,cpuacct", "name=systemd"; "" for cgroup2 */
	bool v2;
};

static void unescape_octal(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] && r[3]) {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

static bool cg_is_option(const char *o)
{
	static const char *const opts[] = { "rw", "ro", "xattr", "noprefix", "clone_children", "cpuset_v2_mode",
					    "favordynmods", "nsdelegate", "memory_recursiveprot",
					    "memory_localevents", "memory_hugetlb_accounting" };
	if (strchr(o, '='))
		return strncmp(o, "name=", 5) != 0;
	for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
		if (strcmp(o, opts[i]) == 0)
			return true;
	return false;
}

/* The host's cgroup hierarchies, from mountinfo. Returns the count. */
static int cg_hierarchies(struct cg_hier *h, int max, struct clasp_error *err)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	int n = 0;

	if (!f)
		return clasp_error_set(err, errno, "open /proc/self/mountinfo");
	while (n < max && getline(&line, &cap, f) > 0) {
		char mp[PATH_MAX], fstype[64], super[512], *dash = strstr(line, " - ");
		char *save = NULL;

		if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1 ||
		    sscanf(dash + 3, "%63s %*s %511s", fstype, super) != 2)
			continue;
		if (strcmp(fstype, "cgroup") != 0 && strcmp(fstype, "cgroup2") != 0)
			continue;
		unescape_octal(mp);
		memset(&h[n], 0, sizeof h[n]);
		snprintf(h[n].mountpoint, sizeof h[n].mountpoint, "%s", mp);
		h[n].v2 = strcmp(fstype, "cgroup2") == 0;
		for (char *o = strtok_r(super, ",", &save); !h[n].v2 && o; o = strtok_r(NULL, ",", &save)) {
			if (cg_is_option(o))
				continue;
			if (h[n].controllers[0])
				strncat(h[n].controllers, ",", sizeof h[n].controllers - strlen(h[n].controllers) - 1);
			strncat(h[n].controllers, o, sizeof h[n].controllers - strlen(h[n].controllers) - 1);
		}
		if (h[n].v2 || h[n].controllers[0])
			n++;
	}
	return n;
}

static bool same_set(const char *a, const char *b)
{
	_cleanup_free_ char *ca = strdup(a);
	char *save = NULL;
	size_t na = 0, nb = 1;

	if (!ca)
		abort();
	for (const char *p = b; *p; p++)
		nb += *p == ',';
	for (char *t = strtok_r(ca, ",", &save); t; t = strtok_r(NULL, ",", &save), na++) {
		size_t l = strlen(t);
		const char *p = b;
		bool found = false;

		while ((p = strstr(p, t))) {
			if ((p == b || p[-1] == ',') && (p[l] == ',' || p[l] == '\0')) {
				found = true;
				break;
			}
			p += l;
		}
		if (!found)
			return false;
	}
	return na == nb;
}

/* This process's cgroup in the hierarchy with CONTROLLERS ("" = v2). */
static int cg_own_path(const char *controllers, bool v2, char *out, size_t len, struct clasp_error *err)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/cgroup", "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	if (!f)
		return clasp_error_set(err, errno, "open /proc/self/cgroup");
	while (getline(&line, &cap, f) > 0) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c1 = *c2 = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (v2 ? (strcmp(line, "0") == 0 && c1[1] == '\0') : (c1[1] && same_set(c1 + 1, controllers))) {
			snprintf(out, len, "%s", c2 + 1);
			return 0;
		}
	}
	return clasp_error_set(err, ENOENT, "no cgroup for \"%s\" in /proc/self/cgroup",
			       v2 ? "cgroup2" : controllers);
}

/* One hierarchy as a detached mount: fresh in a new cgroup namespace,
 * otherwise the container's own cgroup directory bound. */
static int cg_mount_hier(struct mount_ctx *ctx, const struct cg_hier *h, uint64_t attrs, struct clasp_error *err)
{
	char path[PATH_MAX], src[PATH_MAX * 2];
	int fd;

	if (ctx->o->new_cgroupns)
		return mount_new_fs(h->v2 ? "cgroup2" : "cgroup", h->v2 ? "cgroup2" : "cgroup",
				    h->v2 ? NULL : h->controllers, 0, attrs, err);
	if (cg_own_path(h->controllers, h->v2, path, sizeof path, err) < 0)
		return -1;
	snprintf(src, sizeof src, "%s%s", h->mountpoint, strcmp(path, "/") == 0 ? "" : path);
	fd = clone_tree(src, false, err);
	if (fd >= 0 && mount_set_attrs(fd, false, attrs, attrs & MOUNT_ATTR__ATIME ? MOUNT_ATTR__ATIME : 0, 0,
				       err) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int mount_cgroup(struct mount_ctx *ctx, const struct oci_mount *m, struct mount_opts *mo, int target,
			struct clasp_error *err)
{
	struct cg_hier h[32];
	struct statfs sf;
	uint64_t attrs = mount_opts_fresh_attrs(mo);
	_cleanup_close_ int tmpfs = -1;
	int n;

	if (statfs("/sys/fs/cgroup", &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC) {
		struct cg_hier v2 = { .mountpoint = "/sys/fs/cgroup", .v2 = true };
		_cleanup_close_ int fd = cg_mount_hier(ctx, &v2, attrs, err);

		if (fd < 0 || mount_attach(fd, target, "cgroup2", m->destination, err) < 0)
			return clasp_error_prefix(err, "mount cgroup on \"%s\"", m->destination);
		return apply_propagation(fd, mo, err);
	}
	n = cg_hierarchies(h, 32, err);
	if (n < 0)
		return clasp_error_prefix(err, "mount cgroup on \"%s\"", m->destination);
	if (strcmp(m->type, "cgroup2") == 0) {
		for (int i = 0; i < n; i++) {
			if (!h[i].v2)
				continue;
			_cleanup_close_ int fd = cg_mount_hier(ctx, &h[i], attrs, err);
			if (fd < 0 || mount_attach(fd, target, "cgroup2", m->destination, err) < 0)
				return clasp_error_prefix(err, "mount cgroup2 on \"%s\"", m->destination);
			return apply_propagation(fd, mo, err);
		}
		return clasp_error_set(err, ENOENT, "mount cgroup2 on \"%s\": the host has no cgroup2 hierarchy",
				       m->destination);
	}
	tmpfs = mount_new_fs("tmpfs", "tmpfs", "mode=755", 0, attrs & ~(uint64_t)MOUNT_ATTR_RDONLY, err);
	if (tmpfs < 0 || mount_attach(tmpfs, target, "tmpfs", m->destination, err) < 0)
		return clasp_error_prefix(err, "mount cgroup on \"%s\"", m->destination);
	for (int i = 0; i < n; i++) {
		const char *slash = strrchr(h[i].mountpoint, '/');
		const char *name = slash ? slash + 1 : h[i].mountpoint;
		_cleanup_close_ int dir = -1, fd = -1;

		if (!*name || strchr(name, '/'))
			continue;
		if (mkdirat(tmpfs, name, 0755) < 0 && errno != EEXIST)
			return clasp_error_set(err, errno, "mount cgroup on \"%s\": mkdir %s", m->destination, name);
		dir = openat(tmpfs, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dir < 0)
			return clasp_error_set(err, errno, "mount cgroup on \"%s\": open %s", m->destination, name);
		fd = cg_mount_hier(ctx, &h[i], attrs, err);
		if (fd < 0 || mount_attach(fd, dir, h[i].mountpoint, m->destination, err) < 0)
			return clasp_error_prefix(err, "mount cgroup on \"%s\"", m->destination);
		if (strchr(name, ',')) {
			_cleanup_free_ char *copy = strdup(name);
			char *save = NULL;

			for (char *c = strtok_r(copy, ",", &save); c; c = strtok_r(NULL, ",", &save))
				if (symlinkat(name, tmpfs, c) < 0 && errno != EEXIST)
					return clasp_error_set(err, errno, "mount cgroup: symlink %s", c);
		}
	}
	if (mount_set_attrs(tmpfs, false, attrs & MOUNT_ATTR_RDONLY, 0, 0, err) < 0)
		return clasp_error_prefix(err, "mount cgroup on \"%s\"", m->destination);
	return apply_propagation(tmpfs, mo, err);
}
