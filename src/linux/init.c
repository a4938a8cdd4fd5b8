#include "linux/init.h"
#include "linux/rootless.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "linux/hooks.h"
#include "linux/namespaces.h"
#include "linux/process.h"
#include "linux/rootfs.h"
#include "linux/sync.h"
#include "linux/terminal.h"
#include "oci/state_json.h"
#include "util/cleanup.h"
#include "util/fs.h"

#ifndef KEYCTL_JOIN_SESSION_KEYRING
#define KEYCTL_JOIN_SESSION_KEYRING 1
#endif


static __attribute__((noreturn)) void fail(int sync, struct clasp_error *err)
{
	sync_send_error(sync, err);
	_exit(1);
}

static int write_sysctls(const struct oci_linux *l, struct clasp_error *err)
{
	size_t i;

	for (i = 0; i < l->sysctl.n; i++) {
		char path[512];
		const char *k = l->sysctl.v[i].key;
		const char *v = l->sysctl.v[i].value;
		size_t j, off;
		int fd;

		off = (size_t)snprintf(path, sizeof path, "/proc/sys/");
		for (j = 0; k[j] && off + 1 < sizeof path; j++)
			path[off++] = k[j] == '.' ? '/' : k[j];
		path[off] = '\0';
		if (strstr(k, "..") || strchr(k, '/'))
			return clasp_error_set(err, 0, "linux.sysctl: invalid key \"%s\"", k);
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			return clasp_error_set(err, errno, "linux.sysctl: \"%s\": open %s", k, path);
		if (write(fd, v, strlen(v)) < 0) {
			int e = errno;
			close(fd);
			return clasp_error_set(err, e, "linux.sysctl: \"%s\": write \"%s\"", k, v);
		}
		close(fd);
	}
	return 0;
}

static int setup_terminal(const struct linux_create_opts *o, int sync, struct clasp_error *err)
{
	struct rootfs_opts ro = {.rootfs = "/", .bundle = o->bundle};
	_cleanup_close_ int master = -1;
	int slave;

	if (terminal_open(o->cfg->process, &master, &slave, err) < 0)
		return -1;
	if (rootfs_setup_console(&ro, slave, err) < 0 || sync_send(sync, SYNC_PTY, master, err) < 0) {
		close(slave);
		return -1;
	}
	return terminal_attach(slave, err);
}

/* runtime.md: startContainer hooks run after `start` is invoked and before
 * the user program; their failure fails `start`. */
static int run_start_hooks(const struct linux_create_opts *o, pid_t host_pid)
{
	const struct oci_config *cfg = o->cfg;
	struct clasp_error err;
	char *state;
	int r;

	if (!cfg->hooks[OCI_HOOK_START_CONTAINER].n)
		return 0;
	state = oci_state_json(&(struct state_json_args){.id = o->id, .status = "running",
		.pid = host_pid, .bundle = o->bundle, .annotations = &cfg->annotations});
	r = hooks_run(&cfg->hooks[OCI_HOOK_START_CONTAINER], OCI_HOOK_START_CONTAINER, state, &err);
	if (r < 0)
		fprintf(stderr, "clasp: %s\n", err.msg);
	free(state);
	return r;
}

void init_main(const struct init_args *a)
{
	const struct linux_create_opts *o = a->o;
	const struct oci_config *cfg = o->cfg;
	const struct oci_process *p = cfg->process;
	struct rootfs_opts ro = {
		.rootfs = o->rootfs,
		.bundle = o->bundle,
		.no_pivot = o->no_pivot,
		.userns = oci_config_namespace(cfg, OCI_NS_USER) != NULL,
		.new_cgroupns = false,
	};
	const struct oci_namespace *cgns = oci_config_namespace(cfg, OCI_NS_CGROUP);
	const struct oci_namespace *netns = oci_config_namespace(cfg, OCI_NS_NETWORK);
	const struct oci_namespace *utsns = oci_config_namespace(cfg, OCI_NS_UTS);
	struct clasp_error err = {0};
	bool setgroups_denied = false;
	char *exe = NULL;
	char fifo[64];
	int fd, notify_fd = -1;
	int32_t host_pid = 0;

	sigset_t none;

	/* `run` blocks the signals it forwards; the container starts clean. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	{
		/* Every fd the runtime had open (state lock, log, cgroup dirs...)
		 * goes, so none reaches the container and no lock outlives the
		 * runtime's use of it; stdio, the preserved fds and our two
		 * channels stay. */
		int keep[2] = {a->sync, a->fifo_fd};
		process_close_fds_except(3 + (unsigned)(o->preserve_fds > 0 ? o->preserve_fds : 0), keep, 2);
	}
	/* Die with the runtime while it still supervises us. Not when forked by
	 * the user-namespace intermediate: its exit would be taken for the
	 * runtime's; the sync socket's EOF covers that case. */
	if (!a->joined_flags)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGPIPE, SIG_DFL);
	if (sync_recv_val(a->sync, SYNC_GO, &host_pid, NULL, &err) < 0)
		_exit(1);
	if ((a->clone_flags | a->joined_flags) & CLONE_NEWUSER) {
		/* Be root of the user namespace for the setup below. */
		if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0) {
			clasp_error_set(&err, errno, "become root in the user namespace");
			fail(a->sync, &err);
		}
		setgroups_denied = geteuid() != 0;
		{
			char buf[8] = "";
			int sfd = open("/proc/self/setgroups", O_RDONLY | O_CLOEXEC);
			if (sfd >= 0) {
				if (read(sfd, buf, sizeof buf - 1) > 0 && strncmp(buf, "deny", 4) == 0)
					setgroups_denied = true;
				close(sfd);
			}
		}
	}
	if (ns_join_paths(cfg, CLONE_NEWPID | CLONE_NEWTIME | a->joined_flags, &err) < 0)
		fail(a->sync, &err);
	/* Run inside a user namespace (rootless podman), mknod fails too. */
	ro.userns = ro.userns || ((a->clone_flags | a->joined_flags) & CLONE_NEWUSER) || rootless_detect();
	if (cgns && !cgns->path && !(a->clone_flags & CLONE_NEWCGROUP)) {
		/* Now that we sit in our cgroup, its root becomes the namespace's. */
		if (unshare(CLONE_NEWCGROUP) < 0) {
			clasp_error_set(&err, errno, "unshare cgroup namespace");
			fail(a->sync, &err);
		}
	}
	ro.new_cgroupns = cgns && !cgns->path;
	if (netns && !netns->path && ns_loopback_up(&err) < 0)
		fail(a->sync, &err);
	if (cfg->hostname && *cfg->hostname) {
		if (!utsns) {
			clasp_error_set(&err, 0, "hostname: requires a UTS namespace");
			fail(a->sync, &err);
		}
		if (sethostname(cfg->hostname, strlen(cfg->hostname)) < 0) {
			clasp_error_set(&err, errno, "hostname: sethostname");
			fail(a->sync, &err);
		}
	}
	if (cfg->domainname && *cfg->domainname) {
		if (!utsns) {
			clasp_error_set(&err, 0, "domainname: requires a UTS namespace");
			fail(a->sync, &err);
		}
		if (setdomainname(cfg->domainname, strlen(cfg->domainname)) < 0) {
			clasp_error_set(&err, errno, "domainname: setdomainname");
			fail(a->sync, &err);
		}
	}
	if (rootfs_setup(cfg, &ro, &err) < 0)
		fail(a->sync, &err);
	if (sync_send(a->sync, SYNC_MOUNTS_DONE, -1, &err) < 0 ||
	    sync_recv(a->sync, SYNC_HOOKS_DONE, NULL, &err) < 0)
		_exit(1);
	if (cfg->hooks[OCI_HOOK_CREATE_CONTAINER].n) {
		char *state = oci_state_json(&(struct state_json_args){.id = o->id, .status = "creating",
			.pid = host_pid, .bundle = o->bundle, .annotations = &cfg->annotations});
		if (hooks_run(&cfg->hooks[OCI_HOOK_CREATE_CONTAINER], OCI_HOOK_CREATE_CONTAINER, state, &err) < 0)
			fail(a->sync, &err);
		free(state);
	}
	if (rootfs_pivot(&ro, &err) < 0)
		fail(a->sync, &err);
	/* A missing cwd is created, as runc does; we are inside the new root
	 * now, so symlinks resolve within it. Failures surface at chdir. */
	if (p && p->cwd)
		mkdir_p(p->cwd, 0755);
	if (setsid() < 0) {
		clasp_error_set(&err, errno, "setsid");
		fail(a->sync, &err);
	}
	if (p && p->terminal && setup_terminal(o, a->sync, &err) < 0)
		fail(a->sync, &err);
	if (write_sysctls(&cfg->linux_, &err) < 0)
		fail(a->sync, &err);
	if (!o->no_new_keyring)
		syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, o->id);
	if (rootfs_finalize(cfg, &ro, &err) < 0)
		fail(a->sync, &err);
	if (!p) {
		clasp_error_set(&err, 0, "process: required to start a container");
		fail(a->sync, &err);
	}
	if (process_find_executable(p, &exe, &err) < 0)
		fail(a->sync, &err);
	if (process_chdir(p->cwd, &err) < 0)
		fail(a->sync, &err);
	if (process_set_rlimits(p, &err) < 0 ||
	    process_set_personality(&cfg->linux_, &err) < 0 || process_set_scheduler(p, &err) < 0 ||
	    process_set_io_priority(p, &err) < 0)
		fail(a->sync, &err);
	if (process_cloexec_fds(o->preserve_fds, &err) < 0)
		fail(a->sync, &err);
	if (process_finalize_identity(p, setgroups_denied, o->seccomp, &notify_fd, &err) < 0)
		fail(a->sync, &err);
	if (notify_fd >= 0) {
		if (sync_send(a->sync, SYNC_SECCOMP_FD, notify_fd, &err) < 0)
			_exit(1);
		close(notify_fd);
	}
	prctl(PR_SET_PDEATHSIG, 0);
	if (sync_send(a->sync, SYNC_READY, -1, &err) < 0)
		_exit(1);
	close(a->sync);

	/* Block until `start` opens the fifo for reading. */
	snprintf(fifo, sizeof fifo, "/proc/self/fd/%d", a->fifo_fd);
	fd = open(fifo, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "clasp: open exec fifo: %s\n", strerror(errno));
		_exit(1);
	}
	close(a->fifo_fd);
	/* One byte tells `start` how it went: '0' the program runs next. */
	if (run_start_hooks(o, host_pid) < 0) {
		if (write(fd, "1", 1) != 1)
			_exit(1);
		_exit(1);
	}
	if (write(fd, "0", 1) != 1)
		_exit(1);
	close(fd);
	execve(exe, p->args.v, process_env_with_home(p));
	fprintf(stderr, "clasp: exec %s: %s\n", exe, strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}
