/* Parsing and validation of the ing.paperclip.* annotation values into a
 * struct sb_policy. Every error names the key (and index for lists); the
 * texts are normative (spec/annotations.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/sandbox_int.h"
#include "util/json.h"

static const char *const known_keys[] = {
	K_FS_SCOPE,  K_FS_WORKSPACE, K_FS_TARGET, K_FS_ACCESS,  K_FS_EXTRA,   K_NET_SCOPE,  K_NET_ALLOW,
	K_NET_TRUSTED, K_NET_PORT,   K_NET_AUDIT, K_WS_REAL,    K_WS_ALIASES, K_WS_RESTORE, K_WS_COPYDIR,
};

const char *sb_annotation(const struct oci_config *cfg, const char *key)
{
	const char *v = NULL;
	size_t i;

	/* The last one wins, as with JSON object keys. */
	for (i = 0; i < cfg->annotations.n; i++)
		if (strcmp(cfg->annotations.v[i].key, key) == 0)
			v = cfg->annotations.v[i].value;
	return v;
}

static int parse_json(const char *key, const char *value, enum json_type want, struct json **out,
		      struct clasp_error *err)
{
	if (json_parse(value, strlen(value), out, err) < 0)
		return clasp_error_prefix(err, "%s: invalid JSON", key);
	if (json_type(*out) != want) {
		clasp_error_set(err, 0, "%s: expected a JSON %s, got %s", key,
				json_type_name(want), json_type_name(json_type(*out)));
		json_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* An object item: only `allowed` fields, all strings. */
static int check_fields(const char *key, size_t i, const struct json *o, const char *const *allowed,
			struct clasp_error *err)
{
	size_t k, j;

	for (k = 0; k < json_object_len(o); k++) {
		const char *name = json_object_key(o, k);
		bool ok = false;
		for (j = 0; allowed[j]; j++)
			ok = ok || strcmp(name, allowed[j]) == 0;
		if (!ok)
			return clasp_error_set(err, 0, "%s[%zu]: unknown field \"%s\"", key, i, name);
		if (json_type(json_object_value(o, k)) != JSON_STRING)
			return clasp_error_set(err, 0, "%s[%zu].%s: expected a string", key, i, name);
	}
	return 0;
}

static int parse_extras(struct arena *a, const char *value, struct sb_policy *p, struct clasp_error *err)
{
	static const char *const fields[] = {"path", "access", NULL};
	struct json *root = NULL;
	size_t i, n;
	int r = -1;

	if (parse_json(K_FS_EXTRA, value, JSON_ARRAY, &root, err) < 0)
		return -1;
	n = json_array_len(root);
	p->extras = arena_alloc(a, (n + 1) * sizeof *p->extras);
	for (i = 0; i < n; i++) {
		const struct json *it = json_array_at(root, i);
		const char *path = NULL, *access = "ro";
		char what[96];

		snprintf(what, sizeof what, "%s[%zu]", K_FS_EXTRA, i);
		if (json_type(it) == JSON_STRING) {
			path = json_string(it);
		} else if (json_type(it) == JSON_OBJECT) {
			if (check_fields(K_FS_EXTRA, i, it, fields, err) < 0)
				goto out;
			path = json_string(json_get(it, "path"));
			if (json_get(it, "access"))
				access = json_string(json_get(it, "access"));
			if (!path) {
				clasp_error_set(err, 0, "%s: missing \"path\"", what);
				goto out;
			}
		} else {
			clasp_error_set(err, 0, "%s: expected a path string or {\"path\":...,\"access\":...}", what);
			goto out;
		}
		if (strcmp(access, "ro") && strcmp(access, "rw")) {
			clasp_error_set(err, 0, "%s.access: expected \"ro\" or \"rw\", got \"%s\"", what, access);
			goto out;
		}
		if (sb_path_clean(a, what, path, false, &p->extras[i].path, err) < 0)
			goto out;
		p->extras[i].rw = strcmp(access, "rw") == 0;
		p->n_extras++;
	}
	r = 0;
out:
	json_free(root);
	return r;
}

static int parse_aliases(struct arena *a, const char *value, struct sb_policy *p, struct clasp_error *err)
{
	static const char *const fields[] = {"path", "target", NULL};
	struct json *root = NULL;
	size_t i, n;
	int r = -1;

	if (parse_json(K_WS_ALIASES, value, JSON_ARRAY, &root, err) < 0)
		return -1;
	n = json_array_len(root);
	p->aliases = arena_alloc(a, (n + 1) * sizeof *p->aliases);
	for (i = 0; i < n; i++) {
		const struct json *it = json_array_at(root, i);
		char what[96];

		snprintf(what, sizeof what, "%s[%zu]", K_WS_ALIASES, i);
		if (json_type(it) != JSON_OBJECT) {
			clasp_error_set(err, 0, "%s: expected {\"path\":...,\"target\":...}", what);
			goto out;
		}
		if (check_fields(K_WS_ALIASES, i, it, fields, err) < 0)
			goto out;
		if (!json_get(it, "path") || !json_get(it, "target")) {
			clasp_error_set(err, 0, "%s: needs both \"path\" and \"target\"", what);
			goto out;
		}
		snprintf(what, sizeof what, "%s[%zu].path", K_WS_ALIASES, i);
		if (sb_path_clean(a, what, json_string(json_get(it, "path")), false, &p->aliases[i].path, err) < 0)
			goto out;
		snprintf(what, sizeof what, "%s[%zu].target", K_WS_ALIASES, i);
		if (sb_path_clean(a, what, json_string(json_get(it, "target")), false, &p->aliases[i].target,
				  err) < 0)
			goto out;
		p->n_aliases++;
	}
	r = 0;
out:
	json_free(root);
	return r;
}

static int parse_restore(struct arena *a, const char *value, struct sb_policy *p, struct clasp_error *err)
{
	struct json *root = NULL;
	size_t i, n;
	int r = -1;

	if (parse_json(K_WS_RESTORE, value, JSON_ARRAY, &root, err) < 0)
		return -1;
	n = json_array_len(root);
	p->restore = arena_alloc(a, (n + 1) * sizeof *p->restore);
	for (i = 0; i < n; i++) {
		const struct json *it = json_array_at(root, i);
		char what[96];

		snprintf(what, sizeof what, "%s[%zu]", K_WS_RESTORE, i);
		if (json_type(it) != JSON_STRING) {
			clasp_error_set(err, 0, "%s: expected an absolute path string", what);
			goto out;
		}
		if (sb_path_clean(a, what, json_string(it), false, &p->restore[i], err) < 0)
			goto out;
		p->n_restore++;
	}
	r = 0;
out:
	json_free(root);
	return r;
}

static int parse_rules(struct arena *a, const char *key, const char *value, bool trusted,
		       struct sb_policy *p, struct clasp_error *err)
{
	struct json *root = NULL;
	size_t i, n;
	int r = -1;

	if (parse_json(key, value, JSON_ARRAY, &root, err) < 0)
		return -1;
	n = json_array_len(root);
	if (n) {
		struct netrule *nr = arena_alloc(a, (p->n_rules + n) * sizeof *nr);
		if (p->n_rules)
			memcpy(nr, p->rules, p->n_rules * sizeof *nr);
		p->rules = nr;
	}
	for (i = 0; i < n; i++) {
		const struct json *it = json_array_at(root, i);
		struct netrule *rule = &p->rules[p->n_rules];

		if (json_type(it) != JSON_STRING) {
			clasp_error_set(err, 0, "%s[%zu]: expected a string", key, i);
			goto out;
		}
		if ((trusted ? netrule_parse_trusted(json_string(it), rule, err)
			     : netrule_parse_allow(json_string(it), rule, err)) < 0) {
			clasp_error_prefix(err, "%s[%zu]", key, i);
			goto out;
		}
		p->n_rules++;
		if (trusted)
			p->n_trusted++;
		else
			p->n_allow++;
	}
	r = 0;
out:
	json_free(root);
	return r;
}

static bool is_loopback_host(const char *h)
{
	return strncmp(h, "127.", 4) == 0 || strcmp(h, "::1") == 0 || strcmp(h, "localhost") == 0;
}

static int parse_net(const struct oci_config *cfg, struct arena *a, struct sb_policy *p,
		     struct clasp_error *err)
{
	const char *scope = sb_annotation(cfg, K_NET_SCOPE);
	const char *allow = sb_annotation(cfg, K_NET_ALLOW), *trusted = sb_annotation(cfg, K_NET_TRUSTED);
	const char *port = sb_annotation(cfg, K_NET_PORT), *audit = sb_annotation(cfg, K_NET_AUDIT);
	size_t i;

	p->port = EGRESS_DEFAULT_PORT;
	if (scope && strcmp(scope, "deny") == 0)
		p->net = SB_NET_DENY;
	else if (scope && strcmp(scope, "allowlist") == 0)
		p->net = SB_NET_ALLOW;
	else if (scope)
		return clasp_error_set(err, 0, "%s: expected \"deny\" or \"allowlist\", got \"%s\"",
				       K_NET_SCOPE, scope);

	/* Proxy settings without the proxy are a mistake in the bundle; say so
	 * rather than ignore them. */
	if (p->net != SB_NET_ALLOW) {
		const char *keys[] = {K_NET_ALLOW, K_NET_TRUSTED, K_NET_PORT, K_NET_AUDIT};
		for (i = 0; i < 4; i++)
			if (sb_annotation(cfg, keys[i]))
				return clasp_error_set(err, 0, "%s: requires %s=allowlist", keys[i],
						       K_NET_SCOPE);
		return 0;
	}
	if (allow && parse_rules(a, K_NET_ALLOW, allow, false, p, err) < 0)
		return -1;
	if (trusted && parse_rules(a, K_NET_TRUSTED, trusted, true, p, err) < 0)
		return -1;
	if (p->n_rules == 0)
		return clasp_error_set(err, 0,
				       "%s: %s=allowlist needs at least one allowlist entry or trusted URL",
				       K_NET_ALLOW, K_NET_SCOPE);
	if (port && netrule_parse_port(port, strlen(port), &p->port, err) < 0)
		return clasp_error_prefix(err, "%s", K_NET_PORT);
	for (i = p->n_allow; i < p->n_rules; i++)
		if (p->rules[i].port == p->port && is_loopback_host(p->rules[i].host))
			return clasp_error_set(err, 0,
					       "%s[%zu]: port %u is the proxy port (%s); pick another proxy port",
					       K_NET_TRUSTED, i - p->n_allow, p->port, K_NET_PORT);
	if (audit && sb_path_clean(a, K_NET_AUDIT, audit, false, &p->audit_log, err) < 0)
		return -1;
	return 0;
}

static int parse_fs(const struct oci_config *cfg, struct arena *a, struct sb_policy *p,
		    struct clasp_error *err)
{
	const char *scope = sb_annotation(cfg, K_FS_SCOPE), *ws = sb_annotation(cfg, K_FS_WORKSPACE);
	const char *target = sb_annotation(cfg, K_FS_TARGET), *access = sb_annotation(cfg, K_FS_ACCESS);
	const char *extra = sb_annotation(cfg, K_FS_EXTRA), *real = sb_annotation(cfg, K_WS_REAL);
	const char *aliases = sb_annotation(cfg, K_WS_ALIASES), *restore = sb_annotation(cfg, K_WS_RESTORE);
	const char *copydir = sb_annotation(cfg, K_WS_COPYDIR);

	if (scope && strcmp(scope, "workspace"))
		return clasp_error_set(err, 0, "%s: expected \"workspace\", got \"%s\"", K_FS_SCOPE, scope);
	p->fs_scope = scope != NULL;
	if (real && strcmp(real, "in_place") && strcmp(real, "copy"))
		return clasp_error_set(err, 0, "%s: expected \"in_place\" or \"copy\", got \"%s\"", K_WS_REAL,
				       real);
	p->copy = real && strcmp(real, "copy") == 0;

	if (!ws) {
		if (scope || real || aliases || restore || copydir)
			return clasp_error_set(err, 0,
					       "%s: required when %s or ing.paperclip.workspace.* is set",
					       K_FS_WORKSPACE, K_FS_SCOPE);
		if (target || access || extra)
			return clasp_error_set(err, 0, "%s: requires %s", target ? K_FS_TARGET
									 : access ? K_FS_ACCESS
										  : K_FS_EXTRA,
					       K_FS_WORKSPACE);
		return 0;
	}
	if (sb_path_clean(a, K_FS_WORKSPACE, ws, false, &p->workspace, err) < 0)
		return -1;
	p->target = p->workspace;
	if (target && sb_path_clean(a, K_FS_TARGET, target, false, &p->target, err) < 0)
		return -1;
	if (access && strcmp(access, "rw") && strcmp(access, "ro"))
		return clasp_error_set(err, 0, "%s: expected \"rw\" or \"ro\", got \"%s\"", K_FS_ACCESS, access);
	p->workspace_rw = !access || strcmp(access, "rw") == 0;
	if (extra && !p->fs_scope)
		return clasp_error_set(err, 0, "%s: requires %s=workspace", K_FS_EXTRA, K_FS_SCOPE);
	if (extra && parse_extras(a, extra, p, err) < 0)
		return -1;
	if (aliases && parse_aliases(a, aliases, p, err) < 0)
		return -1;
	if ((restore || copydir) && !p->copy)
		return clasp_error_set(err, 0, "%s: requires %s=copy", restore ? K_WS_RESTORE : K_WS_COPYDIR,
				       K_WS_REAL);
	if (restore && parse_restore(a, restore, p, err) < 0)
		return -1;
	if (copydir && sb_path_clean(a, K_WS_COPYDIR, copydir, true, &p->copy_dir, err) < 0)
		return -1;
	return 0;
}

/* Cross-key rules, once every value parsed. */
static int check_policy(struct arena *a, struct sb_policy *p, struct clasp_error *err)
{
	size_t i, j;

	for (i = 0; i < p->n_aliases; i++)
		if (!sb_path_within(p->aliases[i].target, p->workspace))
			return clasp_error_set(err, 0,
					       "%s[%zu]: Sandbox path alias \"%s\" must target the synchronized workspace \"%s\".",
					       K_WS_ALIASES, i, p->aliases[i].path, p->workspace);
	if (p->copy) {
		if (!p->copy_dir) {
			char *slash = strrchr(p->workspace, '/');
			p->copy_dir = slash == p->workspace ? arena_strdup(a, "/")
							    : arena_strndup(a, p->workspace,
									    (size_t)(slash - p->workspace));
		}
		for (i = 0; i < p->n_restore; i++)
			if (sb_path_within(p->workspace, p->restore[i]))
				return clasp_error_set(err, 0, "%s[%zu]: \"%s\" must not contain the workspace \"%s\"",
						       K_WS_RESTORE, i, p->restore[i], p->workspace);
		if (sb_path_within(p->copy_dir, p->workspace))
			return clasp_error_set(err, 0, "%s: \"%s\" must not be inside the workspace \"%s\"",
					       K_WS_COPYDIR, p->copy_dir, p->workspace);
		for (i = 0; i < p->n_restore; i++)
			if (sb_path_within(p->copy_dir, p->restore[i]))
				return clasp_error_set(err, 0,
						       "%s: \"%s\" must not be inside the restore path \"%s\"",
						       K_WS_COPYDIR, p->copy_dir, p->restore[i]);
		for (i = 0; i < p->n_extras; i++) {
			bool mapped = sb_path_within(p->extras[i].path, p->workspace);
			for (j = 0; !mapped && j < p->n_restore; j++)
				mapped = sb_path_within(p->extras[i].path, p->restore[j]);
			if (p->extras[i].rw && !mapped)
				return clasp_error_set(err, 0,
						       "%s[%zu]: Writable sandbox path \"%s\" is outside synchronized workspace \"%s\" and has no outbound restore mapping.",
						       K_FS_EXTRA, i, p->extras[i].path, p->workspace);
		}
	}
	/* The agent must not be able to forge its own audit trail. */
	if (p->audit_log && p->workspace && p->workspace_rw && sb_path_within(p->audit_log, p->workspace))
		return clasp_error_set(err, 0, "%s: \"%s\" must not be inside the writable workspace", K_NET_AUDIT,
				       p->audit_log);
	for (i = 0; p->audit_log && i < p->n_extras; i++)
		if (p->extras[i].rw && sb_path_within(p->audit_log, p->extras[i].path))
			return clasp_error_set(err, 0, "%s: \"%s\" must not be inside the writable path \"%s\"",
					       K_NET_AUDIT, p->audit_log, p->extras[i].path);
	return 0;
}

int sb_policy_parse(const struct oci_config *cfg, struct arena *a, struct sb_policy *p,
		    struct clasp_error *err)
{
	size_t i, j;

	memset(p, 0, sizeof *p);
	for (i = 0; i < cfg->annotations.n; i++) {
		const char *k = cfg->annotations.v[i].key;
		bool known = false;

		if (strncmp(k, SANDBOX_PREFIX, strlen(SANDBOX_PREFIX)) != 0)
			continue;
		p->any = true;
		for (j = 0; j < sizeof known_keys / sizeof known_keys[0]; j++)
			known = known || strcmp(k, known_keys[j]) == 0;
		if (!known)
			return clasp_error_set(err, 0,
					       "%s: unknown annotation under %s (see spec/annotations.md)", k,
					       SANDBOX_PREFIX);
	}
	if (!p->any)
		return 0;
	if (parse_fs(cfg, a, p, err) < 0 || parse_net(cfg, a, p, err) < 0)
		return -1;
	return p->workspace ? check_policy(a, p, err) : 0;
}
