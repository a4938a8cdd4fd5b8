/* Container state on disk: <root>/<id>/state.json, written atomically
 * (temporary file + rename) while holding an flock on the container's
 * directory. The status is never trusted from the file alone: it is computed
 * from the live process (pid + start time), see lifecycle code. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/error.h"

#define STATE_ID_MAX 1024

struct container_state {
	char *id;
	char *bundle;
	char *rootfs;
	char *status;      /* last recorded: "creating", "created", "running", "stopped" */
	pid_t pid;
	uint64_t start_time;
	char *created;     /* RFC 3339 */
	uid_t owner;
	char *cgroup;      /* cgroup_serialize() text, or NULL */
	char *annotations; /* JSON object text, or NULL */
	bool has_time_ns;
	bool no_pivot;
};

int state_validate_id(const char *id, struct clasp_error *err);
/* Path of the container's directory; malloc'd. */
char *state_dir(const char *root, const char *id);

/* Create <root>/<id> for a new container and lock it. Refuses a duplicate ID
 * ("container with id exists: ID"). *lock_fd keeps the lock until closed. */
int state_reserve(const char *root, const char *id, int *lock_fd, struct clasp_error *err);
/* Lock an existing container ("container does not exist" when absent). */
int state_lock(const char *root, const char *id, int *lock_fd, struct clasp_error *err);
int state_write(const char *root, const struct container_state *st, struct clasp_error *err);
int state_read(const char *root, const char *id, struct container_state *st, struct clasp_error *err);
/* Remove the container's directory and everything in it. */
int state_remove(const char *root, const char *id, struct clasp_error *err);
void state_clear(struct container_state *st);
/* List IDs under root (malloc'd array of malloc'd strings). */
int state_list_ids(const char *root, char ***ids, size_t *n, struct clasp_error *err);
