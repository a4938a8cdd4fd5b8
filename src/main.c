/* clasp: global flags and the command table, nothing else. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/rootless.h"
#include "cmd/cmd.h"
#include "oci/version.h"
#include "util/log.h"
#include "util/selfexec.h"

static const struct command commands[] = {
	{"create", cmd_create, "create a container"},
	{"start", cmd_start, "start a created container"},
	{"run", cmd_run, "create and start a container, and wait for it"},
	{"state", cmd_state, "output the state of a container"},
	{"list", cmd_list, "list containers"},
	{"kill", cmd_kill, "send a signal to a container's init process"},
	{"delete", cmd_delete, "delete a container and its resources"},
	{"exec", cmd_exec, "run a new process inside a running container"},
	{"pause", cmd_pause, "freeze every process of a container"},
	{"resume", cmd_resume, "thaw a paused container"},
	{"update", cmd_update, "change a running container's resource limits"},
	{"ps", cmd_ps, "list the processes of a container"},
	{"events", cmd_events, "show a container's events and resource statistics"},
	{"spec", cmd_spec, "write a default config.json"},
	{"features", cmd_features, "show what this runtime supports"},
	{NULL, NULL, NULL},
};

static void usage(FILE *f)
{
	const struct command *c;

	fprintf(f, "clasp: an OCI runtime that confines AI coding agents\n\n"
		   "Usage: clasp [global options] COMMAND [options] [arguments]\n\n"
		   "Global options:\n"
		   "  --root DIR           state directory (default /run/clasp)\n"
		   "  --log FILE           also write errors and warnings to FILE\n"
		   "  --log-format FORMAT  text or json (default text)\n"
		   "  --debug              verbose logging\n"
		   "  --systemd-cgroup     use the systemd cgroup driver (not supported yet)\n"
		   "  --rootless VALUE     accepted for runc compatibility (auto)\n"
		   "  -v, --version        print the version\n"
		   "  -h, --help           show this help\n\n"
		   "Commands:\n");
	for (c = commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
}

static void version(void)
{
	printf("clasp version %s\nspec: %s\ncommit: %s\n", CLASP_VERSION, CLASP_SPEC_VERSION, CLASP_COMMIT);
}

int main(int argc, char **argv)
{
	struct global_opts g = {.root = NULL, .log_format = "text"};
	struct clasp_error err = {0};
	static const struct option opts[] = {
		{"root", required_argument, NULL, 'r'},
		{"log", required_argument, NULL, 'l'},
		{"log-format", required_argument, NULL, 'f'},
		{"debug", no_argument, NULL, 'd'},
		{"systemd-cgroup", no_argument, NULL, 's'},
		{"rootless", required_argument, NULL, 'R'},
		{"criu", required_argument, NULL, 'C'},
		{"version", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const struct command *c;
	int opt, rc;

	selfexec_original_path();
	/* Hooks and sockets may close early; EPIPE is handled where it matters. */
	signal(SIGPIPE, SIG_IGN);
	while ((opt = getopt_long(argc, argv, "+vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'r': g.root = optarg; break;
		case 'l': g.log = optarg; break;
		case 'f':
			if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0) {
				fprintf(stderr, "clasp: --log-format: unknown format \"%s\" (text or json)\n", optarg);
				return 1;
			}
			g.log_format = optarg;
			break;
		case 'd': g.debug = true; break;
		case 's': g.systemd_cgroup = true; break;
		case 'R': break;
		case 'C': break;
		case 'v': version(); return 0;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (log_init(g.log, strcmp(g.log_format, "json") == 0, g.debug) < 0) {
		perror("clasp: open log file");
		return 1;
	}
	g.rootless = rootless_detect();
	if (!g.root && !g.rootless)
		g.root = "/run/clasp";
	if (optind >= argc) {
		usage(stderr);
		return 1;
	}
	if (g.systemd_cgroup) {
		log_fatal("--systemd-cgroup is not supported yet: use the cgroupfs driver "
			  "(podman: cgroup_manager = \"cgroupfs\"; containerd: SystemdCgroup = false)");
		return 1;
	}
	for (c = commands; c->name; c++)
		if (strcmp(c->name, argv[optind]) == 0)
			break;
	if (!c->name) {
		fprintf(stderr, "clasp: unknown command \"%s\"\n", argv[optind]);
		usage(stderr);
		return 1;
	}
	/* Without root the state lives in the user's runtime directory; only
	 * commands that never touch state may run without one. */
	if (!g.root) {
		static char *rootless_root;
		if (rootless_default_root(&rootless_root, &err) == 0)
			g.root = rootless_root;
		else if (strcmp(c->name, "spec") != 0 && strcmp(c->name, "features") != 0) {
			log_fatal(err.msg);
			return 1;
		} else
			g.root = "/run/clasp";
	}
	/* Commands that put processes into containers run from a sealed copy of
	 * the binary (util/selfexec.h); a failure to seal is fatal, since the
	 * alternative is an overwritable host binary. */
	if (strcmp(c->name, "create") == 0 || strcmp(c->name, "run") == 0 || strcmp(c->name, "exec") == 0) {
		if (selfexec_sealed(argc, argv) < 0) {
			perror("clasp: re-exec from a sealed copy of the runtime binary");
			return 1;
		}
	}
	argc -= optind;
	argv += optind;
	optind = 0; /* reset getopt for the command's own parsing */
	rc = c->fn(&g, argc, argv, &err);
	if (rc < 0) {
		log_fatal(err.msg);
		return 1;
	}
	return rc;
}
