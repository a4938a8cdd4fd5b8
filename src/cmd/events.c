/* events: runc's event stream for one container, as JSON lines on stdout:
 *   {"type":"stats","id":ID,"data":{...}}  every --interval (default 5s)
 *   {"type":"oom","id":ID}                 for each OOM kill in its cgroup
 * until the container stops. --stats prints one stats line and exits.
 * OOM kills are found by polling the kill counter (v1 memory.oom_control,
 * v2 memory.events) rather than eventfd/inotify: one read per 100 ms is
 * cheap, works the same on every layout, and never misses a kill because
 * the counter only grows. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "cmd/lifecycle.h"
#include "linux/cgroup/cgroup.h"
#include "util/cleanup.h"
#include "util/json.h"
#include "util/proc.h"

#define POLL_MS 100

static const char usage[] =
	"Usage: clasp events [options] <container-id>\n\n"
	"Print the container's events as JSON lines until it stops: resource statistics\n"
	"({\"type\":\"stats\",\"id\":ID,\"data\":{cpu, memory, pids, blkio, hugetlb}}) every\n"
	"interval, and {\"type\":\"oom\",\"id\":ID} whenever the kernel OOM-kills a process\n"
	"of the container.\n\n"
	"Options:\n"
	"      --stats        print the statistics once and exit\n"
	"      --interval D   time between statistics, a Go duration such as 5s, 500ms or\n"
	"                     1m30s (default 5s)\n"
	"  -h, --help         show this help\n";

/* Go's time.ParseDuration for non-negative values: "1h2m3.5s", units ns,
 * us (µs), ms, s, m, h; a bare "0" is allowed. Result in milliseconds,
 * rounded up so that a tiny interval does not become 0. */
static int parse_duration(const char *s, long long *ms, struct clasp_error *err)
{
	static const struct { const char *u; double ns; } units[] = {
		{"ns", 1}, {"us", 1e3}, {"\xc2\xb5s", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9},
	};
	const char *p = s;
	double total = 0;

	if (strcmp(s, "0") == 0) {
		*ms = 0;
		return 0;
	}
	if (*p == '+')
		p++;
	if (!*p)
		goto bad;
	while (*p) {
		char *end;
		double v;
		size_t best = 0, i, ulen = 0;

		if (!((*p >= '0' && *p <= '9') || *p == '.'))
			goto bad;
		errno = 0;
		v = strtod(p, &end);
		if (errno || end == p || strcspn(p, "eExXnNiI") < (size_t)(end - p))
			goto bad;
		p = end;
		for (i = 0; i < sizeof units / sizeof units[0]; i++) {
			size_t l = strlen(units[i].u);
			/* longest match: "ms" before "m" */
			if (strncmp(p, units[i].u, l) == 0 && l > ulen) {
				best = i;
				ulen = l;
			}
		}
		if (!ulen)
			return clasp_error_set(err, 0, "--interval: missing or unknown unit in duration \"%s\" "
						       "(use ns, us, ms, s, m or h, e.g. 5s)", s);
		total += v * units[best].ns;
		p += ulen;
	}
	if (total > 1e18)
		goto bad;
	*ms = (long long)((total + 999999) / 1e6);
	return 0;
bad:
	return clasp_error_set(err, 0, "--interval: invalid duration \"%s\" (e.g. 5s, 500ms)", s);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One event line; -1 when stdout is gone (the reader went away). */
static int emit(const char *type, const char *id, struct cgroup_mgr *cg, struct clasp_error *err)
{
	struct json_gen *g = json_gen_new(false);
	const char *buf;
	size_t len;
	int r = 0;

	json_gen_object_open(g);
	json_gen_kv_string(g, "type", type);
	json_gen_kv_string(g, "id", id);
	if (cg) {
		json_gen_string(g, "data");
		if (cgroup_stats(cg, g, err) < 0) {
			json_gen_free(g);
			return -1;
		}
	}
	json_gen_object_close(g);
	buf = json_gen_buf(g, &len);
	if (fwrite(buf, 1, len, stdout) != len || putchar('\n') == EOF || fflush(stdout) == EOF)
		r = clasp_error_set(err, errno, "events: write to stdout");
	json_gen_free(g);
	return r;
}

/* Report every kill since *seen. */
static int emit_ooms(const char *id, struct cgroup_mgr *cg, uint64_t *seen, struct clasp_error *err)
{
	uint64_t count;

	if (cgroup_oom_count(cg, &count) < 0)
		return 0;
	for (; *seen < count; (*seen)++)
		if (emit("oom", id, NULL, err) < 0)
			return -1;
	return 0;
}

int cmd_events(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	static const struct option opts[] = {
		{"stats", no_argument, NULL, 's'},
		{"interval", required_argument, NULL, 'i'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct container_state st;
	struct cgroup_mgr *cg = NULL;
	long long interval = 5000, next;
	uint64_t seen = 0;
	bool stats_once = false;
	const char *id;
	int opt, r = -1;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == 's')
			stats_once = true;
		else if (opt == 'i') {
			if (parse_duration(optarg, &interval, err) < 0)
				return -1;
			if (interval <= 0)
				return clasp_error_set(err, 0, "--interval: must be greater than 0");
		} else if (opt == 'h')
			return cmd_help(usage);
		else
			return clasp_error_set(err, 0, "events: invalid option; see --help");
	}
	if (cmd_want_args("events", argc - optind, argv + optind, 1, "<container-id>", err) < 0)
		return -1;
	id = argv[optind];
	if (state_validate_id(id, err) < 0)
		return -1;
	/* Read the state under its lock, then let go: events runs for long and
	 * must not block delete or kill. */
	{
		_cleanup_close_ int lock = -1;
		if (state_lock(g->root, id, &lock, err) < 0 || state_read(g->root, id, &st, err) < 0)
			return -1;
	}
	if (strcmp(lc_status(&st, g->root), "stopped") == 0) {
		clasp_error_set(err, 0, "container %s is not running", id);
		goto out;
	}
	if (!st.cgroup) {
		clasp_error_set(err, 0, "container %s has no cgroup", id);
		goto out;
	}
	if (cgroup_open(st.cgroup, &cg, err) < 0)
		goto out;
	if (stats_once) {
		r = emit("stats", id, cg, err);
		goto out;
	}
	/* Kills before we started are not news. */
	cgroup_oom_count(cg, &seen);
	next = now_ms() + interval;
	for (;;) {
		struct timespec ts = {0, POLL_MS * 1000000L};
		long long now;

		if (emit_ooms(id, cg, &seen, err) < 0)
			goto out;
		if (!proc_is_same(st.pid, st.start_time)) {
			/* the kill that ended the container may land just now */
			r = emit_ooms(id, cg, &seen, err);
			goto out;
		}
		now = now_ms();
		if (now >= next) {
			if (emit("stats", id, cg, err) < 0)
				goto out;
			next += interval;
			if (next <= now)
				next = now + interval;
		}
		nanosleep(&ts, NULL);
	}
out:
	if (cg)
		cgroup_free(cg);
	state_clear(&st);
	return r < 0 ? -1 : 0;
}
