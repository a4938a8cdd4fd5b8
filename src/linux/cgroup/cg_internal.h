/* Internals shared by the cgroup manager's files; not for other modules. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/cgroup/cgroup.h"

/* One hierarchy the container lives in: a v1 hierarchy (controllers is its
 * comma list, "cpu,cpuacct") or the cgroup2 one (controllers ""). */
struct cg_hier {
	char *controllers;
	char *mount;   /* mount point */
	char *path;    /* the container's absolute directory */
	bool v2;
};

struct cgroup_mgr {
	enum cgroup_layout layout;
	struct cg_hier *h;
	size_t nh;
	char **created; /* directories we made, in creation order */
	size_t ncreated;
	int v2_fd;
	bool rootless;
};

/* Where a resource's files live: a v1 directory, or the v2 one. */
struct cg_target {
	const char *dir;
	bool v2;
};

/* Find the directory for a controller: the v1 hierarchy holding v1name, or
 * the v2 directory when v2name is enabled there ("" = core files, always).
 * Returns false when neither exists. */
bool cg_find(struct cgroup_mgr *m, const char *v1name, const char *v2name, struct cg_target *t);
struct cg_hier *cg_v2(struct cgroup_mgr *m);
bool cg_v2_has_controller(const char *dir, const char *ctrl);

/* File helpers. cg_write names `key` in its error ("linux.resources.x"). */
int cg_write(const char *dir, const char *file, const char *val, const char *key,
	     struct clasp_error *err);
int cg_write_raw(const char *path, const char *val);
bool cg_file_exists(const char *dir, const char *file);
/* Whole file, malloc'd and NUL-terminated; NULL with errno on failure. */
char *cg_read(const char *dir, const char *file);
int cg_read_u64(const char *dir, const char *file, uint64_t *v);
/* "key value" lines (memory.stat, cpu.stat, memory.events). */
bool cg_kv_get(const char *text, const char *key, uint64_t *v);

int cg_list_pids(const char *dir, bool recursive, pid_t **pids, size_t *n, struct clasp_error *err);

int cg_apply_resources(struct cgroup_mgr *m, const struct oci_resources *res, bool update,
		       struct clasp_error *err);
int cg_devices_v2(struct cgroup_mgr *m, const char *dir, const struct oci_device_rule *rules,
		  size_t n, struct clasp_error *err);
