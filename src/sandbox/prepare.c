/* The sandbox's side effects, separate from the pure rewrite: what create
 * does before spawning (sandbox_prepare), what a failed create undoes
 * (sandbox_undo_prepare), and what delete does (sandbox_finish). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sandbox_int.h"
#include "util/cleanup.h"

static char *sync_base(const char *state_dir, size_t i)
{
	char *s;
	return asprintf(&s, "%s/sandbox-sync-%zu", state_dir, i) < 0 ? NULL : s;
}

/* The path must exist and, after resolving symlinks, stay where the rewrite
 * saw it lexically: a symlink in the workspace must not lead a bind mount
 * (or an alias) out of it. */
static int run_check(const struct sandbox_check *c, struct clasp_error *err)
{
	char real[PATH_MAX], within[PATH_MAX];

	if (!realpath(c->path, real)) {
		if (errno == ENOENT || errno == ENOTDIR)
			return clasp_error_set(err, 0, "%s: \"%s\" does not exist", c->label, c->path);
		return clasp_error_set(err, errno, "%s: \"%s\"", c->label, c->path);
	}
	if (!c->within)
		return 0;
	if (!realpath(c->within, within))
		return clasp_error_set(err, errno, "%s: \"%s\"", c->label, c->within);
	if (sb_path_within(real, within))
		return 0;
	if (c->message)
		return clasp_error_set(err, 0, "%s", c->message);
	return clasp_error_set(err, 0, "%s: \"%s\" resolves to \"%s\", outside \"%s\"", c->label, c->path,
			       real, c->within);
}

static int make_view(const struct sandbox_plan *plan, struct clasp_error *err)
{
	_cleanup_close_ int root = -1;
	size_t i;

	if (mkdir(plan->view_root, 0755) < 0 && errno != EEXIST)
		return clasp_error_set(err, errno, "mkdir %s", plan->view_root);
	root = open(plan->view_root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root < 0)
		return clasp_error_set(err, errno, "open %s", plan->view_root);
	/* Parents were recorded before their children. */
	for (i = 0; i < plan->n_skel; i++) {
		const struct sandbox_skel *s = &plan->skel[i];
		const char *slash = strrchr(s->path, '/'), *base = slash ? slash + 1 : s->path;
		_cleanup_free_ char *dir = slash ? strndup(s->path, (size_t)(slash - s->path)) : NULL;
		_cleanup_close_ int parent = slash ? (dir ? sb_open_beneath(root, dir, O_PATH | O_DIRECTORY, 0) : -1)
						   : dup(root);
		int r = 0;

		if (parent < 0)
			continue; /* under one of the view's symlinks: the mount lands inside /usr */
		if (s->kind == SANDBOX_SKEL_DIR)
			r = mkdirat(parent, base, 0755);
		else if (s->kind == SANDBOX_SKEL_SYMLINK)
			r = symlinkat(s->target, parent, base);
		else {
			int fd = openat(parent, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
			r = fd < 0 ? -1 : close(fd);
		}
		if (r < 0 && errno != EEXIST)
			return clasp_error_set(err, errno, "create %s/%s", plan->view_root, s->path);
	}
	return 0;
}

static int make_copies(struct sandbox_plan *plan, struct clasp_error *err)
{
	struct stat st;
	size_t i;

	/* The copy is recorded before it exists: a create killed between the
	 * mkdir and the record would otherwise strand it where no delete looks.
	 * A leftover of an earlier run is refused before the record, so that
	 * undo never removes it; nothing else can make this path meanwhile, as
	 * its name derives from the state directory, which we hold locked. */
	if (lstat(plan->copy_base, &st) == 0)
		return clasp_error_set(err, 0,
				       "%s: the copy directory \"%s\" already exists (left by a crashed run? remove it after checking its contents)",
				       K_WS_REAL, plan->copy_base);
	plan->copy_made = true;
	if (sb_plan_save(plan, err) < 0) {
		plan->copy_made = false;
		return -1;
	}
	if (mkdir(plan->copy_base, 0700) < 0) {
		int e = errno;
		plan->copy_made = false;
		sb_plan_save(plan, &(struct clasp_error){0});
		return clasp_error_set(err, e, "%s: mkdir %s", K_WS_COPYDIR, plan->copy_base);
	}
	for (i = 0; i < plan->n_syncs; i++) {
		_cleanup_free_ char *base = sync_base(plan->state_dir, i), *manifest = NULL;
		if (!base || asprintf(&manifest, "%s.manifest", base) < 0)
			return clasp_error_set(err, ENOMEM, "copy");
		if (sb_copy_tree(plan->syncs[i].host, plan->syncs[i].copy, manifest, err) < 0)
			return -1;
	}
	return 0;
}

/* The undo of a copy that failed for want of fds (EMFILE) needs a few fds of
 * its own (sb_remove_tree uses three, sb_plan_load one): held from the start
 * and released just before the undo, so that it can always run. */
#define UNDO_FDS 4

static void release_fds(int *fds)
{
	for (size_t i = 0; i < UNDO_FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

int sandbox_prepare(struct sandbox_plan *plan, struct clasp_error *err)
{
	int reserve[UNDO_FDS] = {-1, -1, -1, -1};
	size_t i;

	if (!plan)
		return 0;
	for (i = 0; i < UNDO_FDS; i++)
		if ((reserve[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
			clasp_error_set(err, errno, "sandbox: reserve file descriptors");
			release_fds(reserve);
			return -1;
		}
	if (sb_mkdir_p(plan->state_dir, 0700, err) < 0)
		goto fail_early;
	for (i = 0; i < plan->n_checks; i++)
		if (run_check(&plan->checks[i], err) < 0)
			goto fail_early;
	/* Recorded first, so that undo and delete know what may exist. */
	if (sb_plan_save(plan, err) < 0)
		goto fail_early;
	if ((plan->view_root && make_view(plan, err) < 0) || (plan->copy && make_copies(plan, err) < 0) ||
	    (plan->write_policy && egress_policy_write(&plan->policy, plan->policy_path, err) < 0)) {
		struct clasp_error e2 = {0};
		release_fds(reserve);
		sandbox_undo_prepare(plan->state_dir, &e2);
		return -1;
	}
	release_fds(reserve);
	return 0;
fail_early:
	release_fds(reserve);
	return -1;
}

/* Never remove an authoritative tree, whatever sandbox.json says. */
static bool safe_to_remove(const struct sandbox_plan *plan, const char *path)
{
	const char *last = strrchr(path, '/');
	size_t i;

	if (!last || strncmp(last, "/.clasp-copy-", 13) != 0)
		return false;
	if (plan->workspace && (sb_path_within(path, plan->workspace) || sb_path_within(plan->workspace, path)))
		return false;
	for (i = 0; i < plan->n_syncs; i++)
		if (sb_path_within(path, plan->syncs[i].host) || sb_path_within(plan->syncs[i].host, path))
			return false;
	return true;
}

static int remove_state_files(const struct sandbox_plan *plan, bool keep_copy, struct clasp_error *err)
{
	const char *suffixes[] = {".manifest", ".journal", ".journal.tmp", ".progress"};
	_cleanup_free_ char *json = NULL;
	size_t i, j;

	if (!keep_copy && plan->copy_base && plan->copy_made) {
		if (!safe_to_remove(plan, plan->copy_base))
			return clasp_error_set(err, 0, "refusing to remove \"%s\": not a clasp copy", plan->copy_base);
		if (sb_remove_tree(plan->copy_base, err) < 0)
			return -1;
		for (i = 0; i < plan->n_syncs; i++) {
			_cleanup_free_ char *base = sync_base(plan->state_dir, i);
			for (j = 0; base && j < 4; j++) {
				_cleanup_free_ char *f = NULL;
				if (asprintf(&f, "%s%s", base, suffixes[j]) >= 0)
					unlink(f);
			}
		}
	}
	if (plan->view_root && sb_path_within(plan->view_root, plan->state_dir) &&
	    sb_remove_tree(plan->view_root, err) < 0)
		return -1;
	if (plan->policy_path && sb_path_within(plan->policy_path, plan->state_dir))
		unlink(plan->policy_path);
	if (keep_copy)
		return 0;
	if (asprintf(&json, "%s/%s", plan->state_dir, SANDBOX_PLAN_FILE) < 0)
		return clasp_error_set(err, ENOMEM, "sandbox.json");
	if (unlink(json) < 0 && errno != ENOENT)
		return clasp_error_set(err, errno, "remove %s", json);
	return 0;
}

int sandbox_undo_prepare(const char *state_dir, struct clasp_error *err)
{
	struct sandbox_plan *plan;
	bool found;
	int r;

	if (sb_plan_load(state_dir, &plan, &found, err) < 0)
		return -1;
	if (!found)
		return 0;
	r = remove_state_files(plan, false, err);
	sandbox_plan_free(plan);
	return r;
}

int sandbox_finish(const char *state_dir, sandbox_conflict_fn fn, void *opaque, struct clasp_error *err)
{
	struct sandbox_plan *plan;
	bool found;
	size_t i;
	int r = 0;

	if (sb_plan_load(state_dir, &plan, &found, err) < 0)
		return -1;
	if (!found)
		return 0;
	for (i = 0; plan->copy && i < plan->n_syncs && r == 0; i++) {
		_cleanup_free_ char *base = sync_base(state_dir, i);
		struct stat st;

		if (!base) {
			r = clasp_error_set(err, ENOMEM, "write-back");
			break;
		}
		/* A create that failed before the copy was made has nothing to write back. */
		if (lstat(plan->syncs[i].copy, &st) < 0 && errno == ENOENT)
			continue;
		r = sb_writeback(&plan->syncs[i], base, fn, opaque, err);
	}
	if (r == 0)
		r = remove_state_files(plan, false, err);
	else
		remove_state_files(plan, true, &(struct clasp_error){0});
	sandbox_plan_free(plan);
	return r;
}
