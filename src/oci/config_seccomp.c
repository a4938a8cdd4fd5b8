/* .linux.seccomp: actions and operators become enums here; architecture and
 * flag names stay strings for the seccomp code, which maps them through
 * libseccomp and knows what this host supports. */
#include <string.h>

#include "oci/config_parse_internal.h"

/* Same order as enum oci_seccomp_action. */
static const char *const actions[] = {
	"SCMP_ACT_KILL",  "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD",
	"SCMP_ACT_TRAP",  "SCMP_ACT_ERRNO",        "SCMP_ACT_TRACE",
	"SCMP_ACT_ALLOW", "SCMP_ACT_LOG",          "SCMP_ACT_NOTIFY",
	NULL,
};

/* Same order as enum oci_seccomp_op. */
static const char *const ops[] = {
	"SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE",        "SCMP_CMP_EQ",
	"SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ", NULL,
};

static int parse_action(struct pctx *p, const struct json *o, const char *key,
			enum oci_seccomp_action *out)
{
	char *s = NULL;
	int i;

	if (pc_str(p, o, key, true, &s) < 0)
		return -1;
	i = pc_lookup(actions, s);
	if (i < 0)
		return pc_fail_at(p, key, "unknown seccomp action \"%s\"", s);
	*out = (enum oci_seccomp_action)i;
	return 0;
}

/* config-linux.md: an errno for an action that takes none MUST fail. */
static int check_errno_ret(struct pctx *p, const char *key, enum oci_seccomp_action act,
			   const opt_u64 *ret)
{
	if (ret->set && act != OCI_SCMP_ERRNO && act != OCI_SCMP_TRACE)
		return pc_fail_at(p, key, "only valid with SCMP_ACT_ERRNO or SCMP_ACT_TRACE, not %s",
				  actions[act]);
	return 0;
}

static int parse_arg(struct pctx *p, const struct json *e, struct oci_seccomp_arg *a)
{
	uint64_t idx = 0;
	char *op = NULL;
	int i;

	/* seccomp_data carries six syscall arguments. */
	if (pv_object(p, e) < 0 || pc_u64(p, e, "index", true, 5, &idx) < 0 ||
	    pc_u64(p, e, "value", true, UINT64_MAX, &a->value) < 0 ||
	    pc_u64(p, e, "valueTwo", false, UINT64_MAX, &a->value_two) < 0 ||
	    pc_str(p, e, "op", true, &op) < 0)
		return -1;
	a->index = (uint32_t)idx;
	i = pc_lookup(ops, op);
	if (i < 0)
		return pc_fail_at(p, "op", "unknown seccomp operator \"%s\"", op);
	a->op = (enum oci_seccomp_op)i;
	return 0;
}

static int parse_syscall(struct pctx *p, const struct json *e, struct oci_seccomp_syscall *s)
{
	const struct json *arr;
	size_t i, n, mark, imark;
	int r = 0;

	if (pv_object(p, e) < 0 || pc_strv(p, e, "names", true, &s->names) < 0)
		return -1;
	if (s->names.n == 0)
		return pc_fail_at(p, "names", "must contain at least one entry");
	if (parse_action(p, e, "action", &s->action) < 0 ||
	    pc_opt_u64(p, e, "errnoRet", UINT32_MAX, &s->errno_ret) < 0 ||
	    check_errno_ret(p, "errnoRet", s->action, &s->errno_ret) < 0 ||
	    pc_array(p, e, "args", false, &arr, &n) < 0)
		return -1;
	if (!arr)
		return 0;
	s->args = arena_alloc(p->a, (n ? n : 1) * sizeof *s->args);
	s->n_args = n;
	mark = pc_push_key(p, "args");
	for (i = 0; i < n && r == 0; i++) {
		imark = pc_push_index(p, i);
		r = parse_arg(p, json_array_at(arr, i), &s->args[i]);
		pc_pop(p, imark);
	}
	pc_pop(p, mark);
	return r;
}

int pc_seccomp(struct pctx *p, const struct json *v, struct oci_seccomp *sc)
{
	const struct json *arr;
	size_t i, n, mark, imark;
	int r = 0;

	if (parse_action(p, v, "defaultAction", &sc->default_action) < 0 ||
	    pc_opt_u64(p, v, "defaultErrnoRet", UINT32_MAX, &sc->default_errno_ret) < 0 ||
	    check_errno_ret(p, "defaultErrnoRet", sc->default_action, &sc->default_errno_ret) < 0 ||
	    pc_strv(p, v, "architectures", false, &sc->architectures) < 0 ||
	    pc_strv(p, v, "flags", false, &sc->flags) < 0 ||
	    pc_str(p, v, "listenerPath", false, &sc->listener_path) < 0 ||
	    pc_str(p, v, "listenerMetadata", false, &sc->listener_metadata) < 0)
		return -1;
	if (sc->listener_metadata && !sc->listener_path)
		return pc_fail_at(p, "listenerMetadata", "must not be set without listenerPath");
	if (pc_array(p, v, "syscalls", false, &arr, &n) < 0)
		return -1;
	if (!arr)
		return 0;
	sc->syscalls = arena_alloc(p->a, (n ? n : 1) * sizeof *sc->syscalls);
	sc->n_syscalls = n;
	mark = pc_push_key(p, "syscalls");
	for (i = 0; i < n && r == 0; i++) {
		imark = pc_push_index(p, i);
		r = parse_syscall(p, json_array_at(arr, i), &sc->syscalls[i]);
		pc_pop(p, imark);
	}
	pc_pop(p, mark);
	return r;
}
