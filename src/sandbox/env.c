/* Env hygiene: host-only secrets and stale proxy settings never reach the
 * agent (spec/annotations.md, "Env hygiene"). */
#include <string.h>

#include "sandbox/sandbox_int.h"

static const char *const scrub_exact[] = {
	"PAPERCLIPAI_CMD", "DATABASE_URL", "DATABASE_MIGRATION_URL", "PGPASSWORD",
	"PGPASSFILE", "POSTGRES_PASSWORD", "BETTER_AUTH_SECRET", "JWT_SECRET",
	"AUTH_JWT_SECRET", "PLUNK_REPORT_TOKEN", NULL,
};

static const char *const paperclip_keep[] = {
	"PAPERCLIP_RUNTIME_API_URL", "PAPERCLIP_LISTEN_HOST", "PAPERCLIP_LISTEN_PORT", NULL,
};

static const char *const proxy_vars[] = {
	"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
	"http_proxy", "https_proxy", "all_proxy", "no_proxy", NULL,
};

static bool name_is(const char *entry, const char *name)
{
	size_t n = strlen(name);
	return strncmp(entry, name, n) == 0 && (entry[n] == '=' || entry[n] == '\0');
}

static bool in_list(const char *entry, const char *const *list)
{
	for (; *list; list++)
		if (name_is(entry, *list))
			return true;
	return false;
}

static bool scrubbed(const char *e, bool net)
{
	if (in_list(e, scrub_exact))
		return true;
	if (strncmp(e, "PAPERCLIP_", 10) == 0 && !in_list(e, paperclip_keep))
		return true;
	return net && in_list(e, proxy_vars);
}

void sb_env_scrub(struct arena *a, struct strv *env, bool net)
{
	size_t i, o = 0;

	for (i = 0; i < env->n; i++)
		if (!scrubbed(env->v[i], net))
			env->v[o++] = env->v[i];
	env->n = o;
	if (env->v)
		env->v[o] = NULL;
}

const char *sb_env_get(const struct strv *env, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < env->n; i++)
		if (name_is(env->v[i], name))
			return env->v[i][n] == '=' ? env->v[i] + n + 1 : "";
	return NULL;
}

void sb_env_set(struct arena *a, struct strv *env, const char *name, const char *value)
{
	char *entry = arena_printf(a, "%s=%s", name, value);
	char **v;
	size_t i, o = 0;

	for (i = 0; i < env->n; i++)
		if (!name_is(env->v[i], name))
			env->v[o++] = env->v[i];
	v = arena_alloc(a, (o + 2) * sizeof *v);
	if (o)
		memcpy(v, env->v, o * sizeof *v);
	v[o++] = entry;
	v[o] = NULL;
	env->v = v;
	env->n = o;
}
