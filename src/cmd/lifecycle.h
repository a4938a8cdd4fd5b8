/* The container lifecycle (runtime.md "Lifecycle"), shared by the commands:
 * it strings together oci/ (config and state), sandbox/ (annotations) and
 * linux/ (the confinement). */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

#include "cmd/cmd.h"
#include "oci/config.h"
#include "oci/state.h"

struct create_req {
	const char *id;
	const char *bundle;          /* as given; NULL = cwd */
	const char *pid_file;
	const char *console_socket;
	int preserve_fds;
	bool no_pivot;
	bool no_new_keyring;
	bool keep_pty_master;        /* run with a terminal and no console socket */
};

struct created {
	pid_t pid;
	int pidfd;
	int pty_master;
};

int lc_create(struct global_opts *g, const struct create_req *req, struct created *out,
	      struct clasp_error *err);
int lc_start(struct global_opts *g, const char *id, struct clasp_error *err);
/* Delete; with force, a running container is killed first. A missing
 * container is an error unless force. */
int lc_delete(struct global_opts *g, const char *id, bool force, struct clasp_error *err);

/* The live status: "created", "running", "paused" or "stopped". */
const char *lc_status(const struct container_state *st, const char *root);
/* Load the config copy kept in the state dir. */
int lc_load_config(const char *root, const char *id, struct oci_config **cfg, struct clasp_error *err);
/* Parse "KILL", "SIGKILL", "9". */
int lc_parse_signal(const char *s, int *sig, struct clasp_error *err);
/* Signal the init (verified by start time); all = every process of the cgroup. */
int lc_kill(struct global_opts *g, const char *id, int sig, bool all, struct clasp_error *err);
/* Print a state JSON (pretty) to stdout. */
char *lc_state_json(const char *root, const struct container_state *st, bool pretty);
