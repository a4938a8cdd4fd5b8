/* The typed OCI runtime configuration (config.md, config-linux.md v1.3.0,
 * Linux subset). oci/config_parse.c fills it from config.json; sandbox/ may
 * rewrite it; linux/ builds exactly what it says.
 *
 * Memory: every string and array hangs off the config's arena (cfg->arena),
 * so the whole tree is released by oci_config_free(). Code that rewrites the
 * config allocates replacements from the same arena (arena_* in util/arena.h).
 *
 * Parsing rules (config_parse.c): unknown properties are ignored, a JSON null
 * counts as absent, duplicate object keys are refused, strings never hold a
 * NUL, integers are range-checked for their field's type.
 *
 * Closed vocabularies (namespace types, rlimits, seccomp actions and
 * operators, propagation) are turned into enums at parse time so that a bad
 * value is reported with its JSON path before anything is created. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/arena.h"
#include "util/error.h"

typedef struct { bool set; int64_t v; } opt_i64;
typedef struct { bool set; uint64_t v; } opt_u64;
typedef struct { bool set; bool v; } opt_bool;

/* A string vector. Present in config.json (even as []): v != NULL and
 * v[n] == NULL, so v can go straight to execve(). Absent (or JSON null):
 * v == NULL, n == 0. Other arrays (T *v + size_t n) follow the same rule. */
struct strv {
	char **v;
	size_t n;
};

/* key/value pairs, order preserved (annotations, sysctl, unified, netDevices). */
struct kv {
	char *key;
	char *value;
};
struct kvlist {
	struct kv *v;
	size_t n;
};

struct oci_idmap {
	uint32_t container_id;
	uint32_t host_id;
	uint32_t size;
};

struct oci_mount {
	char *destination; /* always absolute: a deprecated relative one gets "/" prepended */
	char *source;   /* may be NULL */
	char *type;     /* may be NULL */
	struct strv options;
	struct oci_idmap *uid_mappings;
	size_t n_uid_mappings;
	struct oci_idmap *gid_mappings;
	size_t n_gid_mappings;
};

struct oci_rlimit {
	int resource; /* RLIMIT_* */
	char *type;   /* as written, e.g. "RLIMIT_NOFILE" */
	uint64_t soft;
	uint64_t hard;
};

struct oci_capabilities {
	bool present;
	struct strv effective, bounding, inheritable, permitted, ambient;
};

struct oci_user {
	uint32_t uid;
	uint32_t gid;
	opt_u64 umask;
	uint32_t *additional_gids;
	size_t n_additional_gids;
	char *username;
};

struct oci_scheduler {
	bool present;
	char *policy; /* SCHED_OTHER, ... validated */
	int policy_value;
	int32_t nice;
	int32_t priority;
	struct strv flags;
	uint64_t runtime, deadline, period;
};

struct oci_io_priority {
	bool present;
	int class_value; /* IOPRIO_CLASS_* numeric */
	int priority;
};

struct oci_process {
	bool terminal;
	bool has_console_size;
	uint32_t console_height, console_width;
	struct oci_user user;
	struct strv args;
	struct strv env;
	char *cwd;
	struct oci_capabilities capabilities;
	struct oci_rlimit *rlimits;
	size_t n_rlimits;
	bool no_new_privileges;
	opt_i64 oom_score_adj;
	char *apparmor_profile;
	char *selinux_label;
	struct oci_scheduler scheduler;
	struct oci_io_priority io_priority;
	char *exec_cpu_affinity_initial;
	char *exec_cpu_affinity_final;
};

struct oci_hook {
	char *path;
	struct strv args;
	struct strv env;
	opt_i64 timeout; /* seconds, > 0 */
};

enum oci_hook_kind {
	OCI_HOOK_PRESTART,
	OCI_HOOK_CREATE_RUNTIME,
	OCI_HOOK_CREATE_CONTAINER,
	OCI_HOOK_START_CONTAINER,
	OCI_HOOK_POSTSTART,
	OCI_HOOK_POSTSTOP,
	OCI_HOOK_KIND_COUNT
};

struct oci_hook_list {
	struct oci_hook *v;
	size_t n;
};

enum oci_ns_type {
	OCI_NS_PID,
	OCI_NS_NETWORK,
	OCI_NS_MOUNT,
	OCI_NS_IPC,
	OCI_NS_UTS,
	OCI_NS_USER,
	OCI_NS_CGROUP,
	OCI_NS_TIME,
	OCI_NS_COUNT
};

struct oci_namespace {
	enum oci_ns_type type;
	char *path; /* NULL = create a new one */
};

struct oci_device {
	char type; /* 'c', 'b', 'u', 'p' */
	char *path;
	int64_t major, minor;
	opt_u64 file_mode;
	opt_u64 uid, gid;
};

struct oci_device_rule {
	bool allow;
	char type;        /* 'a', 'c', 'b'; 'a' when absent */
	opt_i64 major;    /* unset = wildcard */
	opt_i64 minor;
	char *access;     /* "rwm" subset; NULL = "rwm" */
};

struct oci_memory {
	bool present;
	opt_i64 limit, reservation, swap, kernel, kernel_tcp;
	opt_u64 swappiness;
	opt_bool disable_oom_killer, use_hierarchy, check_before_update;
};

struct oci_cpu {
	bool present;
	opt_u64 shares;
	opt_i64 quota;
	opt_u64 burst;
	opt_u64 period;
	opt_i64 realtime_runtime;
	opt_u64 realtime_period;
	char *cpus;
	char *mems;
	opt_i64 idle;
};

struct oci_weight_device {
	int64_t major, minor;
	opt_u64 weight, leaf_weight;
};

struct oci_throttle_device {
	int64_t major, minor;
	uint64_t rate;
};

struct oci_throttle_list {
	struct oci_throttle_device *v;
	size_t n;
};

struct oci_blockio {
	bool present;
	opt_u64 weight, leaf_weight;
	struct oci_weight_device *weight_device;
	size_t n_weight_device;
	struct oci_throttle_list throttle_read_bps, throttle_write_bps;
	struct oci_throttle_list throttle_read_iops, throttle_write_iops;
};

struct oci_hugepage_limit {
	char *page_size; /* "2MB", "1GB" ... */
	uint64_t limit;
};

struct oci_net_priority {
	char *name;
	uint32_t priority;
};

struct oci_network_res {
	bool present;
	opt_u64 class_id;
	struct oci_net_priority *priorities;
	size_t n_priorities;
};

struct oci_rdma {
	char *device;
	opt_u64 hca_handles, hca_objects;
};

struct oci_resources {
	bool present;
	struct oci_device_rule *devices;
	size_t n_devices;
	struct oci_memory memory;
	struct oci_cpu cpu;
	opt_i64 pids_limit;
	struct oci_blockio blockio;
	struct oci_hugepage_limit *hugepage_limits;
	size_t n_hugepage_limits;
	struct oci_network_res network;
	struct oci_rdma *rdma;
	size_t n_rdma;
	struct kvlist unified;
};

enum oci_seccomp_action {
	OCI_SCMP_KILL,          /* SCMP_ACT_KILL == KILL_THREAD */
	OCI_SCMP_KILL_PROCESS,
	OCI_SCMP_KILL_THREAD,
	OCI_SCMP_TRAP,
	OCI_SCMP_ERRNO,
	OCI_SCMP_TRACE,
	OCI_SCMP_ALLOW,
	OCI_SCMP_LOG,
	OCI_SCMP_NOTIFY,
};

enum oci_seccomp_op {
	OCI_SCMP_CMP_NE,
	OCI_SCMP_CMP_LT,
	OCI_SCMP_CMP_LE,
	OCI_SCMP_CMP_EQ,
	OCI_SCMP_CMP_GE,
	OCI_SCMP_CMP_GT,
	OCI_SCMP_CMP_MASKED_EQ,
};

struct oci_seccomp_arg {
	uint32_t index;
	uint64_t value;
	uint64_t value_two;
	enum oci_seccomp_op op;
};

struct oci_seccomp_syscall {
	struct strv names;
	enum oci_seccomp_action action;
	opt_u64 errno_ret;
	struct oci_seccomp_arg *args;
	size_t n_args;
};

struct oci_seccomp {
	enum oci_seccomp_action default_action;
	opt_u64 default_errno_ret;
	struct strv architectures; /* "SCMP_ARCH_X86_64", ... */
	struct strv flags;         /* "SECCOMP_FILTER_FLAG_TSYNC", ... */
	char *listener_path;
	char *listener_metadata;
	struct oci_seccomp_syscall *syscalls;
	size_t n_syscalls;
};

enum oci_propagation {
	OCI_PROP_UNSET,
	OCI_PROP_SHARED,
	OCI_PROP_SLAVE,
	OCI_PROP_PRIVATE,
	OCI_PROP_UNBINDABLE,
};

struct oci_time_offset {
	bool set;
	int64_t secs;
	uint32_t nanosecs;
};

struct oci_personality {
	bool present;
	char *domain; /* "LINUX" or "LINUX32" */
	struct strv flags;
};

struct oci_memory_policy {
	bool present;
	char *mode;
	char *nodes;
	struct strv flags;
};

struct oci_intel_rdt {
	bool present;
	char *clos_id;
	char *l3_cache_schema;
	char *mem_bw_schema;
	struct strv schemata;
	opt_bool enable_monitoring;
};

struct oci_linux {
	struct oci_namespace *namespaces;
	size_t n_namespaces;
	struct oci_idmap *uid_mappings;
	size_t n_uid_mappings;
	struct oci_idmap *gid_mappings;
	size_t n_gid_mappings;
	struct oci_time_offset time_monotonic, time_boottime;
	struct oci_device *devices;
	size_t n_devices;
	struct kvlist net_devices; /* host name -> container name ("" = same) */
	char *cgroups_path;
	struct oci_resources resources;
	struct oci_intel_rdt intel_rdt;
	struct oci_memory_policy memory_policy;
	struct kvlist sysctl;
	struct oci_seccomp *seccomp; /* NULL = none */
	enum oci_propagation rootfs_propagation;
	struct strv masked_paths;
	struct strv readonly_paths;
	char *mount_label;
	struct oci_personality personality;
};

struct oci_config {
	struct arena *arena;
	char *oci_version;
	char *root_path; /* as written (may be relative to the bundle) */
	bool root_readonly;
	struct oci_mount *mounts;
	size_t n_mounts;
	struct oci_process *process; /* NULL when absent */
	char *hostname;
	char *domainname;
	struct oci_hook_list hooks[OCI_HOOK_KIND_COUNT];
	struct kvlist annotations;
	bool has_linux;
	struct oci_linux linux_;
};

/* Parse config.json text. `origin` names the file in errors ("config.json").
 * Errors read "config.json: .process.user.uid: expected a non-negative integer". */
int oci_config_parse(const char *text, size_t len, const char *origin, struct oci_config **out,
		     struct clasp_error *err);
/* Load BUNDLE/config.json. */
int oci_config_load(const char *bundle, struct oci_config **out, struct clasp_error *err);
void oci_config_free(struct oci_config *cfg);
/* Parse a lone process object (`exec --process FILE`, as containerd sends it)
 * with the rules of .process; errors read "process.json: .cwd: ...". The
 * result is allocated from `arena` (e.g. the container config's). */
int oci_process_parse(const char *text, size_t len, const char *origin, struct arena *arena,
		      struct oci_process **out, struct clasp_error *err);

/* Lookups used across layers. */
const struct oci_namespace *oci_config_namespace(const struct oci_config *cfg, enum oci_ns_type t);
const char *oci_config_annotation(const struct oci_config *cfg, const char *key);
const char *oci_ns_type_name(enum oci_ns_type t);
const char *oci_hook_kind_name(enum oci_hook_kind k);
