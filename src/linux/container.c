#include "linux/container.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/cgroup/cgroup.h"
#include "linux/clone.h"
#include "linux/hooks.h"
#include "linux/init.h"
#include "linux/namespaces.h"
#include "linux/process.h"
#include "linux/sync.h"
#include "linux/terminal.h"
#include "oci/state_json.h"
#include "util/cleanup.h"
#include "util/log.h"
#include "util/proc.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* The host id that a container id maps to (identity without mappings). */
static uid_t host_id(const struct oci_idmap *m, size_t n, uint32_t id)
{
	size_t i;

	if (n == 0)
		return id;
	for (i = 0; i < n; i++)
		if (id >= m[i].container_id && id - m[i].container_id < m[i].size)
			return m[i].host_id + (id - m[i].container_id);
	return (uid_t)-1; /* unmapped: leave ownership as is */
}

/* Joining an existing user namespace must come before creating the other
 * namespaces, so that they belong to it: an intermediate process joins it,
 * unshares the rest, and forks the init (into the new pid namespace, if
 * any). The runtime becomes a subreaper so that the init, orphaned when the
 * intermediate exits, stays its child for `run`. */
static pid_t spawn_via_user_ns(const struct linux_create_opts *o, const char *user_path, uint64_t flags,
			       int sv[2], int fifo_fd, int *pidfd)
{
	pid_t pid;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pid = linux_clone(0, -1, pidfd);
	if (pid != 0)
		return pid;
	{
		struct init_args ia = {.o = o, .sync = sv[1], .fifo_fd = fifo_fd, .clone_flags = (int)flags,
				       .joined_flags = CLONE_NEWUSER};
		struct clasp_error err = {0};
		int fd;
		pid_t init;

		close(sv[0]);
		fd = open(user_path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWUSER) < 0) {
			clasp_error_set(&err, errno, "linux.namespaces: join user namespace %s", user_path);
			sync_send_error(sv[1], &err);
			_exit(1);
		}
		close(fd);
		if (unshare((int)(flags & ~(uint64_t)(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWCGROUP))) < 0 ||
		    ((flags & CLONE_NEWPID) && unshare(CLONE_NEWPID) < 0)) {
			clasp_error_set(&err, errno, "linux.namespaces: create namespaces in user namespace %s",
					user_path);
			sync_send_error(sv[1], &err);
			_exit(1);
		}
		ia.clone_flags = (int)(flags & ~(uint64_t)CLONE_NEWUSER);
		init = fork();
		if (init == 0)
			init_main(&ia);
		if (init < 0) {
			clasp_error_set(&err, errno, "fork container init");
			sync_send_error(sv[1], &err);
			_exit(1);
		}
		sync_send_val(sv[1], SYNC_PID, init, -1, &err);
		_exit(0);
	}
}

static int runtime_hooks(const struct linux_create_opts *o, pid_t pid, struct clasp_error *err)
{
	const struct oci_config *cfg = o->cfg;
	_cleanup_free_ char *state = NULL;

	if (!cfg->hooks[OCI_HOOK_PRESTART].n && !cfg->hooks[OCI_HOOK_CREATE_RUNTIME].n)
		return 0;
	state = oci_state_json(&(struct state_json_args){.id = o->id, .status = "creating", .pid = pid,
		.bundle = o->bundle, .annotations = &cfg->annotations});
	if (hooks_run(&cfg->hooks[OCI_HOOK_PRESTART], OCI_HOOK_PRESTART, state, err) < 0)
		return -1;
	return hooks_run(&cfg->hooks[OCI_HOOK_CREATE_RUNTIME], OCI_HOOK_CREATE_RUNTIME, state, err);
}

/* Join or create the namespaces a process can only enter at birth (pid, time)
 * in the parent, for the child to inherit; saved fds restore the parent. */
struct birth_ns {
	int saved_pid;
	int saved_time;
};

static int enter_birth_namespaces(const struct oci_config *cfg, struct birth_ns *b, bool *time_via_unshare,
				  struct clasp_error *err)
{
	const struct oci_namespace *pidns = oci_config_namespace(cfg, OCI_NS_PID);
	const struct oci_namespace *timens = oci_config_namespace(cfg, OCI_NS_TIME);

	b->saved_pid = b->saved_time = -1;
	*time_via_unshare = false;
	if (pidns && pidns->path) {
		_cleanup_close_ int fd = open(pidns->path, O_RDONLY | O_CLOEXEC);
		b->saved_pid = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWPID) < 0)
			return clasp_error_set(err, errno, "linux.namespaces: join pid namespace %s", pidns->path);
	}
	if (timens) {
		b->saved_time = open("/proc/self/ns/time", O_RDONLY | O_CLOEXEC);
		if (timens->path) {
			_cleanup_close_ int fd = open(timens->path, O_RDONLY | O_CLOEXEC);
			if (fd < 0 || setns(fd, CLONE_NEWTIME) < 0)
				return clasp_error_set(err, errno, "linux.namespaces: join time namespace %s",
						       timens->path);
		} else {
			/* Offsets can only be written before any process enters
			 * the namespace: unshare, write them, then clone. */
			if (unshare(CLONE_NEWTIME) < 0)
				return clasp_error_set(err, errno, "linux.namespaces: create time namespace");
			*time_via_unshare = true;
			if (ns_write_time_offsets(&cfg->linux_, err) < 0)
				return -1;
		}
	} else if (cfg->linux_.time_monotonic.set || cfg->linux_.time_boottime.set) {
		return clasp_error_set(err, 0, "linux.timeOffsets: requires a new time namespace");
	}
	return 0;
}

static void leave_birth_namespaces(struct birth_ns *b)
{
	if (b->saved_pid >= 0) {
		setns(b->saved_pid, CLONE_NEWPID);
		close(b->saved_pid);
	}
	if (b->saved_time >= 0) {
		setns(b->saved_time, CLONE_NEWTIME);
		close(b->saved_time);
	}
	b->saved_pid = b->saved_time = -1;
}

static void kill_child(struct linux_container *c)
{
	int st;

	if (c->pid <= 0)
		return;
	if (c->pidfd >= 0)
		syscall(SYS_pidfd_send_signal, c->pidfd, SIGKILL, NULL, 0);
	else
		kill(c->pid, SIGKILL);
	while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
		;
	c->pid = 0;
}

int linux_container_spawn(const struct linux_create_opts *o, struct linux_container *out,
			  struct clasp_error *err)
{
	const struct oci_config *cfg = o->cfg;
	int sv[2] = {-1, -1};
	_cleanup_close_ int fifo_fd = -1;
	struct birth_ns birth;
	bool time_unshared;
	uint64_t flags;
	int cgfd = -1, pty = -1;
	bool setgroups_denied;
	bool done = false;
	const struct oci_namespace *userns = oci_config_namespace(cfg, OCI_NS_USER);
	const char *user_path = userns ? userns->path : NULL;

	(void)time_unshared;

	memset(out, 0, sizeof *out);
	out->pidfd = out->pty_master = out->seccomp_fd = -1;

	if (cfg->process && cfg->process->terminal && !o->console_socket && !o->keep_pty_master)
		return clasp_error_set(err, 0,
				       "cannot allocate tty if clasp will detach without setting console socket");
	if (o->console_socket && !(cfg->process && cfg->process->terminal))
		return clasp_error_set(err, 0, "cannot use console socket if the process has no terminal (process.terminal is false)");
	if (mkfifo(o->fifo_path, 0600) < 0)
		return clasp_error_set(err, errno, "create exec fifo %s", o->fifo_path);
	/* The init reopens the fifo after switching to the process user, so
	 * that user (as the host sees it) must own it. */
	if (cfg->process &&
	    chown(o->fifo_path, host_id(cfg->linux_.uid_mappings, cfg->linux_.n_uid_mappings, cfg->process->user.uid),
		  host_id(cfg->linux_.gid_mappings, cfg->linux_.n_gid_mappings, cfg->process->user.gid)) < 0) {
		/* Without root it cannot be given to a subordinate id: let others
		 * open it for writing instead. The init reopens it through its
		 * fd, so the (0700) runtime directory still keeps everyone else out. */
		if (errno != EPERM || geteuid() == 0 || chmod(o->fifo_path, 0622) < 0)
			return clasp_error_set(err, errno, "chown exec fifo %s", o->fifo_path);
	}
	fifo_fd = open(o->fifo_path, O_PATH | O_CLOEXEC);
	if (fifo_fd < 0)
		return clasp_error_set(err, errno, "open exec fifo %s", o->fifo_path);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return clasp_error_set(err, errno, "sync socketpair");

	flags = (uint64_t)ns_new_flags(cfg) & ~(uint64_t)(CLONE_NEWTIME);
	if (o->cgroup)
		cgfd = cgroup_clone_into_fd(o->cgroup);
	/* The cgroup namespace must be rooted at the container's cgroup: create
	 * it at clone time only when the clone itself places us there. */
	if (cgfd < 0)
		flags &= ~(uint64_t)CLONE_NEWCGROUP;

	if (enter_birth_namespaces(cfg, &birth, &time_unshared, err) < 0) {
		leave_birth_namespaces(&birth);
		goto fail;
	}
	fflush(NULL);
	if (user_path) {
		out->pid = spawn_via_user_ns(o, user_path, flags, sv, fifo_fd, &out->pidfd);
		cgfd = -1;
	} else {
		out->pid = linux_clone(flags, cgfd, &out->pidfd);
	}
	if (out->pid < 0 && errno == EOPNOTSUPP) {
		cgfd = -1;
		flags &= ~(uint64_t)CLONE_NEWCGROUP;
		out->pid = linux_clone(flags, -1, &out->pidfd);
	}
	if (out->pid == 0) {
		struct init_args ia = {.o = o, .sync = sv[1], .fifo_fd = fifo_fd, .clone_flags = (int)flags};
		close(sv[0]);
		init_main(&ia);
	}
	if (out->pid > 0 && user_path) {
		/* The intermediate reports the init's pid and exits. */
		int32_t gpid = 0;
		int st;

		close(sv[1]);
		sv[1] = -1;
		if (sync_recv_val(sv[0], SYNC_PID, &gpid, NULL, err) < 0) {
			waitpid(out->pid, &st, 0);
			out->pid = 0;
			leave_birth_namespaces(&birth);
			goto fail;
		}
		waitpid(out->pid, &st, 0);
		if (out->pidfd >= 0)
			close(out->pidfd);
		out->pid = gpid;
		out->pidfd = (int)syscall(SYS_pidfd_open, gpid, 0);
	}
	leave_birth_namespaces(&birth);
	if (out->pid < 0) {
		clasp_error_set(err, errno, "clone container init");
		out->pid = 0;
		goto fail;
	}
	close(sv[1]);
	sv[1] = -1;

	if ((flags & CLONE_NEWUSER) && ns_write_id_maps(out->pid, &cfg->linux_, &setgroups_denied, err) < 0)
		goto fail;
	if (o->cgroup && (cgfd < 0 || user_path) && cgroup_enter(o->cgroup, out->pid, err) < 0)
		goto fail;
	/* From the parent, as runc does: inside a user namespace the init
	 * cannot write its own /proc files. */
	if (cfg->process && process_write_oom_score_adj(cfg->process, out->pid, err) < 0)
		goto fail;
	if (sync_send_val(sv[0], SYNC_GO, out->pid, -1, err) < 0)
		goto fail;

	while (!done) {
		int fd = -1;
		int32_t type;

		if (sync_recv_msg(sv[0], &type, NULL, &fd, err) < 0)
			goto fail;
		switch (type) {
		case SYNC_PTY:
			pty = fd;
			break;
		case SYNC_MOUNTS_DONE:
			/* runtime.md: prestart and createRuntime hooks run in the
			 * runtime namespace once the environment exists. */
			out->hooks_started = true;
			if (runtime_hooks(o, out->pid, err) < 0)
				goto fail;
			if (sync_send(sv[0], SYNC_HOOKS_DONE, -1, err) < 0)
				goto fail;
			break;
		case SYNC_SECCOMP_FD:
			out->seccomp_fd = fd;
			break;
		case SYNC_READY:
			done = true;
			break;
		default:
			if (fd >= 0)
				close(fd);
			clasp_error_set(err, 0, "sync: unexpected message %d", type);
			goto fail;
		}
	}
	close(sv[0]);
	sv[0] = -1;
	if (proc_start_time(out->pid, &out->start_time) < 0) {
		clasp_error_set(err, 0, "container init exited during create");
		goto fail;
	}
	if (pty >= 0) {
		if (o->console_socket) {
			if (terminal_send_master(o->console_socket, pty, err) < 0)
				goto fail;
			close(pty);
		} else {
			out->pty_master = pty;
		}
	}
	return 0;
fail:
	kill_child(out);
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	if (pty >= 0)
		close(pty);
	unlink(o->fifo_path);
	return -1;
}
