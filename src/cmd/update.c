/* update: change a running container's resource limits, as runc does:
 * either a LinuxResources JSON object (--resources FILE, or - for stdin;
 * what podman and containerd send) or the individual flags, which are
 * applied on top of the object when both are given. The cgroup files are
 * the record of the current limits, so nothing else is persisted. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/lifecycle.h"
#include "linux/cgroup/cgroup.h"
#include "oci/resources_parse.h"
#include "util/arena.h"
#include "util/cleanup.h"
#include "util/fs.h"

static const char usage[] =
	"Usage: clasp update [options] <container-id>\n\n"
	"Change the resource limits of a running container.\n\n"
	"Options:\n"
	"  -r, --resources FILE        a JSON object of the OCI LinuxResources shape (as in\n"
	"                              config.json's linux.resources); \"-\" reads stdin.\n"
	"                              The flags below, when given too, override its values.\n"
	"      --memory SIZE           memory limit (memory.limit)\n"
	"      --memory-swap SIZE      memory plus swap limit (memory.swap); -1 for unlimited\n"
	"      --memory-reservation SIZE  soft memory limit (memory.reservation)\n"
	"      --kernel-memory SIZE    not supported (deprecated by the kernel)\n"
	"      --kernel-memory-tcp SIZE  not supported (deprecated by the kernel)\n"
	"      --cpu-shares N          CPU shares, relative weight (cpu.shares; --cpu-share too)\n"
	"      --cpu-quota N           CPU time in microseconds per period (cpu.quota); -1 for none\n"
	"      --cpu-period N          CFS period in microseconds (cpu.period)\n"
	"      --cpu-burst N           CFS burst in microseconds (cpu.burst)\n"
	"      --cpu-rt-period N       realtime period in microseconds (cgroup v1 only)\n"
	"      --cpu-rt-runtime N      realtime runtime in microseconds (cgroup v1 only)\n"
	"      --cpuset-cpus LIST      CPUs allowed, e.g. 0-3,5 (cpu.cpus)\n"
	"      --cpuset-mems LIST      memory nodes allowed, e.g. 0 (cpu.mems)\n"
	"      --pids-limit N          maximum number of processes (pids.limit); -1 for none\n"
	"      --blkio-weight N        block IO weight, 10 to 1000 (blockIO.weight)\n"
	"      --l3-cache-schema S     not supported (Intel RDT)\n"
	"      --mem-bw-schema S       not supported (Intel RDT)\n"
	"  -h, --help                  show this help\n\n"
	"SIZE is a number of bytes with an optional unit: k, m, g, t or p (also kb, KiB, ...),\n"
	"all powers of 1024, e.g. 64m or 1.5g; -1 means unlimited.\n";

enum {
	OPT_MEMORY = 256,
	OPT_MEMORY_SWAP,
	OPT_MEMORY_RESERVATION,
	OPT_KERNEL_MEMORY,
	OPT_KERNEL_MEMORY_TCP,
	OPT_CPU_SHARES,
	OPT_CPU_QUOTA,
	OPT_CPU_PERIOD,
	OPT_CPU_BURST,
	OPT_CPU_RT_PERIOD,
	OPT_CPU_RT_RUNTIME,
	OPT_CPUSET_CPUS,
	OPT_CPUSET_MEMS,
	OPT_PIDS_LIMIT,
	OPT_BLKIO_WEIGHT,
	OPT_L3_CACHE,
	OPT_MEM_BW,
};

/* go-units' RAMInBytes, which runc uses: "<number>[ ][kmgtp][i][b]", any
 * case, 1024-based, a fractional number allowed; plus runc's "-1". */
static int parse_size(const char *flag, const char *s, int64_t *out, struct clasp_error *err)
{
	static const char units[] = "kmgtp";
	const char *p = s, *u;
	double num, mult = 1;
	char *end;

	if (strcmp(s, "-1") == 0) {
		*out = -1;
		return 0;
	}
	if (*p < '0' || *p > '9')
		goto bad;
	errno = 0;
	num = strtod(p, &end);
	if (errno || end == p || end[-1] == '.')
		goto bad;
	/* strtod also takes exponents and hex, which RAMInBytes does not */
	if (strcspn(s, "eExXnN") < (size_t)(end - s))
		goto bad;
	p = end;
	if (*p == ' ')
		p++;
	if (*p && (u = strchr(units, (*p | 0x20)))) {
		for (const char *k = units; k <= u; k++)
			mult *= 1024;
		p++;
	}
	if (*p == 'i' || *p == 'I')
		p++;
	if (*p == 'b' || *p == 'B')
		p++;
	if (*p)
		goto bad;
	num *= mult;
	if (num >= 9223372036854775807.0)
		return clasp_error_set(err, ERANGE, "--%s: %s is too large", flag, s);
	*out = (int64_t)num;
	return 0;
bad:
	return clasp_error_set(err, 0, "--%s: invalid size \"%s\" (e.g. 64m, 1g, 1048576 or -1)", flag, s);
}

static int parse_u64(const char *flag, const char *s, uint64_t *out, struct clasp_error *err)
{
	char *end;

	errno = 0;
	if (!s || *s < '0' || *s > '9' || (*out = strtoull(s, &end, 10), errno) || *end)
		return clasp_error_set(err, 0, "--%s: invalid number \"%s\"", flag, s);
	return 0;
}

static int parse_i64(const char *flag, const char *s, int64_t *out, struct clasp_error *err)
{
	char *end;

	errno = 0;
	if (!s || !*s || (*out = strtoll(s, &end, 10), errno) || *end)
		return clasp_error_set(err, 0, "--%s: invalid number \"%s\"", flag, s);
	return 0;
}

static int read_resources(const char *path, struct arena *a, struct oci_resources *res,
			  struct clasp_error *err)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	bool stdin_ = strcmp(path, "-") == 0;

	if (read_file(stdin_ ? "/dev/stdin" : path, &text, &len, err) < 0)
		return clasp_error_prefix(err, "--resources");
	return oci_resources_parse(text, len, stdin_ ? "resources (stdin)" : path, a, res, err);
}

/* One flag onto the resources; the long option's name is for errors. */
static int apply_flag(int opt, const char *name, const char *val, struct oci_resources *r,
		      struct arena *a, struct clasp_error *err)
{
	int64_t i = 0;
	uint64_t u = 0;

	if (!val)
		return clasp_error_set(err, 0, "--%s: a value is required", name);
	switch (opt) {
	case OPT_MEMORY:
	case OPT_MEMORY_SWAP:
	case OPT_MEMORY_RESERVATION:
		if (parse_size(name, val, &i, err) < 0)
			return -1;
		r->memory.present = true;
		if (opt == OPT_MEMORY)
			r->memory.limit = (opt_i64){true, i};
		else if (opt == OPT_MEMORY_SWAP)
			r->memory.swap = (opt_i64){true, i};
		else
			r->memory.reservation = (opt_i64){true, i};
		return 0;
	case OPT_KERNEL_MEMORY:
	case OPT_KERNEL_MEMORY_TCP:
		return clasp_error_set(err, 0, "--%s: kernel memory limits are not supported "
					       "(the kernel deprecated them; runc ignores them too)", name);
	case OPT_L3_CACHE:
	case OPT_MEM_BW:
		return clasp_error_set(err, 0, "--%s: Intel RDT is not supported by clasp", name);
	case OPT_CPU_SHARES:
	case OPT_CPU_PERIOD:
	case OPT_CPU_BURST:
	case OPT_CPU_RT_PERIOD:
		if (parse_u64(name, val, &u, err) < 0)
			return -1;
		r->cpu.present = true;
		if (opt == OPT_CPU_SHARES)
			r->cpu.shares = (opt_u64){true, u};
		else if (opt == OPT_CPU_PERIOD)
			r->cpu.period = (opt_u64){true, u};
		else if (opt == OPT_CPU_BURST)
			r->cpu.burst = (opt_u64){true, u};
		else
			r->cpu.realtime_period = (opt_u64){true, u};
		return 0;
	case OPT_CPU_QUOTA:
	case OPT_CPU_RT_RUNTIME:
		if (parse_i64(name, val, &i, err) < 0)
			return -1;
		r->cpu.present = true;
		if (opt == OPT_CPU_QUOTA)
			r->cpu.quota = (opt_i64){true, i};
		else
			r->cpu.realtime_runtime = (opt_i64){true, i};
		return 0;
	case OPT_CPUSET_CPUS:
	case OPT_CPUSET_MEMS:
		if (strspn(val, "0123456789,- ") != strlen(val))
			return clasp_error_set(err, 0, "--%s: invalid list \"%s\"", name, val);
		r->cpu.present = true;
		if (opt == OPT_CPUSET_CPUS)
			r->cpu.cpus = arena_strdup(a, val);
		else
			r->cpu.mems = arena_strdup(a, val);
		return 0;
	case OPT_PIDS_LIMIT:
		if (parse_i64(name, val, &i, err) < 0)
			return -1;
		r->pids_limit = (opt_i64){true, i};
		return 0;
	case OPT_BLKIO_WEIGHT:
		if (parse_u64(name, val, &u, err) < 0)
			return -1;
		if (u < 10 || u > 1000)
			return clasp_error_set(err, 0, "--%s: %s is out of range (10 to 1000)", name, val);
		r->blockio.present = true;
		r->blockio.weight = (opt_u64){true, u};
		return 0;
	}
	return clasp_error_set(err, 0, "update: invalid option; see --help");
}

static int do_update(struct global_opts *g, const char *id, struct oci_resources *res,
		     struct clasp_error *err)
{
	_cleanup_close_ int lock = -1;
	struct container_state st;
	struct cgroup_mgr *cg = NULL;
	struct oci_config *cfg = NULL;
	int r = -1;

	if (state_lock(g->root, id, &lock, err) < 0 || state_read(g->root, id, &st, err) < 0)
		return -1;
	if (strcmp(lc_status(&st, g->root), "stopped") == 0) {
		clasp_error_set(err, 0, "cannot update a stopped container");
		goto out;
	}
	if (!st.cgroup) {
		clasp_error_set(err, 0, "container %s has no cgroup", id);
		goto out;
	}
	/* checkBeforeUpdate is a property of the container: runc keeps the
	 * config's value unless the update names it. */
	if (res->memory.present && !res->memory.check_before_update.set &&
	    lc_load_config(g->root, id, &cfg, err) == 0)
		res->memory.check_before_update = cfg->linux_.resources.memory.check_before_update;
	if (cgroup_open(st.cgroup, &cg, err) < 0)
		goto out;
	if (cgroup_update(cg, res, err) < 0) {
		/* v1 refuses a memory limit above the memory+swap one; say how out */
		size_t n = strlen(err->msg);
		if (err->code == EINVAL && res->memory.limit.set && !res->memory.swap.set &&
		    strstr(err->msg, "memory.limit"))
			snprintf(err->msg + n, sizeof err->msg - n,
				 " (a limit above the current memory+swap limit needs memory.swap (--memory-swap) too)");
		goto out;
	}
	r = 0;
out:
	if (cg)
		cgroup_free(cg);
	oci_config_free(cfg);
	state_clear(&st);
	return r;
}

int cmd_update(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	static const struct option opts[] = {
		{"resources", required_argument, NULL, 'r'},
		{"memory", required_argument, NULL, OPT_MEMORY},
		{"memory-swap", required_argument, NULL, OPT_MEMORY_SWAP},
		{"memory-reservation", required_argument, NULL, OPT_MEMORY_RESERVATION},
		{"kernel-memory", required_argument, NULL, OPT_KERNEL_MEMORY},
		{"kernel-memory-tcp", required_argument, NULL, OPT_KERNEL_MEMORY_TCP},
		{"cpu-shares", required_argument, NULL, OPT_CPU_SHARES},
		{"cpu-share", required_argument, NULL, OPT_CPU_SHARES},
		{"cpu-quota", required_argument, NULL, OPT_CPU_QUOTA},
		{"cpu-period", required_argument, NULL, OPT_CPU_PERIOD},
		{"cpu-burst", required_argument, NULL, OPT_CPU_BURST},
		{"cpu-rt-period", required_argument, NULL, OPT_CPU_RT_PERIOD},
		{"cpu-rt-runtime", required_argument, NULL, OPT_CPU_RT_RUNTIME},
		{"cpuset-cpus", required_argument, NULL, OPT_CPUSET_CPUS},
		{"cpuset-mems", required_argument, NULL, OPT_CPUSET_MEMS},
		{"pids-limit", required_argument, NULL, OPT_PIDS_LIMIT},
		{"blkio-weight", required_argument, NULL, OPT_BLKIO_WEIGHT},
		{"l3-cache-schema", required_argument, NULL, OPT_L3_CACHE},
		{"mem-bw-schema", required_argument, NULL, OPT_MEM_BW},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct { int opt; const char *name; const char *val; } flags[64];
	size_t nflags = 0, i;
	const char *resources = NULL;
	struct oci_resources res;
	struct arena *a;
	int opt, idx, r = -1;

	while ((opt = getopt_long(argc, argv, "+r:h", opts, &idx)) != -1) {
		if (opt == 'h')
			return cmd_help(usage);
		if (opt == 'r') {
			resources = optarg;
			continue;
		}
		if (opt < OPT_MEMORY)
			return clasp_error_set(err, 0, "update: invalid option; see --help");
		if (nflags == sizeof flags / sizeof flags[0])
			return clasp_error_set(err, 0, "update: too many options");
		flags[nflags].opt = opt;
		flags[nflags].name = opts[idx].name;
		flags[nflags++].val = optarg;
	}
	if (cmd_want_args("update", argc - optind, argv + optind, 1, "<container-id>", err) < 0 ||
	    state_validate_id(argv[optind], err) < 0)
		return -1;
	if (!resources && !nflags)
		return clasp_error_set(err, 0, "update: nothing to change: give --resources or a limit flag (see --help)");
	a = arena_new();
	memset(&res, 0, sizeof res);
	if (resources && read_resources(resources, a, &res, err) < 0)
		goto out;
	for (i = 0; i < nflags; i++)
		if (apply_flag(flags[i].opt, flags[i].name, flags[i].val, &res, a, err) < 0)
			goto out;
	res.present = true;
	r = do_update(g, argv[optind], &res, err);
out:
	arena_free(a);
	return r < 0 ? -1 : 0;
}
