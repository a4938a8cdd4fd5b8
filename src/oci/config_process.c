/* .process: the container process (config.md "Process", "POSIX process",
 * "Linux Process", "User"). Capability names stay strings: an unknown one is
 * a warning, not an error (config.md), which linux/ decides when applying. */
#include <inttypes.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>

#include "oci/config_parse_internal.h"

static const struct {
	const char *name;
	int value;
} rlimit_table[] = {
	{"RLIMIT_AS", RLIMIT_AS},
	{"RLIMIT_CORE", RLIMIT_CORE},
	{"RLIMIT_CPU", RLIMIT_CPU},
	{"RLIMIT_DATA", RLIMIT_DATA},
	{"RLIMIT_FSIZE", RLIMIT_FSIZE},
	{"RLIMIT_LOCKS", RLIMIT_LOCKS},
	{"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},
	{"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE},
	{"RLIMIT_NICE", RLIMIT_NICE},
	{"RLIMIT_NOFILE", RLIMIT_NOFILE},
	{"RLIMIT_NPROC", RLIMIT_NPROC},
	{"RLIMIT_RSS", RLIMIT_RSS},
	{"RLIMIT_RTPRIO", RLIMIT_RTPRIO},
	{"RLIMIT_RTTIME", RLIMIT_RTTIME},
	{"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
	{"RLIMIT_STACK", RLIMIT_STACK},
};

/* Index = the policy's value for sched_setattr(2); SCHED_ISO (4) is
 * reserved in the kernel but named by the spec. */
static const char *const sched_policies[] = {
	"SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_BATCH",
	"SCHED_ISO",   "SCHED_IDLE", "SCHED_DEADLINE", NULL,
};

static const char *const sched_flags[] = {
	"SCHED_FLAG_RESET_ON_FORK", "SCHED_FLAG_RECLAIM",        "SCHED_FLAG_DL_OVERRUN",
	"SCHED_FLAG_KEEP_POLICY",   "SCHED_FLAG_KEEP_PARAMS",    "SCHED_FLAG_UTIL_CLAMP_MIN",
	"SCHED_FLAG_UTIL_CLAMP_MAX", NULL,
};

/* Index + 1 = IOPRIO_CLASS_* value. */
static const char *const ioprio_classes[] = {
	"IOPRIO_CLASS_RT", "IOPRIO_CLASS_BE", "IOPRIO_CLASS_IDLE", NULL,
};

static int parse_user(struct pctx *p, const struct json *proc, struct oci_user *u)
{
	const struct json *user, *arr;
	size_t i, n, mark, amark, imark;
	int r = 0;

	/* Absent user means uid 0 / gid 0, as Go's zero value gives runc. */
	if (pc_object(p, proc, "user", false, &user) < 0)
		return -1;
	if (!user)
		return 0;
	mark = pc_push_key(p, "user");
	if (pc_u32(p, user, "uid", true, &u->uid) < 0 || pc_u32(p, user, "gid", true, &u->gid) < 0 ||
	    pc_opt_u64(p, user, "umask", UINT32_MAX, &u->umask) < 0 ||
	    pc_str(p, user, "username", false, &u->username) < 0 ||
	    pc_array(p, user, "additionalGids", false, &arr, &n) < 0) {
		pc_pop(p, mark);
		return -1;
	}
	if (arr) {
		amark = pc_push_key(p, "additionalGids");
		u->additional_gids = arena_alloc(p->a, (n ? n : 1) * sizeof *u->additional_gids);
		u->n_additional_gids = n;
		for (i = 0; i < n && r == 0; i++) {
			uint64_t g;

			imark = pc_push_index(p, i);
			r = pv_u64(p, json_array_at(arr, i), UINT32_MAX, &g);
			u->additional_gids[i] = (uint32_t)g;
			pc_pop(p, imark);
		}
		pc_pop(p, amark);
	}
	pc_pop(p, mark);
	return r;
}

static int parse_capabilities(struct pctx *p, const struct json *proc, struct oci_capabilities *c)
{
	const struct json *caps;
	size_t mark;
	int r = 0;

	if (pc_object(p, proc, "capabilities", false, &caps) < 0)
		return -1;
	if (!caps)
		return 0;
	c->present = true;
	mark = pc_push_key(p, "capabilities");
	if (pc_strv(p, caps, "effective", false, &c->effective) < 0 ||
	    pc_strv(p, caps, "bounding", false, &c->bounding) < 0 ||
	    pc_strv(p, caps, "inheritable", false, &c->inheritable) < 0 ||
	    pc_strv(p, caps, "permitted", false, &c->permitted) < 0 ||
	    pc_strv(p, caps, "ambient", false, &c->ambient) < 0)
		r = -1;
	pc_pop(p, mark);
	return r;
}

static int parse_rlimit(struct pctx *p, const struct json *e, struct oci_rlimit *rl)
{
	size_t k;

	if (pv_object(p, e) < 0 || pc_str(p, e, "type", true, &rl->type) < 0)
		return -1;
	for (k = 0; k < sizeof rlimit_table / sizeof rlimit_table[0]; k++)
		if (strcmp(rlimit_table[k].name, rl->type) == 0)
			break;
	if (k == sizeof rlimit_table / sizeof rlimit_table[0])
		return pc_fail_at(p, "type", "unknown rlimit \"%s\"", rl->type);
	rl->resource = rlimit_table[k].value;
	if (pc_u64(p, e, "soft", true, UINT64_MAX, &rl->soft) < 0 ||
	    pc_u64(p, e, "hard", true, UINT64_MAX, &rl->hard) < 0)
		return -1;
	if (rl->soft > rl->hard)
		return pc_fail_at(p, "soft", "soft limit %" PRIu64 " exceeds hard limit %" PRIu64,
				  rl->soft, rl->hard);
	return 0;
}

static int parse_rlimits(struct pctx *p, const struct json *proc, struct oci_process *pr)
{
	const struct json *arr;
	size_t i, j, n, mark, imark;
	int r = 0;

	if (pc_array(p, proc, "rlimits", false, &arr, &n) < 0)
		return -1;
	if (!arr)
		return 0;
	pr->rlimits = arena_alloc(p->a, (n ? n : 1) * sizeof *pr->rlimits);
	pr->n_rlimits = n;
	mark = pc_push_key(p, "rlimits");
	for (i = 0; i < n && r == 0; i++) {
		imark = pc_push_index(p, i);
		r = parse_rlimit(p, json_array_at(arr, i), &pr->rlimits[i]);
		/* At most 16 distinct types exist, so this stays cheap. */
		for (j = 0; j < i && r == 0; j++)
			if (pr->rlimits[j].resource == pr->rlimits[i].resource)
				r = pc_fail_at(p, "type", "duplicate rlimit \"%s\"",
					       pr->rlimits[i].type);
		pc_pop(p, imark);
	}
	pc_pop(p, mark);
	return r;
}

static int parse_scheduler(struct pctx *p, const struct json *proc, struct oci_scheduler *s)
{
	const struct json *o;
	int64_t v;
	size_t i, mark, fmark;
	int r = -1;

	if (pc_object(p, proc, "scheduler", false, &o) < 0)
		return -1;
	if (!o)
		return 0;
	s->present = true;
	mark = pc_push_key(p, "scheduler");
	if (pc_str(p, o, "policy", true, &s->policy) < 0)
		goto out;
	s->policy_value = pc_lookup(sched_policies, s->policy);
	if (s->policy_value < 0) {
		pc_fail_at(p, "policy", "unknown scheduler policy \"%s\"", s->policy);
		goto out;
	}
	v = 0;
	if (pc_i64(p, o, "nice", false, INT32_MIN, INT32_MAX, &v) < 0)
		goto out;
	s->nice = (int32_t)v;
	v = 0;
	if (pc_i64(p, o, "priority", false, INT32_MIN, INT32_MAX, &v) < 0)
		goto out;
	s->priority = (int32_t)v;
	if (pc_strv(p, o, "flags", false, &s->flags) < 0 ||
	    pc_u64(p, o, "runtime", false, UINT64_MAX, &s->runtime) < 0 ||
	    pc_u64(p, o, "deadline", false, UINT64_MAX, &s->deadline) < 0 ||
	    pc_u64(p, o, "period", false, UINT64_MAX, &s->period) < 0)
		goto out;
	for (i = 0; i < s->flags.n; i++) {
		if (pc_lookup(sched_flags, s->flags.v[i]) < 0) {
			fmark = pc_push_key(p, "flags");
			pc_push_index(p, i);
			pc_fail(p, "unknown scheduler flag \"%s\"", s->flags.v[i]);
			pc_pop(p, fmark);
			goto out;
		}
	}
	r = 0;
out:
	pc_pop(p, mark);
	return r;
}

static int parse_io_priority(struct pctx *p, const struct json *proc, struct oci_io_priority *io)
{
	const struct json *o;
	char *cls = NULL;
	int64_t prio = 0;
	size_t mark;
	int r = -1;

	if (pc_object(p, proc, "ioPriority", false, &o) < 0)
		return -1;
	if (!o)
		return 0;
	io->present = true;
	mark = pc_push_key(p, "ioPriority");
	if (pc_str(p, o, "class", true, &cls) < 0)
		goto out;
	io->class_value = pc_lookup(ioprio_classes, cls) + 1;
	if (io->class_value == 0) {
		pc_fail_at(p, "class", "unknown I/O priority class \"%s\"", cls);
		goto out;
	}
	if (pc_i64(p, o, "priority", true, 0, 7, &prio) < 0)
		goto out;
	io->priority = (int)prio;
	r = 0;
out:
	pc_pop(p, mark);
	return r;
}

static int check_cpu_list(struct pctx *p, const struct json *o, const char *key, const char *s)
{
	if (s && strspn(s, "0123456789, -") != strlen(s))
		return pc_fail_at(p, key, "invalid CPU list \"%s\"", s);
	return 0;
}

static int parse_exec_affinity(struct pctx *p, const struct json *proc, struct oci_process *pr)
{
	const struct json *o;
	size_t mark;
	int r = 0;

	if (pc_object(p, proc, "execCPUAffinity", false, &o) < 0)
		return -1;
	if (!o)
		return 0;
	mark = pc_push_key(p, "execCPUAffinity");
	if (pc_str(p, o, "initial", false, &pr->exec_cpu_affinity_initial) < 0 ||
	    pc_str(p, o, "final", false, &pr->exec_cpu_affinity_final) < 0 ||
	    check_cpu_list(p, o, "initial", pr->exec_cpu_affinity_initial) < 0 ||
	    check_cpu_list(p, o, "final", pr->exec_cpu_affinity_final) < 0)
		r = -1;
	pc_pop(p, mark);
	return r;
}

static int parse_console_size(struct pctx *p, const struct json *proc, struct oci_process *pr)
{
	const struct json *o;
	uint64_t h = 0, w = 0;
	size_t mark;
	int r = 0;

	if (pc_object(p, proc, "consoleSize", false, &o) < 0)
		return -1;
	if (!o)
		return 0;
	pr->has_console_size = true;
	mark = pc_push_key(p, "consoleSize");
	/* struct winsize holds unsigned shorts: larger sizes cannot be honoured. */
	if (pc_u64(p, o, "height", true, UINT16_MAX, &h) < 0 ||
	    pc_u64(p, o, "width", true, UINT16_MAX, &w) < 0)
		r = -1;
	pr->console_height = (uint32_t)h;
	pr->console_width = (uint32_t)w;
	pc_pop(p, mark);
	return r;
}

int pc_process(struct pctx *p, const struct json *v, struct oci_process *pr)
{
	if (pc_bool(p, v, "terminal", &pr->terminal) < 0 || parse_console_size(p, v, pr) < 0 ||
	    parse_user(p, v, &pr->user) < 0)
		return -1;
	/* config.md: at least one args entry is REQUIRED on non-Windows. */
	if (pc_strv(p, v, "args", true, &pr->args) < 0)
		return -1;
	if (pr->args.n == 0)
		return pc_fail_at(p, "args", "must contain at least one entry");
	if (pc_strv(p, v, "env", false, &pr->env) < 0 || pc_str(p, v, "cwd", true, &pr->cwd) < 0)
		return -1;
	if (pr->cwd[0] != '/') {
		size_t mark = pc_push_key(p, "cwd");

		pv_abs_path(p, pr->cwd);
		pc_pop(p, mark);
		return -1;
	}
	if (parse_capabilities(p, v, &pr->capabilities) < 0 || parse_rlimits(p, v, pr) < 0 ||
	    pc_bool(p, v, "noNewPrivileges", &pr->no_new_privileges) < 0 ||
	    pc_opt_i64(p, v, "oomScoreAdj", -1000, 1000, &pr->oom_score_adj) < 0 ||
	    pc_str(p, v, "apparmorProfile", false, &pr->apparmor_profile) < 0 ||
	    pc_str(p, v, "selinuxLabel", false, &pr->selinux_label) < 0 ||
	    parse_scheduler(p, v, &pr->scheduler) < 0 || parse_io_priority(p, v, &pr->io_priority) < 0 ||
	    parse_exec_affinity(p, v, pr) < 0)
		return -1;
	return 0;
}
