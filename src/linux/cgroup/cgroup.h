/* The cgroupfs manager: pure cgroup v2, pure v1 and hybrid hosts (v1
 * controllers plus a cgroup2 mount at /sys/fs/cgroup/unified), each
 * controller used where it lives. Layout and path rules: docs/cgroups.md.
 *
 * Ownership rule: clasp only ever writes to cgroup directories it created,
 * except that a cgroupsPath naming an existing cgroup is joined and gets
 * its resources applied (as runc does); it is never removed. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "oci/config.h"
#include "util/error.h"
#include "util/json.h"

struct cgroup_mgr;

enum cgroup_layout { CGROUP_LAYOUT_V1, CGROUP_LAYOUT_V2, CGROUP_LAYOUT_HYBRID };

int cgroup_detect_layout(enum cgroup_layout *out, struct clasp_error *err);
const char *cgroup_layout_name(enum cgroup_layout l); /* "v1", "v2", "hybrid" */

/* Compute paths for container `id` with linux.cgroupsPath (NULL -> the
 * default "clasp/<id>", relative) and create the directories, recording which
 * it created so destroy removes only those. On failure nothing is left. */
int cgroup_create(const char *id, const char *cgroups_path, bool rootless, struct cgroup_mgr **out,
		  struct clasp_error *err);
/* Reopen an existing container's cgroups from cgroup_serialize() output. */
int cgroup_open(const char *serialized, struct cgroup_mgr **out, struct clasp_error *err);
/* The default-path (clasp/<id>) cgroup of a create that was killed before it
 * recorded its state: the directories that exist, marked ours for
 * cgroup_destroy. *out is NULL when there is none. */
int cgroup_open_interrupted(const char *id, struct cgroup_mgr **out, struct clasp_error *err);
/* malloc'd single-line JSON string (no newlines), NULL on ENOMEM. */
char *cgroup_serialize(const struct cgroup_mgr *m);

/* Errors name the key: "linux.resources.memory.limit: ...". */
int cgroup_apply(struct cgroup_mgr *m, const struct oci_resources *res, struct clasp_error *err);
/* As apply, for `update`: honours memory.checkBeforeUpdate. */
int cgroup_update(struct cgroup_mgr *m, const struct oci_resources *res, struct clasp_error *err);

/* A v2 directory fd for clone3(CLONE_INTO_CGROUP), or -1 when the layout
 * does not allow it (v1/hybrid). Owned by m. */
int cgroup_clone_into_fd(struct cgroup_mgr *m);
int cgroup_enter(struct cgroup_mgr *m, pid_t pid, struct clasp_error *err);
int cgroup_freeze(struct cgroup_mgr *m, bool frozen, struct clasp_error *err);
int cgroup_is_frozen(struct cgroup_mgr *m, bool *frozen);
/* All pids in the container's cgroup and its sub-cgroups (malloc'd). */
int cgroup_pids(struct cgroup_mgr *m, pid_t **pids, size_t *n, struct clasp_error *err);
/* Signal every process; SIGKILL freezes first so nothing escapes by forking. */
int cgroup_kill_all(struct cgroup_mgr *m, int sig, struct clasp_error *err);
/* runc's `events --stats` "data" object: cpu, memory, pids, blkio, hugetlb. */
int cgroup_stats(struct cgroup_mgr *m, struct json_gen *g, struct clasp_error *err);
/* Number of OOM kills so far (v1 memory.oom_control / v2 memory.events). */
int cgroup_oom_count(struct cgroup_mgr *m, uint64_t *count);
/* Kill what remains, rmdir (retrying on EBUSY) only directories we created. */
int cgroup_destroy(struct cgroup_mgr *m, struct clasp_error *err);
void cgroup_free(struct cgroup_mgr *m);

/* Absolute directory for a controller ("memory", "cpu", "hugetlb", ...; on
 * v2 also "" for the unified directory), or NULL when not available. */
const char *cgroup_path_for(struct cgroup_mgr *m, const char *controller);
enum cgroup_layout cgroup_layout_of(const struct cgroup_mgr *m);
