#include "linux/namespaces.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "linux/rootless.h"
#include "util/cleanup.h"
#include "util/fs.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

int ns_clone_flag(enum oci_ns_type t)
{
	switch (t) {
	case OCI_NS_PID: return CLONE_NEWPID;
	case OCI_NS_NETWORK: return CLONE_NEWNET;
	case OCI_NS_MOUNT: return CLONE_NEWNS;
	case OCI_NS_IPC: return CLONE_NEWIPC;
	case OCI_NS_UTS: return CLONE_NEWUTS;
	case OCI_NS_USER: return CLONE_NEWUSER;
	case OCI_NS_CGROUP: return CLONE_NEWCGROUP;
	case OCI_NS_TIME: return CLONE_NEWTIME;
	default: return 0;
	}
}

int ns_new_flags(const struct oci_config *cfg)
{
	int flags = 0;
	size_t i;

	for (i = 0; i < cfg->linux_.n_namespaces; i++)
		if (!cfg->linux_.namespaces[i].path)
			flags |= ns_clone_flag(cfg->linux_.namespaces[i].type);
	return flags;
}

static int write_map(pid_t pid, const char *file, const struct oci_idmap *m, size_t n,
		     struct clasp_error *err)
{
	char path[64], buf[4096];
	size_t off = 0, i;
	_cleanup_close_ int fd = -1;

	for (i = 0; i < n && off < sizeof buf; i++)
		off += (size_t)snprintf(buf + off, sizeof buf - off, "%u %u %u\n", m[i].container_id,
					m[i].host_id, m[i].size);
	if (off >= sizeof buf)
		return clasp_error_set(err, E2BIG, "%s: too many mappings", file);
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return clasp_error_set(err, errno, "open %s", path);
	if (write(fd, buf, off) != (ssize_t)off)
		return clasp_error_set(err, errno, "write %s", path);
	return 0;
}

int ns_write_id_maps(pid_t pid, const struct oci_linux *l, bool *setgroups_denied, struct clasp_error *err)
{
	*setgroups_denied = false;
	/* Beyond the caller's own id, only the setuid helpers may write the
	 * maps, checked against /etc/subuid and /etc/subgid. */
	if (l->n_gid_mappings && rootless_maps_need_helper(l->gid_mappings, l->n_gid_mappings, true)) {
		if (rootless_run_map_helper(pid, l->gid_mappings, l->n_gid_mappings, true, err) < 0)
			return -1;
	} else if (l->n_gid_mappings) {
		/* An unprivileged writer may map its own gid only after denying
		 * setgroups; root keeps setgroups as runc does. */
		if (geteuid() != 0) {
			char path[64];
			_cleanup_close_ int fd = -1;

			snprintf(path, sizeof path, "/proc/%d/setgroups", (int)pid);
			fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd >= 0 && write(fd, "deny", 4) == 4)
				*setgroups_denied = true;
		}
		if (write_map(pid, "gid_map", l->gid_mappings, l->n_gid_mappings, err) < 0)
			return clasp_error_prefix(err, "linux.gidMappings");
	}
	if (l->n_uid_mappings && rootless_maps_need_helper(l->uid_mappings, l->n_uid_mappings, false))
		return rootless_run_map_helper(pid, l->uid_mappings, l->n_uid_mappings, false, err);
	if (l->n_uid_mappings && write_map(pid, "uid_map", l->uid_mappings, l->n_uid_mappings, err) < 0)
		return clasp_error_prefix(err, "linux.uidMappings");
	return 0;
}

static int join_one(const struct oci_namespace *ns, size_t idx, struct clasp_error *err)
{
	_cleanup_close_ int fd = open(ns->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return clasp_error_set(err, errno, "linux.namespaces[%zu]: open %s", idx, ns->path);
	if (setns(fd, ns_clone_flag(ns->type)) < 0)
		return clasp_error_set(err, errno, "linux.namespaces[%zu]: join %s namespace %s", idx,
				       oci_ns_type_name(ns->type), ns->path);
	return 0;
}

int ns_join_paths(const struct oci_config *cfg, int skip_flags, struct clasp_error *err)
{
	const struct oci_linux *l = &cfg->linux_;
	size_t i;
	int pass;

	/* Pass 0 joins the user namespace, pass 1 the rest. */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < l->n_namespaces; i++) {
			const struct oci_namespace *ns = &l->namespaces[i];
			bool is_user = ns->type == OCI_NS_USER;

			if (!ns->path || (ns_clone_flag(ns->type) & skip_flags) || is_user != (pass == 0))
				continue;
			if (join_one(ns, i, err) < 0)
				return -1;
		}
	return 0;
}

int ns_write_time_offsets(const struct oci_linux *l, struct clasp_error *err)
{
	char buf[128];
	int n = 0;
	_cleanup_close_ int fd = -1;

	if (l->time_monotonic.set)
		n += snprintf(buf + n, sizeof buf - (size_t)n, "monotonic %lld %u\n",
			      (long long)l->time_monotonic.secs, l->time_monotonic.nanosecs);
	if (l->time_boottime.set)
		n += snprintf(buf + n, sizeof buf - (size_t)n, "boottime %lld %u\n",
			      (long long)l->time_boottime.secs, l->time_boottime.nanosecs);
	if (n == 0)
		return 0;
	fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return clasp_error_set(err, errno, "linux.timeOffsets: open /proc/self/timens_offsets");
	/* One write per line: the kernel parses a single offset per write. */
	{
		char *line = buf, *nl;
		while ((nl = strchr(line, '\n'))) {
			size_t len = (size_t)(nl - line) + 1;
			if (write(fd, line, len) != (ssize_t)len)
				return clasp_error_set(err, errno, "linux.timeOffsets: write");
			line = nl + 1;
		}
	}
	return 0;
}

int ns_loopback_up(struct clasp_error *err)
{
	_cleanup_close_ int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr;

	if (s < 0)
		return clasp_error_set(err, errno, "socket for loopback setup");
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return clasp_error_set(err, errno, "get lo flags");
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		return clasp_error_set(err, errno, "bring lo up");
	return 0;
}
