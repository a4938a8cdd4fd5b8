/* linux.resources -> cgroup files, per controller, in whichever hierarchy
 * (v1 or v2) the controller lives on this host, with runc's conversions.
 * Every error names the OCI key it came from. */
#include "linux/cgroup/cg_internal.h"
#include "linux/cgroup/convert.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cleanup.h"

#define K "linux.resources."

static int need(struct cgroup_mgr *m, const char *v1, const char *v2, const char *key,
		struct cg_target *t, struct clasp_error *err)
{
	if (cg_find(m, v1, v2, t))
		return 0;
	return clasp_error_set(err, 0, "%s: the %s controller is not available on this host", key,
			       v1 ? v1 : v2);
}

static int wr_i64(const char *dir, const char *file, int64_t v, const char *key,
		  struct clasp_error *err)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRId64, v);
	return cg_write(dir, file, buf, key, err);
}

static int wr_u64(const char *dir, const char *file, uint64_t v, const char *key,
		  struct clasp_error *err)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRIu64, v);
	return cg_write(dir, file, buf, key, err);
}

static int memory_v1(const char *dir, const struct oci_memory *mem, struct clasp_error *err)
{
	char buf[32];
	bool limit = mem->limit.set, swap = mem->swap.set;
	int64_t swapv = mem->swap.v;

	/* "memory unlimited" also lifts the memory+swap limit, as runc */
	if (limit && mem->limit.v == -1 && !swap && cg_file_exists(dir, "memory.memsw.limit_in_bytes")) {
		swap = true;
		swapv = -1;
	}
	if (limit && swap) {
		uint64_t cur = 0;
		bool swap_first;

		/* the kernel demands limit <= memsw at every step */
		cg_read_u64(dir, "memory.limit_in_bytes", &cur);
		swap_first = swapv == -1 || (swapv >= 0 && cur < (uint64_t)swapv);
		for (int i = 0; i < 2; i++) {
			if ((i == 0) == swap_first) {
				cgconv_v1_limit(swapv, buf, sizeof buf);
				if (cg_write(dir, "memory.memsw.limit_in_bytes", buf, K "memory.swap", err) < 0)
					return -1;
			} else {
				cgconv_v1_limit(mem->limit.v, buf, sizeof buf);
				if (cg_write(dir, "memory.limit_in_bytes", buf, K "memory.limit", err) < 0)
					return -1;
			}
		}
	} else if (limit) {
		cgconv_v1_limit(mem->limit.v, buf, sizeof buf);
		if (cg_write(dir, "memory.limit_in_bytes", buf, K "memory.limit", err) < 0)
			return -1;
	} else if (swap) {
		cgconv_v1_limit(swapv, buf, sizeof buf);
		if (cg_write(dir, "memory.memsw.limit_in_bytes", buf, K "memory.swap", err) < 0)
			return -1;
	}
	if (mem->reservation.set) {
		cgconv_v1_limit(mem->reservation.v, buf, sizeof buf);
		if (cg_write(dir, "memory.soft_limit_in_bytes", buf, K "memory.reservation", err) < 0)
			return -1;
	}
	if (mem->kernel.set) {
		cgconv_v1_limit(mem->kernel.v, buf, sizeof buf);
		if (cg_write(dir, "memory.kmem.limit_in_bytes", buf, K "memory.kernel", err) < 0)
			return -1;
	}
	if (mem->kernel_tcp.set) {
		cgconv_v1_limit(mem->kernel_tcp.v, buf, sizeof buf);
		if (cg_write(dir, "memory.kmem.tcp.limit_in_bytes", buf, K "memory.kernelTCP", err) < 0)
			return -1;
	}
	if (mem->swappiness.set) {
		if (mem->swappiness.v > 100)
			return clasp_error_set(err, 0, K "memory.swappiness: %" PRIu64 " is out of range 0-100",
					       mem->swappiness.v);
		if (wr_u64(dir, "memory.swappiness", mem->swappiness.v, K "memory.swappiness", err) < 0)
			return -1;
	}
	if (mem->disable_oom_killer.set && mem->disable_oom_killer.v &&
	    cg_write(dir, "memory.oom_control", "1", K "memory.disableOOMKiller", err) < 0)
		return -1;
	if (mem->use_hierarchy.set &&
	    cg_write(dir, "memory.use_hierarchy", mem->use_hierarchy.v ? "1" : "0",
		     K "memory.useHierarchy", err) < 0)
		return -1;
	return 0;
}

static int memory_v2(const char *dir, const struct oci_memory *mem, struct clasp_error *err)
{
	char buf[32];
	bool swap_set;
	int64_t swap;

	if (cgconv_swap_v2(mem->swap.set, mem->swap.v, mem->limit.set, mem->limit.v, &swap_set, &swap,
			   err) < 0)
		return clasp_error_prefix(err, K "memory.swap");
	if (swap_set) {
		if (!cg_file_exists(dir, "memory.swap.max")) {
			/* no swap accounting: only "unlimited" can be honoured */
			if (swap != -1)
				return clasp_error_set(err, 0, K "memory.swap: swap accounting is not enabled on this host");
		} else {
			cgconv_v2_limit(swap, buf, sizeof buf);
			if (cg_write(dir, "memory.swap.max", buf, K "memory.swap", err) < 0)
				return -1;
		}
	}
	if (mem->limit.set) {
		cgconv_v2_limit(mem->limit.v, buf, sizeof buf);
		if (cg_write(dir, "memory.max", buf, K "memory.limit", err) < 0)
			return -1;
	}
	if (mem->reservation.set) {
		cgconv_v2_limit(mem->reservation.v, buf, sizeof buf);
		if (cg_write(dir, "memory.low", buf, K "memory.reservation", err) < 0)
			return -1;
	}
	if (mem->swappiness.set)
		return clasp_error_set(err, 0, K "memory.swappiness: not supported on cgroup v2");
	if (mem->disable_oom_killer.set && mem->disable_oom_killer.v)
		return clasp_error_set(err, 0, K "memory.disableOOMKiller: not supported on cgroup v2");
	if (mem->kernel.set && mem->kernel.v != -1)
		return clasp_error_set(err, 0, K "memory.kernel: not supported on cgroup v2");
	if (mem->kernel_tcp.set && mem->kernel_tcp.v != -1)
		return clasp_error_set(err, 0, K "memory.kernelTCP: not supported on cgroup v2");
	if (mem->use_hierarchy.set && !mem->use_hierarchy.v)
		return clasp_error_set(err, 0, K "memory.useHierarchy: cgroup v2 is always hierarchical");
	return 0;
}

static int check_before_update(const struct cg_target *t, const struct oci_memory *mem,
			       struct clasp_error *err)
{
	uint64_t usage;

	if (!mem->check_before_update.set || !mem->check_before_update.v || !mem->limit.set ||
	    mem->limit.v < 0)
		return 0;
	if (cg_read_u64(t->dir, t->v2 ? "memory.current" : "memory.usage_in_bytes", &usage) < 0)
		return clasp_error_set(err, errno, K "memory.checkBeforeUpdate: read usage");
	if ((uint64_t)mem->limit.v < usage)
		return clasp_error_set(err, 0,
				       K "memory.limit: new limit %" PRId64 " is lower than the current usage %" PRIu64,
				       mem->limit.v, usage);
	return 0;
}

static int cpu_v1(const char *dir, const struct oci_cpu *cpu, struct clasp_error *err)
{
	bool period_pending = false;

	if (cpu->shares.set && cpu->shares.v) {
		uint64_t got = 0;
		if (wr_u64(dir, "cpu.shares", cpu->shares.v, K "cpu.shares", err) < 0)
			return -1;
		/* the kernel clamps silently; say so instead */
		if (cg_read_u64(dir, "cpu.shares", &got) == 0 && got != cpu->shares.v)
			return clasp_error_set(err, 0, K "cpu.shares: %" PRIu64 " is out of range (the kernel set %" PRIu64 ")",
					       cpu->shares.v, got);
	}
	if (cpu->period.set && cpu->period.v) {
		if (wr_u64(dir, "cpu.cfs_period_us", cpu->period.v, K "cpu.period", err) < 0) {
			/* a smaller period can exceed the parent's quota until
			 * the quota is lowered: retry after it */
			if (err->code != EINVAL || !cpu->quota.set)
				return -1;
			period_pending = true;
		}
	}
	if (cpu->quota.set && wr_i64(dir, "cpu.cfs_quota_us", cpu->quota.v > 0 ? cpu->quota.v : -1,
				     K "cpu.quota", err) < 0)
		return -1;
	if (period_pending && wr_u64(dir, "cpu.cfs_period_us", cpu->period.v, K "cpu.period", err) < 0)
		return -1;
	if (cpu->burst.set && wr_u64(dir, "cpu.cfs_burst_us", cpu->burst.v, K "cpu.burst", err) < 0)
		return -1;
	if (cpu->realtime_period.set &&
	    wr_u64(dir, "cpu.rt_period_us", cpu->realtime_period.v, K "cpu.realtimePeriod", err) < 0)
		return -1;
	if (cpu->realtime_runtime.set &&
	    wr_i64(dir, "cpu.rt_runtime_us", cpu->realtime_runtime.v, K "cpu.realtimeRuntime", err) < 0)
		return -1;
	if (cpu->idle.set && wr_i64(dir, "cpu.idle", cpu->idle.v, K "cpu.idle", err) < 0)
		return -1;
	return 0;
}

static int cpu_v2(const char *dir, const struct oci_cpu *cpu, struct clasp_error *err)
{
	char buf[64];
	bool quota_set = cpu->quota.set;
	int64_t quota = cpu->quota.v;

	if (cpu->idle.set && wr_i64(dir, "cpu.idle", cpu->idle.v, K "cpu.idle", err) < 0)
		return -1;
	if (cpu->shares.set && cpu->shares.v &&
	    wr_u64(dir, "cpu.weight", cgconv_shares_to_weight(cpu->shares.v), K "cpu.shares", err) < 0)
		return -1;
	if (!quota_set && cpu->period.set) {
		/* a period alone must not reset the quota to "max" */
		_cleanup_free_ char *cur = cg_read(dir, "cpu.max");
		if (cur && strncmp(cur, "max", 3) != 0) {
			quota = strtoll(cur, NULL, 10);
			quota_set = true;
		}
	}
	if (cgconv_cpu_max(quota_set, quota, cpu->period.set, cpu->period.v, buf, sizeof buf) &&
	    cg_write(dir, "cpu.max", buf, cpu->quota.set ? K "cpu.quota" : K "cpu.period", err) < 0)
		return -1;
	if (cpu->burst.set && wr_u64(dir, "cpu.max.burst", cpu->burst.v, K "cpu.burst", err) < 0)
		return -1;
	if (cpu->realtime_period.set || cpu->realtime_runtime.set)
		return clasp_error_set(err, 0, K "cpu.%s: realtime scheduling limits are not supported on cgroup v2",
				       cpu->realtime_period.set ? "realtimePeriod" : "realtimeRuntime");
	return 0;
}

static int cpuset(struct cgroup_mgr *m, const struct oci_cpu *cpu, struct clasp_error *err)
{
	struct cg_target t;
	const char *vals[2] = { cpu->cpus, cpu->mems };
	const char *files[2] = { "cpuset.cpus", "cpuset.mems" };
	const char *keys[2] = { K "cpu.cpus", K "cpu.mems" };

	for (int i = 0; i < 2; i++) {
		if (!vals[i] || !*vals[i])
			continue;
		if (cgconv_parse_cpulist(vals[i], NULL, 0) < 0)
			return clasp_error_set(err, 0, "%s: invalid list \"%s\"", keys[i], vals[i]);
		if (need(m, "cpuset", "cpuset", keys[i], &t, err) < 0)
			return -1;
		if (cg_write(t.dir, files[i], vals[i], keys[i], err) < 0)
			return -1;
	}
	return 0;
}

static int blkio_v1(const char *dir, const struct oci_blockio *b, struct clasp_error *err)
{
	char buf[96];
	/* CFQ's files, or BFQ's on kernels without CFQ */
	const char *wfile = cg_file_exists(dir, "blkio.weight") ? "blkio.weight" : "blkio.bfq.weight";
	const char *wdfile = cg_file_exists(dir, "blkio.weight_device") ? "blkio.weight_device"
									   : "blkio.bfq.weight_device";
	struct {
		const struct oci_throttle_list *l;
		const char *file, *key;
	} th[] = {
		{ &b->throttle_read_bps, "blkio.throttle.read_bps_device", K "blockIO.throttleReadBpsDevice" },
		{ &b->throttle_write_bps, "blkio.throttle.write_bps_device", K "blockIO.throttleWriteBpsDevice" },
		{ &b->throttle_read_iops, "blkio.throttle.read_iops_device", K "blockIO.throttleReadIOPSDevice" },
		{ &b->throttle_write_iops, "blkio.throttle.write_iops_device", K "blockIO.throttleWriteIOPSDevice" },
	};

	if (b->weight.set && wr_u64(dir, wfile, b->weight.v, K "blockIO.weight", err) < 0)
		return -1;
	if (b->leaf_weight.set &&
	    wr_u64(dir, "blkio.leaf_weight", b->leaf_weight.v, K "blockIO.leafWeight", err) < 0)
		return -1;
	for (size_t i = 0; i < b->n_weight_device; i++) {
		const struct oci_weight_device *d = &b->weight_device[i];
		char key[96];

		snprintf(key, sizeof key, K "blockIO.weightDevice[%zu]", i);
		if (d->weight.set) {
			snprintf(buf, sizeof buf, "%" PRId64 ":%" PRId64 " %" PRIu64, d->major, d->minor, d->weight.v);
			if (cg_write(dir, wdfile, buf, key, err) < 0)
				return -1;
		}
		if (d->leaf_weight.set) {
			snprintf(buf, sizeof buf, "%" PRId64 ":%" PRId64 " %" PRIu64, d->major, d->minor,
				 d->leaf_weight.v);
			if (cg_write(dir, "blkio.leaf_weight_device", buf, key, err) < 0)
				return -1;
		}
	}
	for (size_t k = 0; k < 4; k++) {
		for (size_t i = 0; i < th[k].l->n; i++) {
			const struct oci_throttle_device *d = &th[k].l->v[i];
			char key[96];

			snprintf(key, sizeof key, "%s[%zu]", th[k].key, i);
			snprintf(buf, sizeof buf, "%" PRId64 ":%" PRId64 " %" PRIu64, d->major, d->minor, d->rate);
			if (cg_write(dir, th[k].file, buf, key, err) < 0)
				return -1;
		}
	}
	return 0;
}

static int blkio_v2(const char *dir, const struct oci_blockio *b, struct clasp_error *err)
{
	char buf[96];
	bool bfq = cg_file_exists(dir, "io.bfq.weight");
	struct {
		const struct oci_throttle_list *l;
		const char *name, *key;
	} th[] = {
		{ &b->throttle_read_bps, "rbps", K "blockIO.throttleReadBpsDevice" },
		{ &b->throttle_write_bps, "wbps", K "blockIO.throttleWriteBpsDevice" },
		{ &b->throttle_read_iops, "riops", K "blockIO.throttleReadIOPSDevice" },
		{ &b->throttle_write_iops, "wiops", K "blockIO.throttleWriteIOPSDevice" },
	};

	/* BFQ takes blkio's 10..1000 scale as is; io.weight needs converting */
	if (b->weight.set && b->weight.v) {
		uint64_t w = bfq ? b->weight.v : cgconv_blkio_to_io_weight(b->weight.v);
		if (wr_u64(dir, bfq ? "io.bfq.weight" : "io.weight", w, K "blockIO.weight", err) < 0)
			return -1;
	}
	if (b->leaf_weight.set)
		return clasp_error_set(err, 0, K "blockIO.leafWeight: not supported on cgroup v2");
	for (size_t i = 0; i < b->n_weight_device; i++) {
		const struct oci_weight_device *d = &b->weight_device[i];
		char key[96];

		snprintf(key, sizeof key, K "blockIO.weightDevice[%zu]", i);
		if (d->leaf_weight.set)
			return clasp_error_set(err, 0, "%s.leafWeight: not supported on cgroup v2", key);
		if (!d->weight.set)
			continue;
		snprintf(buf, sizeof buf, "%" PRId64 ":%" PRId64 " %" PRIu64, d->major, d->minor,
			 bfq ? d->weight.v : cgconv_blkio_to_io_weight(d->weight.v));
		if (cg_write(dir, bfq ? "io.bfq.weight" : "io.weight", buf, key, err) < 0)
			return -1;
	}
	for (size_t k = 0; k < 4; k++) {
		for (size_t i = 0; i < th[k].l->n; i++) {
			const struct oci_throttle_device *d = &th[k].l->v[i];
			char key[96];

			snprintf(key, sizeof key, "%s[%zu]", th[k].key, i);
			if (d->rate)
				snprintf(buf, sizeof buf, "%" PRId64 ":%" PRId64 " %s=%" PRIu64, d->major,
					 d->minor, th[k].name, d->rate);
			else /* 0 lifts the limit, as on v1 */
				snprintf(buf, sizeof buf, "%" PRId64 ":%" PRId64 " %s=max", d->major, d->minor,
					 th[k].name);
			if (cg_write(dir, "io.max", buf, key, err) < 0)
				return -1;
		}
	}
	return 0;
}

static int hugetlb(struct cgroup_mgr *m, const struct oci_resources *res, struct clasp_error *err)
{
	for (size_t i = 0; i < res->n_hugepage_limits; i++) {
		const struct oci_hugepage_limit *h = &res->hugepage_limits[i];
		struct cg_target t;
		char key[96], name[32], file[96], sys[128];
		uint64_t bytes;

		snprintf(key, sizeof key, K "hugepageLimits[%zu]", i);
		if (cgconv_pagesize_parse(h->page_size, &bytes) < 0)
			return clasp_error_set(err, 0, "%s.pageSize: invalid \"%s\"", key, h->page_size);
		snprintf(sys, sizeof sys, "/sys/kernel/mm/hugepages/hugepages-%" PRIu64 "kB", bytes / 1024);
		if (access(sys, F_OK) < 0)
			return clasp_error_set(err, 0, "%s.pageSize: %s huge pages are not supported by this kernel",
					       key, h->page_size);
		if (need(m, "hugetlb", "hugetlb", key, &t, err) < 0)
			return -1;
		cgconv_pagesize_name(bytes, name, sizeof name);
		snprintf(file, sizeof file, t.v2 ? "hugetlb.%s.max" : "hugetlb.%s.limit_in_bytes", name);
		if (wr_u64(t.dir, file, h->limit, key, err) < 0)
			return -1;
		/* reservation accounting, where the kernel has it (config-linux.md) */
		snprintf(file, sizeof file, t.v2 ? "hugetlb.%s.rsvd.max" : "hugetlb.%s.rsvd.limit_in_bytes", name);
		if (cg_file_exists(t.dir, file) && wr_u64(t.dir, file, h->limit, key, err) < 0)
			return -1;
	}
	return 0;
}

static int network(struct cgroup_mgr *m, const struct oci_network_res *n, struct clasp_error *err)
{
	struct cg_target t;

	if (n->class_id.set) {
		if (need(m, "net_cls", NULL, K "network.classID", &t, err) < 0)
			return -1;
		if (wr_u64(t.dir, "net_cls.classid", n->class_id.v, K "network.classID", err) < 0)
			return -1;
	}
	for (size_t i = 0; i < n->n_priorities; i++) {
		char key[96], buf[128];

		snprintf(key, sizeof key, K "network.priorities[%zu]", i);
		if (need(m, "net_prio", NULL, key, &t, err) < 0)
			return -1;
		snprintf(buf, sizeof buf, "%s %" PRIu32, n->priorities[i].name, n->priorities[i].priority);
		if (cg_write(t.dir, "net_prio.ifpriomap", buf, key, err) < 0)
			return -1;
	}
	return 0;
}

static int rdma(struct cgroup_mgr *m, const struct oci_resources *res, struct clasp_error *err)
{
	for (size_t i = 0; i < res->n_rdma; i++) {
		const struct oci_rdma *r = &res->rdma[i];
		struct cg_target t;
		char key[96], buf[256];
		int n;

		snprintf(key, sizeof key, K "rdma[\"%s\"]", r->device);
		if (need(m, "rdma", "rdma", key, &t, err) < 0)
			return -1;
		n = snprintf(buf, sizeof buf, "%s", r->device);
		if (r->hca_handles.set)
			n += snprintf(buf + n, sizeof buf - (size_t)n, " hca_handle=%" PRIu64, r->hca_handles.v);
		if (r->hca_objects.set && (size_t)n < sizeof buf)
			snprintf(buf + n, sizeof buf - (size_t)n, " hca_object=%" PRIu64, r->hca_objects.v);
		if (cg_write(t.dir, "rdma.max", buf, key, err) < 0)
			return -1;
	}
	return 0;
}

static int devices(struct cgroup_mgr *m, const struct oci_resources *res, struct clasp_error *err)
{
	struct cg_target t;

	if (!res->n_devices)
		return 0;
	if (need(m, "devices", "", K "devices", &t, err) < 0)
		return -1;
	if (t.v2)
		return cg_devices_v2(m, t.dir, res->devices, res->n_devices, err);
	for (size_t i = 0; i < res->n_devices; i++) {
		const struct oci_device_rule *d = &res->devices[i];
		char buf[96], key[64];

		snprintf(key, sizeof key, K "devices[%zu]", i);
		cgconv_device_rule(d->type, d->major.set, d->major.v, d->minor.set, d->minor.v, d->access,
				   buf, sizeof buf);
		if (cg_write(t.dir, d->allow ? "devices.allow" : "devices.deny", buf, key, err) < 0)
			return -1;
	}
	return 0;
}

static int unified(struct cgroup_mgr *m, const struct kvlist *u, struct clasp_error *err)
{
	struct cg_hier *v2 = cg_v2(m);

	for (size_t i = 0; i < u->n; i++) {
		const char *k = u->v[i].key;
		char key[300], ctrl[64];
		const char *dot = strchr(k, '.');

		snprintf(key, sizeof key, K "unified[\"%s\"]", k);
		if (!dot || dot == k || strchr(k, '/') || (size_t)(dot - k) >= sizeof ctrl)
			return clasp_error_set(err, 0, "%s: not a cgroup v2 file name", key);
		if (!v2)
			return clasp_error_set(err, 0, "%s: cgroup v2 is not mounted on this host", key);
		snprintf(ctrl, sizeof ctrl, "%.*s", (int)(dot - k), k);
		if (strcmp(ctrl, "cgroup") != 0 && !cg_v2_has_controller(v2->path, ctrl))
			return clasp_error_set(err, 0,
					       "%s: the %s controller is not available in the cgroup v2 hierarchy (%s)",
					       key, ctrl, v2->path);
		if (cg_write(v2->path, k, u->v[i].value, key, err) < 0)
			return -1;
	}
	return 0;
}

int cg_apply_resources(struct cgroup_mgr *m, const struct oci_resources *res, bool update,
		       struct clasp_error *err)
{
	struct cg_target t;

	if (!res || !res->present)
		return 0;
	/* devices are set once at create; `update` leaves them as they are */
	if (!update && devices(m, res, err) < 0)
		return -1;
	if (res->cpu.present) {
		const struct oci_cpu *c = &res->cpu;
		bool any = (c->shares.set && c->shares.v) || c->quota.set || c->period.set ||
			   c->burst.set || c->realtime_period.set || c->realtime_runtime.set || c->idle.set;

		if (cpuset(m, c, err) < 0)
			return -1;
		if (any) {
			if (need(m, "cpu", "cpu", K "cpu", &t, err) < 0)
				return -1;
			if ((t.v2 ? cpu_v2 : cpu_v1)(t.dir, c, err) < 0)
				return -1;
		}
	}
	if (res->memory.present) {
		if (need(m, "memory", "memory", K "memory", &t, err) < 0)
			return -1;
		if (update && check_before_update(&t, &res->memory, err) < 0)
			return -1;
		if ((t.v2 ? memory_v2 : memory_v1)(t.dir, &res->memory, err) < 0)
			return -1;
	}
	if (res->pids_limit.set) {
		char buf[32];

		if (need(m, "pids", "pids", K "pids.limit", &t, err) < 0)
			return -1;
		/* 0 is a real limit (config-linux.md); negative means none */
		cgconv_v2_limit(res->pids_limit.v, buf, sizeof buf);
		if (cg_write(t.dir, "pids.max", buf, K "pids.limit", err) < 0)
			return -1;
	}
	if (res->blockio.present) {
		if (need(m, "blkio", "io", K "blockIO", &t, err) < 0)
			return -1;
		if ((t.v2 ? blkio_v2 : blkio_v1)(t.dir, &res->blockio, err) < 0)
			return -1;
	}
	if (hugetlb(m, res, err) < 0 || network(m, &res->network, err) < 0 || rdma(m, res, err) < 0)
		return -1;
	/* last, so explicit v2 keys win over converted values */
	return unified(m, &res->unified, err);
}

int cgroup_apply(struct cgroup_mgr *m, const struct oci_resources *res, struct clasp_error *err)
{
	return cg_apply_resources(m, res, false, err);
}

int cgroup_update(struct cgroup_mgr *m, const struct oci_resources *res, struct clasp_error *err)
{
	return cg_apply_resources(m, res, true, err);
}
