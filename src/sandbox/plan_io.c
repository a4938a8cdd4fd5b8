/* The plan's lifetime and its persistent part, <state_dir>/sandbox.json:
 * what delete (write-back, removal) and a failed create (undo) need to
 * know, written before anything is created. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sandbox_int.h"
#include "util/cleanup.h"
#include "util/json.h"

struct sandbox_plan *sb_plan_new(void)
{
	struct sandbox_plan *p = calloc(1, sizeof *p);

	if (!p)
		return NULL;
	p->arena = arena_new();
	egress_policy_init(&p->policy);
	return p;
}

void sandbox_plan_free(struct sandbox_plan *plan)
{
	if (!plan)
		return;
	egress_policy_free(&plan->policy);
	arena_free(plan->arena);
	free(plan);
}

static void kv_opt(struct json_gen *g, const char *k, const char *v)
{
	if (v)
		json_gen_kv_string(g, k, v);
}

int sb_plan_save(const struct sandbox_plan *plan, struct clasp_error *err)
{
	_cleanup_free_ char *path = NULL, *tmp = NULL;
	_cleanup_close_ int fd = -1;
	struct json_gen *g = json_gen_new(true);
	const char *buf;
	size_t len, i;
	int r = -1;

	if (!g)
		return clasp_error_set(err, ENOMEM, "sandbox.json");
	json_gen_object_open(g);
	json_gen_kv_int(g, "version", 1);
	kv_opt(g, "id", plan->id);
	kv_opt(g, "stateDir", plan->state_dir);
	json_gen_kv_bool(g, "copy", plan->copy);
	kv_opt(g, "workspace", plan->workspace);
	kv_opt(g, "copyBase", plan->copy_base);
	json_gen_kv_bool(g, "copyMade", plan->copy_made);
	json_gen_string(g, "syncs");
	json_gen_array_open(g);
	for (i = 0; i < plan->n_syncs; i++) {
		json_gen_object_open(g);
		json_gen_kv_string(g, "host", plan->syncs[i].host);
		json_gen_kv_string(g, "copy", plan->syncs[i].copy);
		json_gen_object_close(g);
	}
	json_gen_array_close(g);
	kv_opt(g, "viewRoot", plan->view_root);
	if (plan->write_policy)
		kv_opt(g, "policyPath", plan->policy_path);
	json_gen_kv_string(g, "netDigest", plan->net_digest);
	json_gen_object_close(g);
	buf = json_gen_buf(g, &len);

	if (asprintf(&path, "%s/%s", plan->state_dir, SANDBOX_PLAN_FILE) < 0 ||
	    asprintf(&tmp, "%s.tmp", path) < 0) {
		path = tmp = NULL;
		clasp_error_set(err, ENOMEM, "sandbox.json");
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		clasp_error_set(err, errno, "open %s", tmp);
		goto out;
	}
	if (write(fd, buf, len) != (ssize_t)len || fsync(fd) < 0) {
		clasp_error_set(err, errno ? errno : EIO, "write %s", tmp);
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		clasp_error_set(err, errno, "rename %s", tmp);
		unlink(tmp);
		goto out;
	}
	r = 0;
out:
	json_gen_free(g);
	return r;
}

static char *jstr(struct arena *a, const struct json *o, const char *k)
{
	const char *s = json_string(json_get(o, k));
	return s ? arena_strdup(a, s) : NULL;
}

int sb_plan_load(const char *state_dir, struct sandbox_plan **out, bool *found, struct clasp_error *err)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	_cleanup_close_ int fd = -1;
	struct json *root = NULL;
	struct sandbox_plan *plan;
	const struct json *syncs;
	struct stat st;
	size_t i;

	*out = NULL;
	*found = false;
	if (asprintf(&path, "%s/%s", state_dir, SANDBOX_PLAN_FILE) < 0) {
		path = NULL;
		return clasp_error_set(err, ENOMEM, "sandbox.json");
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return clasp_error_set(err, errno, "open %s", path);
	}
	if (fstat(fd, &st) < 0 || st.st_size > (1 << 24))
		return clasp_error_set(err, errno ? errno : EFBIG, "stat %s", path);
	text = malloc((size_t)st.st_size + 1);
	if (!text || read(fd, text, (size_t)st.st_size) != st.st_size)
		return clasp_error_set(err, errno ? errno : EIO, "read %s", path);
	if (json_parse(text, (size_t)st.st_size, &root, err) < 0)
		return clasp_error_prefix(err, "%s", path);
	plan = sb_plan_new();
	if (!plan) {
		json_free(root);
		return clasp_error_set(err, ENOMEM, "sandbox plan");
	}
	plan->id = jstr(plan->arena, root, "id");
	plan->state_dir = arena_strdup(plan->arena, state_dir);
	plan->copy = json_bool(json_get(root, "copy"));
	plan->workspace = jstr(plan->arena, root, "workspace");
	plan->copy_base = jstr(plan->arena, root, "copyBase");
	plan->copy_made = json_bool(json_get(root, "copyMade"));
	plan->view_root = jstr(plan->arena, root, "viewRoot");
	plan->policy_path = jstr(plan->arena, root, "policyPath");
	plan->write_policy = plan->policy_path != NULL;
	if (json_string(json_get(root, "netDigest")))
		snprintf(plan->net_digest, sizeof plan->net_digest, "%s",
			 json_string(json_get(root, "netDigest")));
	syncs = json_get(root, "syncs");
	plan->syncs = arena_alloc(plan->arena, (json_array_len(syncs) + 1) * sizeof *plan->syncs);
	for (i = 0; i < json_array_len(syncs); i++) {
		const struct json *s = json_array_at(syncs, i);
		plan->syncs[i].host = jstr(plan->arena, s, "host");
		plan->syncs[i].copy = jstr(plan->arena, s, "copy");
		if (!plan->syncs[i].host || !plan->syncs[i].copy) {
			json_free(root);
			sandbox_plan_free(plan);
			return clasp_error_set(err, 0, "%s: .syncs[%zu] is incomplete", path, i);
		}
		plan->n_syncs++;
	}
	json_free(root);
	*out = plan;
	*found = true;
	return 0;
}

int sandbox_read_net_digest(const char *state_dir, char out[64], struct clasp_error *err)
{
	struct sandbox_plan *plan;
	bool found;

	out[0] = '\0';
	if (sb_plan_load(state_dir, &plan, &found, err) < 0)
		return -1;
	if (found)
		snprintf(out, 64, "%s", plan->net_digest);
	sandbox_plan_free(plan);
	return 0;
}
