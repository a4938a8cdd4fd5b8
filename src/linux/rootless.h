/* Running without root (docs/rootless.md): detection, the default state
 * root, the up-front refusal of what an unprivileged user cannot have, and
 * id maps written through newuidmap/newgidmap. */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

#include "oci/config.h"
#include "util/error.h"

/* True with euid != 0, or inside a user namespace that is not the initial
 * one (then even uid 0 lacks privilege over the host). */
bool rootless_detect(void);
/* $XDG_RUNTIME_DIR/clasp, else /run/user/UID/clasp when that directory
 * exists; malloc'd. */
int rootless_default_root(char **out, struct clasp_error *err);
/* Fail up front, naming the field, on what cannot work unprivileged:
 * oomScoreAdj below the current value, raised hard rlimits, sysctls the
 * user namespace cannot write, id ranges outside /etc/subuid and
 * /etc/subgid. */
int rootless_check_config(const struct oci_config *cfg, struct clasp_error *err);
/* Resource limits without a delegated cgroup (have_cgroup false) fail with
 * an explanation of delegation; never silently ignored. */
int rootless_check_resources(const struct oci_resources *res, bool have_cgroup, struct clasp_error *err);
/* The first resource limit the config asks for ("linux.resources.memory.limit"),
 * or NULL when it asks for none (device rules are not counted: see
 * docs/rootless.md). */
const char *rootless_requested_resource(const struct oci_resources *res);
/* Whether writing these maps needs newuidmap/newgidmap: anything beyond
 * the caller's own id, when the caller has no privilege. */
bool rootless_maps_need_helper(const struct oci_idmap *m, size_t n, bool gid);
/* Run newuidmap (gid false) or newgidmap for pid with these mappings. */
int rootless_run_map_helper(pid_t pid, const struct oci_idmap *m, size_t n, bool gid, struct clasp_error *err);
