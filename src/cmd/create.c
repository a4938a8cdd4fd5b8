#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "cmd/lifecycle.h"

static const char usage[] =
	"Usage: clasp create [options] <container-id>\n\n"
	"Create a container from the bundle's config.json; its process waits for `clasp start`.\n\n"
	"Options:\n"
	"  -b, --bundle DIR          path to the bundle (default: current directory)\n"
	"      --pid-file FILE       write the init's pid to FILE\n"
	"      --console-socket SOCK send the terminal's pty master to this AF_UNIX socket\n"
	"      --preserve-fds N      pass N extra file descriptors (3 .. 3+N-1) to the container\n"
	"      --no-pivot            use MS_MOVE and chroot instead of pivot_root\n"
	"      --no-new-keyring      keep the caller's session keyring\n"
	"  -h, --help                show this help\n";

/* Shared with `run`, which accepts the same flags plus its own. */
int create_parse(int argc, char **argv, struct create_req *req, const char *extra_short,
		 const struct option *extra, int (*on_extra)(int opt, void *ctx), void *ctx,
		 const char *help, struct clasp_error *err);

int create_parse(int argc, char **argv, struct create_req *req, const char *extra_short,
		 const struct option *extra, int (*on_extra)(int opt, void *ctx), void *ctx,
		 const char *help, struct clasp_error *err)
{
	struct option opts[32] = {
		{"bundle", required_argument, NULL, 'b'},
		{"pid-file", required_argument, NULL, 'p'},
		{"console-socket", required_argument, NULL, 'c'},
		{"preserve-fds", required_argument, NULL, 'P'},
		{"no-pivot", no_argument, NULL, 'N'},
		{"no-new-keyring", no_argument, NULL, 'K'},
		{"help", no_argument, NULL, 'h'},
	};
	char shorts[32] = "b:h";
	int n = 7, opt;
	char *end;

	for (; extra && extra->name && n < 31; extra++)
		opts[n++] = *extra;
	opts[n] = (struct option){0};
	if (extra_short)
		snprintf(shorts, sizeof shorts, "b:h%s", extra_short);
	while ((opt = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		switch (opt) {
		case 'b': req->bundle = optarg; break;
		case 'p': req->pid_file = optarg; break;
		case 'c': req->console_socket = optarg; break;
		case 'P':
			req->preserve_fds = (int)strtol(optarg, &end, 10);
			if (*end || req->preserve_fds < 0)
				return clasp_error_set(err, 0, "--preserve-fds: invalid number \"%s\"", optarg);
			break;
		case 'N': req->no_pivot = true; break;
		case 'K': req->no_new_keyring = true; break;
		case 'h': cmd_help(help); return 1;
		default:
			if (on_extra && on_extra(opt, ctx) == 0)
				break;
			return clasp_error_set(err, 0, "invalid option; see --help");
		}
	}
	if (argc - optind != 1)
		return clasp_error_set(err, 0, "exactly one container id is required; see --help");
	req->id = argv[optind];
	return 0;
}

int cmd_create(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	struct create_req req = {0};
	int r = create_parse(argc, argv, &req, NULL, NULL, NULL, NULL, usage, err);

	if (r != 0)
		return r < 0 ? -1 : 0;
	return lc_create(g, &req, NULL, err) < 0 ? -1 : 0;
}
