/* `exec`: a new process that joins a running container (the setns half).
 *
 * The parent (the runtime) pins the container's init with a pidfd, checks its
 * start time, opens its namespaces and root, joins its pid namespace for
 * children only, and clones the child straight into the container's cgroup
 * (CLONE_INTO_CGROUP on v2, cgroup_enter otherwise). The child, born in the
 * container's pid namespace, joins the others (user first; one atomic
 * setns(pidfd) on 5.8+ kernels, /proc/PID/ns/X otherwise), chroots into the
 * init's root, drops every runtime fd, then applies the process settings as
 * the init does (linux/process.h) and execs. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "oci/config.h"

struct cgroup_mgr;
struct seccomp_prog;

struct linux_exec_opts {
	const struct oci_config *cfg;    /* the container's config (linux.personality) */
	const struct oci_process *proc;  /* the process to start */
	pid_t init_pid;
	uint64_t init_start_time;        /* proc_start_time() of the init, from state.json */
	struct cgroup_mgr *cgroup;       /* NULL: no cgroup to join */
	const struct seccomp_prog *seccomp;
	const char *console_socket;      /* proc->terminal: send the pty master here... */
	bool keep_pty_master;            /* ...or hand it back in out->pty_master */
	int preserve_fds;
};

struct linux_exec_proc {
	pid_t pid;       /* host pid, a child of the caller */
	int pidfd;
	int pty_master;  /* only with keep_pty_master, else -1 */
	int seccomp_fd;  /* listener fd when the profile uses NOTIFY, else -1 */
};

/* Returns once the child has called execve (or with the reason it could not).
 * "cannot exec in a stopped container" when the init is gone. */
int linux_exec_spawn(const struct linux_exec_opts *o, struct linux_exec_proc *out, struct clasp_error *err);
