/* The small commands: start, state, kill, delete. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/lifecycle.h"

static int only_help(int argc, char **argv, const char *usage, struct clasp_error *err)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int opt;

	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (opt == 'h') {
			cmd_help(usage);
			return 1;
		}
		return clasp_error_set(err, 0, "invalid option; see --help");
	}
	return 0;
}

int cmd_start(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	static const char usage[] = "Usage: clasp start <container-id>\n\n"
				    "Start the user process of a created container.\n\n"
				    "Options:\n  -h, --help  show this help\n";
	int r = only_help(argc, argv, usage, err);

	if (r)
		return r < 0 ? -1 : 0;
	if (cmd_want_args("start", argc - optind, argv + optind, 1, "<container-id>", err) < 0)
		return -1;
	return lc_start(g, argv[optind], err) < 0 ? -1 : 0;
}

int cmd_state(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	static const char usage[] = "Usage: clasp state <container-id>\n\n"
				    "Output the state of a container as JSON (runtime.md \"State\").\n\n"
				    "Options:\n  -h, --help  show this help\n";
	struct container_state st;
	char *json;
	int r = only_help(argc, argv, usage, err);

	if (r)
		return r < 0 ? -1 : 0;
	if (cmd_want_args("state", argc - optind, argv + optind, 1, "<container-id>", err) < 0)
		return -1;
	if (state_validate_id(argv[optind], err) < 0 || state_read(g->root, argv[optind], &st, err) < 0)
		return -1;
	json = lc_state_json(g->root, &st, true);
	printf("%s\n", json);
	free(json);
	state_clear(&st);
	return 0;
}

int cmd_kill(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	static const char usage[] = "Usage: clasp kill [options] <container-id> [signal]\n\n"
				    "Send a signal (default SIGTERM) to the container's init process.\n"
				    "Signals are names with or without SIG (TERM, SIGKILL) or numbers.\n\n"
				    "Options:\n"
				    "  -a, --all   signal every process in the container's cgroup\n"
				    "  -h, --help  show this help\n";
	static const struct option opts[] = {
		{"all", no_argument, NULL, 'a'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	bool all = false;
	int opt, sig = 15;

	while ((opt = getopt_long(argc, argv, "ah", opts, NULL)) != -1) {
		if (opt == 'a')
			all = true;
		else if (opt == 'h')
			return cmd_help(usage);
		else
			return clasp_error_set(err, 0, "invalid option; see --help");
	}
	if (argc - optind < 1 || argc - optind > 2)
		return clasp_error_set(err, 0, "\"kill\" requires a container id and an optional signal");
	if (argc - optind == 2 && lc_parse_signal(argv[optind + 1], &sig, err) < 0)
		return -1;
	return lc_kill(g, argv[optind], sig, all, err) < 0 ? -1 : 0;
}

int cmd_delete(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	static const char usage[] = "Usage: clasp delete [options] <container-id>\n\n"
				    "Delete a stopped container and every resource it holds.\n\n"
				    "Options:\n"
				    "  -f, --force  kill a running container first; succeed if it is already gone\n"
				    "  -h, --help   show this help\n";
	static const struct option opts[] = {
		{"force", no_argument, NULL, 'f'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	bool force = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		if (opt == 'f')
			force = true;
		else if (opt == 'h')
			return cmd_help(usage);
		else
			return clasp_error_set(err, 0, "invalid option; see --help");
	}
	if (cmd_want_args("delete", argc - optind, argv + optind, 1, "<container-id>", err) < 0)
		return -1;
	if (state_validate_id(argv[optind], err) < 0)
		return -1;
	return lc_delete(g, argv[optind], force, err) < 0 ? -1 : 0;
}
