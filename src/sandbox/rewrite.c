/* sandbox_rewrite(): the pure step. The parsed policy becomes plain OCI
 * (mounts, namespaces, root.readonly, env, a prestart hook) on the typed
 * config, and a plan of the side effects sandbox_prepare() will perform.
 * Everything is validated before the config is touched. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/sandbox_int.h"
#include "util/sha256.h"

#define POLICY_FILE "egress-policy"

static const char *const pseudo_types[] = {"proc", "sysfs", "tmpfs", "devpts", "mqueue",
					   "cgroup", "cgroup2", NULL};

struct rw_state {
	struct oci_config *cfg;
	const struct sandbox_ctx *ctx;
	struct sb_policy *p;
	struct sandbox_plan *plan;
	char *bundle; /* clean */
	bool host_root;
};

static void add_check(struct sandbox_plan *plan, const char *path, const char *within,
		      const char *label, const char *message)
{
	struct arena *a = plan->arena;
	struct sandbox_check *c;
	size_t i;

	for (i = 0; i < plan->n_checks; i++)
		if (!strcmp(plan->checks[i].path, path) &&
		    ((!within && !plan->checks[i].within) ||
		     (within && plan->checks[i].within && !strcmp(within, plan->checks[i].within))))
			return;
	plan->checks = arena_append(a, plan->checks, plan->n_checks, sizeof *plan->checks);
	c = &plan->checks[plan->n_checks++];
	c->path = arena_strdup(a, path);
	c->within = within ? arena_strdup(a, within) : NULL;
	c->label = arena_strdup(a, label);
	c->message = message ? arena_strdup(a, message) : NULL;
}

/* Where the container must see host path `path` (in the workspace or in a
 * restore path): the path itself in place, its copy in copy mode. */
static const char *mapped_source(struct rw_state *s, const char *path)
{
	struct sandbox_plan *plan = s->plan;
	size_t i;

	if (!plan->copy)
		return path;
	for (i = 0; i < plan->n_syncs; i++)
		if (sb_path_within(path, plan->syncs[i].host))
			return sb_path_join(plan->arena, plan->syncs[i].copy,
					    sb_path_rel(path, plan->syncs[i].host));
	return path;
}

static void setup_copy(struct rw_state *s)
{
	struct sb_policy *p = s->p;
	struct sandbox_plan *plan = s->plan;
	struct arena *a = plan->arena;
	char hash[65];
	size_t i, j;

	sha256_hex(s->ctx->state_dir, strlen(s->ctx->state_dir), hash);
	hash[8] = '\0';
	plan->copy_base = arena_printf(a, "%s/.clasp-copy-%s-%s", strcmp(p->copy_dir, "/") ? p->copy_dir : "",
				       s->ctx->id, hash);
	plan->syncs = arena_alloc(a, (p->n_restore + 1) * sizeof *plan->syncs);
	plan->syncs[0].host = arena_strdup(a, p->workspace);
	plan->syncs[0].copy = arena_printf(a, "%s/workspace", plan->copy_base);
	plan->n_syncs = 1;
	for (i = 0; i < p->n_restore; i++) {
		const char *r = p->restore[i];
		bool used = false, nested = false;

		if (sb_path_within(r, p->workspace))
			continue; /* written back with the workspace */
		for (j = 0; j < p->n_restore; j++)
			if (j != i && sb_path_within(r, p->restore[j]) &&
			    (strcmp(r, p->restore[j]) || j < i))
				nested = true;
		for (j = 0; j < p->n_extras; j++)
			used = used || (p->extras[j].rw && sb_path_within(p->extras[j].path, r));
		/* Only trees the agent can write are worth a copy. */
		if (nested || !used)
			continue;
		plan->syncs[plan->n_syncs].host = arena_strdup(a, r);
		plan->syncs[plan->n_syncs].copy = arena_printf(a, "%s/restore-%zu", plan->copy_base,
							       plan->n_syncs);
		plan->n_syncs++;
	}
}

static bool has_opt(const struct oci_mount *mt, const char *o)
{
	size_t i;
	for (i = 0; i < mt->options.n; i++)
		if (!strcmp(mt->options.v[i], o))
			return true;
	return false;
}

static void add_opt(struct arena *a, struct oci_mount *mt, const char *o)
{
	char **v;

	if (has_opt(mt, o))
		return;
	v = arena_alloc(a, (mt->options.n + 2) * sizeof *v);
	if (mt->options.n)
		memcpy(v, mt->options.v, mt->options.n * sizeof *v);
	v[mt->options.n++] = arena_strdup(a, o);
	mt->options.v = v;
}

/* A bind mount from config.json under fs.scope: allowed from the workspace,
 * an extra path, the bundle or a client's per-container directory. */
static int check_config_bind(struct rw_state *s, size_t idx, struct oci_mount *out, struct clasp_error *err)
{
	struct arena *a = s->cfg->arena;
	struct sb_policy *p = s->p;
	const char *raw = out->source;
	char *src = NULL, *client, what[64];
	size_t i;

	snprintf(what, sizeof what, ".mounts[%zu]", idx);
	if (!raw || !*raw)
		return clasp_error_set(err, 0, "%s: %s: bind mount without a source", K_FS_SCOPE, what);
	if (raw[0] != '/')
		raw = arena_printf(a, "%s/%s", s->bundle, raw);
	if (sb_path_clean(a, what, raw, true, &src, err) < 0)
		return clasp_error_prefix(err, "%s", K_FS_SCOPE);
	if (p->workspace && sb_path_within(src, p->workspace)) {
		add_check(s->plan, src, p->workspace, what, NULL);
		out->source = arena_strdup(a, mapped_source(s, src));
		if (!p->workspace_rw)
			add_opt(a, out, "ro");
		return 0;
	}
	for (i = 0; i < p->n_extras; i++)
		if (sb_path_within(src, p->extras[i].path)) {
			add_check(s->plan, src, p->extras[i].path, what, NULL);
			out->source = arena_strdup(a, mapped_source(s, src));
			if (!p->extras[i].rw)
				add_opt(a, out, "ro");
			return 0;
		}
	if (sb_path_within(src, s->bundle)) {
		add_check(s->plan, src, s->bundle, what, NULL);
		return 0;
	}
	if ((client = sb_client_dir(a, s->cfg, s->ctx, src))) {
		add_check(s->plan, src, client, what, NULL);
		return 0;
	}
	return clasp_error_set(err, 0,
			       "%s=workspace: %s: bind mount of host path \"%s\" at \"%s\" is not allowed; declare it in %s",
			       K_FS_SCOPE, what, src, out->destination ? out->destination : "", K_FS_EXTRA);
}

static int rewrite_config_mounts(struct rw_state *s, struct sb_mounts *kept, struct clasp_error *err)
{
	struct oci_config *cfg = s->cfg;
	struct arena *a = cfg->arena;
	size_t i, j;

	for (i = 0; i < cfg->n_mounts; i++) {
		struct oci_mount mt = cfg->mounts[i];
		bool bind = sb_mount_is_bind(&mt), pseudo = false;
		char *dest = NULL;

		if (mt.destination)
			sb_path_clean(a, "", mt.destination, true, &dest, NULL);
		if (s->p->fs_scope) {
			if (dest && !strcmp(dest, "/tmp"))
				continue; /* replaced by the private /tmp */
			if (s->host_root && !bind)
				continue; /* replaced by the view's own /proc and /dev */
			if (bind) {
				if (check_config_bind(s, i, &mt, err) < 0)
					return -1;
			} else {
				for (j = 0; pseudo_types[j]; j++)
					pseudo = pseudo || (mt.type && !strcmp(mt.type, pseudo_types[j]));
				if (!pseudo)
					return clasp_error_set(err, 0,
							       "%s=workspace: .mounts[%zu]: mount of type \"%s\" from \"%s\" is not allowed",
							       K_FS_SCOPE, i, mt.type ? mt.type : "",
							       mt.source ? mt.source : "");
			}
		} else if (bind && s->plan->copy && mt.source && mt.source[0] == '/') {
			/* Never the authoritative tree behind the copy's back. */
			char *src = NULL;
			if (sb_path_clean(a, "", mt.source, true, &src, NULL) == 0)
				mt.source = arena_strdup(a, mapped_source(s, src));
		}
		kept->v = arena_append(a, kept->v, kept->n, sizeof *kept->v);
		kept->v[kept->n++] = mt;
	}
	return 0;
}

static int check_namespaces(struct rw_state *s, struct clasp_error *err)
{
	struct oci_config *cfg = s->cfg;
	const struct oci_namespace *pid = NULL, *mnt = NULL, *net = NULL;
	size_t i;

	for (i = 0; i < cfg->linux_.n_namespaces; i++) {
		const struct oci_namespace *ns = &cfg->linux_.namespaces[i];
		if (ns->type == OCI_NS_PID)
			pid = ns;
		else if (ns->type == OCI_NS_MOUNT)
			mnt = ns;
		else if (ns->type == OCI_NS_NETWORK)
			net = ns;
	}
	if (s->p->fs_scope) {
		if (!mnt || mnt->path)
			return clasp_error_set(err, 0, "%s=workspace requires a new mount namespace (linux.namespaces: {\"type\":\"mount\"} without a path)",
					       K_FS_SCOPE);
		if (!pid || pid->path)
			return clasp_error_set(err, 0, "%s=workspace requires a new pid namespace: with the host's, /proc/<pid>/root opens the host filesystem (linux.namespaces: {\"type\":\"pid\"} without a path)",
					       K_FS_SCOPE);
	}
	if (s->p->net != SB_NET_OFF && net && net->path) {
		const char *ctype = sb_annotation(cfg, "io.kubernetes.cri.container-type");
		/* A pod's app containers join the netns the sandbox container
		 * made; sandbox_check_netns_join() proves it is a clasp one. */
		if (ctype && !strcmp(ctype, "container") && sb_annotation(cfg, "io.kubernetes.cri.sandbox-id")) {
			s->plan->netns_join = arena_strdup(s->plan->arena, net->path);
			return 0;
		}
		return clasp_error_set(err, 0,
				       "%s: joining the existing network namespace \"%s\" is not allowed; let the runtime create one (podman --network=none)",
				       K_NET_SCOPE, net->path);
	}
	return 0;
}

static void add_netns(struct oci_config *cfg)
{
	struct oci_linux *l = &cfg->linux_;
	size_t i;

	for (i = 0; i < l->n_namespaces; i++)
		if (l->namespaces[i].type == OCI_NS_NETWORK)
			return;
	l->namespaces = arena_append(cfg->arena, l->namespaces, l->n_namespaces, sizeof *l->namespaces);
	l->namespaces[l->n_namespaces].type = OCI_NS_NETWORK;
	l->namespaces[l->n_namespaces].path = NULL;
	l->n_namespaces++;
	cfg->has_linux = true;
}

static int cmp_depth(const void *x, const void *y)
{
	const struct oci_mount *a = x, *b = y;
	size_t da = sb_path_depth(a->destination), db = sb_path_depth(b->destination);
	return da < db ? -1 : da > db;
}

/* The workspace, the extra paths and the aliases, parents first. */
static void add_sandbox_mounts(struct rw_state *s, struct sb_mounts *m)
{
	struct arena *a = s->cfg->arena;
	struct sb_policy *p = s->p;
	const char *ws_opts[] = {"rbind", "nosuid", "nodev", p->workspace_rw ? "rw" : "ro", NULL};
	const char *ro_opts[] = {"rbind", "nosuid", "nodev", "ro", NULL};
	const char *rw_opts[] = {"rbind", "nosuid", "nodev", "rw", NULL};
	struct sb_mounts add = {0};
	size_t i;

	if (!p->workspace)
		return;
	sb_mounts_add(a, &add, p->target, "bind", mapped_source(s, p->workspace), ws_opts);
	add_check(s->plan, p->workspace, NULL, K_FS_WORKSPACE, NULL);
	for (i = 0; i < p->n_extras; i++) {
		char label[64];
		snprintf(label, sizeof label, "%s[%zu]", K_FS_EXTRA, i);
		/* In copy mode the container sees only copies, read-only ones too. */
		sb_mounts_add(a, &add, p->extras[i].path, "bind", mapped_source(s, p->extras[i].path),
			      p->extras[i].rw ? rw_opts : ro_opts);
		add_check(s->plan, p->extras[i].path, NULL, label, NULL);
	}
	for (i = 0; i < p->n_aliases; i++) {
		char label[64], *msg;
		snprintf(label, sizeof label, "%s[%zu]", K_WS_ALIASES, i);
		msg = arena_printf(a, "%s: Sandbox path alias \"%s\" must target the synchronized workspace \"%s\".",
				   label, p->aliases[i].path, p->workspace);
		sb_mounts_add(a, &add, p->aliases[i].path, "bind", mapped_source(s, p->aliases[i].target), ws_opts);
		add_check(s->plan, p->aliases[i].target, p->workspace, label, msg);
	}
	qsort(add.v, add.n, sizeof *add.v, cmp_depth);
	for (i = 0; i < add.n; i++) {
		m->v = arena_append(a, m->v, m->n, sizeof *m->v);
		m->v[m->n++] = add.v[i];
	}
}

static int set_network(struct rw_state *s, struct clasp_error *err)
{
	struct oci_config *cfg = s->cfg;
	struct sandbox_plan *plan = s->plan;
	struct sb_policy *p = s->p;
	struct oci_hook_list *pre = &cfg->hooks[OCI_HOOK_PRESTART];
	struct oci_hook *h;
	char url[64];
	size_t i;

	if (p->net == SB_NET_OFF)
		return 0;
	if (!plan->netns_join)
		add_netns(cfg);
	if (p->net == SB_NET_DENY) {
		snprintf(plan->net_digest, sizeof plan->net_digest, "deny");
		return 0;
	}
	egress_policy_init(&plan->policy);
	plan->policy.port = p->port;
	for (i = 0; i < p->n_rules; i++)
		if (egress_policy_add_rule(&plan->policy, &p->rules[i], err) < 0)
			return -1;
	{
		char d[17];
		egress_policy_digest(&plan->policy, d);
		snprintf(plan->net_digest, sizeof plan->net_digest, "allowlist:%s:%u", d, p->port);
	}
	snprintf(url, sizeof url, "http://127.0.0.1:%u", p->port);
	if (cfg->process) {
		const char *vars[] = {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", NULL};
		for (i = 0; vars[i]; i++)
			sb_env_set(cfg->arena, &cfg->process->env, vars[i], url);
		sb_env_set(cfg->arena, &cfg->process->env, "NO_PROXY", "");
		sb_env_set(cfg->arena, &cfg->process->env, "no_proxy", "");
		sb_env_set(cfg->arena, &cfg->process->env, "NODE_USE_ENV_PROXY", "1");
	}
	/* The pod's netns creator runs the proxy; joiners share it. */
	if (plan->netns_join)
		return 0;
	if (!s->ctx->egress_hook || s->ctx->egress_hook[0] != '/')
		return clasp_error_set(err, 0, "%s=allowlist needs the clasp-egress hook binary, which was not found",
				       K_NET_SCOPE);
	plan->write_policy = true;
	plan->policy_path = arena_printf(plan->arena, "%s/%s", s->ctx->state_dir, POLICY_FILE);
	plan->policy.audit_log = p->audit_log ? strdup(p->audit_log) : NULL;
	plan->policy.state_dir = strdup(s->ctx->state_dir);
	if ((p->audit_log && !plan->policy.audit_log) || !plan->policy.state_dir)
		return clasp_error_set(err, ENOMEM, "egress policy");

	/* First, so that later prestart hooks already see the proxy. */
	h = arena_alloc(cfg->arena, (pre->n + 1) * sizeof *h);
	if (pre->n)
		memcpy(h + 1, pre->v, pre->n * sizeof *h);
	h[0].path = arena_strdup(cfg->arena, s->ctx->egress_hook);
	h[0].args.v = arena_alloc(cfg->arena, 5 * sizeof(char *));
	h[0].args.v[0] = h[0].path;
	h[0].args.v[1] = arena_strdup(cfg->arena, "hook");
	h[0].args.v[2] = arena_strdup(cfg->arena, "--policy");
	h[0].args.v[3] = arena_strdup(cfg->arena, plan->policy_path);
	h[0].args.n = 4;
	h[0].timeout.set = true;
	h[0].timeout.v = 30;
	pre->v = h;
	pre->n++;
	return 0;
}

static int check_devices(struct oci_config *cfg, struct clasp_error *err)
{
	size_t i;

	for (i = 0; i < cfg->linux_.n_devices; i++)
		if (cfg->linux_.devices[i].type == 'b')
			return clasp_error_set(err, 0, "%s=workspace: .linux.devices[%zu]: block device \"%s\" is not allowed",
					       K_FS_SCOPE, i, cfg->linux_.devices[i].path);
	return 0;
}

static int rewrite(struct rw_state *s, struct clasp_error *err)
{
	struct oci_config *cfg = s->cfg;
	struct sb_policy *p = s->p;
	struct sandbox_plan *plan = s->plan;
	struct sb_mounts kept = {0}, out = {0};
	const char *tmp[] = {"nosuid", "nodev", "mode=1777", NULL};
	size_t i;

	if (!s->ctx->state_dir || s->ctx->state_dir[0] != '/' || !s->ctx->id || !s->ctx->bundle)
		return clasp_error_set(err, EINVAL, "sandbox: missing container id, bundle or state dir");
	if (sb_path_clean(cfg->arena, "bundle", s->ctx->bundle, true, &s->bundle, err) < 0)
		return -1;
	plan->id = arena_strdup(plan->arena, s->ctx->id);
	plan->state_dir = arena_strdup(plan->arena, s->ctx->state_dir);
	plan->copy = p->copy;
	plan->workspace = p->workspace ? arena_strdup(plan->arena, p->workspace) : NULL;

	if (check_namespaces(s, err) < 0)
		return -1;
	if (p->fs_scope && check_devices(cfg, err) < 0)
		return -1;
	if (p->copy)
		setup_copy(s);
	s->host_root = p->fs_scope && sb_root_is_host(cfg, s->ctx);
	if (rewrite_config_mounts(s, &kept, err) < 0)
		return -1;
	if (s->host_root && sb_hostroot_build(cfg, s->ctx, plan, &out, err) < 0)
		return -1;
	if (p->fs_scope) {
		sb_mounts_add(cfg->arena, &out, "/tmp", "tmpfs", "tmpfs", tmp);
		cfg->root_readonly = true;
	}
	for (i = 0; i < kept.n; i++) {
		out.v = arena_append(cfg->arena, out.v, out.n, sizeof *out.v);
		out.v[out.n++] = kept.v[i];
	}
	add_sandbox_mounts(s, &out);
	/* Scrub before the proxy and workspace variables are set. */
	if (cfg->process)
		sb_env_scrub(cfg->arena, &cfg->process->env, p->net != SB_NET_OFF);
	if (set_network(s, err) < 0)
		return -1;
	cfg->mounts = out.v;
	cfg->n_mounts = out.n;

	if (s->host_root)
		sb_hostroot_skeleton(cfg, plan);
	return 0;
}

int sandbox_rewrite(struct oci_config *cfg, const struct sandbox_ctx *ctx, struct sandbox_plan **out,
		    struct clasp_error *err)
{
	struct sb_policy p;
	struct sandbox_plan *plan;
	struct rw_state s = {.cfg = cfg, .ctx = ctx, .p = &p};

	*out = NULL;
	plan = sb_plan_new();
	if (!plan)
		return clasp_error_set(err, ENOMEM, "sandbox plan");
	if (sb_policy_parse(cfg, plan->arena, &p, err) < 0) {
		sandbox_plan_free(plan);
		return -1;
	}
	if (!p.any) {
		sandbox_plan_free(plan);
		return 0;
	}
	s.plan = plan;
	if (rewrite(&s, err) < 0) {
		sandbox_plan_free(plan);
		return -1;
	}
	if (cfg->process && p.workspace) {
		sb_env_set(cfg->arena, &cfg->process->env, "PAPERCLIP_WORKSPACE_REALIZATION_MODE",
			   p.copy ? "copy" : "in_place");
		sb_env_set(cfg->arena, &cfg->process->env, "PAPERCLIP_WORKSPACE_ROOT", p.target);
	}
	*out = plan;
	return 0;
}
