/* Internal to src/sandbox: the parsed policy and the helpers the rewrite,
 * prepare and write-back files share. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oci/config.h"
#include "sandbox/netrule.h"
#include "sandbox/sandbox.h"

#define K_FS_SCOPE "ing.paperclip.fs.scope"
#define K_FS_WORKSPACE "ing.paperclip.fs.workspace"
#define K_FS_TARGET "ing.paperclip.fs.workspace-target"
#define K_FS_ACCESS "ing.paperclip.fs.workspace-access"
#define K_FS_EXTRA "ing.paperclip.fs.extra-paths"
#define K_NET_SCOPE "ing.paperclip.net.scope"
#define K_NET_ALLOW "ing.paperclip.net.allowlist"
#define K_NET_TRUSTED "ing.paperclip.net.trusted-urls"
#define K_NET_PORT "ing.paperclip.net.proxy-port"
#define K_NET_AUDIT "ing.paperclip.net.audit-log"
#define K_WS_REAL "ing.paperclip.workspace.realization"
#define K_WS_ALIASES "ing.paperclip.workspace.path-aliases"
#define K_WS_RESTORE "ing.paperclip.workspace.outbound-restore-paths"
#define K_WS_COPYDIR "ing.paperclip.workspace.copy-dir"

enum sb_net { SB_NET_OFF, SB_NET_DENY, SB_NET_ALLOW };

struct sb_extra {
	char *path;
	bool rw;
};

struct sb_alias {
	char *path;   /* in the container */
	char *target; /* host path inside the workspace */
};

struct sb_policy {
	bool any;
	bool fs_scope;
	char *workspace;
	char *target;
	bool workspace_rw;
	struct sb_extra *extras;
	size_t n_extras;
	enum sb_net net;
	struct netrule *rules; /* allow rules, then trusted */
	size_t n_rules, n_allow, n_trusted;
	uint16_t port;
	char *audit_log;
	bool copy;
	struct sb_alias *aliases;
	size_t n_aliases;
	char **restore;
	size_t n_restore;
	char *copy_dir;
};

/* annotations.c */
int sb_policy_parse(const struct oci_config *cfg, struct arena *a, struct sb_policy *p,
		    struct clasp_error *err);
const char *sb_annotation(const struct oci_config *cfg, const char *key);

/* paths.c: absolute, no "." or ".." component; duplicate and trailing
 * slashes dropped. `what` is the error prefix ("ing.paperclip.fs.workspace"). */
int sb_path_clean(struct arena *a, const char *what, const char *in, bool allow_root, char **out,
		  struct clasp_error *err);
/* path equals root or lies under it (both clean). */
bool sb_path_within(const char *path, const char *root);
/* Number of components, for ordering parents before children. */
size_t sb_path_depth(const char *path);
char *sb_path_join(struct arena *a, const char *dir, const char *rel);
/* The part of `path` after `root` ("" when equal); path must be within root. */
const char *sb_path_rel(const char *path, const char *root);

/* binds.c: if the bind source `src` (clean, absolute) lies in one of the
 * known per-container client directories, that directory; else NULL. */
char *sb_client_dir(struct arena *a, const struct oci_config *cfg, const struct sandbox_ctx *ctx,
		    const char *src);

/* env.c */
void sb_env_scrub(struct arena *a, struct strv *env, bool net);
void sb_env_set(struct arena *a, struct strv *env, const char *name, const char *value);
const char *sb_env_get(const struct strv *env, const char *name);

/* hostroot.c: the bubblewrap-style view of a host-root bundle. Appends to
 * the mount list and the plan's skeleton. */
struct sb_mounts {
	struct oci_mount *v;
	size_t n;
};
void sb_mounts_add(struct arena *a, struct sb_mounts *m, const char *dest, const char *type,
		   const char *src, const char *const *opts);
int sb_hostroot_build(struct oci_config *cfg, const struct sandbox_ctx *ctx, struct sandbox_plan *plan,
		      struct sb_mounts *m, struct clasp_error *err);
void sb_hostroot_skeleton(struct oci_config *cfg, struct sandbox_plan *plan);
bool sb_mount_is_bind(const struct oci_mount *mt);
bool sb_root_is_host(const struct oci_config *cfg, const struct sandbox_ctx *ctx);

/* plan_io.c: <state_dir>/sandbox.json */
#define SANDBOX_PLAN_FILE "sandbox.json"
int sb_plan_save(const struct sandbox_plan *plan, struct clasp_error *err);
int sb_plan_load(const char *state_dir, struct sandbox_plan **out, bool *found, struct clasp_error *err);
struct sandbox_plan *sb_plan_new(void);

/* fsutil.c */
/* rm -r below dirfd without following symlinks; ENOENT is success. */
int sb_remove_tree(const char *path, struct clasp_error *err);
/* openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) with a component walk when
 * the kernel lacks openat2. */
int sb_open_beneath(int rootfd, const char *rel, int flags, mode_t mode);
int sb_mkdir_p(const char *path, mode_t mode, struct clasp_error *err);

/* copytree.c: the snapshot manifest, sorted by path. */
struct sb_entry {
	char type; /* 'd', 'f', 'l' */
	unsigned mode;
	uint64_t size;
	int64_t mtime_s;
	long mtime_ns;
	uint64_t hino, cino;
	int64_t cctime_s;
	long cctime_ns;
	size_t order; /* line number: parents before children */
	char *path;   /* relative, no leading slash */
};
struct sb_manifest {
	struct sb_entry *v;
	size_t n, cap;
};
int sb_manifest_load(const char *path, struct sb_manifest *m, struct clasp_error *err);
struct sb_entry *sb_manifest_find(const struct sb_manifest *m, const char *path);
void sb_manifest_free(struct sb_manifest *m);
int sb_copy_data(int in, int out, struct clasp_error *err);
#include <stdio.h>
void sb_escape_write(FILE *f, const char *s);
void sb_unescape(char *s);

/* copytree.c: copy `src` to a new `dst` (reflink, copy_file_range, read/write)
 * and write the snapshot manifest. */
int sb_copy_tree(const char *src, const char *dst, const char *manifest, struct clasp_error *err);

/* writeback.c */
int sb_writeback(const struct sandbox_sync *s, const char *journal_base, sandbox_conflict_fn fn,
		 void *opaque, struct clasp_error *err);
/* test hook: fail after this many applied journal entries (-1 = never). */
extern long sb_writeback_fail_after;
