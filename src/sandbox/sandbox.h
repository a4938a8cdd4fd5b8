/* The annotation layer (spec/annotations.md): ing.paperclip.* annotations in,
 * plain OCI changes to the typed config out.
 *
 * The seam has three parts, called by the lifecycle in this order:
 *
 *   create:  oci_config_load()
 *            sandbox_rewrite(cfg, &ctx, &plan)      pure: no file is created
 *            ... validate the rewritten config ...
 *            sandbox_prepare(plan)                  side effects before spawn
 *            ... spawn; on any later failure: sandbox_undo_prepare(state_dir)
 *            sandbox_plan_free(plan)
 *   delete:  ... kill, cgroup removal, poststop hooks ...
 *            sandbox_finish(state_dir, on_conflict)  write-back, then cleanup;
 *            on failure keep the state dir so that a second delete resumes.
 *
 * linux/ never sees an annotation: everything the sandbox wants is expressed
 * as mounts, namespaces, env and hooks in the config. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oci/config.h"
#include "sandbox/egress_policy.h"
#include "util/error.h"

#define SANDBOX_PREFIX "ing.paperclip."

struct sandbox_ctx {
	const char *id;          /* container id */
	const char *bundle;      /* absolute bundle directory */
	const char *state_dir;   /* absolute <root>/<id>; may not exist yet */
	const char *egress_hook; /* absolute path of clasp-egress; needed for net.scope=allowlist */
	bool rootless;
};

/* One thing the plan creates in the host-root view directory before start. */
enum sandbox_skel_kind { SANDBOX_SKEL_DIR, SANDBOX_SKEL_FILE, SANDBOX_SKEL_SYMLINK };
struct sandbox_skel {
	enum sandbox_skel_kind kind;
	char *path;   /* relative to view_root */
	char *target; /* symlink target */
};

/* A host path that must exist and, after resolving symlinks, stay within
 * `within` (NULL: only existence). `label` prefixes the error. */
struct sandbox_check {
	char *path;
	char *within;
	char *label;
	char *message; /* full error when the containment check fails; NULL = generic */
};

/* An authoritative host tree that copy realization copies and writes back. */
struct sandbox_sync {
	char *host; /* authoritative root */
	char *copy; /* private copy (what the container sees) */
};

struct sandbox_plan {
	char *id;
	char *state_dir;
	bool copy;            /* workspace.realization=copy */
	char *workspace;      /* authoritative workspace, NULL when none */
	char *copy_base;      /* <copy-dir>/.clasp-copy-<id>-<hash>, copy mode only */
	bool copy_made;       /* set by prepare once it created copy_base (never remove another's) */
	struct sandbox_sync *syncs;
	size_t n_syncs;
	struct sandbox_check *checks;
	size_t n_checks;
	char *view_root;      /* host-root view directory (in the state dir), or NULL */
	struct sandbox_skel *skel;
	size_t n_skel;
	bool write_policy;    /* net.scope=allowlist by the netns creator */
	char *policy_path;
	struct egress_policy policy;
	char net_digest[64];  /* "" when no net.scope; "deny" or "allowlist:<16 hex>:<port>" */
	char *netns_join;     /* Kubernetes app container joining its pod's netns, else NULL */
	struct arena *arena;  /* owns the strings above */
};

/* Parse and validate every ing.paperclip.* annotation and rewrite cfg in
 * place (allocating from cfg->arena). Returns 0 with *plan == NULL when no
 * key under the prefix is set (cfg untouched), 0 with a plan, or -1 with an
 * error naming the key and index. Never creates anything; it reads the host
 * filesystem only to build the host-root view (merged /usr, PATH lookup of
 * process.args[0], #! lines). */
int sandbox_rewrite(struct oci_config *cfg, const struct sandbox_ctx *ctx, struct sandbox_plan **plan,
		    struct clasp_error *err);

void sandbox_plan_free(struct sandbox_plan *plan);

/* Kubernetes pods: an app container joins the pod sandbox's netns by path.
 * Allowed only when that namespace belongs to a running clasp container
 * created with the same network policy. The lifecycle passes every running
 * container of the same --root (pid of its init, and its state dir). Returns
 * 0 when plan->netns_join is NULL or a peer matches. */
struct sandbox_peer {
	pid_t pid;
	const char *state_dir;
};
int sandbox_check_netns_join(const struct sandbox_plan *plan, const struct sandbox_peer *peers,
			     size_t n_peers, struct clasp_error *err);

/* Before spawn, with the state dir created: persist <state_dir>/sandbox.json
 * first (so undo and delete know what exists), check paths, build the
 * host-root view, make the workspace copy, write the egress policy. On error
 * it undoes what it did itself. */
int sandbox_prepare(struct sandbox_plan *plan, struct clasp_error *err);

/* A create that failed after sandbox_prepare: remove the copy, the view, the
 * policy and sandbox.json. Never touches the authoritative workspace. A state
 * dir without sandbox.json is a no-op. */
int sandbox_undo_prepare(const char *state_dir, struct clasp_error *err);

/* Called for every write-back conflict: the host version of `path` was kept
 * and the container's version saved as `saved_as` (NULL when the container
 * deleted the file). */
typedef void (*sandbox_conflict_fn)(const char *path, const char *saved_as, void *opaque);

/* delete: copy-mode write-back exactly once (journalled, resumable), then
 * removal of the copy, the view and the policy file. A state dir without
 * sandbox.json is a no-op. On error the copy and the journal are kept, and a
 * second call resumes. */
int sandbox_finish(const char *state_dir, sandbox_conflict_fn on_conflict, void *opaque,
		   struct clasp_error *err);

/* The digest recorded by sandbox_prepare ("" when the container has no
 * net.scope or no sandbox.json). */
int sandbox_read_net_digest(const char *state_dir, char out[64], struct clasp_error *err);
