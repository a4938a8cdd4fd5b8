/* Live test of the cgroup manager on this host's layout: needs root and a
 * mounted cgroupfs, otherwise it skips with "0 passed, 0 failed". Creates
 * cgroups only under clasp's own parent ("clasp/<id>") and removes them. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fcntl.h>

#include "linux/cgroup/cg_internal.h"
#include "linux/cgroup/cgroup.h"
#include "unit.h"
#include "util/cleanup.h"

static char id[64];

static char *slurp(const char *dir, const char *file)
{
	char path[4096];
	FILE *f;
	static char buf[4096];
	size_t n;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return buf;
}

static bool exists(const char *p)
{
	struct stat st;
	return p && stat(p, &st) == 0;
}

/* a child that waits in a loop; with escape=true it also leaves a
 * daemonised grandchild behind, which kill_all must still catch */
static pid_t spawn(int gate, bool escape)
{
	pid_t pid = fork();

	if (pid == 0) {
		char c;
		if (read(gate, &c, 1) != 1)
			_exit(1);
		if (escape && fork() == 0) {
			setsid();
			for (;;)
				pause();
		}
		for (;;)
			pause();
	}
	return pid;
}

static pid_t spawn_gated(struct cgroup_mgr *m, bool escape)
{
	int p[2];
	pid_t pid;
	struct clasp_error err = { 0 };

	if (pipe(p) < 0)
		return -1;
	pid = spawn(p[0], escape);
	close(p[0]);
	if (pid > 0 && cgroup_enter(m, pid, &err) < 0)
		fprintf(stderr, "enter: %s\n", err.msg);
	if (write(p[1], "x", 1) != 1)
		perror("write");
	close(p[1]);
	usleep(50000);
	return pid;
}

static struct oci_resources basic_res(void)
{
	struct oci_resources r;

	memset(&r, 0, sizeof r);
	r.present = true;
	r.memory.present = true;
	r.memory.limit.set = true;
	r.memory.limit.v = 64 << 20;
	r.pids_limit.set = true;
	r.pids_limit.v = 32;
	r.cpu.present = true;
	r.cpu.quota.set = true;
	r.cpu.quota.v = 50000;
	r.cpu.period.set = true;
	r.cpu.period.v = 100000;
	r.cpu.shares.set = true;
	r.cpu.shares.v = 512;
	return r;
}

TEST(lifecycle)
{
	struct clasp_error err = { 0 };
	struct cgroup_mgr *m = NULL, *m2 = NULL;
	struct oci_resources r = basic_res();
	enum cgroup_layout layout;
	char *paths[16];
	size_t np = 0;
	const char *ctrls[] = { "memory", "pids", "cpu", "freezer", "devices", "" };
	pid_t pid, *pids = NULL;
	size_t n = 0;
	bool frozen = true, found = false;
	int st;

	CHECK(cgroup_detect_layout(&layout, &err) == 0);
	if (cgroup_create(id, NULL, false, &m, &err) < 0) {
		fprintf(stderr, "create: %s\n", err.msg);
		CHECK(0);
		return;
	}
	CHECK(cgroup_layout_of(m) == layout);
	for (size_t i = 0; i < sizeof ctrls / sizeof *ctrls; i++) {
		const char *p = cgroup_path_for(m, ctrls[i]);
		if (p && np < 16) {
			paths[np++] = strdup(p);
			CHECK(exists(p));
			CHECK(strstr(p, "/clasp/") != NULL);
		}
	}
	CHECK(np >= 3);
	if (cgroup_apply(m, &r, &err) < 0) {
		fprintf(stderr, "apply: %s\n", err.msg);
		CHECK(0);
	}
	{
		const char *mem = cgroup_path_for(m, "memory");
		const char *cpu = cgroup_path_for(m, "cpu");
		const char *pd = cgroup_path_for(m, "pids");
		bool mv2 = layout == CGROUP_LAYOUT_V2;

		CHECK_STREQ(slurp(mem, mv2 ? "memory.max" : "memory.limit_in_bytes"), "67108864");
		CHECK_STREQ(slurp(pd, "pids.max"), "32");
		if (mv2) {
			CHECK_STREQ(slurp(cpu, "cpu.max"), "50000 100000");
			CHECK_STREQ(slurp(cpu, "cpu.weight"), "20"); /* 1 + (510*9999)/262142 */
		} else {
			CHECK_STREQ(slurp(cpu, "cpu.cfs_quota_us"), "50000");
			CHECK_STREQ(slurp(cpu, "cpu.cfs_period_us"), "100000");
			CHECK_STREQ(slurp(cpu, "cpu.shares"), "512");
		}
	}

	pid = spawn_gated(m, true);
	CHECK(pid > 0);
	CHECK(cgroup_pids(m, &pids, &n, &err) == 0);
	CHECK(n == 2);
	for (size_t i = 0; i < n; i++)
		found |= pids[i] == pid;
	CHECK(found);
	free(pids);

	CHECK(cgroup_freeze(m, true, &err) == 0);
	CHECK(cgroup_is_frozen(m, &frozen) == 0 && frozen);
	CHECK(cgroup_freeze(m, false, &err) == 0);
	CHECK(cgroup_is_frozen(m, &frozen) == 0 && !frozen);

	{
		struct json_gen *g = json_gen_new(false);
		struct json *root = NULL;
		const char *buf;
		size_t len;
		uint64_t cur = 0;

		CHECK(cgroup_stats(m, g, &err) == 0);
		buf = json_gen_buf(g, &len);
		CHECK(json_parse(buf, len, &root, &err) == 0);
		CHECK(json_uint64(json_get(json_get(root, "pids"), "current"), &cur) && cur == 2);
		CHECK(json_uint64(json_get(json_get(root, "pids"), "limit"), &cur) && cur == 32);
		CHECK(json_get(json_get(json_get(root, "memory"), "usage"), "limit") != NULL);
		CHECK(json_get(json_get(root, "cpu"), "usage") != NULL);
		json_free(root);
		json_gen_free(g);
	}

	/* state.json round trip */
	{
		char *s = cgroup_serialize(m);
		CHECK(s && !strchr(s, '\n'));
		CHECK(cgroup_open(s, &m2, &err) == 0);
		if (m2)
			CHECK_STREQ(cgroup_path_for(m2, "memory"), cgroup_path_for(m, "memory"));
		free(s);
	}

	/* errors name the key */
	{
		struct oci_resources u;
		memset(&u, 0, sizeof u);
		u.present = true;
		u.memory.present = true;
		u.memory.limit.set = true;
		u.memory.limit.v = 4096;
		u.memory.check_before_update.set = true;
		u.memory.check_before_update.v = true;
		CHECK(cgroup_update(m2, &u, &err) < 0);
		CHECK_CONTAINS(err.msg, "linux.resources.memory.limit");

		memset(&u, 0, sizeof u);
		u.present = true;
		u.cpu.present = true;
		u.cpu.cpus = "0-";
		CHECK(cgroup_update(m2, &u, &err) < 0);
		CHECK_CONTAINS(err.msg, "linux.resources.cpu.cpus");

		memset(&u, 0, sizeof u);
		u.present = true;
		u.pids_limit.set = true;
		u.pids_limit.v = 64;
		CHECK(cgroup_update(m2, &u, &err) == 0);
		CHECK_STREQ(slurp(cgroup_path_for(m, "pids"), "pids.max"), "64");
	}

	CHECK(cgroup_kill_all(m2, SIGKILL, &err) == 0);
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	if (cgroup_destroy(m2, &err) < 0) {
		fprintf(stderr, "destroy: %s\n", err.msg);
		CHECK(0);
	}
	for (size_t i = 0; i < np; i++) {
		CHECK(!exists(paths[i]));
		free(paths[i]);
	}
	cgroup_free(m2);
	cgroup_free(m);
}

/* a process allocating past the limit is OOM-killed and counted */
TEST(oom)
{
	struct clasp_error err = { 0 };
	struct cgroup_mgr *m = NULL;
	struct oci_resources r;
	char cid[80];
	int p[2], st;
	pid_t pid;
	uint64_t before = 0, after = 0;

	snprintf(cid, sizeof cid, "%s-oom", id);
	memset(&r, 0, sizeof r);
	r.present = true;
	r.memory.present = true;
	r.memory.limit.set = true;
	r.memory.limit.v = 16 << 20;
	if (cgroup_create(cid, NULL, false, &m, &err) < 0 || cgroup_apply(m, &r, &err) < 0) {
		fprintf(stderr, "oom setup: %s\n", err.msg);
		CHECK(0);
		goto out;
	}
	/* no swapping our way out: pin memory+swap too where the host has it */
	if (cgroup_layout_of(m) != CGROUP_LAYOUT_V2 &&
	    access("/proc/swaps", R_OK) == 0) {
		r.memory.swap.set = true;
		r.memory.swap.v = 16 << 20;
		if (cgroup_apply(m, &r, &err) < 0)
			fprintf(stderr, "note: %s\n", err.msg); /* no memsw accounting */
	}
	CHECK(cgroup_oom_count(m, &before) == 0);
	if (pipe(p) < 0)
		goto out;
	pid = fork();
	if (pid == 0) {
		char c;
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		for (size_t i = 0; i < 256; i++) {
			char *b = malloc(1 << 20);
			if (!b)
				_exit(3);
			memset(b, 1, 1 << 20);
		}
		_exit(0);
	}
	close(p[0]);
	CHECK(cgroup_enter(m, pid, &err) == 0);
	CHECK(write(p[1], "x", 1) == 1);
	close(p[1]);
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	CHECK(cgroup_oom_count(m, &after) == 0 && after > before);
out:
	if (m) {
		CHECK(cgroup_destroy(m, &err) == 0);
		cgroup_free(m);
	}
}

/* the pids limit stops forks at the limit */
TEST(pids_limit)
{
	struct clasp_error err = { 0 };
	struct cgroup_mgr *m = NULL;
	struct oci_resources r;
	char cid[80];
	int p[2], st;
	pid_t pid;

	snprintf(cid, sizeof cid, "%s-pids", id);
	memset(&r, 0, sizeof r);
	r.present = true;
	r.pids_limit.set = true;
	r.pids_limit.v = 4;
	if (cgroup_create(cid, NULL, false, &m, &err) < 0 || cgroup_apply(m, &r, &err) < 0) {
		fprintf(stderr, "pids setup: %s\n", err.msg);
		CHECK(0);
		goto out;
	}
	if (pipe(p) < 0)
		goto out;
	pid = fork();
	if (pid == 0) {
		char c;
		int made = 0;
		if (read(p[0], &c, 1) != 1)
			_exit(100);
		for (int i = 0; i < 10; i++) {
			pid_t k = fork();
			if (k == 0) {
				sleep(5);
				_exit(0);
			}
			if (k < 0)
				break;
			made++;
		}
		_exit(made); /* exit code = forks that succeeded */
	}
	close(p[0]);
	CHECK(cgroup_enter(m, pid, &err) == 0);
	CHECK(write(p[1], "x", 1) == 1);
	close(p[1]);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 3);
	CHECK(cgroup_kill_all(m, SIGKILL, &err) == 0);
out:
	if (m) {
		CHECK(cgroup_destroy(m, &err) == 0);
		cgroup_free(m);
	}
}


/* exit code: 0 when open(path) succeeds, 1 when refused with EPERM */
static int open_in_cgroup(struct cgroup_mgr *m, const char *path)
{
	struct clasp_error err = { 0 };
	int p[2], st;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char c;
		int fd;
		if (read(p[0], &c, 1) != 1)
			_exit(3);
		fd = open(path, O_RDONLY);
		_exit(fd >= 0 ? 0 : errno == EPERM ? 1 : 2);
	}
	close(p[0]);
	if (cgroup_enter(m, pid, &err) < 0)
		fprintf(stderr, "enter: %s\n", err.msg);
	if (write(p[1], "x", 1) != 1)
		perror("write");
	close(p[1]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static struct oci_device_rule dev_rules[2];

static void set_dev_rules(void)
{
	memset(dev_rules, 0, sizeof dev_rules);
	dev_rules[0].allow = false;
	dev_rules[0].type = 'a';
	dev_rules[0].access = "rwm";
	dev_rules[1].allow = true;
	dev_rules[1].type = 'c';
	dev_rules[1].major.set = dev_rules[1].minor.set = true;
	dev_rules[1].major.v = 1;
	dev_rules[1].minor.v = 3;
	dev_rules[1].access = "rwm";
}

/* device rules through whichever mechanism the host has: v1 devices.*,
 * or (pure v2) the eBPF program */
TEST(devices)
{
	struct clasp_error err = { 0 };
	struct cgroup_mgr *m = NULL;
	struct oci_resources r;
	char cid[80];

	snprintf(cid, sizeof cid, "%s-dev", id);
	set_dev_rules();
	memset(&r, 0, sizeof r);
	r.present = true;
	r.devices = dev_rules;
	r.n_devices = 2;
	if (cgroup_create(cid, NULL, false, &m, &err) < 0 || cgroup_apply(m, &r, &err) < 0) {
		fprintf(stderr, "devices: %s\n", err.msg);
		CHECK(0);
		goto out;
	}
	if (cgroup_layout_of(m) != CGROUP_LAYOUT_V2)
		CHECK_STREQ(slurp(cgroup_path_for(m, "devices"), "devices.list"), "c 1:3 rwm");
	CHECK(open_in_cgroup(m, "/dev/null") == 0);
	CHECK(open_in_cgroup(m, "/dev/zero") == 1);
out:
	if (m) {
		CHECK(cgroup_destroy(m, &err) == 0);
		cgroup_free(m);
	}
}

/* the eBPF device program, attached to the cgroup2 directory: on a hybrid
 * host it applies on top of v1 (both must allow), so it is testable here */
TEST(devices_bpf_live)
{
	struct clasp_error err = { 0 };
	struct cgroup_mgr *m = NULL;
	char cid[80];
	const char *v2;

	snprintf(cid, sizeof cid, "%s-bpf", id);
	set_dev_rules();
	if (cgroup_create(cid, NULL, false, &m, &err) < 0) {
		fprintf(stderr, "bpf: %s\n", err.msg);
		CHECK(0);
		return;
	}
	v2 = cgroup_path_for(m, "");
	if (v2) {
		if (cg_devices_v2(m, v2, dev_rules, 2, &err) < 0) {
			fprintf(stderr, "bpf: %s\n", err.msg);
			CHECK(0);
		}
		CHECK(open_in_cgroup(m, "/dev/null") == 0);
		CHECK(open_in_cgroup(m, "/dev/zero") == 1);
	}
	CHECK(cgroup_destroy(m, &err) == 0);
	cgroup_free(m);
}

/* a value this host cannot honour is an error naming the key */
TEST(host_refusals)
{
	struct clasp_error err = { 0 };
	struct cgroup_mgr *m = NULL;
	struct oci_resources r;
	struct oci_hugepage_limit hl = { .page_size = "2MB", .limit = 1 << 21 };
	struct kv kv = { .key = "memory.high", .value = "1000000" };
	char cid[80];

	snprintf(cid, sizeof cid, "%s-ref", id);
	if (cgroup_create(cid, NULL, false, &m, &err) < 0) {
		CHECK(0);
		return;
	}
	memset(&r, 0, sizeof r);
	r.present = true;
	r.hugepage_limits = &hl;
	r.n_hugepage_limits = 1;
	if (!cgroup_path_for(m, "hugetlb")) {
		CHECK(cgroup_apply(m, &r, &err) < 0);
		CHECK_CONTAINS(err.msg, "linux.resources.hugepageLimits[0]");
		CHECK_CONTAINS(err.msg, "hugetlb controller");
	}
	hl.page_size = "3MB";
	CHECK(cgroup_apply(m, &r, &err) < 0);
	CHECK_CONTAINS(err.msg, "linux.resources.hugepageLimits[0].pageSize");

	memset(&r, 0, sizeof r);
	r.present = true;
	r.unified.v = &kv;
	r.unified.n = 1;
	if (cgroup_layout_of(m) != CGROUP_LAYOUT_V2) {
		CHECK(cgroup_apply(m, &r, &err) < 0);
		CHECK_CONTAINS(err.msg, "linux.resources.unified[\"memory.high\"]");
		CHECK_CONTAINS(err.msg, "memory controller");
	}
	kv.key = "nosuchfile";
	CHECK(cgroup_apply(m, &r, &err) < 0);
	CHECK_CONTAINS(err.msg, "nosuchfile");

	memset(&r, 0, sizeof r);
	r.present = true;
	r.memory.present = true;
	r.memory.swappiness.set = true;
	r.memory.swappiness.v = 101;
	CHECK(cgroup_apply(m, &r, &err) < 0);
	CHECK_CONTAINS(err.msg, "linux.resources.memory.swappiness");

	memset(&r, 0, sizeof r);
	r.present = true;
	r.cpu.present = true;
	r.cpu.shares.set = true;
	r.cpu.shares.v = 1;
	if (cgroup_layout_of(m) != CGROUP_LAYOUT_V2) {
		CHECK(cgroup_apply(m, &r, &err) < 0); /* the kernel clamps to 2 */
		CHECK_CONTAINS(err.msg, "linux.resources.cpu.shares");
	}

	/* things this host does honour */
	memset(&r, 0, sizeof r);
	r.present = true;
	r.cpu.present = true;
	r.cpu.cpus = "0";
	r.cpu.mems = "0";
	r.memory.present = true;
	r.memory.reservation.set = true;
	r.memory.reservation.v = 32 << 20;
	if (cgroup_apply(m, &r, &err) < 0) {
		fprintf(stderr, "apply: %s\n", err.msg);
		CHECK(0);
	}
	CHECK_STREQ(slurp(cgroup_path_for(m, "cpuset"), "cpuset.cpus"), "0");
	CHECK(cgroup_destroy(m, &err) == 0);
	cgroup_free(m);
}


/* a shared parent outlives the first container; a joined cgroup is never
 * removed by the one who joined it */
TEST(shared_parent_and_join)
{
	struct clasp_error err = { 0 };
	struct cgroup_mgr *a = NULL, *b = NULL, *j = NULL;
	char ida[80], idb[80], parent[256], pa[256];
	struct oci_resources r;

	snprintf(ida, sizeof ida, "%s-a", id);
	snprintf(idb, sizeof idb, "%s-b", id);
	if (cgroup_create(ida, NULL, false, &a, &err) < 0 || cgroup_create(idb, NULL, false, &b, &err) < 0) {
		fprintf(stderr, "shared: %s\n", err.msg);
		CHECK(0);
		goto out;
	}
	snprintf(pa, sizeof pa, "%s", cgroup_path_for(a, "pids"));
	snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(pa, '/') - pa), pa);

	/* join a's cgroup by absolute path: resources apply, delete keeps it */
	{
		char abs[300];
		snprintf(abs, sizeof abs, "/clasp/%s", ida);
		CHECK(cgroup_create("joiner", abs, false, &j, &err) == 0);
	}
	memset(&r, 0, sizeof r);
	r.present = true;
	r.pids_limit.set = true;
	r.pids_limit.v = 7;
	if (j) {
		CHECK(cgroup_apply(j, &r, &err) == 0);
		CHECK_STREQ(slurp(pa, "pids.max"), "7");
		CHECK(cgroup_destroy(j, &err) == 0);
		CHECK(exists(pa));
		cgroup_free(j);
	}

	CHECK(cgroup_destroy(a, &err) == 0);
	CHECK(!exists(pa));
	CHECK(exists(parent)); /* b still lives there */
	CHECK(cgroup_destroy(b, &err) == 0);
	/* b did not create the parent, so it leaves it; a tried while b was
	 * there. The empty parent stays for reuse: remove what this test made
	 * (rmdir of a cgroup still in use by someone else just fails) */
	if (exists(parent)) {
		const char *ctl[] = { "cpu", "cpuacct", "cpuset", "memory", "devices", "freezer", "blkio", "pids", "" };
		for (size_t i = 0; i < sizeof ctl / sizeof *ctl; i++) {
			const char *p = cgroup_path_for(b, ctl[i]);
			char d[300];
			if (!p)
				continue;
			snprintf(d, sizeof d, "%.*s", (int)(strrchr(p, '/') - p), p);
			rmdir(d);
		}
	}
out:
	if (a)
		cgroup_free(a);
	if (b)
		cgroup_free(b);
}

/* a failed create leaves no directory behind */
TEST(failed_create_cleans_up)
{
	struct clasp_error err = { 0 };
	struct cgroup_mgr *m = NULL;
	char path[600], top[300];

	snprintf(top, sizeof top, "/clasp/%s-fail", id);
	/* cgroup.procs is a file: the next mkdir fails after the parents
	 * were made, and those must be removed again */
	snprintf(path, sizeof path, "%s/cgroup.procs/x", top);
	CHECK(cgroup_create(id, path, false, &m, &err) < 0);
	CHECK(m == NULL);
	CHECK_CONTAINS(err.msg, "create cgroup");
	{
		char d[400];
		snprintf(d, sizeof d, "/sys/fs/cgroup/pids%s", top);
		CHECK(!exists(d));
		snprintf(d, sizeof d, "/sys/fs/cgroup/cpu%s", top);
		CHECK(!exists(d));
	}
	CHECK(cgroup_create(id, "a/../../etc", false, &m, &err) < 0);
	CHECK_CONTAINS(err.msg, "linux.cgroupsPath");
}

int main(void)
{
	struct stat st;

	if (geteuid() != 0 || stat("/sys/fs/cgroup", &st) < 0 || access("/proc/self/cgroup", R_OK) < 0) {
		printf("test_cgroup_live: skipped (needs root and /sys/fs/cgroup)\n");
		return unit_summary("test_cgroup_live");
	}
	snprintf(id, sizeof id, "cgtest-%d", (int)getpid());
	{
		enum cgroup_layout l;
		struct clasp_error err = { 0 };
		if (cgroup_detect_layout(&l, &err) == 0)
			printf("layout: %s\n", cgroup_layout_name(l));
	}
	alarm(60);
	RUN(lifecycle);
	RUN(oom);
	RUN(pids_limit);
	RUN(devices);
	RUN(devices_bpf_live);
	RUN(host_refusals);
	RUN(shared_parent_and_join);
	RUN(failed_create_cleans_up);
	return unit_summary("test_cgroup_live");
}
