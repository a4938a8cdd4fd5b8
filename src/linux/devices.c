/* Device nodes in the container: the spec's default devices, linux.devices,
 * the /dev/fd and /dev/std* symlinks and /dev/ptmx.
 *
 * Every node is made with mknodat/symlinkat on a parent directory that
 * safepath resolved inside the rootfs, so an image whose /dev is a symlink to
 * a host directory gets its nodes inside the rootfs, never on the host. In a
 * user namespace mknod is refused, so the host's node is bind-mounted onto an
 * empty file, after checking that it is the device asked for (the same
 * major:minor), and it is never chowned: the host's /dev/null keeps its owner. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "linux/mount_legacy.h"
#include "linux/rootfs.h"
#include "util/cleanup.h"
#include "util/safepath.h"

struct dev_node {
	const char *path;
	char type;
	unsigned major, minor;
	mode_t mode;
	uid_t uid;
	gid_t gid;
};

static const struct dev_node default_devices[] = {
	{ "/dev/null", 'c', 1, 3, 0666, 0, 0 },    { "/dev/zero", 'c', 1, 5, 0666, 0, 0 },
	{ "/dev/full", 'c', 1, 7, 0666, 0, 0 },    { "/dev/random", 'c', 1, 8, 0666, 0, 0 },
	{ "/dev/urandom", 'c', 1, 9, 0666, 0, 0 }, { "/dev/tty", 'c', 5, 0, 0666, 0, 0 },
};

static mode_t type_bits(char t)
{
	switch (t) {
	case 'b':
		return S_IFBLK;
	case 'p':
		return S_IFIFO;
	default: /* 'c' and 'u' (unbuffered character) */
		return S_IFCHR;
	}
}

static bool node_matches(const struct stat *st, const struct dev_node *d)
{
	if ((st->st_mode & S_IFMT) != type_bits(d->type))
		return false;
	return d->type == 'p' || st->st_rdev == makedev(d->major, d->minor);
}

int devices_open_null(int rootfd, const char *path, struct clasp_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (rootfd >= 0)
		fd = safepath_open(rootfd, path, O_PATH | O_NOFOLLOW, err);
	else if ((fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
		clasp_error_set(err, errno, "open %s", path);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		return clasp_error_set(err, errno, "stat %s", path);
	/* The CVE-2025-31133 check: a symlink or any other file at the place of
	 * /dev/null would turn "mask with /dev/null" into "expose that file". */
	if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3))
		return clasp_error_set(err, EPERM, "%s is not the null device (1:3)", path);
	return steal_fd(&fd);
}

/* Bind the host's node at the same path onto an empty file (user namespace). */
static int bind_host_node(int parent, const char *base, const struct dev_node *d, struct clasp_error *err)
{
	_cleanup_close_ int host = open(d->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_close_ int target = -1, tree = -1;
	char buf[SAFEPATH_FD_PATH_MAX];
	struct stat st;

	if (host < 0 || fstat(host, &st) < 0)
		return clasp_error_set(err, errno, "device %s: host node", d->path);
	if (!node_matches(&st, d))
		return clasp_error_set(err, EINVAL, "device %s: the host's node is not %c %u:%u", d->path, d->type,
				       d->major, d->minor);
	target = openat(parent, base, O_CREAT | O_NOFOLLOW | O_RDONLY | O_CLOEXEC, 0);
	if (target < 0)
		return clasp_error_set(err, errno, "device %s: create mountpoint", d->path);
	if (fstat(target, &st) < 0 || !S_ISREG(st.st_mode))
		return clasp_error_set(err, EEXIST, "device %s: something else is already there", d->path);
	tree = mount_legacy() ? mount_clone_tree(safepath_fd_path(host, buf), false, err)
			      : open_tree(host, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (tree < 0)
		return clasp_error_set(err, mount_legacy() ? err->code : errno, "device %s: bind the host's node",
				       d->path);
	return mount_attach(tree, target, d->path, d->path, err);
}

static int make_node(int parent, const char *base, const struct dev_node *d, struct clasp_error *err)
{
	_cleanup_close_ int fd = -1;
	char buf[SAFEPATH_FD_PATH_MAX];
	struct stat st;

	if (mknodat(parent, base, type_bits(d->type) | (d->mode & 07777), makedev(d->major, d->minor)) < 0)
		return clasp_error_set(err, errno, "mknod %s", d->path);
	fd = openat(parent, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !node_matches(&st, d))
		return clasp_error_set(err, fd < 0 ? errno : EEXIST, "device %s: node replaced while created",
				       d->path);
	/* mknod applied the umask; the mode is set again through the fd. */
	if (chmod(safepath_fd_path(fd, buf), d->mode & 07777) < 0)
		return clasp_error_set(err, errno, "chmod %s", d->path);
	if (fchownat(fd, "", d->uid, d->gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return clasp_error_set(err, errno, "chown %s", d->path);
	return 0;
}

static int create_device(struct mount_ctx *ctx, const struct dev_node *d, struct clasp_error *err)
{
	char base[SAFEPATH_NAME_MAX];
	_cleanup_close_ int parent = safepath_open_parent(ctx->rootfd, d->path, true, base, err);
	struct stat st;

	if (parent < 0)
		return clasp_error_prefix(err, "device %s", d->path);
	if (fstatat(parent, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		/* config-linux.md: an existing file that is not the device is
		 * an error. A symlink is never taken for the device. */
		if (node_matches(&st, d))
			return 0;
		if (!(ctx->o->userns && S_ISREG(st.st_mode) && st.st_size == 0))
			return clasp_error_set(err, EEXIST, "device %s: a different file already exists there",
					       d->path);
	} else if (errno != ENOENT) {
		return clasp_error_set(err, errno, "device %s", d->path);
	}
	if (ctx->o->userns && d->type != 'p')
		return bind_host_node(parent, base, d, err);
	return make_node(parent, base, d, err);
}

static int dev_symlink(int devfd, const char *target, const char *name, struct clasp_error *err)
{
	if (symlinkat(target, devfd, name) < 0 && errno != EEXIST)
		return clasp_error_set(err, errno, "symlink /dev/%s -> %s", name, target);
	return 0;
}

static bool in_config(const struct oci_config *cfg, const char *path)
{
	for (size_t i = 0; i < cfg->linux_.n_devices; i++)
		if (cfg->linux_.devices[i].path && strcmp(cfg->linux_.devices[i].path, path) == 0)
			return true;
	return false;
}

int devices_setup(struct mount_ctx *ctx, bool with_defaults, struct clasp_error *err)
{
	const struct oci_config *cfg = ctx->cfg;
	_cleanup_close_ int devfd = -1;
	mode_t old_umask = umask(0);
	int r = -1;

	for (size_t i = 0; with_defaults && i < sizeof default_devices / sizeof default_devices[0]; i++)
		if (!in_config(cfg, default_devices[i].path) &&
		    create_device(ctx, &default_devices[i], err) < 0)
			goto out;
	for (size_t i = 0; i < cfg->linux_.n_devices; i++) {
		const struct oci_device *od = &cfg->linux_.devices[i];
		struct dev_node d = {
			.path = od->path,
			.type = od->type,
			.major = (unsigned)od->major,
			.minor = (unsigned)od->minor,
			.mode = od->file_mode.set ? (mode_t)od->file_mode.v & 07777 : 0666,
			.uid = od->uid.set ? (uid_t)od->uid.v : 0,
			.gid = od->gid.set ? (gid_t)od->gid.v : 0,
		};

		if (!d.path || d.path[0] != '/') {
			clasp_error_set(err, EINVAL, "linux.devices[%zu]: path must be absolute", i);
			goto out;
		}
		if (create_device(ctx, &d, err) < 0)
			goto out;
	}
	if (!with_defaults) {
		r = 0;
		goto out;
	}
	devfd = safepath_mkdir_all(ctx->rootfd, "/dev", 0755, err);
	if (devfd < 0)
		goto out;
	if (dev_symlink(devfd, "/proc/self/fd", "fd", err) < 0 ||
	    dev_symlink(devfd, "/proc/self/fd/0", "stdin", err) < 0 ||
	    dev_symlink(devfd, "/proc/self/fd/1", "stdout", err) < 0 ||
	    dev_symlink(devfd, "/proc/self/fd/2", "stderr", err) < 0)
		goto out;
	if (access("/proc/kcore", F_OK) == 0 && dev_symlink(devfd, "/proc/kcore", "core", err) < 0)
		goto out;
	/* /dev/ptmx must be the container's devpts instance's ptmx, not a node
	 * of the host's initial devpts. */
	if (unlinkat(devfd, "ptmx", 0) < 0 && errno != ENOENT) {
		clasp_error_set(err, errno, "remove /dev/ptmx");
		goto out;
	}
	if (dev_symlink(devfd, "pts/ptmx", "ptmx", err) < 0)
		goto out;
	r = 0;
out:
	umask(old_umask);
	return r;
}
