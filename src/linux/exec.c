#include "linux/exec.h"
#include "linux/clone.h"
#include "linux/terminal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "linux/cgroup/cgroup.h"
#include "linux/process.h"
#include "linux/sync.h"
#include "util/cleanup.h"
#include "util/proc.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* The user namespace comes first so that the others, owned by it, become
 * joinable; mnt last so the /proc paths of the fallback stay the host's. */
static const struct {
	int flag;
	const char *name;
} ns_order[] = {
	{CLONE_NEWUSER, "user"}, {CLONE_NEWIPC, "ipc"},  {CLONE_NEWUTS, "uts"},
	{CLONE_NEWNET, "net"},   {CLONE_NEWCGROUP, "cgroup"}, {CLONE_NEWTIME, "time"},
	{CLONE_NEWNS, "mnt"},    {CLONE_NEWPID, "pid"},
};
#define N_NS (sizeof ns_order / sizeof ns_order[0])

/* What the parent gathered about the init before cloning. */
struct target {
	int pidfd;
	int flags;       /* namespaces that differ from ours (joining our own user ns is EINVAL) */
	int fds[N_NS];   /* /proc/PID/ns/<name>, -1 where not joined */
	int rootfd;      /* /proc/PID/root */
	int joined;      /* namespaces an intermediate process already joined */
};

static void target_close(struct target *t)
{
	size_t i;

	for (i = 0; i < N_NS; i++)
		if (t->fds[i] >= 0) {
			close(t->fds[i]);
			t->fds[i] = -1;
		}
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->rootfd >= 0)
		close(t->rootfd);
	t->pidfd = t->rootfd = -1;
}

static int stopped(struct clasp_error *err)
{
	return clasp_error_set(err, 0, "cannot exec in a stopped container");
}

static int target_open(pid_t pid, uint64_t start, struct target *t, struct clasp_error *err)
{
	char path[64];
	size_t i;

	t->flags = t->joined = 0;
	t->pidfd = t->rootfd = -1;
	for (i = 0; i < N_NS; i++)
		t->fds[i] = -1;
	t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (t->pidfd < 0 && errno != ENOSYS)
		return stopped(err);
	for (i = 0; i < N_NS; i++) {
		struct stat theirs, ours;

		snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, ns_order[i].name);
		if (stat(path, &theirs) < 0) {
			if (errno == ENOENT && ns_order[i].flag == CLONE_NEWTIME)
				continue; /* a kernel without time namespaces */
			return errno == ENOENT || errno == ESRCH ? stopped(err)
								 : clasp_error_set(err, errno, "stat %s", path);
		}
		snprintf(path, sizeof path, "/proc/self/ns/%s", ns_order[i].name);
		if (stat(path, &ours) == 0 && ours.st_ino == theirs.st_ino && ours.st_dev == theirs.st_dev)
			continue;
		snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, ns_order[i].name);
		t->fds[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (t->fds[i] < 0)
			return errno == ENOENT || errno == ESRCH ? stopped(err)
								 : clasp_error_set(err, errno, "open %s", path);
		t->flags |= ns_order[i].flag;
	}
	snprintf(path, sizeof path, "/proc/%d/root", (int)pid);
	t->rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->rootfd < 0)
		return errno == ENOENT || errno == ESRCH ? stopped(err)
							 : clasp_error_set(err, errno, "open %s", path);
	/* Everything above was opened while the pid still named our init: it
	 * cannot have been recycled as long as the init lives now. */
	if (!proc_is_same(pid, start))
		return stopped(err);
	return 0;
}

static int ns_fd(const struct target *t, int flag)
{
	size_t i;

	for (i = 0; i < N_NS; i++)
		if (ns_order[i].flag == flag)
			return t->fds[i];
	return -1;
}

/* ---- the child ---- */

static __attribute__((noreturn)) void child_fail(int sync, struct clasp_error *err)
{
	sync_send_error(sync, err);
	_exit(1);
}

static int join_namespaces(const struct target *t, struct clasp_error *err)
{
	int flags = t->flags & ~CLONE_NEWPID & ~t->joined; /* born in it already */
	size_t i;

	if (!flags)
		return 0;
	/* One atomic switch on 5.8+; older kernels reject a pidfd with EINVAL. */
	if (t->pidfd >= 0 && setns(t->pidfd, flags) == 0)
		return 0;
	/* One at a time, as nsenter does: first everything but the user
	 * namespace while we still hold the host's privileges (a time namespace
	 * the runtime unshared belongs to the host's user namespace), tolerating
	 * EPERM; then the user namespace, then whatever was refused before. */
	for (i = 0; i < N_NS; i++) {
		if (!(flags & ns_order[i].flag) || ns_order[i].flag == CLONE_NEWUSER)
			continue;
		if (setns(t->fds[i], ns_order[i].flag) == 0)
			flags &= ~ns_order[i].flag;
		else if (errno != EPERM)
			return clasp_error_set(err, errno, "join the container's %s namespace", ns_order[i].name);
	}
	for (i = 0; i < N_NS; i++) {
		if (!(flags & ns_order[i].flag) || ns_order[i].flag != CLONE_NEWUSER)
			continue;
		if (setns(t->fds[i], CLONE_NEWUSER) < 0)
			return clasp_error_set(err, errno, "join the container's user namespace");
		flags &= ~CLONE_NEWUSER;
	}
	for (i = 0; i < N_NS; i++) {
		if (!(flags & ns_order[i].flag))
			continue;
		if (setns(t->fds[i], ns_order[i].flag) < 0)
			return clasp_error_set(err, errno, "join the container's %s namespace", ns_order[i].name);
	}
	return 0;
}

static bool setgroups_is_denied(void)
{
	char buf[8] = "";
	_cleanup_close_ int fd = open("/proc/self/setgroups", O_RDONLY | O_CLOEXEC);

	return fd >= 0 && read(fd, buf, sizeof buf - 1) > 0 && strncmp(buf, "deny", 4) == 0;
}


static int setup_tty(const struct oci_process *p, int sync, struct clasp_error *err)
{
	_cleanup_close_ int master = -1;
	int slave;

	/* The container's own devpts instance: we are chrooted into its root. */
	if (terminal_open(p, &master, &slave, err) < 0)
		return -1;
	if (sync_send(sync, SYNC_PTY, master, err) < 0)
		return -1;
	if (setsid() < 0)
		return clasp_error_set(err, errno, "setsid");
	return terminal_attach(slave, err);
}

/* CapInh stays empty unless the process asks for inheritable capabilities:
 * the runtime's own inheritable set must not reach the container. */
static int clear_inheritable(struct clasp_error *err)
{
	cap_t c = cap_get_proc();
	int r = 0;

	if (!c)
		return clasp_error_set(err, errno, "cap_get_proc");
	if (cap_clear_flag(c, CAP_INHERITABLE) < 0 || cap_set_proc(c) < 0)
		r = clasp_error_set(err, errno, "clear inheritable capabilities");
	cap_free(c);
	cap_reset_ambient();
	return r;
}

static __attribute__((noreturn)) void exec_child(const struct linux_exec_opts *o, struct target *t, int sync)
{
	const struct oci_process *p = o->proc;
	struct clasp_error err = {0};
	bool setgroups_denied = false;
	char *exe = NULL;
	int notify_fd = -1;
	unsigned first = 3 + (unsigned)(o->preserve_fds > 0 ? o->preserve_fds : 0);
	sigset_t none;

	/* The runtime blocks the signals it forwards and ignores SIGPIPE. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	/* Forked by the user-namespace intermediate, which exits at once. */
	if (!t->joined)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Not ptrace-able nor readable through /proc by the container while we
	 * still hold runtime fds (CVE-2016-9962); execve makes us dumpable again. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	{
		int keep[N_NS + 3];
		size_t n = 0, i;

		keep[n++] = sync;
		keep[n++] = t->pidfd;
		keep[n++] = t->rootfd;
		for (i = 0; i < N_NS; i++)
			keep[n++] = t->fds[i];
		process_close_fds_except(first, keep, n);
	}
	if (sync_recv(sync, SYNC_GO, NULL, &err) < 0)
		_exit(1);
	if (join_namespaces(t, &err) < 0)
		child_fail(sync, &err);
	if (t->flags & CLONE_NEWUSER) {
		/* Be the namespace's root for the setup; the process ids come last. */
		if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0) {
			clasp_error_set(&err, errno, "become root in the container's user namespace");
			child_fail(sync, &err);
		}
		setgroups_denied = setgroups_is_denied();
	}
	/* The init's root, not the namespace's: right with --no-pivot too. */
	if (fchdir(t->rootfd) < 0 || chroot(".") < 0 || chdir("/") < 0) {
		clasp_error_set(&err, errno, "enter the container's root");
		child_fail(sync, &err);
	}
	target_close(t);
	process_close_fds_except(first, &sync, 1);
	if (p->terminal && setup_tty(p, sync, &err) < 0)
		child_fail(sync, &err);
	if (process_chdir(p->cwd ? p->cwd : "/", &err) < 0)
		child_fail(sync, &err);
	if (process_find_executable(p, &exe, &err) < 0)
		child_fail(sync, &err);
	if (process_set_rlimits(p, &err) < 0 ||
	    process_set_personality(&o->cfg->linux_, &err) < 0 || process_set_scheduler(p, &err) < 0 ||
	    process_set_io_priority(p, &err) < 0)
		child_fail(sync, &err);
	if (!p->capabilities.present && clear_inheritable(&err) < 0)
		child_fail(sync, &err);
	if (process_finalize_identity(p, setgroups_denied, o->seccomp, &notify_fd, &err) < 0)
		child_fail(sync, &err);
	if (notify_fd >= 0) {
		if (sync_send(sync, SYNC_SECCOMP_FD, notify_fd, &err) < 0)
			_exit(1);
		close(notify_fd);
	}
	prctl(PR_SET_PDEATHSIG, 0);
	if (sync_send(sync, SYNC_READY, -1, &err) < 0)
		_exit(1);
	/* The sync socket is O_CLOEXEC: the parent sees EOF once this works. */
	execve(exe, p->args.v, process_env_with_home(p));
	{
		int e = errno;
		clasp_error_set(&err, e, "exec: \"%s\"", p->args.v[0]);
		sync_send_error(sync, &err);
		_exit(e == ENOENT ? 127 : 126);
	}
}

/* ---- the parent ---- */

/* After SYNC_READY: EOF means execve succeeded (the socket was O_CLOEXEC);
 * otherwise the child reports why it failed. */
static int wait_exec(int sock, struct clasp_error *err)
{
	char c;
	ssize_t r;
	int32_t type;

	do
		r = recv(sock, &c, 1, MSG_PEEK);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	if (r < 0)
		return clasp_error_set(err, errno, "sync: receive");
	if (sync_recv_msg(sock, &type, NULL, NULL, err) < 0)
		return -1;
	return clasp_error_set(err, 0, "sync: unexpected message %d after ready", type);
}

static void reap(struct linux_exec_proc *out)
{
	if (out->pid <= 0)
		return;
	if (out->pidfd >= 0)
		syscall(SYS_pidfd_send_signal, out->pidfd, SIGKILL, NULL, 0);
	else
		kill(out->pid, SIGKILL);
	while (waitpid(out->pid, NULL, 0) < 0 && errno == EINTR)
		;
	out->pid = 0;
}

static int join_pid_ns(const struct target *t, int *saved, struct clasp_error *err)
{
	*saved = -1;
	if (!(t->flags & CLONE_NEWPID))
		return 0;
	*saved = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (*saved < 0)
		return clasp_error_set(err, errno, "open /proc/self/ns/pid");
	/* Only our future children move: the child is born in the container. */
	if (t->pidfd >= 0 && setns(t->pidfd, CLONE_NEWPID) == 0)
		return 0;
	if (setns(ns_fd(t, CLONE_NEWPID), CLONE_NEWPID) < 0)
		return clasp_error_set(err, errno, "join the container's pid namespace");
	return 0;
}

static void leave_pid_ns(int *saved)
{
	if (*saved >= 0) {
		setns(*saved, CLONE_NEWPID);
		close(*saved);
	}
	*saved = -1;
}

/* Without privilege over the container's user namespace (rootless), the
 * runtime cannot join its pid namespace: an intermediate joins the user
 * namespace and then the pid namespace, forks the process there, reports
 * its pid and exits; the runtime is a subreaper so the process stays its
 * child to wait for. */
static pid_t spawn_via_user_ns(const struct linux_exec_opts *o, struct target *t, int sv[2], int *pidfd)
{
	struct clasp_error e = {0};
	pid_t pid, child;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pid = linux_clone(0, -1, pidfd);
	if (pid != 0)
		return pid;
	close(sv[0]);
	if (setns(ns_fd(t, CLONE_NEWUSER), CLONE_NEWUSER) < 0 || setns(ns_fd(t, CLONE_NEWPID), CLONE_NEWPID) < 0) {
		clasp_error_set(&e, errno, "join the container's user and pid namespaces");
		sync_send_error(sv[1], &e);
		_exit(1);
	}
	t->joined = CLONE_NEWUSER;
	child = fork();
	if (child == 0)
		exec_child(o, t, sv[1]);
	if (child < 0) {
		clasp_error_set(&e, errno, "fork exec process");
		sync_send_error(sv[1], &e);
		_exit(1);
	}
	sync_send_val(sv[1], SYNC_PID, child, -1, &e);
	_exit(0);
}

int linux_exec_spawn(const struct linux_exec_opts *o, struct linux_exec_proc *out, struct clasp_error *err)
{
	struct target t;
	int sv[2] = {-1, -1};
	int cgfd = -1, pty = -1, saved_pid = -1;
	_cleanup_close_ int console = -1;
	bool ready = false, via_user = false;

	memset(out, 0, sizeof *out);
	out->pidfd = out->pty_master = out->seccomp_fd = -1;
	if (o->proc->terminal && !o->console_socket && !o->keep_pty_master)
		return clasp_error_set(err, 0, "cannot allocate tty if clasp will detach without setting console socket");
	if (o->console_socket && !o->proc->terminal)
		return clasp_error_set(err, 0, "cannot use console socket if clasp will not allocate a tty (use -t)");
	if (!o->proc->args.n)
		return clasp_error_set(err, 0, "process.args: no command given");
	/* Connect first: a bad socket must fail before anything runs. */
	if (o->console_socket) {
		console = terminal_connect(o->console_socket, err);
		if (console < 0)
			return -1;
	}
	if (target_open(o->init_pid, o->init_start_time, &t, err) < 0)
		goto fail;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		clasp_error_set(err, errno, "sync socketpair");
		goto fail;
	}
	if (o->cgroup)
		cgfd = cgroup_clone_into_fd(o->cgroup);
	if (join_pid_ns(&t, &saved_pid, err) < 0) {
		if (!(t.flags & CLONE_NEWUSER) || err->code != EPERM)
			goto fail;
		via_user = true;
	}
	fflush(NULL);
	if (via_user) {
		cgfd = -1;
		out->pid = spawn_via_user_ns(o, &t, sv, &out->pidfd);
	} else {
		out->pid = linux_clone(0, cgfd, &out->pidfd);
	}
	if (out->pid < 0 && errno == EOPNOTSUPP) {
		cgfd = -1;
		out->pid = linux_clone(0, -1, &out->pidfd);
	}
	if (out->pid == 0) {
		close(sv[0]);
		exec_child(o, &t, sv[1]);
	}
	leave_pid_ns(&saved_pid);
	if (out->pid > 0 && via_user) {
		int32_t gpid = 0;
		int st;

		if (sync_recv_val(sv[0], SYNC_PID, &gpid, NULL, err) < 0) {
			waitpid(out->pid, &st, 0);
			out->pid = 0;
			goto fail;
		}
		waitpid(out->pid, &st, 0);
		if (out->pidfd >= 0)
			close(out->pidfd);
		out->pid = gpid;
		out->pidfd = (int)syscall(SYS_pidfd_open, gpid, 0);
	}
	if (out->pid < 0) {
		clasp_error_set(err, errno, "clone exec process");
		out->pid = 0;
		goto fail;
	}
	close(sv[1]);
	sv[1] = -1;
	target_close(&t);
	if (o->cgroup && cgfd < 0 && cgroup_enter(o->cgroup, out->pid, err) < 0)
		goto fail;
	if (process_write_oom_score_adj(o->proc, out->pid, err) < 0)
		goto fail;
	if (sync_send(sv[0], SYNC_GO, -1, err) < 0)
		goto fail;
	while (!ready) {
		int32_t type;
		int fd = -1;

		if (sync_recv_msg(sv[0], &type, NULL, &fd, err) < 0)
			goto fail;
		switch (type) {
		case SYNC_PTY:
			pty = fd;
			break;
		case SYNC_SECCOMP_FD:
			out->seccomp_fd = fd;
			break;
		case SYNC_READY:
			ready = true;
			break;
		default:
			if (fd >= 0)
				close(fd);
			clasp_error_set(err, 0, "sync: unexpected message %d", type);
			goto fail;
		}
	}
	if (wait_exec(sv[0], err) < 0)
		goto fail;
	close(sv[0]);
	sv[0] = -1;
	if (pty >= 0) {
		if (console >= 0) {
			if (send_fd(console, pty, "/dev/ptmx", err) < 0)
				goto fail;
			close(pty);
		} else {
			out->pty_master = pty;
		}
	}
	return 0;
fail:
	leave_pid_ns(&saved_pid);
	if (out->pid > 0)
		reap(out);
	target_close(&t);
	if (out->pidfd >= 0)
		close(out->pidfd);
	if (out->seccomp_fd >= 0)
		close(out->seccomp_fd);
	out->pidfd = out->seccomp_fd = -1;
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	if (pty >= 0)
		close(pty);
	return -1;
}
