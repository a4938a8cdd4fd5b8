/* linux.seccomp: validation, compilation with libseccomp, raw seccomp(2)
 * load, and handing the notify listener to the seccomp agent.
 *
 * libseccomp only builds the BPF (seccomp_export_bpf); the load is ours, so
 * the kernel flags do not depend on what libseccomp 2.5.4 knows. */
#include "linux/seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "oci/version.h"
#include "util/cleanup.h"
#include "util/json.h"
#include "util/sockpath.h"

#ifndef SECCOMP_FILTER_FLAG_TSYNC_ESRCH
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH (1UL << 4)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

#define SECCOMP_MAX_ARGS 6
/* The action's data field is 16 bits; a larger errno would be truncated. */
#define SECCOMP_MAX_RET 0xffff
#define OCI_PROCESS_STATE_VERSION CLASP_SPEC_VERSION

struct seccomp_prog {
	struct sock_filter *insns;
	size_t n_insns;
	unsigned int flags; /* SECCOMP_FILTER_FLAG_*, without NEW_LISTENER */
	bool has_notify;
	bool from_cache;
};

static const struct {
	const char *name;
	unsigned int value;
	const char *since;
} seccomp_flags[] = {
	{ "SECCOMP_FILTER_FLAG_TSYNC", SECCOMP_FILTER_FLAG_TSYNC, "3.17" },
	{ "SECCOMP_FILTER_FLAG_LOG", SECCOMP_FILTER_FLAG_LOG, "4.14" },
	{ "SECCOMP_FILTER_FLAG_SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW, "4.17" },
	{ "SECCOMP_FILTER_FLAG_NEW_LISTENER", SECCOMP_FILTER_FLAG_NEW_LISTENER, "5.0" },
	{ "SECCOMP_FILTER_FLAG_TSYNC_ESRCH", SECCOMP_FILTER_FLAG_TSYNC_ESRCH, "5.7" },
	{ "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, "5.19" },
};
/* The flags a profile may ask for; the others are the runtime's business. */
static bool flag_user_settable(unsigned int v)
{
	return v != SECCOMP_FILTER_FLAG_NEW_LISTENER && v != SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
}


/* Spec names -> libseccomp tokens; 0 = the spec knows it, this libseccomp does not. */
static const struct {
	const char *name;
	uint32_t token;
} seccomp_arches[] = {
	{ "SCMP_ARCH_X86", SCMP_ARCH_X86 },
	{ "SCMP_ARCH_X86_64", SCMP_ARCH_X86_64 },
	{ "SCMP_ARCH_X32", SCMP_ARCH_X32 },
	{ "SCMP_ARCH_ARM", SCMP_ARCH_ARM },
	{ "SCMP_ARCH_AARCH64", SCMP_ARCH_AARCH64 },
	{ "SCMP_ARCH_MIPS", SCMP_ARCH_MIPS },
	{ "SCMP_ARCH_MIPS64", SCMP_ARCH_MIPS64 },
	{ "SCMP_ARCH_MIPS64N32", SCMP_ARCH_MIPS64N32 },
	{ "SCMP_ARCH_MIPSEL", SCMP_ARCH_MIPSEL },
	{ "SCMP_ARCH_MIPSEL64", SCMP_ARCH_MIPSEL64 },
	{ "SCMP_ARCH_MIPSEL64N32", SCMP_ARCH_MIPSEL64N32 },
	{ "SCMP_ARCH_PPC", SCMP_ARCH_PPC },
	{ "SCMP_ARCH_PPC64", SCMP_ARCH_PPC64 },
	{ "SCMP_ARCH_PPC64LE", SCMP_ARCH_PPC64LE },
	{ "SCMP_ARCH_S390", SCMP_ARCH_S390 },
	{ "SCMP_ARCH_S390X", SCMP_ARCH_S390X },
	{ "SCMP_ARCH_PARISC", SCMP_ARCH_PARISC },
	{ "SCMP_ARCH_PARISC64", SCMP_ARCH_PARISC64 },
	{ "SCMP_ARCH_RISCV64", SCMP_ARCH_RISCV64 },
#ifdef SCMP_ARCH_LOONGARCH64
	{ "SCMP_ARCH_LOONGARCH64", SCMP_ARCH_LOONGARCH64 },
#else
	{ "SCMP_ARCH_LOONGARCH64", 0 },
#endif
#ifdef SCMP_ARCH_M68K
	{ "SCMP_ARCH_M68K", SCMP_ARCH_M68K },
#else
	{ "SCMP_ARCH_M68K", 0 },
#endif
#ifdef SCMP_ARCH_SH
	{ "SCMP_ARCH_SH", SCMP_ARCH_SH },
	{ "SCMP_ARCH_SHEB", SCMP_ARCH_SHEB },
#else
	{ "SCMP_ARCH_SH", 0 },
	{ "SCMP_ARCH_SHEB", 0 },
#endif
};

/* Syscalls the runtime makes between the load and execve (docs/seccomp.md).
 * A NOTIFY on them could block the container before its listener fd has
 * reached the agent (or with nobody left to answer), so such a profile is
 * refused up front. Keep in step with process.c/init.c and the doc. */
static const char *const post_load_syscalls[] = {
	"capget", "capset", "prctl",  "setresuid", "umask",
	"sendmsg", "write", "close",  "execve",    "execveat",
};

static const char *action_name(enum oci_seccomp_action a)
{
	switch (a) {
	case OCI_SCMP_KILL: return "SCMP_ACT_KILL";
	case OCI_SCMP_KILL_PROCESS: return "SCMP_ACT_KILL_PROCESS";
	case OCI_SCMP_KILL_THREAD: return "SCMP_ACT_KILL_THREAD";
	case OCI_SCMP_TRAP: return "SCMP_ACT_TRAP";
	case OCI_SCMP_ERRNO: return "SCMP_ACT_ERRNO";
	case OCI_SCMP_TRACE: return "SCMP_ACT_TRACE";
	case OCI_SCMP_ALLOW: return "SCMP_ACT_ALLOW";
	case OCI_SCMP_LOG: return "SCMP_ACT_LOG";
	case OCI_SCMP_NOTIFY: return "SCMP_ACT_NOTIFY";
	}
	return NULL;
}

/* Checks one action + errnoRet pair; `where` is the JSON path of the
 * object holding them, `errkey` the errno member's name. */
static int check_action(enum oci_seccomp_action a, opt_u64 ret, const char *where,
			const char *actkey, const char *errkey, struct clasp_error *err)
{
	if (!action_name(a))
		return clasp_error_set(err, 0, "%s.%s: unknown action %d", where, actkey, (int)a);
	if (!ret.set)
		return 0;
	if (a != OCI_SCMP_ERRNO && a != OCI_SCMP_TRACE)
		return clasp_error_set(err, 0, "%s.%s: action %s does not take an errno", where,
				       errkey, action_name(a));
	if (ret.v > SECCOMP_MAX_RET)
		return clasp_error_set(err, 0, "%s.%s: %llu is out of range (0 to %d)", where, errkey,
				       (unsigned long long)ret.v, SECCOMP_MAX_RET);
	return 0;
}

static uint32_t scmp_action(enum oci_seccomp_action a, opt_u64 ret)
{
	uint32_t e = ret.set ? (uint32_t)ret.v : EPERM;

	switch (a) {
	case OCI_SCMP_KILL: return SCMP_ACT_KILL;
	case OCI_SCMP_KILL_PROCESS: return SCMP_ACT_KILL_PROCESS;
	case OCI_SCMP_KILL_THREAD: return SCMP_ACT_KILL_THREAD;
	case OCI_SCMP_TRAP: return SCMP_ACT_TRAP;
	case OCI_SCMP_ERRNO: return SCMP_ACT_ERRNO(e);
	case OCI_SCMP_TRACE: return SCMP_ACT_TRACE(e);
	case OCI_SCMP_ALLOW: return SCMP_ACT_ALLOW;
	case OCI_SCMP_LOG: return SCMP_ACT_LOG;
	case OCI_SCMP_NOTIFY: return SCMP_ACT_NOTIFY;
	}
	return SCMP_ACT_KILL_PROCESS;
}

static int scmp_op(enum oci_seccomp_op op, enum scmp_compare *out)
{
	switch (op) {
	case OCI_SCMP_CMP_NE: *out = SCMP_CMP_NE; return 0;
	case OCI_SCMP_CMP_LT: *out = SCMP_CMP_LT; return 0;
	case OCI_SCMP_CMP_LE: *out = SCMP_CMP_LE; return 0;
	case OCI_SCMP_CMP_EQ: *out = SCMP_CMP_EQ; return 0;
	case OCI_SCMP_CMP_GE: *out = SCMP_CMP_GE; return 0;
	case OCI_SCMP_CMP_GT: *out = SCMP_CMP_GT; return 0;
	case OCI_SCMP_CMP_MASKED_EQ: *out = SCMP_CMP_MASKED_EQ; return 0;
	}
	return -1;
}

static int arch_token(const char *name, size_t i, uint32_t *token, struct clasp_error *err)
{
	for (size_t k = 0; k < sizeof(seccomp_arches) / sizeof(seccomp_arches[0]); k++) {
		if (strcmp(seccomp_arches[k].name, name) != 0)
			continue;
		if (seccomp_arches[k].token == 0) {
			const struct scmp_version *v = seccomp_version();
			return clasp_error_set(err, 0,
					       "linux.seccomp.architectures[%zu]: architecture \"%s\" is not "
					       "supported by libseccomp %u.%u.%u",
					       i, name, v->major, v->minor, v->micro);
		}
		*token = seccomp_arches[k].token;
		return 0;
	}
	return clasp_error_set(err, 0, "linux.seccomp.architectures[%zu]: unknown architecture \"%s\"",
			       i, name);
}

static bool is_post_load_syscall(const char *name)
{
	for (size_t k = 0; k < sizeof(post_load_syscalls) / sizeof(post_load_syscalls[0]); k++)
		if (strcmp(post_load_syscalls[k], name) == 0)
			return true;
	return false;
}

/* Everything that can be wrong with a profile, found before any compile so
 * that a cache hit validates exactly as much as a miss. */
static int validate(const struct oci_seccomp *s, unsigned int *flags, bool *has_notify,
		    struct clasp_error *err)
{
	*flags = 0;
	*has_notify = false;

	if (check_action(s->default_action, s->default_errno_ret, "linux.seccomp", "defaultAction",
			 "defaultErrnoRet", err) < 0)
		return -1;
	if (s->default_action == OCI_SCMP_NOTIFY)
		return clasp_error_set(err, 0,
				       "linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot be the default "
				       "action (the runtime's own syscalls after the load would block)");

	for (size_t i = 0; i < s->architectures.n; i++) {
		uint32_t tok;
		if (arch_token(s->architectures.v[i], i, &tok, err) < 0)
			return -1;
	}

	for (size_t i = 0; i < s->flags.n; i++) {
		size_t k, nf = sizeof(seccomp_flags) / sizeof(seccomp_flags[0]);
		for (k = 0; k < nf; k++)
			if (flag_user_settable(seccomp_flags[k].value) &&
			    strcmp(seccomp_flags[k].name, s->flags.v[i]) == 0)
				break;
		if (k == nf)
			return clasp_error_set(err, 0, "linux.seccomp.flags[%zu]: unknown flag \"%s\"", i,
					       s->flags.v[i]);
		*flags |= seccomp_flags[k].value;
	}

	for (size_t i = 0; i < s->n_syscalls; i++) {
		const struct oci_seccomp_syscall *sc = &s->syscalls[i];
		char where[64];

		snprintf(where, sizeof(where), "linux.seccomp.syscalls[%zu]", i);
		if (sc->names.n == 0)
			return clasp_error_set(err, 0, "%s.names: must contain at least one entry", where);
		if (check_action(sc->action, sc->errno_ret, where, "action", "errnoRet", err) < 0)
			return -1;
		for (size_t j = 0; j < sc->n_args; j++) {
			enum scmp_compare op;
			if (sc->args[j].index >= SECCOMP_MAX_ARGS)
				return clasp_error_set(err, 0, "%s.args[%zu].index: %u is out of range (0 to %d)",
						       where, j, sc->args[j].index, SECCOMP_MAX_ARGS - 1);
			if (scmp_op(sc->args[j].op, &op) < 0)
				return clasp_error_set(err, 0, "%s.args[%zu].op: unknown operator %d", where,
						       j, (int)sc->args[j].op);
		}
		if (sc->action != OCI_SCMP_NOTIFY)
			continue;
		*has_notify = true;
		for (size_t j = 0; j < sc->names.n; j++)
			if (is_post_load_syscall(sc->names.v[j]))
				return clasp_error_set(err, 0,
						       "%s.names[%zu]: \"%s\" runs after the filter is loaded "
						       "and cannot be a SCMP_ACT_NOTIFY target",
						       where, j, sc->names.v[j]);
	}

	if (s->listener_metadata && !s->listener_path)
		return clasp_error_set(err, 0,
				       "linux.seccomp.listenerMetadata: set without listenerPath");
	if (*has_notify && (!s->listener_path || !*s->listener_path))
		return clasp_error_set(err, 0,
				       "linux.seccomp.listenerPath: required when SCMP_ACT_NOTIFY is used");
	if (*has_notify && sockpath_check(s->listener_path, err) < 0)
		return clasp_error_prefix(err, "linux.seccomp.listenerPath");

	/* WAIT_KILLABLE_RECV qualifies the listener; without one the kernel
	 * refuses it, and there is nothing for it to change. */
	if (!*has_notify)
		*flags &= ~(unsigned int)SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
	return 0;
}

static struct scmp_arg_cmp arg_cmp(const struct oci_seccomp_arg *a)
{
	struct scmp_arg_cmp c = { .arg = a->index, .datum_a = a->value, .datum_b = a->value_two };
	scmp_op(a->op, &c.op); /* validated */
	return c;
}

static int add_rule(scmp_filter_ctx ctx, const struct oci_seccomp_syscall *sc, size_t i,
		    const char *name, int nr, uint32_t act, struct clasp_error *err)
{
	struct scmp_arg_cmp cmp[SECCOMP_MAX_ARGS];
	unsigned int count[SECCOMP_MAX_ARGS] = { 0 };
	bool repeated = false;
	int rc = 0;

	for (size_t j = 0; j < sc->n_args; j++)
		if (++count[sc->args[j].index] > 1)
			repeated = true;

	/* libseccomp cannot AND two comparisons of one argument; runc then
	 * adds one rule per comparison (an OR), and profiles are written for
	 * that behaviour (docker's personality and clone rules). */
	if (repeated) {
		for (size_t j = 0; j < sc->n_args && rc >= 0; j++) {
			cmp[0] = arg_cmp(&sc->args[j]);
			rc = seccomp_rule_add_array(ctx, act, nr, 1, cmp);
		}
	} else {
		/* No index repeats, so there are at most SECCOMP_MAX_ARGS. */
		for (size_t j = 0; j < sc->n_args; j++)
			cmp[j] = arg_cmp(&sc->args[j]);
		rc = seccomp_rule_add_array(ctx, act, nr, (unsigned int)sc->n_args, cmp);
	}
	if (rc < 0)
		return clasp_error_set(err, -rc, "linux.seccomp.syscalls[%zu]: adding rule for \"%s\"",
				       i, name);
	return 0;
}

static int export_bpf(scmp_filter_ctx ctx, struct sock_filter **insns, size_t *n,
		      struct clasp_error *err)
{
	_cleanup_close_ int fd = memfd_create("clasp-seccomp-bpf", MFD_CLOEXEC);
	_cleanup_free_ void *buf = NULL;
	off_t size;
	int rc;

	if (fd < 0)
		return clasp_error_set(err, errno, "memfd_create");
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0)
		return clasp_error_set(err, -rc, "exporting the seccomp filter");
	size = lseek(fd, 0, SEEK_END);
	if (size < 0)
		return clasp_error_set(err, errno, "seeking the exported seccomp filter");
	if (size == 0 || size % sizeof(struct sock_filter) != 0 ||
	    size / sizeof(struct sock_filter) > BPF_MAXINSNS)
		return clasp_error_set(err, 0,
				       "the compiled seccomp filter has %lld bytes, not 1 to %d instructions",
				       (long long)size, BPF_MAXINSNS);
	buf = malloc(size);
	if (!buf)
		return clasp_error_set(err, ENOMEM, "seccomp filter");
	for (off_t done = 0; done < size;) {
		ssize_t r = pread(fd, (char *)buf + done, size - done, done);
		if (r <= 0)
			return clasp_error_set(err, r < 0 ? errno : EIO, "reading the exported seccomp filter");
		done += r;
	}
	*insns = steal_pointer(&buf);
	*n = size / sizeof(struct sock_filter);
	return 0;
}

static void release_ctx(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

static int compile(const struct oci_seccomp *s, struct sock_filter **insns, size_t *n,
		   struct clasp_error *err)
{
	uint32_t def = scmp_action(s->default_action, s->default_errno_ret);
	__attribute__((cleanup(release_ctx))) scmp_filter_ctx ctx = seccomp_init(def);

	if (!ctx)
		return clasp_error_set(err, 0, "linux.seccomp.defaultAction: libseccomp refused %s",
				       action_name(s->default_action));

	for (size_t i = 0; i < s->architectures.n; i++) {
		uint32_t tok = 0;
		int rc;
		if (arch_token(s->architectures.v[i], i, &tok, err) < 0)
			return -1;
		rc = seccomp_arch_add(ctx, tok);
		if (rc < 0 && rc != -EEXIST)
			return clasp_error_set(err, -rc, "linux.seccomp.architectures[%zu]: adding \"%s\"",
					       i, s->architectures.v[i]);
	}

	for (size_t i = 0; i < s->n_syscalls; i++) {
		const struct oci_seccomp_syscall *sc = &s->syscalls[i];
		uint32_t act = scmp_action(sc->action, sc->errno_ret);

		/* libseccomp rejects a rule that repeats the default; it would
		 * change nothing, so runc drops it, and so do we. */
		if (act == def)
			continue;
		for (size_t j = 0; j < sc->names.n; j++) {
			int nr = seccomp_syscall_resolve_name(sc->names.v[j]);
			if (nr == __NR_SCMP_ERROR)
				continue; /* unknown to this libseccomp: skipped, as runc does */
			if (add_rule(ctx, sc, i, sc->names.v[j], nr, act, err) < 0)
				return -1;
		}
	}
	return export_bpf(ctx, insns, n, err);
}

int seccomp_prepare(const struct oci_seccomp *s, const char *cache_dir, struct seccomp_prog **out,
		    struct clasp_error *err)
{
	_cleanup_free_ struct seccomp_prog *p = calloc(1, sizeof(*p));
	char key[65];

	if (!s)
		return clasp_error_set(err, EINVAL, "seccomp_prepare: no profile");
	if (!p)
		return clasp_error_set(err, ENOMEM, "seccomp");
	if (validate(s, &p->flags, &p->has_notify, err) < 0)
		return -1;

	if (cache_dir) {
		void *bpf;
		size_t len;
		seccomp_cache_key(s, key);
		if (seccomp_cache_load(cache_dir, key, &bpf, &len) == 0) {
			p->insns = bpf;
			p->n_insns = len / sizeof(struct sock_filter);
			p->from_cache = true;
			*out = steal_pointer(&p);
			return 0;
		}
	}

	if (compile(s, &p->insns, &p->n_insns, err) < 0)
		return -1;
	if (cache_dir)
		(void)seccomp_cache_store(cache_dir, key, p->insns,
					  p->n_insns * sizeof(struct sock_filter));
	*out = steal_pointer(&p);
	return 0;
}

static const char *flag_name(unsigned int v)
{
	for (size_t k = 0; k < sizeof(seccomp_flags) / sizeof(seccomp_flags[0]); k++)
		if (seccomp_flags[k].value == v)
			return seccomp_flags[k].name;
	return "?";
}

static const char *flag_since(unsigned int v)
{
	for (size_t k = 0; k < sizeof(seccomp_flags) / sizeof(seccomp_flags[0]); k++)
		if (seccomp_flags[k].value == v)
			return seccomp_flags[k].since;
	return "?";
}

/* After EINVAL, find a flag this kernel does not know: the kernel checks the
 * flags before it reads the program, so a NULL program answers EFAULT for a
 * known flag and EINVAL for an unknown one, without loading anything. */
static int explain_einval(unsigned int flags, struct clasp_error *err)
{
	for (unsigned int bit = 1; bit && bit <= flags; bit <<= 1) {
		unsigned int probe = bit;
		if (!(flags & bit))
			continue;
		if (bit == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
			probe |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, probe, NULL) < 0 && errno == EINVAL)
			return clasp_error_set(err, 0,
					       "loading the seccomp filter: this kernel does not support %s "
					       "(needs Linux %s or later)",
					       flag_name(bit), flag_since(bit));
	}
	return clasp_error_set(err, EINVAL, "loading the seccomp filter (flags 0x%x)", flags);
}

int seccomp_install(const struct seccomp_prog *p, int *notify_fd, struct clasp_error *err)
{
	struct sock_fprog fprog = { .len = (unsigned short)p->n_insns, .filter = p->insns };
	unsigned int flags = p->flags;
	long r;

	*notify_fd = -1;
	if (p->has_notify) {
		flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
		/* TSYNC and NEW_LISTENER both use the return value; the kernel
		 * only accepts the pair when a failed sync reports ESRCH. */
		if (flags & SECCOMP_FILTER_FLAG_TSYNC)
			flags |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
	}

	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog);
	if (r < 0) {
		int e = errno;
		if (e == EINVAL)
			return explain_einval(flags, err);
		if (e == EACCES)
			return clasp_error_set(err, e,
					       "loading the seccomp filter needs no_new_privs or "
					       "CAP_SYS_ADMIN");
		if (e == ENOSYS)
			return clasp_error_set(err, e, "this kernel has no seccomp(2)");
		if (e == ESRCH)
			return clasp_error_set(err, e,
					       "loading the seccomp filter: another thread could not be "
					       "synchronized");
		return clasp_error_set(err, e, "loading the seccomp filter");
	}
	if (p->has_notify) {
		*notify_fd = (int)r;
	} else if (r > 0) {
		/* TSYNC without a listener returns the thread that failed. */
		return clasp_error_set(err, 0,
				       "loading the seccomp filter: thread %ld could not be synchronized",
				       r);
	}
	return 0;
}

bool seccomp_prog_has_notify(const struct seccomp_prog *p)
{
	return p && p->has_notify;
}

const void *seccomp_prog_bpf(const struct seccomp_prog *p, size_t *len)
{
	*len = p->n_insns * sizeof(struct sock_filter);
	return p->insns;
}

bool seccomp_prog_from_cache(const struct seccomp_prog *p)
{
	return p->from_cache;
}

void seccomp_prog_free(struct seccomp_prog *p)
{
	if (!p)
		return;
	free(p->insns);
	free(p);
}

int seccomp_listener_payload(const char *state_json, pid_t pid, const char *metadata, char **out,
			     struct clasp_error *err)
{
	struct json_gen *g = json_gen_new(false);
	const char *head;
	size_t hlen;
	char *buf;

	if (!g)
		return clasp_error_set(err, ENOMEM, "seccomp listener state");
	json_gen_object_open(g);
	json_gen_kv_string(g, "ociVersion", OCI_PROCESS_STATE_VERSION);
	json_gen_string(g, "fds");
	json_gen_array_open(g);
	json_gen_string(g, "seccompFd");
	json_gen_array_close(g);
	json_gen_kv_int(g, "pid", pid);
	if (metadata)
		json_gen_kv_string(g, "metadata", metadata);
	json_gen_object_close(g);
	head = json_gen_buf(g, &hlen);

	/* The runtime state is already a JSON document: splice it in as the
	 * last member rather than parse and re-generate it. */
	if (!head || hlen < 2 || head[hlen - 1] != '}') {
		json_gen_free(g);
		return clasp_error_set(err, 0, "seccomp listener state: generating JSON failed");
	}
	if (asprintf(&buf, "%.*s,\"state\":%s}", (int)(hlen - 1), head, state_json) < 0) {
		json_gen_free(g);
		return clasp_error_set(err, ENOMEM, "seccomp listener state");
	}
	json_gen_free(g);
	*out = buf;
	return 0;
}

int seccomp_send_listener(const char *listener_path, int notify_fd, const char *state_json,
			  struct clasp_error *err)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	_cleanup_close_ int sock = -1;
	size_t len = strlen(state_json), done;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = (void *)state_json, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
			      .msg_controllen = sizeof(control.buf) };
	struct cmsghdr *cmsg;
	ssize_t r;

	if (sockpath_check(listener_path, err) < 0)
		return clasp_error_prefix(err, "seccomp listener");
	if (len == 0)
		return clasp_error_set(err, 0, "seccomp listener: empty state");
	memcpy(addr.sun_path, listener_path, strlen(listener_path) + 1);

	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return clasp_error_set(err, errno, "seccomp listener: socket");
	if (connect(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return clasp_error_set(err, errno, "seccomp listener: connect to \"%s\"", listener_path);

	memset(&control, 0, sizeof(control));
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &notify_fd, sizeof(int));

	/* The fd rides on the first sendmsg only (as the spec requires);
	 * whatever a short write leaves goes out in plain sends. */
	do
		r = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return clasp_error_set(err, errno, "seccomp listener: sending to \"%s\"", listener_path);
	for (done = (size_t)r; done < len; done += (size_t)r) {
		r = send(sock, state_json + done, len - done, MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR) {
			r = 0;
			continue;
		}
		if (r < 0)
			return clasp_error_set(err, errno, "seccomp listener: sending to \"%s\"",
					       listener_path);
	}
	return 0;
}
