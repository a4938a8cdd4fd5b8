/* OCI mount option strings (config.md "Linux mount options") -> what the
 * kernel takes: MOUNT_ATTR_* for the new mount API (mount_setattr, fsmount),
 * MS_* for mount(2), superblock flags for fsconfig, propagation changes, and
 * the filesystem-specific rest joined into a data string. Pure; unit-tested. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "oci/config.h"
#include "util/error.h"

#define MOUNT_OPTS_MAX_PROP 8

/* Superblock flags (fsconfig FSCONFIG_SET_FLAG names). */
enum {
	MOUNT_SB_SYNC = 1 << 0,
	MOUNT_SB_DIRSYNC = 1 << 1,
	MOUNT_SB_MAND = 1 << 2,
	MOUNT_SB_LAZYTIME = 1 << 3,
};

struct mount_opts {
	unsigned long ms_flags;          /* MS_RDONLY, MS_NOSUID, ... as mount(2) would get them */
	uint64_t attr_set, attr_clr;     /* MOUNT_ATTR_* on this mount only */
	uint64_t rattr_set, rattr_clr;   /* MOUNT_ATTR_* on this mount and every submount */
	unsigned long prop[MOUNT_OPTS_MAX_PROP]; /* MS_SHARED/SLAVE/PRIVATE/UNBINDABLE, | MS_REC */
	unsigned n_prop;
	unsigned sb_flags;               /* MOUNT_SB_* */
	bool bind, rbind, remount;
	bool idmap, ridmap;
	bool tmpcopyup;
	char *data;                      /* malloc'd "a=b,c" or NULL */
};

int mount_opts_parse(const struct strv *options, struct mount_opts *out, struct clasp_error *err);
void mount_opts_release(struct mount_opts *o);

/* Is this option string one of the recognised (non-data) options? */
bool mount_opts_known(const char *opt);

/* The MOUNT_ATTR_* set for a freshly created mount (fsmount): the set
 * attributes, recursive or not, since a new mount has no submounts. */
uint64_t mount_opts_fresh_attrs(const struct mount_opts *o);
