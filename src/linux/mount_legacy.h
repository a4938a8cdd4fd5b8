/* mount(2) in place of the new mount API, for kernels without it (< 5.12:
 * fsopen, open_tree, move_mount, mount_setattr). See mount_legacy.c.
 *
 * The rest of the rootfs code keeps its detached-mount shape: make a mount,
 * set its flags, attach it. Here "make" returns a token fd that only records
 * what to mount, flags accumulate on it, and attaching performs the mount(2)
 * calls onto the target fd and turns the token into an O_PATH fd of the new
 * mount, so later calls (propagation, mkdirat into it) work on it as before. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"

/* True when any call of the new mount API fails with ENOSYS (probed once). */
bool mount_legacy(void);

/* A token for a fresh filesystem (the mount_new_fs arguments). */
int mount_legacy_new_fs(const char *type, const char *source, const char *data, unsigned sb_flags,
			uint64_t attrs, struct clasp_error *err);
/* A token for a bind of SRC (recursive when REC). */
int mount_legacy_clone(const char *src, bool rec, struct clasp_error *err);
bool mount_legacy_is_token(int fd);
/* What mount_new_fs's caller would retry when the mount itself fails: the
 * options without gid= (devpts, EINVAL), or a recursive bind of HOST_PATH
 * (EPERM/EACCES, in a user namespace). Either may be NULL. */
void mount_legacy_set_retry(int token, const char *data_without_gid, const char *host_path);

/* mount_set_attrs for a token (recorded) or an attached mount (remount). */
int mount_legacy_set_attrs(int fd, bool rec, uint64_t set, uint64_t clr, uint64_t propagation,
			   struct clasp_error *err);
/* Mount what TOKEN records onto the object TARGETFD is open on; TOKEN then
 * refers to the new mount. */
int mount_legacy_attach(int token, int targetfd, const char *what, const char *dest, struct clasp_error *err);
