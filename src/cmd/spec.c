#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "oci/spec_default.h"
#include "util/cleanup.h"
#include "util/fs.h"

static const char usage[] =
	"Usage: clasp spec [options]\n\n"
	"Write a default config.json (like `runc spec`) into the bundle directory.\n\n"
	"Options:\n"
	"  -b, --bundle DIR  where to write config.json (default: current directory)\n"
	"      --rootless    a config for running without root (user namespace, no cgroup limits)\n"
	"  -h, --help        show this help\n";

int cmd_spec(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	static const struct option opts[] = {
		{"bundle", required_argument, NULL, 'b'}, {"rootless", no_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	const char *bundle = ".";
	bool rootless = false;
	const char *text;
	struct stat st;
	_cleanup_free_ char *path = NULL;
	int opt;

	(void)g;
	while ((opt = getopt_long(argc, argv, "b:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'b': bundle = optarg; break;
		case 'r': rootless = true; break;
		case 'h': return cmd_help(usage);
		default: return clasp_error_set(err, 0, "invalid option; see --help");
		}
	}
	if (argc != optind)
		return clasp_error_set(err, 0, "\"spec\" takes no arguments; see --help");
	if (stat(bundle, &st) < 0)
		return clasp_error_set(err, errno, "bundle %s", bundle);
	if (asprintf(&path, "%s/config.json", bundle) < 0)
		return clasp_error_set(err, ENOMEM, "spec");
	if (access(path, F_OK) == 0)
		return clasp_error_set(err, 0, "File %s exists. Remove it first", path);
	text = oci_spec_default_json(rootless);
	if (write_file_atomic(bundle, "config.json", text, strlen(text), 0644, err) < 0)
		return -1;
	return 0;
}
