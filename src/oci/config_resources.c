/* .linux.resources: cgroup limits (config-linux.md "Control groups").
 * Only types and ranges are checked here; whether the host's cgroup setup
 * can honour a value is the cgroup code's decision at create. */
#include <string.h>

#include "oci/config_parse_internal.h"

static int parse_device_rule(struct pctx *p, const struct json *e, struct oci_device_rule *d)
{
	const struct json *allow;
	char *type = NULL;

	if (pv_object(p, e) < 0)
		return -1;
	allow = pc_field(e, "allow");
	if (!allow)
		return pc_fail_at(p, "allow", "required field missing");
	if (pc_bool(p, e, "allow", &d->allow) < 0 || pc_str(p, e, "type", false, &type) < 0)
		return -1;
	d->type = 'a';
	if (type) {
		if (strlen(type) != 1 || !strchr("acb", type[0]))
			return pc_fail_at(p, "type", "unknown device type \"%s\" (expected a, c or b)",
					  type);
		d->type = type[0];
	}
	if (pc_opt_i64(p, e, "major", INT64_MIN, INT64_MAX, &d->major) < 0 ||
	    pc_opt_i64(p, e, "minor", INT64_MIN, INT64_MAX, &d->minor) < 0 ||
	    pc_str(p, e, "access", false, &d->access) < 0)
		return -1;
	if (d->access && strspn(d->access, "rwm") != strlen(d->access))
		return pc_fail_at(p, "access", "invalid access \"%s\" (expected a combination of r, w and m)",
				  d->access);
	return 0;
}

static int parse_device_rules(struct pctx *p, const struct json *res, struct oci_resources *r)
{
	const struct json *arr;
	size_t i, n, mark, imark;
	int rc = 0;

	if (pc_array(p, res, "devices", false, &arr, &n) < 0)
		return -1;
	if (!arr)
		return 0;
	r->devices = arena_alloc(p->a, (n ? n : 1) * sizeof *r->devices);
	r->n_devices = n;
	mark = pc_push_key(p, "devices");
	for (i = 0; i < n && rc == 0; i++) {
		imark = pc_push_index(p, i);
		rc = parse_device_rule(p, json_array_at(arr, i), &r->devices[i]);
		pc_pop(p, imark);
	}
	pc_pop(p, mark);
	return rc;
}

static int parse_memory(struct pctx *p, const struct json *res, struct oci_memory *m)
{
	const struct json *o;
	size_t mark;
	int r = 0;

	if (pc_object(p, res, "memory", false, &o) < 0)
		return -1;
	if (!o)
		return 0;
	m->present = true;
	mark = pc_push_key(p, "memory");
	if (pc_opt_i64(p, o, "limit", INT64_MIN, INT64_MAX, &m->limit) < 0 ||
	    pc_opt_i64(p, o, "reservation", INT64_MIN, INT64_MAX, &m->reservation) < 0 ||
	    pc_opt_i64(p, o, "swap", INT64_MIN, INT64_MAX, &m->swap) < 0 ||
	    pc_opt_i64(p, o, "kernel", INT64_MIN, INT64_MAX, &m->kernel) < 0 ||
	    pc_opt_i64(p, o, "kernelTCP", INT64_MIN, INT64_MAX, &m->kernel_tcp) < 0 ||
	    pc_opt_u64(p, o, "swappiness", UINT64_MAX, &m->swappiness) < 0 ||
	    pc_opt_bool(p, o, "disableOOMKiller", &m->disable_oom_killer) < 0 ||
	    pc_opt_bool(p, o, "useHierarchy", &m->use_hierarchy) < 0 ||
	    pc_opt_bool(p, o, "checkBeforeUpdate", &m->check_before_update) < 0)
		r = -1;
	pc_pop(p, mark);
	return r;
}

static int parse_cpu(struct pctx *p, const struct json *res, struct oci_cpu *c)
{
	const struct json *o;
	size_t mark;
	int r = 0;

	if (pc_object(p, res, "cpu", false, &o) < 0)
		return -1;
	if (!o)
		return 0;
	c->present = true;
	mark = pc_push_key(p, "cpu");
	if (pc_opt_u64(p, o, "shares", UINT64_MAX, &c->shares) < 0 ||
	    pc_opt_i64(p, o, "quota", INT64_MIN, INT64_MAX, &c->quota) < 0 ||
	    pc_opt_u64(p, o, "burst", UINT64_MAX, &c->burst) < 0 ||
	    pc_opt_u64(p, o, "period", UINT64_MAX, &c->period) < 0 ||
	    pc_opt_i64(p, o, "realtimeRuntime", INT64_MIN, INT64_MAX, &c->realtime_runtime) < 0 ||
	    pc_opt_u64(p, o, "realtimePeriod", UINT64_MAX, &c->realtime_period) < 0 ||
	    pc_str(p, o, "cpus", false, &c->cpus) < 0 || pc_str(p, o, "mems", false, &c->mems) < 0 ||
	    pc_opt_i64(p, o, "idle", INT64_MIN, INT64_MAX, &c->idle) < 0)
		r = -1;
	else if (c->cpus && strspn(c->cpus, "0123456789,- ") != strlen(c->cpus))
		r = pc_fail_at(p, "cpus", "invalid CPU list \"%s\"", c->cpus);
	else if (c->mems && strspn(c->mems, "0123456789,- ") != strlen(c->mems))
		r = pc_fail_at(p, "mems", "invalid memory node list \"%s\"", c->mems);
	pc_pop(p, mark);
	return r;
}

static int parse_throttle(struct pctx *p, const struct json *bio, const char *key,
			  struct oci_throttle_list *l)
{
	const struct json *arr;
	size_t i, n, mark, imark;
	int r = 0;

	if (pc_array(p, bio, key, false, &arr, &n) < 0)
		return -1;
	if (!arr)
		return 0;
	l->v = arena_alloc(p->a, (n ? n : 1) * sizeof *l->v);
	l->n = n;
	mark = pc_push_key(p, key);
	for (i = 0; i < n && r == 0; i++) {
		const struct json *e = json_array_at(arr, i);
		struct oci_throttle_device *d = &l->v[i];

		imark = pc_push_index(p, i);
		if (pv_object(p, e) < 0 ||
		    pc_i64(p, e, "major", true, INT64_MIN, INT64_MAX, &d->major) < 0 ||
		    pc_i64(p, e, "minor", true, INT64_MIN, INT64_MAX, &d->minor) < 0 ||
		    pc_u64(p, e, "rate", true, UINT64_MAX, &d->rate) < 0)
			r = -1;
		pc_pop(p, imark);
	}
	pc_pop(p, mark);
	return r;
}

static int parse_weight_devices(struct pctx *p, const struct json *bio, struct oci_blockio *b)
{
	const struct json *arr;
	size_t i, n, mark, imark;
	int r = 0;

	if (pc_array(p, bio, "weightDevice", false, &arr, &n) < 0)
		return -1;
	if (!arr)
		return 0;
	b->weight_device = arena_alloc(p->a, (n ? n : 1) * sizeof *b->weight_device);
	b->n_weight_device = n;
	mark = pc_push_key(p, "weightDevice");
	for (i = 0; i < n && r == 0; i++) {
		const struct json *e = json_array_at(arr, i);
		struct oci_weight_device *d = &b->weight_device[i];

		imark = pc_push_index(p, i);
		if (pv_object(p, e) < 0 ||
		    pc_i64(p, e, "major", true, INT64_MIN, INT64_MAX, &d->major) < 0 ||
		    pc_i64(p, e, "minor", true, INT64_MIN, INT64_MAX, &d->minor) < 0 ||
		    pc_opt_u64(p, e, "weight", UINT16_MAX, &d->weight) < 0 ||
		    pc_opt_u64(p, e, "leafWeight", UINT16_MAX, &d->leaf_weight) < 0)
			r = -1;
		else if (!d->weight.set && !d->leaf_weight.set)
			r = pc_fail(p, "at least one of weight and leafWeight is required");
		pc_pop(p, imark);
	}
	pc_pop(p, mark);
	return r;
}

static int parse_blockio(struct pctx *p, const struct json *res, struct oci_blockio *b)
{
	const struct json *o;
	size_t mark;
	int r = 0;

	if (pc_object(p, res, "blockIO", false, &o) < 0)
		return -1;
	if (!o)
		return 0;
	b->present = true;
	mark = pc_push_key(p, "blockIO");
	if (pc_opt_u64(p, o, "weight", UINT16_MAX, &b->weight) < 0 ||
	    pc_opt_u64(p, o, "leafWeight", UINT16_MAX, &b->leaf_weight) < 0 ||
	    parse_weight_devices(p, o, b) < 0 ||
	    parse_throttle(p, o, "throttleReadBpsDevice", &b->throttle_read_bps) < 0 ||
	    parse_throttle(p, o, "throttleWriteBpsDevice", &b->throttle_write_bps) < 0 ||
	    parse_throttle(p, o, "throttleReadIOPSDevice", &b->throttle_read_iops) < 0 ||
	    parse_throttle(p, o, "throttleWriteIOPSDevice", &b->throttle_write_iops) < 0)
		r = -1;
	pc_pop(p, mark);
	return r;
}

/* ^[1-9][0-9]*[KMG]B$ (the schema's pattern). */
static bool valid_page_size(const char *s)
{
	size_t digits = strspn(s, "0123456789");

	return digits > 0 && s[0] != '0' && s[digits] && strchr("KMG", s[digits]) &&
	       s[digits + 1] == 'B' && s[digits + 2] == '\0';
}

static int parse_hugepages(struct pctx *p, const struct json *res, struct oci_resources *rs)
{
	const struct json *arr;
	size_t i, n, mark, imark;
	int r = 0;

	if (pc_array(p, res, "hugepageLimits", false, &arr, &n) < 0)
		return -1;
	if (!arr)
		return 0;
	rs->hugepage_limits = arena_alloc(p->a, (n ? n : 1) * sizeof *rs->hugepage_limits);
	rs->n_hugepage_limits = n;
	mark = pc_push_key(p, "hugepageLimits");
	for (i = 0; i < n && r == 0; i++) {
		const struct json *e = json_array_at(arr, i);
		struct oci_hugepage_limit *h = &rs->hugepage_limits[i];

		imark = pc_push_index(p, i);
		if (pv_object(p, e) < 0 || pc_str(p, e, "pageSize", true, &h->page_size) < 0)
			r = -1;
		else if (!valid_page_size(h->page_size))
			r = pc_fail_at(p, "pageSize",
				       "invalid page size \"%s\" (expected <size>KB, MB or GB, e.g. \"2MB\")",
				       h->page_size);
		else if (pc_u64(p, e, "limit", true, UINT64_MAX, &h->limit) < 0)
			r = -1;
		pc_pop(p, imark);
	}
	pc_pop(p, mark);
	return r;
}

static int parse_network(struct pctx *p, const struct json *res, struct oci_network_res *nw)
{
	const struct json *o, *arr;
	size_t i, n, mark, pmark, imark;
	int r = 0;

	if (pc_object(p, res, "network", false, &o) < 0)
		return -1;
	if (!o)
		return 0;
	nw->present = true;
	mark = pc_push_key(p, "network");
	if (pc_opt_u64(p, o, "classID", UINT32_MAX, &nw->class_id) < 0 ||
	    pc_array(p, o, "priorities", false, &arr, &n) < 0) {
		pc_pop(p, mark);
		return -1;
	}
	if (arr) {
		nw->priorities = arena_alloc(p->a, (n ? n : 1) * sizeof *nw->priorities);
		nw->n_priorities = n;
		pmark = pc_push_key(p, "priorities");
		for (i = 0; i < n && r == 0; i++) {
			const struct json *e = json_array_at(arr, i);

			imark = pc_push_index(p, i);
			if (pv_object(p, e) < 0 || pc_str(p, e, "name", true, &nw->priorities[i].name) < 0 ||
			    pc_u32(p, e, "priority", true, &nw->priorities[i].priority) < 0)
				r = -1;
			pc_pop(p, imark);
		}
		pc_pop(p, pmark);
	}
	pc_pop(p, mark);
	return r;
}

static int parse_rdma(struct pctx *p, const struct json *res, struct oci_resources *rs)
{
	const struct json *o;
	size_t i, n, mark, kmark;
	int r = 0;

	if (pc_object(p, res, "rdma", false, &o) < 0)
		return -1;
	if (!o)
		return 0;
	n = json_object_len(o);
	rs->rdma = arena_alloc(p->a, (n ? n : 1) * sizeof *rs->rdma);
	rs->n_rdma = n;
	mark = pc_push_key(p, "rdma");
	for (i = 0; i < n && r == 0; i++) {
		const char *k = json_object_key(o, i);
		const struct json *e = json_object_value(o, i);
		struct oci_rdma *d = &rs->rdma[i];

		if (!*k) {
			r = pc_fail(p, "empty key");
			break;
		}
		kmark = pc_push_key(p, k);
		d->device = arena_strdup(p->a, k);
		/* The name starts a line of rdma.max: no separators inside. */
		if (strcspn(k, " \t\n\r=") != strlen(k)) {
			r = pc_fail(p, "invalid RDMA device name");
			pc_pop(p, kmark);
			break;
		}
		if (pv_object(p, e) < 0 || pc_opt_u64(p, e, "hcaHandles", UINT32_MAX, &d->hca_handles) < 0 ||
		    pc_opt_u64(p, e, "hcaObjects", UINT32_MAX, &d->hca_objects) < 0)
			r = -1;
		else if (!d->hca_handles.set && !d->hca_objects.set)
			r = pc_fail(p, "at least one of hcaHandles and hcaObjects is required");
		pc_pop(p, kmark);
	}
	pc_pop(p, mark);
	return r;
}

/* Keys of "unified" are file names inside the container's cgroup directory. */
static bool valid_cgroup_file(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0 &&
	       strcspn(s, "\n\r\t ") == strlen(s);
}

int pc_resources(struct pctx *p, const struct json *res, struct oci_resources *rs)
{
	const struct json *pids;
	size_t mark;

	if (parse_device_rules(p, res, rs) < 0 || parse_memory(p, res, &rs->memory) < 0 ||
	    parse_cpu(p, res, &rs->cpu) < 0)
		return -1;
	if (pc_object(p, res, "pids", false, &pids) < 0)
		return -1;
	if (pids) {
		int r;

		rs->pids_limit.set = true;
		mark = pc_push_key(p, "pids");
		r = pc_i64(p, pids, "limit", true, INT64_MIN, INT64_MAX, &rs->pids_limit.v);
		pc_pop(p, mark);
		if (r < 0)
			return -1;
	}
	if (parse_blockio(p, res, &rs->blockio) < 0 || parse_hugepages(p, res, rs) < 0 ||
	    parse_network(p, res, &rs->network) < 0 || parse_rdma(p, res, rs) < 0 ||
	    pc_string_map(p, res, "unified", &rs->unified) < 0 ||
	    pc_check_keys(p, "unified", &rs->unified, valid_cgroup_file, "cgroup file name") < 0)
		return -1;
	return 0;
}
