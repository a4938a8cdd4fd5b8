/* cgroup and cgroup2 mounts from config.json (split from mounts.c).
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
		/* A /sys bound into the rootfs repeats every hierarchy under
		 * the rootfs; the host's own mount comes first in mountinfo. */
		for (int i = 0; i < n && (h[n].v2 || h[n].controllers[0]); i++)
			if (h[i].v2 == h[n].v2 && strcmp(h[i].controllers, h[n].controllers) == 0)
				h[n].v2 = false, h[n].controllers[0] = '\0';
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
	fd = mount_clone_tree(src, false, err);
	if (fd >= 0 && mount_set_attrs(fd, false, attrs, attrs & MOUNT_ATTR__ATIME ? MOUNT_ATTR__ATIME : 0, 0,
				       err) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int mount_cgroup(struct mount_ctx *ctx, const struct oci_mount *m, struct mount_opts *mo, int target,
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
		return mount_apply_propagation(fd, mo, err);
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
			return mount_apply_propagation(fd, mo, err);
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
	return mount_apply_propagation(tmpfs, mo, err);
}
