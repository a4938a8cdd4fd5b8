/* `exec`: run a new process in a running container, with the container's
 * process settings (or a process.json), and wait for it unless -d. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/lifecycle.h"
#include "cmd/procwait.h"
#include "linux/cgroup/cgroup.h"
#include "linux/exec.h"
#include "linux/process.h"
#include "linux/seccomp.h"
#include "oci/state_json.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/userspec.h"

static const char usage[] =
	"Usage: clasp exec [options] <container-id> [COMMAND [ARGS...]]\n\n"
	"Run a new process inside a running container. Without --process, the container's own\n"
	"process settings are used with COMMAND as its arguments. Without -d, wait for it and exit\n"
	"with its status (128+N when killed by signal N).\n\n"
	"Options:\n"
	"  -p, --process FILE        the process to run, as a process.json (then no COMMAND)\n"
	"  -t, --tty                 allocate a pseudo-terminal inside the container\n"
	"      --console-socket SOCK send the pty master to this AF_UNIX socket\n"
	"  -d, --detach              do not wait for the process\n"
	"      --pid-file FILE       write the process's pid to FILE\n"
	"      --cwd DIR             working directory inside the container\n"
	"  -e, --env KEY=VALUE       set an environment variable (repeatable; overrides)\n"
	"  -u, --user UID[:GID]      numeric user (and group) to run as\n"
	"  -g, --additional-gids G   additional group ids (repeatable, or a comma list)\n"
	"  -c, --cap CAP             add a capability (repeatable)\n"
	"      --no-new-privs        set no_new_privs for the process\n"
	"      --preserve-fds N      pass N extra file descriptors (3 .. 3+N-1) to the process\n"
	"      --ignore-paused       exec even if the container is paused\n"
	"      --apparmor PROFILE    not supported: AppArmor is not available in clasp\n"
	"      --process-label LABEL not supported: SELinux is not available in clasp\n"
	"  -h, --help                show this help\n";

struct exec_flags {
	const char *process_file;
	const char *console_socket;
	const char *pid_file;
	const char *cwd;
	const char *user;
	char **env;
	size_t n_env;
	char **caps;
	size_t n_caps;
	uint32_t *gids;
	size_t n_gids;
	int preserve_fds;
	bool tty, tty_set, detach, no_new_privs, ignore_paused;
};

static void flags_free(struct exec_flags *f)
{
	free(f->env);
	free(f->caps);
	free(f->gids);
}

static int push(char ***v, size_t *n, char *s, struct clasp_error *err)
{
	char **grown = realloc(*v, (*n + 1) * sizeof **v);

	if (!grown)
		return clasp_error_set(err, ENOMEM, "exec");
	grown[(*n)++] = s;
	*v = grown;
	return 0;
}

/* Returns the index of the container id, 0 for --help, -1 on error. */
static int parse(int argc, char **argv, struct exec_flags *f, struct clasp_error *err)
{
	static const struct option opts[] = {
		{"process", required_argument, NULL, 'p'},
		{"tty", no_argument, NULL, 't'},
		{"console-socket", required_argument, NULL, 'C'},
		{"detach", no_argument, NULL, 'd'},
		{"pid-file", required_argument, NULL, 'P'},
		{"cwd", required_argument, NULL, 'w'},
		{"env", required_argument, NULL, 'e'},
		{"user", required_argument, NULL, 'u'},
		{"additional-gids", required_argument, NULL, 'g'},
		{"cap", required_argument, NULL, 'c'},
		{"no-new-privs", no_argument, NULL, 'N'},
		{"preserve-fds", required_argument, NULL, 'F'},
		{"ignore-paused", no_argument, NULL, 'I'},
		{"apparmor", required_argument, NULL, 'A'},
		{"process-label", required_argument, NULL, 'L'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *end;
	long n;
	int opt;

	/* "+": options end at the container id, so COMMAND keeps its own. */
	while ((opt = getopt_long(argc, argv, "+p:tde:u:g:c:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'p': f->process_file = optarg; break;
		case 't': f->tty = f->tty_set = true; break;
		case 'C': f->console_socket = optarg; break;
		case 'd': f->detach = true; break;
		case 'P': f->pid_file = optarg; break;
		case 'w': f->cwd = optarg; break;
		case 'e':
			if (!strchr(optarg, '=') || optarg[0] == '=')
				return clasp_error_set(err, 0, "--env: \"%s\": expected KEY=VALUE", optarg);
			if (push(&f->env, &f->n_env, optarg, err) < 0)
				return -1;
			break;
		case 'u': f->user = optarg; break;
		case 'g':
			if (userspec_parse_gid_list(optarg, &f->gids, &f->n_gids, err) < 0)
				return -1;
			break;
		case 'c':
			if (push(&f->caps, &f->n_caps, optarg, err) < 0)
				return -1;
			break;
		case 'N': f->no_new_privs = true; break;
		case 'F':
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || n < 0 || n > INT_MAX - 3)
				return clasp_error_set(err, 0, "--preserve-fds: invalid number \"%s\"", optarg);
			f->preserve_fds = (int)n;
			break;
		case 'I': f->ignore_paused = true; break;
		case 'A':
			return clasp_error_set(err, 0, "--apparmor: AppArmor is not supported by clasp");
		case 'L':
			return clasp_error_set(err, 0, "--process-label: SELinux labels are not supported by clasp");
		case 'h': cmd_help(usage); return 0;
		default: return clasp_error_set(err, 0, "invalid option; see --help");
		}
	}
	if (optind >= argc)
		return clasp_error_set(err, 0, "\"exec\" requires a container id; see --help");
	if (f->process_file && argc - optind > 1)
		return clasp_error_set(err, 0, "exec: COMMAND cannot be combined with --process");
	if (!f->process_file && argc - optind < 2)
		return clasp_error_set(err, 0, "exec: COMMAND is required (or --process FILE)");
	return optind;
}

/* -e KEY=VALUE replaces KEY where the env has it, else appends. */
static void merge_env(struct arena *a, struct strv *env, char *const *add, size_t n_add)
{
	char **v = arena_alloc(a, (env->n + n_add + 1) * sizeof *v);
	size_t n = env->n, i, j;

	for (i = 0; i < env->n; i++)
		v[i] = env->v[i];
	for (j = 0; j < n_add; j++) {
		size_t klen = (size_t)(strchr(add[j], '=') - add[j]) + 1;
		for (i = 0; i < n; i++)
			if (strncmp(v[i], add[j], klen) == 0)
				break;
		v[i] = add[j];
		if (i == n)
			n++;
	}
	v[n] = NULL;
	env->v = v;
	env->n = n;
}

static void strv_add(struct arena *a, struct strv *s, const char *item)
{
	char **v = arena_alloc(a, (s->n + 2) * sizeof *v);

	if (s->n)
		memcpy(v, s->v, s->n * sizeof *v);
	v[s->n++] = arena_strdup(a, item);
	v[s->n] = NULL;
	s->v = v;
}

static int add_cap(struct arena *a, struct oci_capabilities *c, const char *name, struct clasp_error *err)
{
	char *full = arena_printf(a, "%s%s", strncasecmp(name, "CAP_", 4) == 0 ? "" : "CAP_", name);
	char *q;

	for (q = full; *q; q++)
		if (*q >= 'a' && *q <= 'z')
			*q = (char)(*q - 32);
	if (!c->present)
		return 0; /* no capabilities object: the process keeps them all anyway */
	strv_add(a, &c->bounding, full);
	strv_add(a, &c->effective, full);
	strv_add(a, &c->permitted, full);
	/* Ambient needs the inheritable bit; as runc, only where the spec gives one. */
	if (c->inheritable.n)
		strv_add(a, &c->ambient, full);
	return 0;
}

static int build_process(struct oci_config *cfg, struct exec_flags *f, int argc, char **argv, int idx,
			 struct oci_process **out, struct clasp_error *err)
{
	struct arena *a = cfg->arena;
	struct oci_process *p;
	size_t i;

	if (f->process_file) {
		_cleanup_free_ char *text = NULL;
		size_t len;

		if (read_file(f->process_file, &text, &len, err) < 0)
			return clasp_error_prefix(err, "--process");
		if (oci_process_parse(text, len, f->process_file, a, &p, err) < 0)
			return -1;
	} else {
		if (!cfg->process)
			return clasp_error_set(err, 0, "config.json: .process: required field missing");
		p = arena_alloc(a, sizeof *p);
		*p = *cfg->process;
		p->terminal = false;
		p->args.v = &argv[idx + 1];
		p->args.n = (size_t)(argc - idx - 1);
	}
	if (f->tty_set)
		p->terminal = f->tty;
	if (f->cwd)
		p->cwd = arena_strdup(a, f->cwd);
	if (!p->cwd)
		p->cwd = arena_strdup(a, "/");
	if (f->n_env)
		merge_env(a, &p->env, f->env, f->n_env);
	if (f->user) {
		struct userspec u;
		if (userspec_parse(f->user, &u, err) < 0)
			return -1;
		p->user.uid = u.uid;
		if (u.has_gid)
			p->user.gid = u.gid;
	}
	if (f->n_gids) {
		uint32_t *g = arena_alloc(a, (p->user.n_additional_gids + f->n_gids) * sizeof *g);
		if (p->user.n_additional_gids)
			memcpy(g, p->user.additional_gids, p->user.n_additional_gids * sizeof *g);
		memcpy(g + p->user.n_additional_gids, f->gids, f->n_gids * sizeof *g);
		p->user.additional_gids = g;
		p->user.n_additional_gids += f->n_gids;
	}
	for (i = 0; i < f->n_caps; i++)
		if (add_cap(a, &p->capabilities, f->caps[i], err) < 0)
			return -1;
	if (f->no_new_privs)
		p->no_new_privileges = true;
	if (p->apparmor_profile && *p->apparmor_profile)
		return clasp_error_set(err, 0, "process.apparmorProfile: AppArmor is not supported by clasp");
	if (p->selinux_label && *p->selinux_label)
		return clasp_error_set(err, 0, "process.selinuxLabel: SELinux is not supported by clasp");
	process_check_capabilities(p);
	*out = p;
	return 0;
}


/* A process must not receive runtime fds in place of the caller's: each
 * preserved fd has to be open when we start. */
static int check_preserved(int n, struct clasp_error *err)
{
	int fd;

	for (fd = 3; fd < 3 + n; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			return clasp_error_set(err, 0, "--preserve-fds %d: fd %d is not open", n, fd);
	return 0;
}

static int check_status(const char *status, bool ignore_paused, struct clasp_error *err)
{
	if (strcmp(status, "stopped") == 0)
		return clasp_error_set(err, 0, "cannot exec in a stopped container");
	if (strcmp(status, "created") == 0)
		return clasp_error_set(err, 0, "cannot exec in a created container: start it first");
	if (strcmp(status, "paused") == 0 && !ignore_paused)
		return clasp_error_set(err, 0, "cannot exec in a paused container (use --ignore-paused to override)");
	return 0;
}

static int send_listener(const struct oci_config *cfg, const char *id, const struct container_state *st,
			 const struct linux_exec_proc *pr, struct clasp_error *err)
{
	_cleanup_free_ char *sj = NULL;
	_cleanup_free_ char *payload = NULL;
	const struct oci_seccomp *s = cfg->linux_.seccomp;

	if (pr->seccomp_fd < 0 || !s || !s->listener_path)
		return 0;
	sj = oci_state_json(&(struct state_json_args){.id = id, .status = "running", .pid = st->pid,
		.bundle = st->bundle, .annotations = &cfg->annotations});
	if (seccomp_listener_payload(sj, pr->pid, s->listener_metadata, &payload, err) < 0)
		return -1;
	return seccomp_send_listener(s->listener_path, pr->seccomp_fd, payload, err);
}

static int do_exec(struct global_opts *g, struct exec_flags *f, int argc, char **argv, int idx,
		   struct clasp_error *err)
{
	const char *id = argv[idx];
	_cleanup_close_ int lock = -1;
	_cleanup_free_ char *cache = NULL;
	struct container_state st = {0};
	struct oci_config *cfg = NULL;
	struct oci_process *proc = NULL;
	struct cgroup_mgr *cg = NULL;
	struct seccomp_prog *sc = NULL;
	struct linux_exec_proc pr = {.pid = 0, .pidfd = -1, .pty_master = -1, .seccomp_fd = -1};
	bool have_state = false, spawned = false;
	const char *status;
	sigset_t set;
	int r = -1, sfd = -1;

	if (check_preserved(f->preserve_fds, err) < 0)
		return -1;
	if (f->detach && f->tty && !f->console_socket)
		return clasp_error_set(err, 0, "cannot allocate tty if clasp will detach without setting console socket");
	if (state_lock(g->root, id, &lock, err) < 0)
		return -1;
	if (state_read(g->root, id, &st, err) < 0)
		return -1;
	have_state = true;
	status = lc_status(&st, g->root);
	if (check_status(status, f->ignore_paused, err) < 0)
		goto out;
	/* A child cloned into a frozen cgroup holds a copy of the lock until it
	 * runs; keeping the lock would block the very `resume` it waits for. */
	if (strcmp(status, "paused") == 0) {
		close(lock);
		lock = -1;
	}
	if (lc_load_config(g->root, id, &cfg, err) < 0)
		goto out;
	if (build_process(cfg, f, argc, argv, idx, &proc, err) < 0)
		goto out;
	if (cfg->linux_.seccomp) {
		if (asprintf(&cache, "%s/.seccomp-cache", g->root) < 0)
			cache = NULL;
		if (seccomp_prepare(cfg->linux_.seccomp, cache, &sc, err) < 0)
			goto out;
	}
	if (st.cgroup && cgroup_open(st.cgroup, &cg, err) < 0)
		goto out;
	/* Block what we forward before the child exists; it unblocks its own. */
	if (!f->detach)
		cmd_block_forwarded_signals(&set);
	{
		struct linux_exec_opts lo = {
			.cfg = cfg,
			.proc = proc,
			.init_pid = st.pid,
			.init_start_time = st.start_time,
			.cgroup = cg,
			.seccomp = sc,
			.console_socket = f->console_socket,
			.keep_pty_master = !f->detach && !f->console_socket,
			.preserve_fds = f->preserve_fds,
		};
		if (linux_exec_spawn(&lo, &pr, err) < 0)
			goto out;
	}
	spawned = true;
	/* The process runs: concurrent execs, kill and delete may go on. */
	if (lock >= 0)
		close(lock);
	lock = -1;
	if (f->pid_file && cmd_write_pid_file(f->pid_file, pr.pid, err) < 0)
		goto out;
	if (send_listener(cfg, id, &st, &pr, err) < 0)
		goto out;
	if (f->detach) {
		r = 0;
		goto out;
	}
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0) {
		clasp_error_set(err, errno, "signalfd");
		goto out;
	}
	r = cmd_wait_process(pr.pid, pr.pidfd, pr.pty_master, sfd);
	spawned = false;
out:
	if (r < 0 && spawned && !f->detach) {
		/* We failed after the start: do not leave an unwatched process. */
		if (pr.pidfd >= 0)
			syscall(SYS_pidfd_send_signal, pr.pidfd, SIGKILL, NULL, 0);
		waitpid(pr.pid, NULL, 0);
	}
	if (sfd >= 0)
		close(sfd);
	if (pr.pidfd >= 0)
		close(pr.pidfd);
	if (pr.pty_master >= 0)
		close(pr.pty_master);
	if (pr.seccomp_fd >= 0)
		close(pr.seccomp_fd);
	if (cg)
		cgroup_free(cg);
	if (sc)
		seccomp_prog_free(sc);
	oci_config_free(cfg);
	if (have_state)
		state_clear(&st);
	return r;
}

int cmd_exec(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	struct exec_flags f = {0};
	int idx, r;

	idx = parse(argc, argv, &f, err);
	if (idx <= 0) {
		flags_free(&f);
		return idx;
	}
	r = do_exec(g, &f, argc, argv, idx, err);
	flags_free(&f);
	return r;
}
