#include "linux/clone.h"

#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

pid_t linux_clone(uint64_t flags, int cgroup_fd, int *pidfd)
{
	struct clone_args args;
	pid_t pid;

	memset(&args, 0, sizeof args);
	args.flags = flags | CLONE_PIDFD | (cgroup_fd >= 0 ? CLONE_INTO_CGROUP : 0);
	args.pidfd = (uint64_t)(uintptr_t)pidfd;
	args.exit_signal = SIGCHLD;
	args.cgroup = cgroup_fd >= 0 ? (uint64_t)cgroup_fd : 0;
	pid = (pid_t)syscall(SYS_clone3, &args, sizeof args);
	if (pid >= 0 || (errno != ENOSYS && errno != E2BIG && errno != EINVAL && errno != EOPNOTSUPP))
		return pid;
	if (cgroup_fd >= 0) {
		errno = EOPNOTSUPP;
		return -1;
	}
	*pidfd = -1;
	pid = (pid_t)syscall(SYS_clone, (unsigned long)flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid > 0)
		*pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	return pid;
}
