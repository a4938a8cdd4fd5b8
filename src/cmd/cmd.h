/* The command table's contract: each command parses its own flags and calls
 * the library. It returns the process exit status (>= 0), or -1 with err set;
 * main prints err once. */
#pragma once
#include <stdbool.h>

#include "util/error.h"

struct global_opts {
	const char *root;
	const char *log;
	const char *log_format;
	bool debug;
	bool systemd_cgroup;
	bool rootless;
};

typedef int (*cmd_fn)(struct global_opts *g, int argc, char **argv, struct clasp_error *err);

struct command {
	const char *name;
	cmd_fn fn;
	const char *summary;
};

int cmd_create(struct global_opts *g, int argc, char **argv, struct clasp_error *err);
int cmd_start(struct global_opts *g, int argc, char **argv, struct clasp_error *err);
int cmd_run(struct global_opts *g, int argc, char **argv, struct clasp_error *err);
int cmd_state(struct global_opts *g, int argc, char **argv, struct clasp_error *err);
int cmd_list(struct global_opts *g, int argc, char **argv, struct clasp_error *err);
int cmd_kill(struct global_opts *g, int argc, char **argv, struct clasp_error *err);
int cmd_delete(struct global_opts *g, int argc, char **argv, struct clasp_error *err);
int cmd_spec(struct global_opts *g, int argc, char **argv, struct clasp_error *err);
int cmd_exec(struct global_opts *g, int argc, char **argv, struct clasp_error *err);
int cmd_pause(struct global_opts *g, int argc, char **argv, struct clasp_error *err);
int cmd_resume(struct global_opts *g, int argc, char **argv, struct clasp_error *err);
int cmd_update(struct global_opts *g, int argc, char **argv, struct clasp_error *err);
int cmd_ps(struct global_opts *g, int argc, char **argv, struct clasp_error *err);
int cmd_events(struct global_opts *g, int argc, char **argv, struct clasp_error *err);
int cmd_features(struct global_opts *g, int argc, char **argv, struct clasp_error *err);

/* Shared by the commands: print a usage text for -h/--help. */
int cmd_help(const char *text);
/* Exactly n positional arguments after the options, else a usage error. */
int cmd_want_args(const char *cmd, int argc, char **argv, int n, const char *what,
		  struct clasp_error *err);
