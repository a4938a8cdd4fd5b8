#include "linux/rootless.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/cleanup.h"

bool rootless_detect(void)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	unsigned long a, b, c;
	FILE *f;
	bool initial = false;

	if (geteuid() != 0)
		return true;
	/* The initial user namespace maps all 2^32-1 ids onto themselves. */
	f = fopen("/proc/self/uid_map", "re");
	if (!f)
		return false;
	if (getline(&line, &cap, f) > 0 && sscanf(line, "%lu %lu %lu", &a, &b, &c) == 3)
		initial = a == 0 && b == 0 && c == 4294967295UL;
	fclose(f);
	return !initial;
}

int rootless_default_root(char **out, struct clasp_error *err)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char run_user[64];
	struct stat st;

	*out = NULL;
	if (xdg && xdg[0] == '/') {
		if (asprintf(out, "%s/clasp", xdg) < 0)
			abort();
		return 0;
	}
	snprintf(run_user, sizeof run_user, "/run/user/%u", (unsigned)geteuid());
	if (stat(run_user, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (asprintf(out, "%s/clasp", run_user) < 0)
			abort();
		return 0;
	}
	return clasp_error_set(err, 0,
			       "running without root, but there is no state directory: XDG_RUNTIME_DIR is not set and "
			       "%s does not exist; set XDG_RUNTIME_DIR to a directory you own, or pass --root DIR",
			       run_user);
}

#define SET(o) ((o).set)

const char *rootless_requested_resource(const struct oci_resources *r)
{
	const struct oci_memory *m = &r->memory;
	const struct oci_cpu *c = &r->cpu;
	const struct oci_blockio *b = &r->blockio;

	if (SET(m->limit)) return "linux.resources.memory.limit";
	if (SET(m->reservation)) return "linux.resources.memory.reservation";
	if (SET(m->swap)) return "linux.resources.memory.swap";
	if (SET(m->kernel)) return "linux.resources.memory.kernel";
	if (SET(m->kernel_tcp)) return "linux.resources.memory.kernelTCP";
	if (SET(m->swappiness)) return "linux.resources.memory.swappiness";
	if (SET(m->disable_oom_killer) && m->disable_oom_killer.v) return "linux.resources.memory.disableOOMKiller";
	if (SET(c->shares)) return "linux.resources.cpu.shares";
	if (SET(c->quota)) return "linux.resources.cpu.quota";
	if (SET(c->burst)) return "linux.resources.cpu.burst";
	if (SET(c->period)) return "linux.resources.cpu.period";
	if (SET(c->realtime_runtime)) return "linux.resources.cpu.realtimeRuntime";
	if (SET(c->realtime_period)) return "linux.resources.cpu.realtimePeriod";
	if (c->cpus && *c->cpus) return "linux.resources.cpu.cpus";
	if (c->mems && *c->mems) return "linux.resources.cpu.mems";
	if (SET(c->idle)) return "linux.resources.cpu.idle";
	if (SET(r->pids_limit)) return "linux.resources.pids.limit";
	if (SET(b->weight) || SET(b->leaf_weight) || b->n_weight_device || b->throttle_read_bps.n ||
	    b->throttle_write_bps.n || b->throttle_read_iops.n || b->throttle_write_iops.n)
		return "linux.resources.blockIO";
	if (r->n_hugepage_limits) return "linux.resources.hugepageLimits";
	if (SET(r->network.class_id) || r->network.n_priorities) return "linux.resources.network";
	if (r->n_rdma) return "linux.resources.rdma";
	if (r->unified.n) return "linux.resources.unified";
	return NULL;
}

/* Lines "name:start:count" (or "uid:start:count") of /etc/subuid or
 * /etc/subgid: does one of this user's ranges hold [id, id+size)? */
static bool sub_range_covers(const char *file, uint32_t id, uint32_t size)
{
	struct passwd *pw = getpwuid(geteuid());
	char uidstr[16];
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	bool ok = false;
	FILE *f = fopen(file, "re");

	if (!f)
		return false;
	snprintf(uidstr, sizeof uidstr, "%u", (unsigned)geteuid());
	while (!ok && getline(&line, &cap, f) > 0) {
		char *c1 = strchr(line, ':');
		unsigned long long start, count;

		if (!c1 || !strchr(c1 + 1, ':'))
			continue;
		*c1 = '\0';
		if (strcmp(line, uidstr) != 0 && !(pw && strcmp(line, pw->pw_name) == 0))
			continue;
		if (sscanf(c1 + 1, "%llu:%llu", &start, &count) != 2)
			continue;
		ok = id >= start && (unsigned long long)id + size <= start + count;
	}
	fclose(f);
	return ok;
}

bool rootless_maps_need_helper(const struct oci_idmap *m, size_t n, bool gid)
{
	/* Root of a non-initial user namespace (podman rootless) writes any
	 * range its own namespace maps; only a real unprivileged euid needs
	 * the setuid helpers. */
	if (geteuid() == 0)
		return false;
	return !(n == 1 && m[0].size == 1 && m[0].host_id == (gid ? getegid() : geteuid()));
}

static int check_maps(const struct oci_idmap *m, size_t n, bool gid, struct clasp_error *err)
{
	const char *field = gid ? "linux.gidMappings" : "linux.uidMappings";
	const char *file = gid ? "/etc/subgid" : "/etc/subuid";
	const char *helper = gid ? "/usr/bin/newgidmap" : "/usr/bin/newuidmap";
	unsigned own = gid ? (unsigned)getegid() : (unsigned)geteuid();
	size_t i;

	if (!rootless_maps_need_helper(m, n, gid))
		return 0;
	for (i = 0; i < n; i++) {
		if (m[i].size == 1 && m[i].host_id == own)
			continue;
		if (!sub_range_covers(file, m[i].host_id, m[i].size))
			return clasp_error_set(err, 0,
					       "%s[%zu]: host ids %u-%u are neither your own %s (%u) nor in a range "
					       "%s gives you; add a line \"USER:START:COUNT\" to %s (as root), or map only "
					       "your own id",
					       field, i, m[i].host_id, m[i].host_id + m[i].size - 1, gid ? "gid" : "uid",
					       own, file, file);
	}
	if (access(helper, X_OK) < 0)
		return clasp_error_set(err, 0,
				       "%s: mapping more than your own id needs %s (Debian package uidmap)", field,
				       helper);
	return 0;
}

static int check_sysctls(const struct oci_config *cfg, struct clasp_error *err)
{
	const struct oci_namespace *user = oci_config_namespace(cfg, OCI_NS_USER);
	size_t i;

	for (i = 0; i < cfg->linux_.sysctl.n; i++) {
		const char *k = cfg->linux_.sysctl.v[i].key;

		/* A sysctl is writable only inside a namespace a user namespace
		 * we are root of owns (a new one, or podman's that we run in);
		 * the UTS ones are root-owned files even then. */
		if ((!user || user->path) && geteuid() != 0)
			return clasp_error_set(err, 0,
					       "linux.sysctl: \"%s\" cannot be set without root unless the container "
					       "has a new user namespace",
					       k);
		if (strcmp(k, "kernel.hostname") == 0 || strcmp(k, "kernel.domainname") == 0)
			return clasp_error_set(err, 0,
					       "linux.sysctl: \"%s\" cannot be set without root; use the \"%s\" field "
					       "instead",
					       k, k[7] == 'h' ? "hostname" : "domainname");
	}
	return 0;
}

static int check_oom_score_adj(const struct oci_process *p, struct clasp_error *err)
{
	char buf[32] = "";
	long cur;
	int fd;
	ssize_t n;

	if (!p || !p->oom_score_adj.set)
		return 0;
	fd = open("/proc/self/oom_score_adj", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	cur = strtol(buf, NULL, 10);
	if (p->oom_score_adj.v < cur)
		return clasp_error_set(err, 0,
				       "process.oomScoreAdj: %lld is below the current value %ld; lowering it needs "
				       "CAP_SYS_RESOURCE on the host, which a run without root does not have",
				       (long long)p->oom_score_adj.v, cur);
	return 0;
}

static int check_rlimits(const struct oci_process *p, struct clasp_error *err)
{
	size_t i;

	if (!p)
		return 0;
	for (i = 0; i < p->n_rlimits; i++) {
		struct rlimit cur;
		int res = p->rlimits[i].resource;

		if (res < 0 || getrlimit(res, &cur) < 0)
			continue;
		if (cur.rlim_max != RLIM_INFINITY && p->rlimits[i].hard > cur.rlim_max)
			return clasp_error_set(err, 0,
					       "process.rlimits[%zu]: hard limit %llu is above the current %llu; raising "
					       "it needs CAP_SYS_RESOURCE on the host, which a run without root does "
					       "not have",
					       i, (unsigned long long)p->rlimits[i].hard,
					       (unsigned long long)cur.rlim_max);
	}
	return 0;
}

int rootless_check_resources(const struct oci_resources *r, bool have_cgroup, struct clasp_error *err)
{
	const char *res = rootless_requested_resource(r);

	if (res && !have_cgroup)
		return clasp_error_set(err, 0,
				       "%s: running without root, clasp can set resource limits only in a cgroup v2 "
				       "subtree delegated to your user (a directory under /sys/fs/cgroup you own, "
				       "for example made by systemd with Delegate=yes), and you have none here; "
				       "remove the limit, or delegate a cgroup and name it in linux.cgroupsPath",
				       res);
	return 0;
}

int rootless_check_config(const struct oci_config *cfg, struct clasp_error *err)
{
	const struct oci_namespace *user = oci_config_namespace(cfg, OCI_NS_USER);

	/* Root of podman's user namespace needs none of its own; a plain user
	 * can create no other namespace without one. */
	if (!user && geteuid() != 0)
		return clasp_error_set(err, 0,
				       "linux.namespaces: running without root needs a user namespace (with "
				       "linux.uidMappings and linux.gidMappings); \"clasp spec --rootless\" writes such "
				       "a config");
	if (check_oom_score_adj(cfg->process, err) < 0 || check_rlimits(cfg->process, err) < 0 ||
	    check_sysctls(cfg, err) < 0)
		return -1;
	if (user && !user->path) {
		if (check_maps(cfg->linux_.uid_mappings, cfg->linux_.n_uid_mappings, false, err) < 0 ||
		    check_maps(cfg->linux_.gid_mappings, cfg->linux_.n_gid_mappings, true, err) < 0)
			return -1;
	}
	return 0;
}

int rootless_run_map_helper(pid_t pid, const struct oci_idmap *m, size_t n, bool gid, struct clasp_error *err)
{
	const char *helper = gid ? "/usr/bin/newgidmap" : "/usr/bin/newuidmap";
	char **argv = calloc(3 * n + 3, sizeof *argv);
	char msg[512];
	int pfd[2], st;
	size_t i, k = 0, len = 0;
	ssize_t r;
	pid_t child;
	int rc = -1;

	if (!argv)
		return clasp_error_set(err, ENOMEM, "%s", helper);
	argv[k++] = (char *)helper;
	if (asprintf(&argv[k++], "%d", (int)pid) < 0)
		abort();
	for (i = 0; i < n; i++)
		if (asprintf(&argv[k++], "%u", m[i].container_id) < 0 ||
		    asprintf(&argv[k++], "%u", m[i].host_id) < 0 || asprintf(&argv[k++], "%u", m[i].size) < 0)
			abort();
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		clasp_error_set(err, errno, "%s: pipe", helper);
		goto out;
	}
	child = fork();
	if (child == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execv(helper, argv);
		_exit(127);
	}
	close(pfd[1]);
	if (child < 0) {
		close(pfd[0]);
		clasp_error_set(err, errno, "%s: fork", helper);
		goto out;
	}
	while (len < sizeof msg - 1 && (r = read(pfd[0], msg + len, sizeof msg - 1 - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		len += (size_t)r;
	}
	close(pfd[0]);
	msg[len] = '\0';
	while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
		msg[--len] = '\0';
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		clasp_error_set(err, 0, "%s: %s failed%s%s", gid ? "linux.gidMappings" : "linux.uidMappings", helper,
				len ? ": " : "", msg);
	else
		rc = 0;
out:
	for (i = 1; argv[i]; i++)
		free(argv[i]);
	free(argv);
	return rc;
}
