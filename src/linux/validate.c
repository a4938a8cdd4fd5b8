#include "linux/validate.h"

#include <string.h>

static bool has_new_or_joined(const struct oci_config *cfg, enum oci_ns_type t)
{
	return oci_config_namespace(cfg, t) != NULL;
}

/* Sysctls that belong to a namespace may only be set inside a new one of
 * that kind, or they would change the host (runc's rule). */
static int check_sysctl(const struct oci_config *cfg, struct clasp_error *err)
{
	size_t i;

	for (i = 0; i < cfg->linux_.sysctl.n; i++) {
		const char *k = cfg->linux_.sysctl.v[i].key;
		const struct oci_namespace *ns;

		if (strncmp(k, "net.", 4) == 0) {
			ns = oci_config_namespace(cfg, OCI_NS_NETWORK);
			if (!ns || ns->path)
				return clasp_error_set(err, 0,
						       "linux.sysctl: \"%s\" requires a new network namespace", k);
		} else if (strncmp(k, "kernel.msg", 10) == 0 || strncmp(k, "kernel.sem", 10) == 0 ||
			   strncmp(k, "kernel.shm", 10) == 0 || strncmp(k, "fs.mqueue.", 10) == 0) {
			ns = oci_config_namespace(cfg, OCI_NS_IPC);
			if (!ns || ns->path)
				return clasp_error_set(err, 0, "linux.sysctl: \"%s\" requires a new IPC namespace", k);
		} else if (strcmp(k, "kernel.hostname") == 0 || strcmp(k, "kernel.domainname") == 0) {
			ns = oci_config_namespace(cfg, OCI_NS_UTS);
			if (!ns || ns->path)
				return clasp_error_set(err, 0, "linux.sysctl: \"%s\" requires a new UTS namespace", k);
		} else {
			return clasp_error_set(err, 0,
					       "linux.sysctl: \"%s\" is not namespaced; setting it would change the host", k);
		}
	}
	return 0;
}

int linux_validate(const struct oci_config *cfg, struct clasp_error *err)
{
	const struct oci_linux *l = &cfg->linux_;
	const struct oci_namespace *user = oci_config_namespace(cfg, OCI_NS_USER);
	size_t i;

	if ((l->n_uid_mappings || l->n_gid_mappings) && !user)
		return clasp_error_set(err, 0, "linux.uidMappings: mappings require a user namespace in linux.namespaces");
	if (user && !user->path && (!l->n_uid_mappings || !l->n_gid_mappings))
		return clasp_error_set(err, 0, "linux.uidMappings: a new user namespace needs uidMappings and gidMappings");
	if ((cfg->hostname && *cfg->hostname) && !has_new_or_joined(cfg, OCI_NS_UTS))
		return clasp_error_set(err, 0, "hostname: requires a UTS namespace");
	if ((cfg->domainname && *cfg->domainname) && !has_new_or_joined(cfg, OCI_NS_UTS))
		return clasp_error_set(err, 0, "domainname: requires a UTS namespace");
	if ((l->time_monotonic.set || l->time_boottime.set)) {
		const struct oci_namespace *t = oci_config_namespace(cfg, OCI_NS_TIME);
		if (!t || t->path)
			return clasp_error_set(err, 0, "linux.timeOffsets: requires a new time namespace");
	}
	if (l->intel_rdt.present)
		return clasp_error_set(err, 0, "linux.intelRdt: not supported by clasp");
	if (l->net_devices.n)
		return clasp_error_set(err, 0, "linux.netDevices: not supported by clasp");
	if (l->memory_policy.present)
		return clasp_error_set(err, 0, "linux.memoryPolicy: not supported by clasp");
	if (l->mount_label && *l->mount_label)
		return clasp_error_set(err, 0, "linux.mountLabel: SELinux is not supported by clasp");
	if (cfg->process && cfg->process->selinux_label && *cfg->process->selinux_label)
		return clasp_error_set(err, 0, "process.selinuxLabel: SELinux is not supported by clasp");
	if (cfg->process && cfg->process->apparmor_profile && *cfg->process->apparmor_profile)
		return clasp_error_set(err, 0, "process.apparmorProfile: AppArmor is not supported by clasp");
	for (i = 0; i < cfg->n_mounts; i++)
		if (cfg->mounts[i].n_uid_mappings || cfg->mounts[i].n_gid_mappings)
			return clasp_error_set(err, 0, "mounts[%zu]: idmapped mounts are not supported by clasp", i);
	return check_sysctl(cfg, err);
}
