/* pause and resume: freeze and thaw every process of a container through
 * its cgroup (v1 freezer.state, v2 cgroup.freeze). As runc, a created
 * container may be paused too; "paused" is then read from the freezer. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/lifecycle.h"
#include "linux/cgroup/cgroup.h"
#include "util/cleanup.h"

static int parse_id(const char *name, const char *usage, int argc, char **argv, const char **id,
		    struct clasp_error *err)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int opt;

	*id = NULL;
	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (opt == 'h') {
			cmd_help(usage);
			return 1;
		}
		return clasp_error_set(err, 0, "%s: invalid option; see --help", name);
	}
	if (cmd_want_args(name, argc - optind, argv + optind, 1, "<container-id>", err) < 0 ||
	    state_validate_id(argv[optind], err) < 0)
		return -1;
	*id = argv[optind];
	return 0;
}

static int set_frozen(struct global_opts *g, const char *id, bool frozen, struct clasp_error *err)
{
	_cleanup_close_ int lock = -1;
	struct container_state st;
	struct cgroup_mgr *cg = NULL;
	const char *status;
	bool is_frozen = false;
	int r = -1;

	if (state_lock(g->root, id, &lock, err) < 0 || state_read(g->root, id, &st, err) < 0)
		return -1;
	status = lc_status(&st, g->root);
	if (strcmp(status, "stopped") == 0) {
		clasp_error_set(err, 0, frozen ? "container not running" : "container not paused");
		goto out;
	}
	if (!st.cgroup) {
		clasp_error_set(err, 0, "container %s has no cgroup to %s", id, frozen ? "freeze" : "thaw");
		goto out;
	}
	if (cgroup_open(st.cgroup, &cg, err) < 0)
		goto out;
	/* lc_status says "created" for a paused created container: ask the
	 * freezer itself. */
	cgroup_is_frozen(cg, &is_frozen);
	if (frozen && is_frozen) {
		clasp_error_set(err, 0, "container not running: it is paused");
		goto out;
	}
	if (!frozen && !is_frozen) {
		clasp_error_set(err, 0, "container not paused");
		goto out;
	}
	if (cgroup_freeze(cg, frozen, err) < 0) {
		clasp_error_prefix(err, "%s container %s", frozen ? "pause" : "resume", id);
		goto out;
	}
	r = 0;
out:
	if (cg)
		cgroup_free(cg);
	state_clear(&st);
	return r;
}

int cmd_pause(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	static const char usage[] =
		"Usage: clasp pause <container-id>\n\n"
		"Freeze every process of a running (or created) container through its cgroup's\n"
		"freezer (v1 freezer.state, v2 cgroup.freeze). `state` then reports \"paused\".\n"
		"Fails with \"container not running\" when the container is stopped or already paused.\n\n"
		"Options:\n  -h, --help  show this help\n";
	const char *id;
	int r = parse_id("pause", usage, argc, argv, &id, err);

	if (r)
		return r < 0 ? -1 : 0;
	return set_frozen(g, id, true, err) < 0 ? -1 : 0;
}

int cmd_resume(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	static const char usage[] =
		"Usage: clasp resume <container-id>\n\n"
		"Thaw a container frozen by `clasp pause`.\n"
		"Fails with \"container not paused\" when it is not paused.\n\n"
		"Options:\n  -h, --help  show this help\n";
	const char *id;
	int r = parse_id("resume", usage, argc, argv, &id, err);

	if (r)
		return r < 0 ? -1 : 0;
	return set_frozen(g, id, false, err) < 0 ? -1 : 0;
}
