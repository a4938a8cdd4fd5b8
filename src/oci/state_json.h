/* The container state as runtime.md defines it, as JSON: given to hooks on
 * stdin, printed by `state`, sent to seccomp listeners. */
#pragma once
#include <sys/types.h>

#include "oci/config.h"

/* malloc'd JSON text. annotations_json is a JSON object text or NULL. When
 * cfg is given its annotations are used instead. extra: when true, add runc's
 * extra fields (rootfs, created, owner) for `state` output. */
struct state_json_args {
	const char *id;
	const char *status;
	pid_t pid;
	const char *bundle;
	const struct kvlist *annotations;   /* or */
	const char *annotations_json;
	const char *rootfs;                 /* extra fields, optional */
	const char *created;
	const char *owner;
	int pretty;
};
char *oci_state_json(const struct state_json_args *a);
/* A JSON object text of the config's annotations (malloc'd). */
char *oci_annotations_json(const struct kvlist *annotations);
