#include "cmd/lifecycle.h"
#include "cmd/procwait.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux/cgroup/cgroup.h"
#include "linux/container.h"
#include "linux/device_rules.h"
#include "linux/hooks.h"
#include "linux/process.h"
#include "linux/rootless.h"
#include "linux/validate.h"
#include "sandbox/egress_policy.h"
#include "sandbox/sandbox.h"
#include "util/selfexec.h"
#include "linux/seccomp.h"
#include "oci/state_json.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/proc.h"

static void now_rfc3339(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%09ldZ", ts.tv_nsec);
}


static char *resolve_bundle(const char *bundle, struct clasp_error *err)
{
	char *abs = realpath(bundle ? bundle : ".", NULL);

	if (!abs)
		clasp_error_set(err, errno, "bundle %s", bundle ? bundle : ".");
	return abs;
}

static char *resolve_rootfs(const char *bundle, const char *root_path, struct clasp_error *err)
{
	_cleanup_free_ char *joined = NULL;
	char *abs;
	struct stat st;

	if (!root_path)
		return clasp_error_set(err, 0, "config.json: .root.path: required field missing"), NULL;
	if (root_path[0] == '/')
		joined = strdup(root_path);
	else if (asprintf(&joined, "%s/%s", bundle, root_path) < 0)
		abort();
	abs = realpath(joined, NULL);
	if (!abs)
		return clasp_error_set(err, errno, "rootfs (%s)", joined), NULL;
	if (stat(abs, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(abs);
		return clasp_error_set(err, ENOTDIR, "rootfs (%s)", joined), NULL;
	}
	return abs;
}

int lc_load_config(const char *root, const char *id, struct oci_config **cfg, struct clasp_error *err)
{
	_cleanup_free_ char *dir = state_dir(root, id);

	return oci_config_load(dir, cfg, err);
}

static void warn_msg(const char *msg)
{
	log_warn("%s", msg);
}

static void run_poststop(struct oci_config *cfg, const char *id, pid_t pid, const char *bundle)
{
	_cleanup_free_ char *state = NULL;

	if (!cfg || !cfg->hooks[OCI_HOOK_POSTSTOP].n)
		return;
	state = oci_state_json(&(struct state_json_args){.id = id, .status = "stopped", .pid = pid,
		.bundle = bundle, .annotations = &cfg->annotations});
	/* runtime.md: a failing poststop hook is a warning, and the remaining
	 * hooks still run. */
	hooks_run_warn(&cfg->hooks[OCI_HOOK_POSTSTOP], OCI_HOOK_POSTSTOP, state, warn_msg);
}

static int copy_config(const char *bundle, const char *dir, struct clasp_error *err)
{
	_cleanup_free_ char *src = NULL;
	_cleanup_free_ char *text = NULL;
	size_t len;

	if (asprintf(&src, "%s/config.json", bundle) < 0)
		abort();
	if (read_file(src, &text, &len, err) < 0)
		return -1;
	return write_file_atomic(dir, "config.json", text, len, 0600, err);
}

/* clasp-egress lives beside the binary in the build tree and in
 * LIBEXECDIR/clasp when installed. */
static char *egress_hook_path(void)
{
	const char *self = selfexec_original_path();
	char *p = NULL;
	const char *slash = strrchr(self, '/');

	if (slash && asprintf(&p, "%.*s/clasp-egress", (int)(slash - self), self) > 0 && access(p, X_OK) == 0)
		return p;
	free(p);
	if (asprintf(&p, "%s/clasp-egress", CLASP_LIBEXECDIR) < 0)
		abort();
	return p;
}

/* Running containers of this root, for the Kubernetes netns-join check. */
static void list_peers(const char *root, const char *self_id, struct sandbox_peer **out, size_t *n,
		       char ***dirs_out)
{
	char **ids = NULL;
	size_t k = 0, i, cnt = 0;
	struct clasp_error e;
	struct sandbox_peer *peers;
	char **dirs;

	*out = NULL;
	*n = 0;
	*dirs_out = NULL;
	if (state_list_ids(root, &ids, &cnt, &e) < 0)
		return;
	peers = calloc(cnt + 1, sizeof *peers);
	dirs = calloc(cnt + 1, sizeof *dirs);
	for (i = 0; i < cnt; i++) {
		struct container_state st;
		if (strcmp(ids[i], self_id) != 0 && state_read(root, ids[i], &st, &e) == 0) {
			if (proc_is_same(st.pid, st.start_time)) {
				dirs[k] = state_dir(root, ids[i]);
				peers[k].pid = st.pid;
				peers[k].state_dir = dirs[k];
				k++;
			}
			state_clear(&st);
		}
		free(ids[i]);
	}
	free(ids);
	*out = peers;
	*n = k;
	*dirs_out = dirs;
}

static void print_conflict(const char *path, const char *saved_as, void *opaque)
{
	(void)opaque;
	if (saved_as)
		log_warn("write-back conflict: %s changed on the host during the run; kept the host's version, the container's is saved as %s",
			 path, saved_as);
	else
		log_warn("write-back conflict: %s changed on the host during the run and was deleted in the container; kept the host's version",
			 path);
}

/* systemd socket activation (sd_listen_fds): fds meant for us are passed on
 * to the container's process, which becomes their LISTEN_PID 1, as runc does. */
static void listen_fds_passthrough(struct oci_config *cfg, int *preserve_fds)
{
	const char *fds = getenv("LISTEN_FDS");
	const char *pid = getenv("LISTEN_PID");
	struct oci_process *p = cfg->process;
	long n;

	if (!fds || !pid || atol(pid) != (long)getpid())
		return;
	n = atol(fds);
	if (n <= 0 || n > 1024)
		return;
	if (*preserve_fds < n)
		*preserve_fds = (int)n;
	p->env.v = arena_append(cfg->arena, p->env.v, p->env.n, sizeof(char *));
	p->env.v[p->env.n++] = arena_printf(cfg->arena, "LISTEN_FDS=%ld", n);
	p->env.v = arena_append(cfg->arena, p->env.v, p->env.n, sizeof(char *));
	p->env.v[p->env.n++] = arena_strdup(cfg->arena, "LISTEN_PID=1");
	p->env.v[p->env.n] = NULL;
}

int lc_create(struct global_opts *g, const struct create_req *req, struct created *out,
	      struct clasp_error *err)
{
	_cleanup_free_ char *bundle = NULL;
	_cleanup_free_ char *rootfs = NULL;
	_cleanup_free_ char *dir = NULL;
	_cleanup_free_ char *fifo = NULL;
	_cleanup_free_ char *cache = NULL;
	_cleanup_free_ char *annotations = NULL;
	_cleanup_close_ int lock = -1;
	struct oci_config *cfg = NULL;
	struct cgroup_mgr *cg = NULL;
	struct seccomp_prog *sc = NULL;
	struct linux_container c = {.pid = 0, .pidfd = -1, .pty_master = -1, .seccomp_fd = -1};
	struct container_state st = {0};
	char created[64], owner_buf[16];
	bool reserved = false, prepared = false;
	struct sandbox_plan *plan = NULL;
	_cleanup_free_ char *hook = NULL;
	int preserve_fds = req->preserve_fds;
	int r = -1;

	(void)owner_buf;
	if (state_validate_id(req->id, err) < 0)
		return -1;
	bundle = resolve_bundle(req->bundle, err);
	if (!bundle)
		return -1;
	if (oci_config_load(bundle, &cfg, err) < 0)
		return -1;
	dir = state_dir(g->root, req->id);
	hook = egress_hook_path();
	{
		struct sandbox_ctx ctx = {.id = req->id, .bundle = bundle, .state_dir = dir,
					  .egress_hook = hook, .rootless = g->rootless};
		/* Annotations become plain OCI changes before anything else
		 * looks at the config. */
		if (sandbox_rewrite(cfg, &ctx, &plan, err) < 0)
			goto out;
	}
	if (!cfg->process) {
		clasp_error_set(err, 0, "config.json: .process: required field missing");
		goto out;
	}
	if (linux_validate(cfg, err) < 0)
		goto out;
	if (g->rootless && rootless_check_config(cfg, err) < 0)
		goto out;
	listen_fds_passthrough(cfg, &preserve_fds);
	process_check_capabilities(cfg->process);

	if (state_reserve(g->root, req->id, &lock, err) < 0)
		goto out;
	reserved = true;
	if (copy_config(bundle, dir, err) < 0)
		goto out;
	if (plan) {
		struct sandbox_peer *peers;
		char **pdirs;
		size_t np, i;
		int rc;

		list_peers(g->root, req->id, &peers, &np, &pdirs);
		rc = sandbox_check_netns_join(plan, peers, np, err);
		for (i = 0; i < np; i++)
			free(pdirs[i]);
		free(pdirs);
		free(peers);
		if (rc < 0)
			goto out;
		if (sandbox_prepare(plan, err) < 0)
			goto out;
		prepared = true;
	}
	rootfs = resolve_rootfs(bundle, cfg->root_path, err);
	if (!rootfs)
		goto out;
	if (cfg->linux_.seccomp) {
		if (asprintf(&cache, "%s/.seccomp-cache", g->root) < 0)
			abort();
		if (seccomp_prepare(cfg->linux_.seccomp, cache, &sc, err) < 0)
			goto out;
	}
	if (cgroup_create(req->id, cfg->linux_.cgroups_path, g->rootless, &cg, err) < 0)
		goto out;
	if (cg && cfg->linux_.cgroups_path && *cfg->linux_.cgroups_path) {
		/* Record a configured cgroup at once: if we are killed from here
		 * on, `delete --force` finds it in the (stopped) provisional
		 * state. The default clasp/<id> needs no record (undo_interrupted
		 * derives it), which spares the common create a state write. */
		struct container_state pre = {.id = (char *)req->id, .bundle = bundle, .rootfs = rootfs,
					       .status = "creating", .cgroup = cgroup_serialize(cg)};
		int rc = state_write(g->root, &pre, err);
		free(pre.cgroup);
		if (rc < 0)
			goto out;
	}
	if (g->rootless && rootless_check_resources(&cfg->linux_.resources, cg != NULL, err) < 0)
		goto out;
	/* Only when the config restricts devices: appending allow rules to an
	 * empty list would turn "no rules" into "these only" on v2. */
	if (cfg->linux_.resources.n_devices)
		device_rules_add_defaults(cfg);
	if (cg && cfg->linux_.resources.present && cgroup_apply(cg, &cfg->linux_.resources, err) < 0)
		goto out;
	if (asprintf(&fifo, "%s/exec.fifo", dir) < 0)
		abort();
	{
		struct linux_create_opts lo = {
			.cfg = cfg,
			.id = req->id,
			.bundle = bundle,
			.rootfs = rootfs,
			.fifo_path = fifo,
			.console_socket = req->console_socket,
			.keep_pty_master = req->keep_pty_master,
			.preserve_fds = preserve_fds,
			.no_pivot = req->no_pivot,
			.no_new_keyring = req->no_new_keyring,
			.cgroup = cg,
			.seccomp = sc,
		};
		if (linux_container_spawn(&lo, &c, err) < 0)
			goto out;
	}
	annotations = oci_annotations_json(&cfg->annotations);
	now_rfc3339(created, sizeof created);
	st.id = (char *)req->id;
	st.bundle = bundle;
	st.rootfs = rootfs;
	st.status = "created";
	st.pid = c.pid;
	st.start_time = c.start_time;
	st.created = created;
	st.owner = geteuid();
	st.cgroup = cg ? cgroup_serialize(cg) : NULL;
	st.annotations = annotations;
	st.no_pivot = req->no_pivot;
	r = state_write(g->root, &st, err);
	free(st.cgroup);
	if (r < 0)
		goto out;
	r = -1;
	if (c.seccomp_fd >= 0 && cfg->linux_.seccomp->listener_path) {
		_cleanup_free_ char *sj = oci_state_json(&(struct state_json_args){.id = req->id,
			.status = "creating", .pid = c.pid, .bundle = bundle, .annotations = &cfg->annotations});
		_cleanup_free_ char *payload = NULL;
		/* config-linux.md: the listener gets the container process state. */
		if (seccomp_listener_payload(sj, c.pid, cfg->linux_.seccomp->listener_metadata, &payload, err) < 0 ||
		    seccomp_send_listener(cfg->linux_.seccomp->listener_path, c.seccomp_fd, payload, err) < 0)
			goto out;
	}
	if (req->pid_file && cmd_write_pid_file(req->pid_file, c.pid, err) < 0)
		goto out;
	if (out) {
		out->pid = c.pid;
		out->pidfd = steal_fd(&c.pidfd);
		out->pty_master = steal_fd(&c.pty_master);
	}
	r = 0;
out:
	if (r < 0) {
		if (c.pid > 0) {
			if (c.pidfd >= 0)
				syscall(SYS_pidfd_send_signal, c.pidfd, SIGKILL, NULL, 0);
			else
				kill(c.pid, SIGKILL);
			waitpid(c.pid, NULL, 0);
		}
		if (c.hooks_started)
			run_poststop(cfg, req->id, c.pid, bundle);
		if (cg) {
			struct clasp_error e2;
			if (cgroup_destroy(cg, &e2) < 0)
				log_warn("%s", e2.msg);
		}
		if (reserved) {
			struct clasp_error e2;
			/* A proxy started by the prestart hook must not outlive us. */
			if (egress_proxy_stop(dir, 2000, &e2) < 0)
				log_warn("%s", e2.msg);
			/* Keep the state dir when the undo failed: it records the
			 * copy, so `delete --force` can finish the job. */
			if (prepared && sandbox_undo_prepare(dir, &e2) < 0)
				log_warn("%s", e2.msg);
			else
				state_remove(g->root, req->id, &e2);
		}
	}
	if (c.pidfd >= 0)
		close(c.pidfd);
	if (c.pty_master >= 0)
		close(c.pty_master);
	if (c.seccomp_fd >= 0)
		close(c.seccomp_fd);
	if (cg)
		cgroup_free(cg);
	if (sc)
		seccomp_prog_free(sc);
	sandbox_plan_free(plan);
	oci_config_free(cfg);
	return r;
}

const char *lc_status(const struct container_state *st, const char *root)
{
	_cleanup_free_ char *fifo = NULL;
	struct cgroup_mgr *cg = NULL;
	struct clasp_error err;
	bool frozen = false;

	if (!proc_is_same(st->pid, st->start_time))
		return "stopped";
	if (asprintf(&fifo, "%s/%s/exec.fifo", root, st->id) < 0)
		abort();
	if (access(fifo, F_OK) == 0)
		return "created";
	if (st->cgroup && cgroup_open(st->cgroup, &cg, &err) == 0) {
		cgroup_is_frozen(cg, &frozen);
		cgroup_free(cg);
		if (frozen)
			return "paused";
	}
	return "running";
}

static void kill_init(const struct container_state *st)
{
	proc_signal(st->pid, st->start_time, SIGKILL);
}

int lc_start(struct global_opts *g, const char *id, struct clasp_error *err)
{
	_cleanup_close_ int lock = -1;
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *fifo = NULL;
	_cleanup_free_ char *state = NULL;
	struct container_state st;
	struct oci_config *cfg = NULL;
	const char *status;
	char c;

	if (state_lock(g->root, id, &lock, err) < 0 || state_read(g->root, id, &st, err) < 0)
		return -1;
	status = lc_status(&st, g->root);
	if (strcmp(status, "created") != 0) {
		clasp_error_set(err, 0, strcmp(status, "stopped") == 0 ? "cannot start a container that has stopped"
									 : "cannot start an already running container");
		state_clear(&st);
		return -1;
	}
	if (asprintf(&fifo, "%s/%s/exec.fifo", g->root, id) < 0)
		abort();
	fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		clasp_error_set(err, errno, "open exec fifo");
		state_clear(&st);
		return -1;
	}
	/* The init writes one byte once it sees us; it may also die first. */
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int n = poll(&p, 1, 100);

		if (n > 0) {
			ssize_t r = read(fd, &c, 1);
			if (r == 1)
				break;
			if (r == 0 && (p.revents & POLLHUP))
				usleep(1000); /* no writer yet, or it just closed */
		}
		if (!proc_is_same(st.pid, st.start_time)) {
			clasp_error_set(err, 0, "cannot start a container that has stopped");
			state_clear(&st);
			return -1;
		}
	}
	unlink(fifo);
	if (c != '0') {
		/* A startContainer hook failed; the init is exiting. */
		clasp_error_set(err, 0, "startContainer hook failed, container stopped");
		kill_init(&st);
		state_clear(&st);
		return -1;
	}
	free(st.status);
	st.status = strdup("running");
	if (state_write(g->root, &st, err) < 0) {
		state_clear(&st);
		return -1;
	}
	if (lc_load_config(g->root, id, &cfg, err) == 0) {
		if (cfg->hooks[OCI_HOOK_POSTSTART].n) {
			state = oci_state_json(&(struct state_json_args){.id = id, .status = "running",
				.pid = st.pid, .bundle = st.bundle, .annotations = &cfg->annotations});
			/* runtime.md: a failing poststart hook is an error; the
			 * container is stopped and goes on to delete. */
			if (hooks_run(&cfg->hooks[OCI_HOOK_POSTSTART], OCI_HOOK_POSTSTART, state, err) < 0) {
				kill_init(&st);
				oci_config_free(cfg);
				state_clear(&st);
				return -1;
			}
		}
		oci_config_free(cfg);
	} else {
		log_warn("%s", err->msg);
	}
	state_clear(&st);
	return 0;
}

static int wait_gone(pid_t pid, uint64_t start, int ms)
{
	int i;

	for (i = 0; i < ms / 10; i++) {
		if (!proc_is_same(pid, start))
			return 0;
		usleep(10000);
	}
	return -1;
}

int lc_kill(struct global_opts *g, const char *id, int sig, bool all, struct clasp_error *err)
{
	_cleanup_close_ int lock = -1;
	_cleanup_close_ int pidfd = -1;
	struct container_state st;
	const char *status;
	int r = -1;

	if (state_lock(g->root, id, &lock, err) < 0 || state_read(g->root, id, &st, err) < 0)
		return -1;
	status = lc_status(&st, g->root);
	if (strcmp(status, "stopped") == 0 && !all) {
		clasp_error_set(err, 0, "container not running");
		goto out;
	}
	if (all && st.cgroup) {
		struct cgroup_mgr *cg = NULL;
		if (cgroup_open(st.cgroup, &cg, err) < 0)
			goto out;
		r = cgroup_kill_all(cg, sig, err);
		cgroup_free(cg);
		goto out;
	}
	if (strcmp(status, "stopped") == 0) {
		r = 0;
		goto out;
	}
	if (proc_signal(st.pid, st.start_time, sig) < 0) {
		if (errno == ESRCH)
			clasp_error_set(err, 0, "container not running");
		else
			clasp_error_set(err, errno, "kill container init");
		goto out;
	}
	/* A frozen v1 cgroup holds even SIGKILL until thawed; like runc, thaw a
	 * paused container so that `podman kill`/`stop` of it takes effect. */
	if (sig == SIGKILL && strcmp(status, "paused") == 0 && st.cgroup) {
		struct cgroup_mgr *cg = NULL;
		struct clasp_error e2;

		if (cgroup_open(st.cgroup, &cg, &e2) == 0) {
			if (cgroup_freeze(cg, false, &e2) < 0)
				log_warn("%s", e2.msg);
			cgroup_free(cg);
		}
	}
	r = 0;
out:
	state_clear(&st);
	return r;
}

/* A create killed before it wrote state.json may have left: its init (which
 * dies with it), the default-path cgroup, an egress proxy, and a sandbox
 * copy recorded in sandbox.json. Nothing of the agent ran, so the copy is
 * undone, never written back. */
static int undo_interrupted(struct global_opts *g, const char *id, struct clasp_error *err)
{
	_cleanup_free_ char *dir = state_dir(g->root, id);
	struct oci_config *cfg = NULL;
	struct cgroup_mgr *cg = NULL;
	struct clasp_error e2;

	if (lc_load_config(g->root, id, &cfg, &e2) == 0) {
		if ((!cfg->linux_.cgroups_path || !*cfg->linux_.cgroups_path) &&
		    cgroup_open_interrupted(id, &cg, &e2) == 0 && cg) {
			if (cgroup_kill_all(cg, SIGKILL, &e2) < 0 || cgroup_destroy(cg, &e2) < 0)
				log_warn("%s", e2.msg);
			cgroup_free(cg);
		}
		oci_config_free(cfg);
	}
	if (egress_proxy_stop(dir, 2000, &e2) < 0)
		log_warn("%s", e2.msg);
	if (sandbox_undo_prepare(dir, err) < 0)
		return clasp_error_prefix(err, "undo the interrupted create of %s (state kept; run delete --force again)", id);
	return state_remove(g->root, id, err);
}

int lc_delete(struct global_opts *g, const char *id, bool force, struct clasp_error *err)
{
	_cleanup_close_ int lock = -1;
	struct container_state st;
	struct oci_config *cfg = NULL;
	struct cgroup_mgr *cg = NULL;
	const char *status;
	int r = -1;

	if (state_lock(g->root, id, &lock, err) < 0) {
		if (force && strcmp(err->msg, "container does not exist") == 0)
			return 0;
		return -1;
	}
	if (state_read(g->root, id, &st, err) < 0) {
		/* A directory without a state file is a create that was killed
		 * midway: undo what it may have made (see undo_interrupted). */
		if (force)
			return undo_interrupted(g, id, err);
		return -1;
	}
	status = lc_status(&st, g->root);
	if (st.cgroup && cgroup_open(st.cgroup, &cg, err) < 0) {
		log_warn("%s", err->msg);
		cg = NULL;
	}
	if (strcmp(status, "stopped") != 0) {
		if (!force) {
			clasp_error_set(err, 0, "cannot delete container %s that is not stopped: %s", id, status);
			goto out;
		}
		if (cg) {
			struct clasp_error e2;
			if (cgroup_kill_all(cg, SIGKILL, &e2) < 0)
				log_warn("%s", e2.msg);
		}
		proc_signal(st.pid, st.start_time, SIGKILL);
		if (wait_gone(st.pid, st.start_time, 5000) < 0) {
			clasp_error_set(err, 0, "container init %d did not exit after SIGKILL", (int)st.pid);
			goto out;
		}
	}
	if (cg) {
		struct clasp_error e2;
		if (cgroup_destroy(cg, &e2) < 0)
			log_warn("%s", e2.msg);
	}
	{
		_cleanup_free_ char *dir = state_dir(g->root, id);
		struct clasp_error e2;

		if (egress_proxy_stop(dir, 2000, &e2) < 0)
			log_warn("%s", e2.msg);
		/* Copy realization writes back exactly once; if that fails the
		 * state stays, so that the next delete resumes it. */
		if (sandbox_finish(dir, print_conflict, NULL, err) < 0) {
			clasp_error_prefix(err, "write back the workspace copy (run delete again to resume)");
			goto out;
		}
	}
	if (lc_load_config(g->root, id, &cfg, err) == 0)
		run_poststop(cfg, id, st.pid, st.bundle);
	else
		log_warn("%s", err->msg);
	r = state_remove(g->root, id, err);
out:
	if (cg)
		cgroup_free(cg);
	oci_config_free(cfg);
	state_clear(&st);
	return r;
}

static const struct {
	const char *name;
	int sig;
} signals[] = {
	{"HUP", SIGHUP}, {"INT", SIGINT}, {"QUIT", SIGQUIT}, {"ILL", SIGILL}, {"TRAP", SIGTRAP},
	{"ABRT", SIGABRT}, {"IOT", SIGIOT}, {"BUS", SIGBUS}, {"FPE", SIGFPE}, {"KILL", SIGKILL},
	{"USR1", SIGUSR1}, {"SEGV", SIGSEGV}, {"USR2", SIGUSR2}, {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},
	{"TERM", SIGTERM}, {"STKFLT", SIGSTKFLT}, {"CHLD", SIGCHLD}, {"CONT", SIGCONT}, {"STOP", SIGSTOP},
	{"TSTP", SIGTSTP}, {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU}, {"URG", SIGURG}, {"XCPU", SIGXCPU},
	{"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH}, {"IO", SIGIO},
	{"POLL", SIGPOLL}, {"PWR", SIGPWR}, {"SYS", SIGSYS},
};

int lc_parse_signal(const char *s, int *sig, struct clasp_error *err)
{
	const char *name = s;
	char *end;
	long n;
	size_t i;

	if (!s || !*s)
		return clasp_error_set(err, 0, "invalid signal: empty");
	n = strtol(s, &end, 10);
	if (*end == '\0') {
		if (n <= 0 || n > SIGRTMAX)
			return clasp_error_set(err, 0, "invalid signal \"%s\"", s);
		*sig = (int)n;
		return 0;
	}
	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	for (i = 0; i < sizeof signals / sizeof signals[0]; i++)
		if (strcasecmp(name, signals[i].name) == 0) {
			*sig = signals[i].sig;
			return 0;
		}
	if (strncasecmp(name, "RTMIN", 5) == 0 || strncasecmp(name, "RTMAX", 5) == 0) {
		bool min = strncasecmp(name, "RTMIN", 5) == 0;
		long off = name[5] ? strtol(name + 5, &end, 10) : 0;
		if (name[5] && *end == '\0') {
			*sig = min ? SIGRTMIN + (int)off : SIGRTMAX + (int)off;
			if (*sig >= SIGRTMIN && *sig <= SIGRTMAX)
				return 0;
		} else if (!name[5]) {
			*sig = min ? SIGRTMIN : SIGRTMAX;
			return 0;
		}
	}
	return clasp_error_set(err, 0, "unknown signal \"%s\"", s);
}

char *lc_state_json(const char *root, const struct container_state *st, bool pretty)
{
	const char *status = lc_status(st, root);
	char owner[32] = "";

	(void)owner;
	return oci_state_json(&(struct state_json_args){
		.id = st->id, .status = status, .pid = strcmp(status, "stopped") == 0 ? 0 : st->pid,
		.bundle = st->bundle, .annotations_json = st->annotations, .rootfs = st->rootfs,
		.created = st->created, .owner = "", .pretty = pretty});
}
