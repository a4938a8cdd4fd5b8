/* Spawning with clone3: new namespaces, CLONE_INTO_CGROUP and a pidfd in one
 * call, falling back to clone(2) + pidfd_open on kernels before 5.3. Without
 * a new stack the child continues like fork's. */
#pragma once
#include <stdint.h>
#include <sys/types.h>

/* With cgroup_fd >= 0 and no clone3 (or no CLONE_INTO_CGROUP), fails with
 * EOPNOTSUPP so the caller can retry without it and join the cgroup itself. */
pid_t linux_clone(uint64_t flags, int cgroup_fd, int *pidfd);
