#include "linux/process.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/seccomp.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/log.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

static bool cap_from_name_ok(const char *name, cap_value_t *out)
{
	/* libcap knows lower-case "cap_x"; OCI writes "CAP_X". */
	char lower[64];
	size_t i;

	if (strlen(name) >= sizeof lower)
		return false;
	for (i = 0; name[i]; i++)
		lower[i] = (char)((name[i] >= 'A' && name[i] <= 'Z') ? name[i] + 32 : name[i]);
	lower[i] = '\0';
	if (cap_from_name(lower, out) != 0)
		return false;
	/* cap_from_name accepts plain numbers; OCI does not. */
	return strncmp(lower, "cap_", 4) == 0 && *out <= CAP_LAST_CAP && cap_valid(*out);
}

void process_check_capabilities(const struct oci_process *p)
{
	const struct strv *sets[5];
	static const char *names[5] = {"effective", "bounding", "inheritable", "permitted", "ambient"};
	size_t s, i;
	cap_value_t c;

	if (!p || !p->capabilities.present)
		return;
	sets[0] = &p->capabilities.effective;
	sets[1] = &p->capabilities.bounding;
	sets[2] = &p->capabilities.inheritable;
	sets[3] = &p->capabilities.permitted;
	sets[4] = &p->capabilities.ambient;
	for (s = 0; s < 5; s++)
		for (i = 0; i < sets[s]->n; i++)
			if (!cap_from_name_ok(sets[s]->v[i], &c))
				log_warn("process.capabilities.%s[%zu]: unknown or unsupported capability \"%s\", ignored",
					 names[s], i, sets[s]->v[i]);
}

int process_set_rlimits(const struct oci_process *p, struct clasp_error *err)
{
	size_t i;

	for (i = 0; i < p->n_rlimits; i++) {
		struct rlimit rl = {.rlim_cur = p->rlimits[i].soft, .rlim_max = p->rlimits[i].hard};
		if (setrlimit(p->rlimits[i].resource, &rl) < 0)
			return clasp_error_set(err, errno, "process.rlimits[%zu]: setrlimit %s", i,
					       p->rlimits[i].type);
	}
	return 0;
}

int process_write_oom_score_adj(const struct oci_process *p, pid_t pid, struct clasp_error *err)
{
	_cleanup_close_ int fd = -1;
	char path[64], buf[32];
	int n;

	if (!p->oom_score_adj.set)
		return 0;
	snprintf(path, sizeof path, "/proc/%d/oom_score_adj", (int)pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return clasp_error_set(err, errno, "process.oomScoreAdj: open %s", path);
	n = snprintf(buf, sizeof buf, "%lld", (long long)p->oom_score_adj.v);
	if (write(fd, buf, (size_t)n) != n)
		return clasp_error_set(err, errno, "process.oomScoreAdj: write %lld", (long long)p->oom_score_adj.v);
	return 0;
}

int process_set_personality(const struct oci_linux *l, struct clasp_error *err)
{
	unsigned long persona;

	if (!l->personality.present)
		return 0;
	if (strcmp(l->personality.domain, "LINUX32") == 0)
		persona = PER_LINUX32;
	else
		persona = PER_LINUX;
	if (personality(persona) < 0)
		return clasp_error_set(err, errno, "linux.personality: set %s", l->personality.domain);
	return 0;
}

int process_set_scheduler(const struct oci_process *p, struct clasp_error *err)
{
	struct sched_param sp = {0};

	if (!p->scheduler.present)
		return 0;
	if (p->scheduler.nice && setpriority(PRIO_PROCESS, 0, p->scheduler.nice) < 0)
		return clasp_error_set(err, errno, "process.scheduler.nice");
	sp.sched_priority = p->scheduler.priority;
	if (sched_setscheduler(0, p->scheduler.policy_value, &sp) < 0)
		return clasp_error_set(err, errno, "process.scheduler: sched_setscheduler %s",
				       p->scheduler.policy);
	return 0;
}

int process_set_io_priority(const struct oci_process *p, struct clasp_error *err)
{
	int prio;

	if (!p->io_priority.present)
		return 0;
	prio = (p->io_priority.class_value << 13) | p->io_priority.priority;
	if (syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, prio) < 0)
		return clasp_error_set(err, errno, "process.ioPriority");
	return 0;
}

static int fill_caps(cap_t caps, cap_flag_t flag, const struct strv *names, cap_t have)
{
	size_t i;
	cap_value_t c;
	cap_flag_value_t v;

	for (i = 0; i < names->n; i++) {
		if (!cap_from_name_ok(names->v[i], &c))
			continue;
		/* config.md lets an ungrantable capability be a warning; asking
		 * the kernel for it would fail the whole set. */
		if (cap_get_flag(have, c, CAP_PERMITTED, &v) < 0 || v != CAP_SET) {
			if (flag == CAP_PERMITTED)
				log_warn("capability %s is not available to the runtime, ignored", names->v[i]);
			continue;
		}
		if (cap_set_flag(caps, flag, 1, &c, CAP_SET) < 0)
			return -1;
	}
	return 0;
}

static bool in_set(const struct strv *names, cap_value_t want)
{
	size_t i;
	cap_value_t c;

	for (i = 0; i < names->n; i++)
		if (cap_from_name_ok(names->v[i], &c) && c == want)
			return true;
	return false;
}

static int drop_bounding(const struct oci_capabilities *caps, struct clasp_error *err)
{
	cap_value_t c;

	for (c = 0; c <= CAP_LAST_CAP; c++) {
		if (!CAP_IS_SUPPORTED(c) || in_set(&caps->bounding, c))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return clasp_error_set(err, errno, "process.capabilities.bounding: drop %s",
					       cap_to_name(c));
	}
	return 0;
}

static int apply_caps(const struct oci_capabilities *cs, struct clasp_error *err)
{
	cap_t caps = cap_init();
	cap_t have = cap_get_proc();
	size_t i;
	cap_value_t c;
	int r = 0;

	if (!caps || !have)
		return clasp_error_set(err, errno, "cap_init");
	if (fill_caps(caps, CAP_EFFECTIVE, &cs->effective, have) < 0 ||
	    fill_caps(caps, CAP_PERMITTED, &cs->permitted, have) < 0 ||
	    fill_caps(caps, CAP_INHERITABLE, &cs->inheritable, have) < 0) {
		r = clasp_error_set(err, errno, "process.capabilities: build set");
		goto out;
	}
	if (cap_set_proc(caps) < 0) {
		r = clasp_error_set(err, errno, "process.capabilities: apply");
		goto out;
	}
	/* Ambient capabilities need to be in both permitted and inheritable; the
	 * kernel refuses others, which config.md lets us report as a warning. */
	if (cap_reset_ambient() < 0 && errno != EINVAL)
		log_debug("reset ambient capabilities: %s", strerror(errno));
	for (i = 0; i < cs->ambient.n; i++) {
		if (!cap_from_name_ok(cs->ambient.v[i], &c))
			continue;
		if (cap_set_ambient(c, CAP_SET) < 0)
			/* runc stays quiet here: ambient needs the cap in
			 * permitted and inheritable, which specs often omit. */
			log_debug("process.capabilities.ambient[%zu]: cannot raise %s: %s", i,
				 cs->ambient.v[i], strerror(errno));
	}
out:
	cap_free(caps);
	cap_free(have);
	return r;
}

static int load_seccomp(const struct seccomp_prog *seccomp, int *notify_fd, struct clasp_error *err)
{
	if (!seccomp)
		return 0;
	return seccomp_install(seccomp, notify_fd, err);
}

int process_finalize_identity(const struct oci_process *p, bool userns_setgroups_denied,
			      const struct seccomp_prog *seccomp, int *notify_fd, struct clasp_error *err)
{
	const struct oci_capabilities *cs = &p->capabilities;

	*notify_fd = -1;
	if (cs->present && drop_bounding(cs, err) < 0)
		return -1;
	/* Keep the permitted set across setuid so the configured capabilities can
	 * still be applied for a non-root user. */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return clasp_error_set(err, errno, "prctl(PR_SET_KEEPCAPS)");
	if (!userns_setgroups_denied) {
		if (setgroups(p->user.n_additional_gids, (const gid_t *)p->user.additional_gids) < 0)
			return clasp_error_set(err, errno, "process.user.additionalGids: setgroups");
	} else if (p->user.n_additional_gids) {
		return clasp_error_set(err, 0,
				       "process.user.additionalGids: cannot set groups in a user namespace where setgroups is denied");
	}
	if (setresgid(p->user.gid, p->user.gid, p->user.gid) < 0)
		return clasp_error_set(err, errno, "process.user.gid: setresgid %u", p->user.gid);
	/* Without no_new_privs, loading a filter needs CAP_SYS_ADMIN: load it
	 * while we still hold it, before the uid switch and capability drop. */
	if (!p->no_new_privileges && load_seccomp(seccomp, notify_fd, err) < 0)
		return -1;
	if (setresuid(p->user.uid, p->user.uid, p->user.uid) < 0)
		return clasp_error_set(err, errno, "process.user.uid: setresuid %u", p->user.uid);
	if (cs->present && apply_caps(cs, err) < 0)
		return -1;
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
		return clasp_error_set(err, errno, "prctl(PR_SET_KEEPCAPS)");
	if (p->no_new_privileges) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			return clasp_error_set(err, errno, "process.noNewPrivileges");
		if (load_seccomp(seccomp, notify_fd, err) < 0)
			return -1;
	}
	if (p->user.umask.set)
		umask((mode_t)p->user.umask.v);
	return 0;
}

static const char *env_path(const struct oci_process *p)
{
	size_t i;

	for (i = 0; i < p->env.n; i++)
		if (strncmp(p->env.v[i], "PATH=", 5) == 0)
			return p->env.v[i] + 5;
	return "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
}

static int check_exec(const char *arg0, const char *path, struct clasp_error *err)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return clasp_error_set(err, errno, "exec: \"%s\": stat %s", arg0, path);
	if (S_ISDIR(st.st_mode))
		return clasp_error_set(err, EACCES, "exec: \"%s\": is a directory", arg0);
	if (!(st.st_mode & 0111))
		return clasp_error_set(err, EACCES, "exec: \"%s\"", arg0);
	return 0;
}

int process_find_executable(const struct oci_process *p, char **out, struct clasp_error *err)
{
	const char *arg0 = p->args.n ? p->args.v[0] : NULL;
	const char *path, *s, *e;
	char buf[PATH_MAX];

	if (!arg0 || !*arg0)
		return clasp_error_set(err, 0, "process.args: no command given");
	if (strchr(arg0, '/')) {
		if (check_exec(arg0, arg0, err) < 0)
			return -1;
		*out = strdup(arg0);
		return 0;
	}
	path = env_path(p);
	for (s = path;; s = e + 1) {
		size_t dl;
		struct stat st;

		e = strchr(s, ':');
		if (!e)
			e = s + strlen(s);
		dl = (size_t)(e - s);
		snprintf(buf, sizeof buf, "%.*s%s%s", (int)dl, dl ? s : ".", "/", arg0);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111)) {
			*out = strdup(buf);
			return 0;
		}
		if (!*e)
			break;
	}
	return clasp_error_set(err, ENOENT, "exec: \"%s\": executable file not found in $PATH", arg0);
}

int process_cloexec_fds(int preserve_fds, struct clasp_error *err)
{
	unsigned first = 3 + (unsigned)(preserve_fds > 0 ? preserve_fds : 0);
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	if (syscall(SYS_close_range, first, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	d = opendir("/proc/self/fd");
	if (!d)
		return clasp_error_set(err, errno, "open /proc/self/fd");
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);
		if (de->d_name[0] == '.' || fd < (int)first || fd == dirfd(d))
			continue;
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	return 0;
}

int process_chdir(const char *cwd, struct clasp_error *err)
{
	char buf[PATH_MAX];

	if (chdir(cwd) < 0)
		return clasp_error_set(err, errno, "process.cwd: chdir to cwd (\"%s\") set in config.json failed", cwd);
	/* getcwd() fails or reports "(unreachable)" when cwd is outside our
	 * root, as a leaked host directory fd would put us. */
	if (!getcwd(buf, sizeof buf) || buf[0] != '/')
		return clasp_error_set(err, 0, "process.cwd: \"%s\" is outside the container root", cwd);
	return 0;
}

char **process_env_with_home(const struct oci_process *p)
{
	const char *home = "/";
	struct passwd *pw;
	char **env;
	size_t i;
	FILE *f;

	for (i = 0; i < p->env.n; i++)
		if (strncmp(p->env.v[i], "HOME=", 5) == 0)
			return p->env.v;
	f = fopen("/etc/passwd", "re");
	if (f) {
		while ((pw = fgetpwent(f)))
			if (pw->pw_uid == p->user.uid) {
				home = strdup(pw->pw_dir);
				break;
			}
		fclose(f);
	}
	env = calloc(p->env.n + 2, sizeof *env);
	if (!env || !home)
		return p->env.v;
	for (i = 0; i < p->env.n; i++)
		env[i] = p->env.v[i];
	if (asprintf(&env[i], "HOME=%s", home) < 0)
		return p->env.v;
	return env;
}

/* Close every fd from `first` up except those in keep[] (sorted here): none
 * of the runtime's fds (state lock, log, console socket, cgroup dirs, and
 * later the pidfd, namespace and root fds) may reach the container, not even
 * for the few syscalls before execve (CVE-2024-21626). */
void process_close_fds_except(unsigned first, int *keep, size_t n)
{
	unsigned lo = first;
	size_t i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int tmp = keep[j];
			keep[j] = keep[j - 1];
			keep[j - 1] = tmp;
		}
	for (i = 0; i <= n; i++) {
		unsigned hi = i < n ? (unsigned)keep[i] : ~0U;

		if (i < n && (keep[i] < 0 || (unsigned)keep[i] < lo))
			continue;
		if (hi > lo && syscall(SYS_close_range, lo, hi - 1, 0) < 0) {
			/* Before 5.9: all of them are O_CLOEXEC at least. */
			unsigned fd;
			for (fd = lo; fd < hi && fd < 65536; fd++)
				close((int)fd);
		}
		if (i < n)
			lo = (unsigned)keep[i] + 1;
	}
}
