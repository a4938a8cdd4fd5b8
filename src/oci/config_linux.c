/* .linux: everything of config-linux.md except resources and seccomp, which
 * have their own files. */
#include <string.h>

#include "oci/config_parse_internal.h"

/* Same order as enum oci_ns_type. */
static const char *const ns_names[] = {
	"pid", "network", "mount", "ipc", "uts", "user", "cgroup", "time", NULL,
};

static int parse_namespace(struct pctx *p, const struct json *e, struct oci_namespace *ns)
{
	char *type = NULL;
	int t;

	if (pv_object(p, e) < 0 || pc_str(p, e, "type", true, &type) < 0)
		return -1;
	t = pc_lookup(ns_names, type);
	if (t < 0)
		return pc_fail_at(p, "type", "unknown namespace \"%s\"", type);
	ns->type = (enum oci_ns_type)t;
	if (pc_str(p, e, "path", false, &ns->path) < 0)
		return -1;
	if (ns->path && ns->path[0] != '/')
		return pc_fail_at(p, "path", "\"%s\" is not an absolute path", ns->path);
	return 0;
}

static int parse_namespaces(struct pctx *p, const struct json *lx, struct oci_linux *l)
{
	const struct json *arr;
	bool seen[OCI_NS_COUNT] = {false};
	size_t i, n, mark, imark;
	int r = 0;

	if (pc_array(p, lx, "namespaces", false, &arr, &n) < 0)
		return -1;
	if (!arr)
		return 0;
	l->namespaces = arena_alloc(p->a, (n ? n : 1) * sizeof *l->namespaces);
	l->n_namespaces = n;
	mark = pc_push_key(p, "namespaces");
	for (i = 0; i < n && r == 0; i++) {
		struct oci_namespace *ns = &l->namespaces[i];

		imark = pc_push_index(p, i);
		r = parse_namespace(p, json_array_at(arr, i), ns);
		if (r == 0 && seen[ns->type])
			r = pc_fail_at(p, "type", "duplicate namespace \"%s\"", ns_names[ns->type]);
		if (r == 0)
			seen[ns->type] = true;
		pc_pop(p, imark);
	}
	pc_pop(p, mark);
	return r;
}

static int parse_time_offsets(struct pctx *p, const struct json *lx, struct oci_linux *l)
{
	const struct json *o;
	size_t i, n, mark, kmark;
	int r = 0;

	if (pc_object(p, lx, "timeOffsets", false, &o) < 0)
		return -1;
	if (!o)
		return 0;
	mark = pc_push_key(p, "timeOffsets");
	n = json_object_len(o);
	for (i = 0; i < n && r == 0; i++) {
		const char *clock = json_object_key(o, i);
		const struct json *e = json_object_value(o, i);
		struct oci_time_offset *t;
		uint64_t ns = 0;

		kmark = pc_push_key(p, clock);
		if (strcmp(clock, "monotonic") == 0) {
			t = &l->time_monotonic;
		} else if (strcmp(clock, "boottime") == 0) {
			t = &l->time_boottime;
		} else {
			r = pc_fail(p, "unknown clock \"%s\" (expected \"monotonic\" or \"boottime\")",
				    clock);
			break;
		}
		t->set = true; /* a repeated clock was refused as a duplicate key */
		/* The kernel refuses nanoseconds >= 1s in timens_offsets. */
		if (pv_object(p, e) < 0 || pc_i64(p, e, "secs", false, INT64_MIN, INT64_MAX, &t->secs) < 0 ||
		    pc_u64(p, e, "nanosecs", false, 999999999, &ns) < 0)
			r = -1;
		t->nanosecs = (uint32_t)ns;
		pc_pop(p, kmark);
	}
	pc_pop(p, mark);
	return r;
}

static int parse_device(struct pctx *p, const struct json *e, struct oci_device *d)
{
	char *type = NULL;

	if (pv_object(p, e) < 0 || pc_str(p, e, "type", true, &type) < 0)
		return -1;
	if (strlen(type) != 1 || !strchr("cbup", type[0]))
		return pc_fail_at(p, "type", "unknown device type \"%s\" (expected c, b, u or p)",
				  type);
	d->type = type[0];
	if (pc_str(p, e, "path", true, &d->path) < 0)
		return -1;
	if (d->path[0] != '/')
		return pc_fail_at(p, "path", "\"%s\" is not an absolute path", d->path);
	/* A FIFO has no device number; every other type needs both. */
	if (pc_i64(p, e, "major", d->type != 'p', INT64_MIN, INT64_MAX, &d->major) < 0 ||
	    pc_i64(p, e, "minor", d->type != 'p', INT64_MIN, INT64_MAX, &d->minor) < 0 ||
	    pc_opt_u64(p, e, "fileMode", UINT32_MAX, &d->file_mode) < 0 ||
	    pc_opt_u64(p, e, "uid", UINT32_MAX, &d->uid) < 0 ||
	    pc_opt_u64(p, e, "gid", UINT32_MAX, &d->gid) < 0)
		return -1;
	return 0;
}

static int parse_devices(struct pctx *p, const struct json *lx, struct oci_linux *l)
{
	const struct json *arr;
	size_t i, n, mark, imark;
	int r = 0;

	if (pc_array(p, lx, "devices", false, &arr, &n) < 0)
		return -1;
	if (!arr)
		return 0;
	l->devices = arena_alloc(p->a, (n ? n : 1) * sizeof *l->devices);
	l->n_devices = n;
	mark = pc_push_key(p, "devices");
	for (i = 0; i < n && r == 0; i++) {
		imark = pc_push_index(p, i);
		r = parse_device(p, json_array_at(arr, i), &l->devices[i]);
		pc_pop(p, imark);
	}
	pc_pop(p, mark);
	return r;
}

/* Interface names become netlink attributes and /sys/class/net entries:
 * what the kernel accepts (dev_valid_name), plus the "%d" template. */
static bool valid_ifname(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n >= 16 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == ':' || (unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return false;
	return true;
}

static int parse_net_devices(struct pctx *p, const struct json *lx, struct oci_linux *l)
{
	const struct json *o;
	size_t i, n, mark, kmark;
	int r = 0;

	if (pc_object(p, lx, "netDevices", false, &o) < 0)
		return -1;
	if (!o)
		return 0;
	n = json_object_len(o);
	l->net_devices.v = arena_alloc(p->a, (n ? n : 1) * sizeof *l->net_devices.v);
	l->net_devices.n = n;
	mark = pc_push_key(p, "netDevices");
	for (i = 0; i < n && r == 0; i++) {
		const char *k = json_object_key(o, i);
		const struct json *e = json_object_value(o, i);
		struct kv *kv = &l->net_devices.v[i];

		if (!*k) {
			r = pc_fail(p, "empty key");
			break;
		}
		kmark = pc_push_key(p, k);
		kv->key = arena_strdup(p->a, k);
		if (pv_object(p, e) < 0 || pc_str(p, e, "name", false, &kv->value) < 0)
			r = -1;
		else if (!valid_ifname(k))
			r = pc_fail(p, "invalid interface name");
		else if (kv->value && !valid_ifname(kv->value))
			r = pc_fail_at(p, "name", "invalid interface name \"%s\"", kv->value);
		else if (!kv->value)
			kv->value = arena_strdup(p->a, "");
		pc_pop(p, kmark);
	}
	pc_pop(p, mark);
	return r;
}

static const char *const mpol_modes[] = {
	"MPOL_DEFAULT",   "MPOL_BIND",           "MPOL_INTERLEAVE", "MPOL_WEIGHTED_INTERLEAVE",
	"MPOL_PREFERRED", "MPOL_PREFERRED_MANY", "MPOL_LOCAL",      NULL,
};
static const char *const mpol_flags[] = {
	"MPOL_F_NUMA_BALANCING", "MPOL_F_RELATIVE_NODES", "MPOL_F_STATIC_NODES", NULL,
};

/* Fail at .KEY[i] naming the bad entry of a closed vocabulary. */
static int check_names(struct pctx *p, const char *key, const struct strv *sv,
		       const char *const *names, const char *what)
{
	size_t i, mark;

	for (i = 0; i < sv->n; i++) {
		if (pc_lookup(names, sv->v[i]) >= 0)
			continue;
		mark = pc_push_key(p, key);
		pc_push_index(p, i);
		pc_fail(p, "unknown %s \"%s\"", what, sv->v[i]);
		pc_pop(p, mark);
		return -1;
	}
	return 0;
}

static int parse_memory_policy(struct pctx *p, const struct json *lx, struct oci_memory_policy *m)
{
	const struct json *o;
	size_t mark;
	int r = -1;

	if (pc_object(p, lx, "memoryPolicy", false, &o) < 0)
		return -1;
	if (!o)
		return 0;
	m->present = true;
	mark = pc_push_key(p, "memoryPolicy");
	if (pc_str(p, o, "mode", true, &m->mode) < 0)
		goto out;
	if (pc_lookup(mpol_modes, m->mode) < 0) {
		pc_fail_at(p, "mode", "unknown memory policy mode \"%s\"", m->mode);
		goto out;
	}
	if (pc_str(p, o, "nodes", false, &m->nodes) < 0 ||
	    pc_strv(p, o, "flags", false, &m->flags) < 0 ||
	    check_names(p, "flags", &m->flags, mpol_flags, "memory policy flag") < 0)
		goto out;
	if (m->nodes && strspn(m->nodes, "0123456789,-") != strlen(m->nodes)) {
		pc_fail_at(p, "nodes", "invalid node list \"%s\"", m->nodes);
		goto out;
	}
	r = 0;
out:
	pc_pop(p, mark);
	return r;
}

static int parse_intel_rdt(struct pctx *p, const struct json *lx, struct oci_intel_rdt *rdt)
{
	const struct json *o;
	size_t i, mark;
	int r = -1;

	if (pc_object(p, lx, "intelRdt", false, &o) < 0)
		return -1;
	if (!o)
		return 0;
	rdt->present = true;
	mark = pc_push_key(p, "intelRdt");
	if (pc_str(p, o, "closID", false, &rdt->clos_id) < 0 ||
	    pc_str(p, o, "l3CacheSchema", false, &rdt->l3_cache_schema) < 0 ||
	    pc_str(p, o, "memBwSchema", false, &rdt->mem_bw_schema) < 0 ||
	    pc_strv(p, o, "schemata", false, &rdt->schemata) < 0 ||
	    pc_opt_bool(p, o, "enableMonitoring", &rdt->enable_monitoring) < 0)
		goto out;
	/* closID names a directory under the resctrl mount. */
	if (rdt->clos_id && strcmp(rdt->clos_id, "/") != 0 &&
	    (!rdt->clos_id[0] || strchr(rdt->clos_id, '/') || strcmp(rdt->clos_id, ".") == 0 ||
	     strcmp(rdt->clos_id, "..") == 0)) {
		pc_fail_at(p, "closID", "invalid CLOS ID \"%s\"", rdt->clos_id);
		goto out;
	}
	if (rdt->mem_bw_schema &&
	    (strncmp(rdt->mem_bw_schema, "MB:", 3) != 0 || strchr(rdt->mem_bw_schema, '\n'))) {
		pc_fail_at(p, "memBwSchema", "must start with \"MB:\" and contain no newline");
		goto out;
	}
	for (i = 0; i < rdt->schemata.n; i++) {
		if (strchr(rdt->schemata.v[i], '\n')) {
			size_t m2 = pc_push_key(p, "schemata");

			pc_push_index(p, i);
			pc_fail(p, "must not contain a newline");
			pc_pop(p, m2);
			goto out;
		}
	}
	r = 0;
out:
	pc_pop(p, mark);
	return r;
}

static int parse_personality(struct pctx *p, const struct json *lx, struct oci_personality *pe)
{
	const struct json *o;
	static const char *const domains[] = {"LINUX", "LINUX32", NULL};
	static const char *const no_flags[] = {NULL};
	size_t mark;
	int r = -1;

	if (pc_object(p, lx, "personality", false, &o) < 0)
		return -1;
	if (!o)
		return 0;
	pe->present = true;
	mark = pc_push_key(p, "personality");
	if (pc_str(p, o, "domain", true, &pe->domain) < 0)
		goto out;
	if (pc_lookup(domains, pe->domain) < 0) {
		pc_fail_at(p, "domain", "unknown personality domain \"%s\"", pe->domain);
		goto out;
	}
	/* config-linux.md: "Currently no flag values are supported". */
	if (pc_strv(p, o, "flags", false, &pe->flags) < 0 ||
	    check_names(p, "flags", &pe->flags, no_flags, "personality flag") < 0)
		goto out;
	r = 0;
out:
	pc_pop(p, mark);
	return r;
}

static int parse_propagation(struct pctx *p, const struct json *lx, enum oci_propagation *out)
{
	/* runc also takes the recursive spellings; both mean the same here. */
	static const char *const names[] = {
		"shared", "slave", "private", "unbindable",
		"rshared", "rslave", "rprivate", "runbindable", NULL,
	};
	char *s = NULL;
	int i;

	if (pc_str(p, lx, "rootfsPropagation", false, &s) < 0)
		return -1;
	if (!s)
		return 0;
	i = pc_lookup(names, s);
	if (i < 0)
		return pc_fail_at(p, "rootfsPropagation", "unknown propagation \"%s\"", s);
	*out = (enum oci_propagation)(OCI_PROP_SHARED + i % 4);
	return 0;
}

static int parse_abs_paths(struct pctx *p, const struct json *lx, const char *key, struct strv *sv)
{
	size_t i, mark;

	if (pc_strv(p, lx, key, false, sv) < 0)
		return -1;
	for (i = 0; i < sv->n; i++) {
		if (sv->v[i][0] == '/')
			continue;
		mark = pc_push_key(p, key);
		pc_push_index(p, i);
		pv_abs_path(p, sv->v[i]);
		pc_pop(p, mark);
		return -1;
	}
	return 0;
}

/* A sysctl name maps to /proc/sys/ with '.' and '/' as separators; an empty
 * component (hence any "..") could walk out of /proc/sys. */
static bool valid_sysctl(const char *s)
{
	const char *c;

	if (!*s)
		return false;
	for (c = s; *c; c++) {
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return false;
		if ((*c == '.' || *c == '/') && (c == s || c[1] == '\0' || c[1] == '.' || c[1] == '/'))
			return false;
	}
	return true;
}

/* Whatever the cgroup driver makes of the path, ".." must not climb out of
 * the hierarchy's root. */
static bool has_dotdot(const char *s)
{
	const char *c = s;

	while ((c = strstr(c, ".."))) {
		if ((c == s || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
			return true;
		c += 2;
	}
	return false;
}

int pc_linux(struct pctx *p, const struct json *lx, struct oci_linux *l)
{
	const struct json *o;
	size_t mark;
	int r;

	if (parse_namespaces(p, lx, l) < 0 ||
	    pc_idmaps(p, lx, "uidMappings", &l->uid_mappings, &l->n_uid_mappings) < 0 ||
	    pc_idmaps(p, lx, "gidMappings", &l->gid_mappings, &l->n_gid_mappings) < 0 ||
	    parse_time_offsets(p, lx, l) < 0 || parse_devices(p, lx, l) < 0 ||
	    parse_net_devices(p, lx, l) < 0 ||
	    pc_str(p, lx, "cgroupsPath", false, &l->cgroups_path) < 0)
		return -1;
	if (l->cgroups_path && has_dotdot(l->cgroups_path))
		return pc_fail_at(p, "cgroupsPath", "\"..\" is not allowed in a cgroup path");
	if (pc_object(p, lx, "resources", false, &o) < 0)
		return -1;
	if (o) {
		l->resources.present = true;
		mark = pc_push_key(p, "resources");
		r = pc_resources(p, o, &l->resources);
		pc_pop(p, mark);
		if (r < 0)
			return -1;
	}
	if (parse_intel_rdt(p, lx, &l->intel_rdt) < 0 ||
	    parse_memory_policy(p, lx, &l->memory_policy) < 0 ||
	    pc_string_map(p, lx, "sysctl", &l->sysctl) < 0 ||
	    pc_check_keys(p, "sysctl", &l->sysctl, valid_sysctl, "sysctl name") < 0)
		return -1;
	if (pc_object(p, lx, "seccomp", false, &o) < 0)
		return -1;
	if (o) {
		l->seccomp = arena_alloc(p->a, sizeof *l->seccomp);
		mark = pc_push_key(p, "seccomp");
		r = pc_seccomp(p, o, l->seccomp);
		pc_pop(p, mark);
		if (r < 0)
			return -1;
	}
	if (parse_propagation(p, lx, &l->rootfs_propagation) < 0 ||
	    parse_abs_paths(p, lx, "maskedPaths", &l->masked_paths) < 0 ||
	    parse_abs_paths(p, lx, "readonlyPaths", &l->readonly_paths) < 0 ||
	    pc_str(p, lx, "mountLabel", false, &l->mount_label) < 0 ||
	    parse_personality(p, lx, &l->personality) < 0)
		return -1;
	return 0;
}
