/* Path resolution confined to a root directory.
 *
 * Every path in a container (mount destinations, device nodes, masked paths)
 * is looked up as if the rootfs directory were "/": an absolute symlink
 * restarts at the rootfs, ".." stops at it, and magic links (/proc/PID/fd/N,
 * /proc/PID/root) are refused. The kernel does this with
 * openat2(RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS); where openat2 is missing
 * (ENOSYS, before Linux 5.6) an O_PATH walk does the same one component at a
 * time with O_NOFOLLOW and expands symlinks itself.
 *
 * Functions that return an fd return it (>= 0) or -1 with err filled;
 * err->code keeps the errno so callers can tell ENOENT apart. */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

#include "util/error.h"

/* "/proc/self/fd/N": the way to hand an fd to an API that only takes a path
 * (mount(2), chmod), without looking the path up again. */
#define SAFEPATH_FD_PATH_MAX 32
const char *safepath_fd_path(int fd, char buf[SAFEPATH_FD_PATH_MAX]);

/* Open PATH inside ROOTFD. FLAGS are open(2) flags; O_CLOEXEC is always added.
 * With O_NOFOLLOW a final symlink is opened itself (O_PATH) or refused. */
int safepath_open(int rootfd, const char *path, int flags, struct clasp_error *err);

/* Create PATH as a directory inside ROOTFD, with every missing parent (MODE),
 * and return an O_PATH fd to it. Existing symlinks on the way are followed
 * inside the root, never out of it. */
int safepath_mkdir_all(int rootfd, const char *path, mode_t mode, struct clasp_error *err);

/* Like safepath_mkdir_all for the parents, but the last component, when
 * missing, is created as an empty regular file (a mountpoint for a file bind,
 * a device bind in a user namespace). Returns an O_PATH fd to it; an existing
 * entry of any type is returned as is (the caller checks its type). */
int safepath_create_file(int rootfd, const char *path, mode_t mode, struct clasp_error *err);

/* Open (creating missing ones with mode 0755 when CREATE_DIRS) the parent
 * directory of PATH inside ROOTFD and return it; BASE receives the last
 * component, which is never "", "." or "..". For mknodat/symlinkat/unlinkat
 * on the last component without following it. */
#define SAFEPATH_NAME_MAX 256
int safepath_open_parent(int rootfd, const char *path, bool create_dirs, char base[SAFEPATH_NAME_MAX],
			 struct clasp_error *err);

/* Test hook: force the O_PATH walk, as on a kernel without openat2. */
void safepath_force_walk(bool on);
