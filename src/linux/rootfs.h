/* The container's filesystem, built inside the init child (docs/rootfs.md).
 *
 * Call order in the child, already in its own mount namespace (and in its
 * user namespace with the maps written):
 *   rootfs_setup()          mounts, devices (host paths, before pivot)
 *   rootfs_setup_console()  only with process.terminal
 *   [createContainer hooks]
 *   rootfs_pivot()
 *   rootfs_finalize()       maskedPaths, readonlyPaths, root.readonly, propagation
 *
 * Every path inside the rootfs is resolved with util/safepath.h, and every
 * mount is attached to an fd (move_mount / "/proc/self/fd/N"), so a symlink
 * in the image or a concurrent swap cannot redirect anything to the host. */
#pragma once
#include <stdbool.h>

#include "oci/config.h"
#include "util/error.h"

struct rootfs_opts {
	const char *rootfs;   /* absolute, canonical host path of root.path */
	const char *bundle;   /* absolute bundle dir (relative bind sources are relative to it) */
	bool no_pivot;        /* --no-pivot */
	bool userns;          /* a new user namespace was created: mknod impossible -> bind host device nodes */
	bool new_cgroupns;    /* for cgroup mounts */
};

/* Before pivot: "/" rslave (or rprivate), rootfs bound onto itself, every
 * config mount in order, then devices unless /dev is a bind mount. */
int rootfs_setup(const struct oci_config *cfg, const struct rootfs_opts *o, struct clasp_error *err);

/* Bind the pty slave SLAVE_FD onto <rootfs>/dev/console, which is (re)created
 * as an empty regular file; a symlink there is replaced, never followed. */
int rootfs_setup_console(const struct rootfs_opts *o, int slave_fd, struct clasp_error *err);

/* pivot_root(".", ".") and a lazy unmount of the old root, or with no_pivot
 * MS_MOVE + chroot. Ends in "/". */
int rootfs_pivot(const struct rootfs_opts *o, struct clasp_error *err);

/* After pivot: readonlyPaths, maskedPaths, a read-only /dev if asked,
 * root.readonly, rootfsPropagation on "/". */
int rootfs_finalize(const struct oci_config *cfg, const struct rootfs_opts *o, struct clasp_error *err);

/* ---- shared by rootfs.c, mounts.c and devices.c ---- */

struct mount_ctx {
	int rootfd; /* the rootfs bind mount, root of every resolution */
	const struct oci_config *cfg;
	const struct rootfs_opts *o;
	bool dev_ro; /* a config /dev mount asked for ro: applied by rootfs_finalize */
};

/* Every entry of cfg->mounts, in order. */
int mounts_apply(struct mount_ctx *ctx, struct clasp_error *err);
int mount_apply_one(struct mount_ctx *ctx, const struct oci_mount *m, struct clasp_error *err);

/* Does the config bind-mount /dev? Then clasp creates no device in it (runc). */
bool mounts_dev_is_bind(const struct oci_config *cfg);
/* Does the config mount /dev with ro (or rro)? */
bool mounts_dev_wants_ro(const struct oci_config *cfg);

/* mount_setattr on the mount FD refers to (AT_RECURSIVE when REC). */
int mount_set_attrs(int fd, bool rec, uint64_t set, uint64_t clr, uint64_t propagation,
		    struct clasp_error *err);
/* Attach the detached or cloned mount MNTFD onto the object TARGETFD is open on. */
int mount_attach(int mntfd, int targetfd, const char *what, const char *dest, struct clasp_error *err);
/* A read-only-capable fresh filesystem: fsopen/fsconfig/fsmount, returning the
 * detached mount fd. DATA is "k=v,flag,..." or NULL. */
int mount_new_fs(const char *type, const char *source, const char *data, unsigned sb_flags, uint64_t attrs,
		 struct clasp_error *err);

struct mount_opts;
/* A private clone of the host path SRC (open_tree), recursive when REC. */
int mount_clone_tree(const char *src, bool rec, struct clasp_error *err);
/* The propagation options of MO, in order, on the mount MFD. */
int mount_apply_propagation(int mfd, const struct mount_opts *mo, struct clasp_error *err);
/* A "cgroup" or "cgroup2" config mount onto TARGET (mount_cgroup.c). */
int mount_cgroup(struct mount_ctx *ctx, const struct oci_mount *m, struct mount_opts *mo, int target,
		 struct clasp_error *err);

/* Default devices (when WITH_DEFAULTS), linux.devices, /dev symlinks and
 * /dev/ptmx, all resolved inside ctx->rootfd. */
int devices_setup(struct mount_ctx *ctx, bool with_defaults, struct clasp_error *err);
/* Open /dev/null at PATH (host, or resolved in ROOTFD when >= 0) and check it
 * is the real character device 1:3. Returns an O_PATH fd. */
int devices_open_null(int rootfd, const char *path, struct clasp_error *err);
