/* Mounted cgroup hierarchies and this process's place in them. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#include "linux/cgroup/cgroup.h"

struct cg_mount {
	char *controllers; /* v1: "cpu,cpuacct"; v2: "" */
	char *mount;       /* mount point */
	char *root;        /* mountinfo root: the subtree this mount shows */
	char *own;         /* this process's cgroup in it, or NULL */
	bool v2;
};

struct cg_mounts {
	struct cg_mount *v;
	size_t n;
};

int cg_mounts_read(struct cg_mounts *ms, struct clasp_error *err);
void cg_mounts_free(struct cg_mounts *ms);
enum cgroup_layout cg_mounts_layout(const struct cg_mounts *ms);
bool cg_list_has(const char *list, const char *item);
/* The container's directory in mount m for a cleaned cgroupsPath. */
char *cg_resolve_dir(const struct cg_mount *m, const char *clean_path, bool pure_v2);
