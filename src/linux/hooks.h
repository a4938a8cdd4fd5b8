/* OCI hooks (config.md "POSIX-platform Hooks"): each hook gets the container
 * state on stdin; path, args, env and timeout are honoured. */
#pragma once
#include "oci/config.h"

/* Run every hook of the list in order; the first failure stops the list and
 * is returned ("prestart hook /path: exit status 1"). */
int hooks_run(const struct oci_hook_list *hooks, enum oci_hook_kind kind, const char *state_json,
	      struct clasp_error *err);

/* Run every hook even when some fail, reporting each failure through warn
 * (runtime.md: poststop failures are warnings and the remaining hooks run). */
void hooks_run_warn(const struct oci_hook_list *hooks, enum oci_hook_kind kind, const char *state_json,
		    void (*warn)(const char *msg));
