/* `clasp features` (features.md): exactly what this build implements. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "oci/version.h"
#include "util/json.h"

static const char usage[] = "Usage: clasp features\n\n"
			    "Print the runtime's features as JSON (features.md).\n\n"
			    "Options:\n  -h, --help  show this help\n";

static void gen_list(struct json_gen *g, const char *key, const char *const *v)
{
	json_gen_string(g, key);
	json_gen_array_open(g);
	for (; *v; v++)
		json_gen_string(g, *v);
	json_gen_array_close(g);
}

static const char *const hooks[] = {"prestart", "createRuntime", "createContainer", "startContainer",
				    "poststart", "poststop", NULL};
static const char *const mount_options[] = {
	"async", "atime", "bind", "defaults", "dev", "diratime", "dirsync", "exec", "iversion", "lazytime",
	"loud", "mand", "noatime", "nodev", "nodiratime", "noexec", "noiversion", "nolazytime", "nomand",
	"norelatime", "nostrictatime", "nosuid", "nosymfollow", "private", "ratime", "rbind", "rdev",
	"rdiratime", "relatime", "remount", "rexec", "rnoatime", "rnodev", "rnodiratime", "rnoexec",
	"rnorelatime", "rnostrictatime", "rnosuid", "rnosymfollow", "ro", "rprivate", "rrelatime", "rro",
	"rrw", "rshared", "rslave", "rstrictatime", "rsuid", "rsymfollow", "runbindable", "rw", "shared",
	"silent", "slave", "strictatime", "suid", "symfollow", "sync", "unbindable", NULL};
static const char *const namespaces[] = {"cgroup", "ipc", "mount", "network", "pid", "time", "user", "uts",
					 NULL};
static const char *const seccomp_actions[] = {
	"SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO", "SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD",
	"SCMP_ACT_LOG", "SCMP_ACT_NOTIFY", "SCMP_ACT_TRACE", "SCMP_ACT_TRAP", NULL};
static const char *const seccomp_ops[] = {"SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_LE",
					  "SCMP_CMP_LT", "SCMP_CMP_MASKED_EQ", "SCMP_CMP_NE", NULL};
static const char *const seccomp_archs[] = {"SCMP_ARCH_X86", "SCMP_ARCH_X86_64", "SCMP_ARCH_X32",
					    "SCMP_ARCH_ARM", "SCMP_ARCH_AARCH64", "SCMP_ARCH_MIPS",
					    "SCMP_ARCH_MIPS64", "SCMP_ARCH_MIPS64N32", "SCMP_ARCH_MIPSEL",
					    "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC",
					    "SCMP_ARCH_PPC64", "SCMP_ARCH_PPC64LE", "SCMP_ARCH_RISCV64",
					    "SCMP_ARCH_S390", "SCMP_ARCH_S390X", NULL};
static const char *const seccomp_flags[] = {"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG",
					    "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
					    "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", NULL};

int cmd_features(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	struct json_gen *jg;
	const char *buf;
	size_t len;
	int opt;

	(void)g;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == 'h')
			return cmd_help(usage);
		return clasp_error_set(err, 0, "invalid option; see --help");
	}
	jg = json_gen_new(true);
	json_gen_object_open(jg);
	json_gen_kv_string(jg, "ociVersionMin", "1.0.0");
	json_gen_kv_string(jg, "ociVersionMax", CLASP_SPEC_VERSION);
	gen_list(jg, "hooks", hooks);
	gen_list(jg, "mountOptions", mount_options);
	json_gen_string(jg, "linux");
	json_gen_object_open(jg);
	gen_list(jg, "namespaces", namespaces);
	json_gen_string(jg, "capabilities");
	json_gen_array_open(jg);
	{
		static const char *const caps[] = {
			"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
			"CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
			"CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
			"CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
			"CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
			"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
			"CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE",
			"CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ",
			"CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE", NULL};
		const char *const *c;
		for (c = caps; *c; c++)
			json_gen_string(jg, *c);
	}
	json_gen_array_close(jg);
	json_gen_string(jg, "cgroup");
	json_gen_object_open(jg);
	json_gen_kv_bool(jg, "v1", true);
	json_gen_kv_bool(jg, "v2", true);
	json_gen_kv_bool(jg, "systemd", false);
	json_gen_kv_bool(jg, "systemdUser", false);
	json_gen_kv_bool(jg, "rdma", false);
	json_gen_object_close(jg);
	json_gen_string(jg, "seccomp");
	json_gen_object_open(jg);
	json_gen_kv_bool(jg, "enabled", true);
	gen_list(jg, "actions", seccomp_actions);
	gen_list(jg, "operators", seccomp_ops);
	gen_list(jg, "archs", seccomp_archs);
	gen_list(jg, "knownFlags", seccomp_flags);
	gen_list(jg, "supportedFlags", seccomp_flags);
	json_gen_object_close(jg);
	json_gen_string(jg, "apparmor");
	json_gen_object_open(jg);
	json_gen_kv_bool(jg, "enabled", false);
	json_gen_object_close(jg);
	json_gen_string(jg, "selinux");
	json_gen_object_open(jg);
	json_gen_kv_bool(jg, "enabled", false);
	json_gen_object_close(jg);
	json_gen_string(jg, "intelRdt");
	json_gen_object_open(jg);
	json_gen_kv_bool(jg, "enabled", false);
	json_gen_object_close(jg);
	json_gen_string(jg, "mountExtensions");
	json_gen_object_open(jg);
	json_gen_string(jg, "idmap");
	json_gen_object_open(jg);
	json_gen_kv_bool(jg, "enabled", false);
	json_gen_object_close(jg);
	json_gen_object_close(jg);
	json_gen_string(jg, "netDevices");
	json_gen_object_open(jg);
	json_gen_kv_bool(jg, "enabled", false);
	json_gen_object_close(jg);
	json_gen_object_close(jg); /* linux */
	json_gen_string(jg, "annotations");
	json_gen_object_open(jg);
	json_gen_kv_string(jg, "clasp.version", CLASP_VERSION);
	json_gen_kv_string(jg, "clasp.commit", CLASP_COMMIT);
	json_gen_object_close(jg);
	json_gen_string(jg, "potentiallyUnsafeConfigAnnotations");
	json_gen_array_open(jg);
	json_gen_string(jg, "ing.paperclip.");
	json_gen_array_close(jg);
	json_gen_object_close(jg);
	buf = json_gen_buf(jg, &len);
	printf("%.*s\n", (int)len, buf);
	json_gen_free(jg);
	return 0;
}
