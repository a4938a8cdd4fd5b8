/* The container's root: preparation, console, pivot and the finishing
 * touches after pivot. Mount details live in mounts.c, devices in devices.c;
 * the order and the reasons are in docs/rootfs.md. */
#include "linux/rootfs.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "linux/mount_legacy.h"
#include "util/cleanup.h"
#include "util/safepath.h"

/* A private clone of what FD is open on, like open_tree(fd, "",
 * OPEN_TREE_CLONE), or its mount(2) stand-in on kernels without it. */
static int clone_fd(int fd, bool rec, struct clasp_error *err)
{
	char buf[SAFEPATH_FD_PATH_MAX];
	int tree;

	if (mount_legacy())
		return mount_clone_tree(safepath_fd_path(fd, buf), rec, err);
	tree = open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | (rec ? AT_RECURSIVE : 0));
	return tree < 0 ? clasp_error_set(err, errno, "clone mount") : tree;
}

static unsigned long propagation_flag(enum oci_propagation p)
{
	switch (p) {
	case OCI_PROP_SHARED:
		return MS_SHARED;
	case OCI_PROP_SLAVE:
		return MS_SLAVE;
	case OCI_PROP_PRIVATE:
		return MS_PRIVATE;
	case OCI_PROP_UNBINDABLE:
		return MS_UNBINDABLE;
	default:
		return 0;
	}
}

int rootfs_setup(const struct oci_config *cfg, const struct rootfs_opts *o, struct clasp_error *err)
{
	struct mount_ctx ctx = { .rootfd = -1, .cfg = cfg, .o = o };
	_cleanup_close_ int tree = -1;
	_cleanup_close_ int target = -1;
	unsigned long prop = cfg->linux_.rootfs_propagation == OCI_PROP_PRIVATE ? MS_PRIVATE : MS_SLAVE;

	struct stat st_root, st_host;

	if (!o->rootfs || o->rootfs[0] != '/')
		return clasp_error_set(err, EINVAL, "rootfs path must be absolute");
	/* The host's own "/" cannot be pivoted into (the sandbox layer turns
	 * such bundles into a view of bind mounts instead). */
	if (stat(o->rootfs, &st_root) < 0)
		return clasp_error_set(err, errno, "rootfs \"%s\"", o->rootfs);
	if (stat("/", &st_host) == 0 && st_root.st_dev == st_host.st_dev && st_root.st_ino == st_host.st_ino)
		return clasp_error_set(err, EINVAL, "rootfs \"%s\" is the host's /", o->rootfs);
	/* Nothing mounted from here on may reach the host's mount table. A
	 * shared or unbindable rootfsPropagation is only applied after pivot
	 * (rootfs_finalize): shared now would make the host see our mounts, and
	 * an unbindable "/" could not be bound to itself below. */
	if (mount(NULL, "/", NULL, MS_REC | prop, NULL) < 0)
		return clasp_error_set(err, errno, "make / %s", prop == MS_PRIVATE ? "rprivate" : "rslave");
	/* pivot_root needs the new root to be a mount point: bind it onto
	 * itself, and keep the fd of that bind as the root of every lookup. */
	tree = mount_clone_tree(o->rootfs, true, err);
	if (tree < 0)
		return clasp_error_set(err, err->code, "rootfs \"%s\"", o->rootfs);
	target = open(o->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (target < 0)
		return clasp_error_set(err, errno, "rootfs \"%s\"", o->rootfs);
	if (mount_attach(tree, target, o->rootfs, o->rootfs, err) < 0)
		return -1;
	ctx.rootfd = tree;
	if (mounts_apply(&ctx, err) < 0)
		return -1;
	/* runc's rule: devices are made unless /dev comes from a bind mount
	 * (then it is someone's real /dev, not ours to fill). */
	if (!mounts_dev_is_bind(cfg) && devices_setup(&ctx, true, err) < 0)
		return -1;
	return 0;
}

/* UNIX98 pty slaves are majors 136-143. */
static bool is_pty_slave(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) >= 136 && major(st->st_rdev) <= 143;
}

int rootfs_setup_console(const struct rootfs_opts *o, int slave_fd, struct clasp_error *err)
{
	_cleanup_close_ int rootfd = -1, devfd = -1, target = -1, tree = -1;
	struct stat st;

	/* Bind exactly the fd we were given, and only if it is a pty slave: a
	 * path like /dev/pts/N could have been swapped (CVE-2025-52565). */
	if (fstat(slave_fd, &st) < 0)
		return clasp_error_set(err, errno, "console: stat pty");
	if (!is_pty_slave(&st))
		return clasp_error_set(err, EINVAL, "console: fd %d is not a pty slave", slave_fd);
	rootfd = open(o->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return clasp_error_set(err, errno, "console: rootfs \"%s\"", o->rootfs);
	devfd = safepath_mkdir_all(rootfd, "/dev", 0755, err);
	if (devfd < 0)
		return clasp_error_prefix(err, "console");
	if (fstatat(devfd, "console", &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return clasp_error_set(err, EISDIR, "console: /dev/console is a directory");
		/* A symlink (to the host's tty, say) or a stray node: remove it,
		 * never follow it. */
		if (unlinkat(devfd, "console", 0) < 0)
			return clasp_error_set(err, errno, "console: remove /dev/console");
	}
	target = openat(devfd, "console", O_CREAT | O_NOFOLLOW | O_RDONLY | O_CLOEXEC, 0600);
	if (target < 0)
		return clasp_error_set(err, errno, "console: create /dev/console");
	if (fstat(target, &st) < 0 || !S_ISREG(st.st_mode))
		return clasp_error_set(err, EEXIST, "console: /dev/console was replaced");
	tree = clone_fd(slave_fd, false, err);
	if (tree < 0)
		return clasp_error_set(err, err->code, "console: bind pty");
	return mount_attach(tree, target, "pty", "/dev/console", err);
}

int rootfs_pivot(const struct rootfs_opts *o, struct clasp_error *err)
{
	_cleanup_close_ int oldroot = -1, newroot = -1;

	if (o->no_pivot) {
		if (chdir(o->rootfs) < 0)
			return clasp_error_set(err, errno, "chdir \"%s\"", o->rootfs);
		if (mount(o->rootfs, "/", NULL, MS_MOVE, NULL) < 0)
			return clasp_error_set(err, errno, "move rootfs onto /");
		if (chroot(".") < 0)
			return clasp_error_set(err, errno, "chroot");
		if (chdir("/") < 0)
			return clasp_error_set(err, errno, "chdir /");
		return 0;
	}
	oldroot = open("/", O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (oldroot < 0)
		return clasp_error_set(err, errno, "open /");
	newroot = open(o->rootfs, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (newroot < 0)
		return clasp_error_set(err, errno, "open rootfs \"%s\"", o->rootfs);
	/* pivot_root(".", ".") stacks the old root on top of the new one, so no
	 * directory for it is needed inside the image; it is then detached. */
	if (fchdir(newroot) < 0)
		return clasp_error_set(err, errno, "chdir rootfs");
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return clasp_error_set(err, errno, "pivot_root");
	if (fchdir(oldroot) < 0)
		return clasp_error_set(err, errno, "chdir old root");
	/* Keep the unmount below from propagating anywhere. */
	if (mount(NULL, ".", NULL, MS_SLAVE | MS_REC, NULL) < 0)
		return clasp_error_set(err, errno, "make old root rslave");
	if (umount2(".", MNT_DETACH) < 0)
		return clasp_error_set(err, errno, "unmount old root");
	if (chdir("/") < 0)
		return clasp_error_set(err, errno, "chdir /");
	return 0;
}

static int readonly_path(int rootfd, const char *path, struct clasp_error *err)
{
	_cleanup_close_ int fd = safepath_open(rootfd, path, O_PATH, err);
	_cleanup_close_ int tree = -1;

	if (fd < 0)
		return err->code == ENOENT ? 0 : clasp_error_prefix(err, "readonly path");
	tree = clone_fd(fd, true, err);
	if (tree < 0)
		return clasp_error_set(err, err->code, "readonly path %s", path);
	if (mount_set_attrs(tree, true, MOUNT_ATTR_RDONLY, 0, 0, err) < 0)
		return clasp_error_prefix(err, "readonly path %s", path);
	return mount_attach(tree, fd, path, path, err);
}

static int masked_path(int rootfd, int *nullfd, const char *path, struct clasp_error *err)
{
	_cleanup_close_ int fd = safepath_open(rootfd, path, O_PATH, err);
	_cleanup_close_ int mfd = -1;
	struct stat st;

	if (fd < 0)
		return err->code == ENOENT ? 0 : clasp_error_prefix(err, "masked path");
	if (fstat(fd, &st) < 0)
		return clasp_error_set(err, errno, "masked path %s", path);
	if (S_ISDIR(st.st_mode)) {
		mfd = mount_new_fs("tmpfs", "tmpfs", NULL, 0, MOUNT_ATTR_RDONLY, err);
	} else {
		if (*nullfd < 0 && (*nullfd = devices_open_null(rootfd, "/dev/null", err)) < 0)
			return clasp_error_prefix(err, "masked path %s", path);
		mfd = clone_fd(*nullfd, false, err);
		if (mfd < 0)
			clasp_error_set(err, err->code, "bind /dev/null");
	}
	if (mfd < 0)
		return clasp_error_prefix(err, "masked path %s", path);
	return mount_attach(mfd, fd, S_ISDIR(st.st_mode) ? "tmpfs" : "/dev/null", path, err);
}

int rootfs_finalize(const struct oci_config *cfg, const struct rootfs_opts *o, struct clasp_error *err)
{
	_cleanup_close_ int rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int nullfd = -1;
	unsigned long prop = propagation_flag(cfg->linux_.rootfs_propagation);

	if (rootfd < 0)
		return clasp_error_set(err, errno, "open /");
	for (size_t i = 0; i < cfg->linux_.readonly_paths.n; i++)
		if (readonly_path(rootfd, cfg->linux_.readonly_paths.v[i], err) < 0)
			return -1;
	for (size_t i = 0; i < cfg->linux_.masked_paths.n; i++)
		if (masked_path(rootfd, &nullfd, cfg->linux_.masked_paths.v[i], err) < 0)
			return -1;
	if (mounts_dev_wants_ro(cfg)) {
		_cleanup_close_ int dev = safepath_open(rootfd, "/dev", O_PATH | O_DIRECTORY, err);

		if (dev < 0 || mount_set_attrs(dev, false, MOUNT_ATTR_RDONLY, 0, 0, err) < 0)
			return clasp_error_prefix(err, "make /dev read-only");
	}
	if (cfg->root_readonly && mount_set_attrs(rootfd, false, MOUNT_ATTR_RDONLY, 0, 0, err) < 0)
		return clasp_error_prefix(err, "make / read-only");
	if (prop && mount(NULL, "/", NULL, MS_REC | prop, NULL) < 0)
		return clasp_error_set(err, errno, "rootfsPropagation on /");
	return 0;
}
