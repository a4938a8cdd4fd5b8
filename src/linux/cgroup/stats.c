/* `events --stats`: the "data" object of runc's types.Stats, read from
 * whichever hierarchy holds each controller. Field names and omitempty
 * behaviour follow runc's events/types.go so clients parse it unchanged. */
#include "linux/cgroup/cg_internal.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/cgroup/convert.h"
#include "util/cleanup.h"

static void kv_nz(struct json_gen *g, const char *k, uint64_t v)
{
	if (v) /* omitempty */
		json_gen_kv_uint(g, k, v);
}

static uint64_t rd(const char *dir, const char *file)
{
	uint64_t v = 0;
	if (cg_read_u64(dir, file, &v) < 0)
		return 0;
	return v;
}

static void u64_array(struct json_gen *g, const char *key, const char *text)
{
	const char *p = text;

	if (!text)
		return;
	json_gen_string(g, key);
	json_gen_array_open(g);
	while (*p) {
		char *end;
		uint64_t v = strtoull(p, &end, 10);
		if (end == p)
			break;
		json_gen_uint(g, v);
		p = end;
		while (*p == ' ' || *p == '\n')
			p++;
	}
	json_gen_array_close(g);
}

/* cpuacct.usage_all: "cpu user system" rows after a header */
static void percpu_split(struct json_gen *g, const char *text)
{
	for (int col = 1; col <= 2; col++) {
		const char *line = text ? strchr(text, '\n') : NULL;

		if (!line)
			return;
		json_gen_string(g, col == 1 ? "percpu_user" : "percpu_kernel");
		json_gen_array_open(g);
		for (line++; *line;) {
			unsigned long long c, u, s;
			if (sscanf(line, "%llu %llu %llu", &c, &u, &s) == 3)
				json_gen_uint(g, col == 1 ? u : s);
			line = strchr(line, '\n');
			if (!line)
				break;
			line++;
		}
		json_gen_array_close(g);
	}
}

static void cpu_stats(struct cgroup_mgr *m, struct json_gen *g)
{
	struct cg_target t;
	uint64_t v;
	_cleanup_free_ char *stat = NULL;

	json_gen_string(g, "cpu");
	json_gen_object_open(g);
	json_gen_string(g, "usage");
	json_gen_object_open(g);
	if (cg_find(m, "cpuacct", "cpu", &t) && t.v2) {
		_cleanup_free_ char *s = cg_read(t.dir, "cpu.stat");
		uint64_t u = 0, us = 0, sy = 0;
		cg_kv_get(s, "usage_usec", &u);
		cg_kv_get(s, "user_usec", &us);
		cg_kv_get(s, "system_usec", &sy);
		kv_nz(g, "total", u * 1000);
		json_gen_kv_uint(g, "kernel", sy * 1000);
		json_gen_kv_uint(g, "user", us * 1000);
	} else if (cg_find(m, "cpuacct", NULL, &t)) {
		_cleanup_free_ char *percpu = cg_read(t.dir, "cpuacct.usage_percpu");
		_cleanup_free_ char *all = cg_read(t.dir, "cpuacct.usage_all");
		_cleanup_free_ char *s = cg_read(t.dir, "cpuacct.stat");
		long hz = sysconf(_SC_CLK_TCK);
		uint64_t us = 0, sy = 0;

		kv_nz(g, "total", rd(t.dir, "cpuacct.usage"));
		u64_array(g, "percpu", percpu);
		percpu_split(g, all);
		cg_kv_get(s, "user", &us);
		cg_kv_get(s, "system", &sy);
		if (hz <= 0)
			hz = 100;
		json_gen_kv_uint(g, "kernel", sy * (1000000000ULL / (uint64_t)hz));
		json_gen_kv_uint(g, "user", us * (1000000000ULL / (uint64_t)hz));
	} else {
		json_gen_kv_uint(g, "kernel", 0);
		json_gen_kv_uint(g, "user", 0);
	}
	json_gen_object_close(g);
	json_gen_string(g, "throttling");
	json_gen_object_open(g);
	if (cg_find(m, "cpu", "cpu", &t) && (stat = cg_read(t.dir, "cpu.stat"))) {
		if (cg_kv_get(stat, "nr_periods", &v))
			kv_nz(g, "periods", v);
		if (cg_kv_get(stat, "nr_throttled", &v))
			kv_nz(g, "throttled_periods", v);
		if (cg_kv_get(stat, "throttled_usec", &v))
			kv_nz(g, "throttled_time", v * 1000);
		else if (cg_kv_get(stat, "throttled_time", &v))
			kv_nz(g, "throttled_time", v);
	}
	json_gen_object_close(g);
	json_gen_object_close(g);
}

static void mem_entry(struct json_gen *g, const char *name, uint64_t limit, uint64_t usage,
		      uint64_t max, uint64_t failcnt)
{
	json_gen_string(g, name);
	json_gen_object_open(g);
	json_gen_kv_uint(g, "limit", limit);
	kv_nz(g, "usage", usage);
	kv_nz(g, "max", max);
	json_gen_kv_uint(g, "failcnt", failcnt);
	json_gen_object_close(g);
}

static void raw_stats(struct json_gen *g, const char *text)
{
	const char *p = text;

	if (!text)
		return;
	json_gen_string(g, "raw");
	json_gen_object_open(g);
	while (*p) {
		const char *sp = strchr(p, ' '), *nl = strchrnul(p, '\n');
		if (sp && sp < nl) {
			char key[128];
			snprintf(key, sizeof key, "%.*s", (int)(sp - p), p);
			json_gen_string(g, key);
			json_gen_uint(g, strtoull(sp + 1, NULL, 10));
		}
		p = *nl ? nl + 1 : nl;
	}
	json_gen_object_close(g);
}

static void memory_stats(struct cgroup_mgr *m, struct json_gen *g)
{
	struct cg_target t;
	_cleanup_free_ char *stat = NULL;
	uint64_t v = 0;

	json_gen_string(g, "memory");
	json_gen_object_open(g);
	if (!cg_find(m, "memory", "memory", &t)) {
		json_gen_object_close(g);
		return;
	}
	stat = cg_read(t.dir, "memory.stat");
	if (t.v2) {
		_cleanup_free_ char *ev = cg_read(t.dir, "memory.events");
		uint64_t cur = rd(t.dir, "memory.current"), maxev = 0;
		uint64_t swap = rd(t.dir, "memory.swap.current");

		if (cg_kv_get(stat, "file", &v))
			kv_nz(g, "cache", v);
		cg_kv_get(ev, "max", &maxev);
		mem_entry(g, "usage", rd(t.dir, "memory.max"), cur, rd(t.dir, "memory.peak"), maxev);
		/* v1 reported memory+swap; runc keeps that meaning on v2 */
		if (cg_file_exists(t.dir, "memory.swap.current")) {
			uint64_t sl = rd(t.dir, "memory.swap.max");
			uint64_t ml = rd(t.dir, "memory.max");
			mem_entry(g, "swap", sl == UINT64_MAX || ml == UINT64_MAX ? UINT64_MAX : sl + ml,
				  swap + cur, 0, 0);
		}
	} else {
		if (cg_kv_get(stat, "cache", &v))
			kv_nz(g, "cache", v);
		mem_entry(g, "usage", rd(t.dir, "memory.limit_in_bytes"), rd(t.dir, "memory.usage_in_bytes"),
			  rd(t.dir, "memory.max_usage_in_bytes"), rd(t.dir, "memory.failcnt"));
		if (cg_file_exists(t.dir, "memory.memsw.usage_in_bytes"))
			mem_entry(g, "swap", rd(t.dir, "memory.memsw.limit_in_bytes"),
				  rd(t.dir, "memory.memsw.usage_in_bytes"),
				  rd(t.dir, "memory.memsw.max_usage_in_bytes"), rd(t.dir, "memory.memsw.failcnt"));
		if (cg_file_exists(t.dir, "memory.kmem.usage_in_bytes"))
			mem_entry(g, "kernel", rd(t.dir, "memory.kmem.limit_in_bytes"),
				  rd(t.dir, "memory.kmem.usage_in_bytes"),
				  rd(t.dir, "memory.kmem.max_usage_in_bytes"), rd(t.dir, "memory.kmem.failcnt"));
		if (cg_file_exists(t.dir, "memory.kmem.tcp.usage_in_bytes"))
			mem_entry(g, "kernelTCP", rd(t.dir, "memory.kmem.tcp.limit_in_bytes"),
				  rd(t.dir, "memory.kmem.tcp.usage_in_bytes"),
				  rd(t.dir, "memory.kmem.tcp.max_usage_in_bytes"),
				  rd(t.dir, "memory.kmem.tcp.failcnt"));
	}
	raw_stats(g, stat);
	json_gen_object_close(g);
}

static void pids_stats(struct cgroup_mgr *m, struct json_gen *g)
{
	struct cg_target t;

	json_gen_string(g, "pids");
	json_gen_object_open(g);
	if (cg_find(m, "pids", "pids", &t)) {
		uint64_t lim = rd(t.dir, "pids.max");
		kv_nz(g, "current", rd(t.dir, "pids.current"));
		kv_nz(g, "limit", lim == UINT64_MAX ? 0 : lim); /* 0: no limit, as runc */
	}
	json_gen_object_close(g);
}

static void blk_entry(struct json_gen *g, unsigned maj, unsigned min, const char *op, uint64_t v)
{
	json_gen_object_open(g);
	kv_nz(g, "major", maj);
	kv_nz(g, "minor", min);
	if (op && *op)
		json_gen_kv_string(g, "op", op);
	kv_nz(g, "value", v);
	json_gen_object_close(g);
}

/* v1 "8:0 Read 123" lines */
static void blk_v1_list(struct json_gen *g, const char *key, const char *text)
{
	const char *p = text;
	bool open = false;

	while (p && *p) {
		unsigned maj, min;
		char op[16];
		unsigned long long v;

		if (sscanf(p, "%u:%u %15s %llu", &maj, &min, op, &v) == 4) {
			if (!open) {
				json_gen_string(g, key);
				json_gen_array_open(g);
				open = true;
			}
			blk_entry(g, maj, min, op, v);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (open)
		json_gen_array_close(g);
}

/* v2 io.stat "8:0 rbytes=1 wbytes=2 rios=3 wios=4 ..." */
static void blk_v2_list(struct json_gen *g, const char *key, const char *text, const char *rk,
			const char *wk)
{
	const char *p = text;
	bool open = false;

	while (p && *p) {
		unsigned maj, min;
		const char *nl = strchrnul(p, '\n');

		if (sscanf(p, "%u:%u", &maj, &min) == 2) {
			const char *ks[2] = { rk, wk }, *ops[2] = { "Read", "Write" };
			for (int i = 0; i < 2; i++) {
				char pat[32];
				const char *f;
				snprintf(pat, sizeof pat, " %s=", ks[i]);
				f = strstr(p, pat);
				if (!f || f > nl)
					continue;
				if (!open) {
					json_gen_string(g, key);
					json_gen_array_open(g);
					open = true;
				}
				blk_entry(g, maj, min, ops[i], strtoull(f + strlen(pat), NULL, 10));
			}
		}
		p = *nl ? nl + 1 : nl;
	}
	if (open)
		json_gen_array_close(g);
}

static void blkio_stats(struct cgroup_mgr *m, struct json_gen *g)
{
	struct cg_target t;

	json_gen_string(g, "blkio");
	json_gen_object_open(g);
	if (cg_find(m, "blkio", "io", &t)) {
		if (t.v2) {
			_cleanup_free_ char *s = cg_read(t.dir, "io.stat");
			blk_v2_list(g, "ioServiceBytesRecursive", s, "rbytes", "wbytes");
			blk_v2_list(g, "ioServicedRecursive", s, "rios", "wios");
		} else {
			_cleanup_free_ char *b = cg_read(t.dir, "blkio.io_service_bytes_recursive");
			_cleanup_free_ char *c = NULL;
			if (!b) /* no CFQ: the throttle layer's counters */
				b = cg_read(t.dir, "blkio.throttle.io_service_bytes_recursive");
			c = cg_read(t.dir, "blkio.io_serviced_recursive");
			if (!c)
				c = cg_read(t.dir, "blkio.throttle.io_serviced_recursive");
			blk_v1_list(g, "ioServiceBytesRecursive", b);
			blk_v1_list(g, "ioServicedRecursive", c);
		}
	}
	json_gen_object_close(g);
}

static void hugetlb_stats(struct cgroup_mgr *m, struct json_gen *g)
{
	struct cg_target t;
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	json_gen_string(g, "hugetlb");
	json_gen_object_open(g);
	if (cg_find(m, "hugetlb", "hugetlb", &t) && (d = opendir("/sys/kernel/mm/hugepages"))) {
		while ((de = readdir(d))) {
			unsigned long long kb;
			char name[32], f[96];

			if (sscanf(de->d_name, "hugepages-%llukB", &kb) != 1)
				continue;
			cgconv_pagesize_name(kb * 1024, name, sizeof name);
			json_gen_string(g, name);
			json_gen_object_open(g);
			if (t.v2) {
				_cleanup_free_ char *ev = NULL;
				uint64_t fail = 0;
				snprintf(f, sizeof f, "hugetlb.%s.current", name);
				kv_nz(g, "usage", rd(t.dir, f));
				snprintf(f, sizeof f, "hugetlb.%s.events", name);
				ev = cg_read(t.dir, f);
				cg_kv_get(ev, "max", &fail);
				json_gen_kv_uint(g, "failcnt", fail);
			} else {
				snprintf(f, sizeof f, "hugetlb.%s.usage_in_bytes", name);
				kv_nz(g, "usage", rd(t.dir, f));
				snprintf(f, sizeof f, "hugetlb.%s.max_usage_in_bytes", name);
				kv_nz(g, "max", rd(t.dir, f));
				snprintf(f, sizeof f, "hugetlb.%s.failcnt", name);
				json_gen_kv_uint(g, "failcnt", rd(t.dir, f));
			}
			json_gen_object_close(g);
		}
	}
	json_gen_object_close(g);
}

int cgroup_stats(struct cgroup_mgr *m, struct json_gen *g, struct clasp_error *err)
{
	json_gen_object_open(g);
	cpu_stats(m, g);
	memory_stats(m, g);
	pids_stats(m, g);
	blkio_stats(m, g);
	hugetlb_stats(m, g);
	json_gen_string(g, "intel_rdt");
	json_gen_object_open(g);
	json_gen_object_close(g);
	json_gen_string(g, "network_interfaces");
	json_gen_null(g);
	json_gen_object_close(g);
	return 0;
}
