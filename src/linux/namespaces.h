/* Namespace plumbing: clone flags for the config's namespaces, id maps
 * written by the parent, joining by path, the loopback of a new netns. */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

#include "oci/config.h"

int ns_clone_flag(enum oci_ns_type t);
/* Flags of the namespaces the config asks to create (no path). */
int ns_new_flags(const struct oci_config *cfg);
/* Write uid_map/gid_map (and setgroups=deny when unprivileged) for pid. */
int ns_write_id_maps(pid_t pid, const struct oci_linux *l, bool *setgroups_denied, struct clasp_error *err);
/* setns() into every namespace given by path, except those in skip_flags; the
 * user namespace first so the others are joinable. */
int ns_join_paths(const struct oci_config *cfg, int skip_flags, struct clasp_error *err);
/* Write the time namespace offsets of the calling process's children. */
int ns_write_time_offsets(const struct oci_linux *l, struct clasp_error *err);
/* Bring lo up in the current network namespace. */
int ns_loopback_up(struct clasp_error *err);
