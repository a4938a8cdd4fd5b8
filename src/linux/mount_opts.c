/* Mount option strings -> kernel flags. See mount_opts.h.
 *
 * Each option names one effect. Options that toggle a per-mount flag are kept
 * both as MS_* (for mount(2)) and as a MOUNT_ATTR_* set/clear pair, so a bind
 * mount changes only what was asked and keeps the flags the kernel locked on
 * the source (a user namespace cannot clear nosuid/nodev/ro of a host mount,
 * and must not be made to try). */
#include "linux/mount_opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

enum opt_kind {
	K_FLAG,   /* per-mount flag: ms + attr, set or clear */
	K_ATIME,  /* atime mode: attr value inside MOUNT_ATTR__ATIME */
	K_RFLAG,  /* recursive per-mount flag */
	K_RATIME, /* recursive atime mode */
	K_PROP,   /* propagation */
	K_SB,     /* superblock flag: set or clear */
	K_BIND,
	K_RBIND,
	K_REMOUNT,
	K_IDMAP,
	K_RIDMAP,
	K_TMPCOPYUP,
	K_NOOP,   /* accepted, nothing to do (see docs/rootfs.md) */
};

struct opt_def {
	const char *name;
	enum opt_kind kind;
	bool clear;
	unsigned long ms;
	uint64_t attr;
	unsigned sb;
};

static const struct opt_def opt_table[] = {
	{ "defaults", K_NOOP, false, 0, 0, 0 },
	{ "ro", K_FLAG, false, MS_RDONLY, MOUNT_ATTR_RDONLY, 0 },
	{ "rw", K_FLAG, true, MS_RDONLY, MOUNT_ATTR_RDONLY, 0 },
	{ "nosuid", K_FLAG, false, MS_NOSUID, MOUNT_ATTR_NOSUID, 0 },
	{ "suid", K_FLAG, true, MS_NOSUID, MOUNT_ATTR_NOSUID, 0 },
	{ "nodev", K_FLAG, false, MS_NODEV, MOUNT_ATTR_NODEV, 0 },
	{ "dev", K_FLAG, true, MS_NODEV, MOUNT_ATTR_NODEV, 0 },
	{ "noexec", K_FLAG, false, MS_NOEXEC, MOUNT_ATTR_NOEXEC, 0 },
	{ "exec", K_FLAG, true, MS_NOEXEC, MOUNT_ATTR_NOEXEC, 0 },
	{ "nodiratime", K_FLAG, false, MS_NODIRATIME, MOUNT_ATTR_NODIRATIME, 0 },
	{ "diratime", K_FLAG, true, MS_NODIRATIME, MOUNT_ATTR_NODIRATIME, 0 },
	{ "nosymfollow", K_FLAG, false, MS_NOSYMFOLLOW, MOUNT_ATTR_NOSYMFOLLOW, 0 },
	{ "symfollow", K_FLAG, true, MS_NOSYMFOLLOW, MOUNT_ATTR_NOSYMFOLLOW, 0 },
	/* mount(2) falls back to relatime whenever neither noatime nor
	 * strictatime is given, so the "undo" options all mean relatime. */
	{ "noatime", K_ATIME, false, MS_NOATIME, MOUNT_ATTR_NOATIME, 0 },
	{ "atime", K_ATIME, true, MS_NOATIME, MOUNT_ATTR_RELATIME, 0 },
	{ "relatime", K_ATIME, false, MS_RELATIME, MOUNT_ATTR_RELATIME, 0 },
	{ "norelatime", K_ATIME, true, MS_RELATIME, MOUNT_ATTR_RELATIME, 0 },
	{ "strictatime", K_ATIME, false, MS_STRICTATIME, MOUNT_ATTR_STRICTATIME, 0 },
	{ "nostrictatime", K_ATIME, true, MS_STRICTATIME, MOUNT_ATTR_RELATIME, 0 },
	{ "rro", K_RFLAG, false, 0, MOUNT_ATTR_RDONLY, 0 },
	{ "rrw", K_RFLAG, true, 0, MOUNT_ATTR_RDONLY, 0 },
	{ "rnosuid", K_RFLAG, false, 0, MOUNT_ATTR_NOSUID, 0 },
	{ "rsuid", K_RFLAG, true, 0, MOUNT_ATTR_NOSUID, 0 },
	{ "rnodev", K_RFLAG, false, 0, MOUNT_ATTR_NODEV, 0 },
	{ "rdev", K_RFLAG, true, 0, MOUNT_ATTR_NODEV, 0 },
	{ "rnoexec", K_RFLAG, false, 0, MOUNT_ATTR_NOEXEC, 0 },
	{ "rexec", K_RFLAG, true, 0, MOUNT_ATTR_NOEXEC, 0 },
	{ "rnodiratime", K_RFLAG, false, 0, MOUNT_ATTR_NODIRATIME, 0 },
	{ "rdiratime", K_RFLAG, true, 0, MOUNT_ATTR_NODIRATIME, 0 },
	{ "rnosymfollow", K_RFLAG, false, 0, MOUNT_ATTR_NOSYMFOLLOW, 0 },
	{ "rsymfollow", K_RFLAG, true, 0, MOUNT_ATTR_NOSYMFOLLOW, 0 },
	{ "rnoatime", K_RATIME, false, 0, MOUNT_ATTR_NOATIME, 0 },
	{ "ratime", K_RATIME, true, 0, MOUNT_ATTR_RELATIME, 0 },
	{ "rrelatime", K_RATIME, false, 0, MOUNT_ATTR_RELATIME, 0 },
	{ "rnorelatime", K_RATIME, true, 0, MOUNT_ATTR_RELATIME, 0 },
	{ "rstrictatime", K_RATIME, false, 0, MOUNT_ATTR_STRICTATIME, 0 },
	{ "rnostrictatime", K_RATIME, true, 0, MOUNT_ATTR_RELATIME, 0 },
	{ "shared", K_PROP, false, MS_SHARED, 0, 0 },
	{ "rshared", K_PROP, false, MS_SHARED | MS_REC, 0, 0 },
	{ "slave", K_PROP, false, MS_SLAVE, 0, 0 },
	{ "rslave", K_PROP, false, MS_SLAVE | MS_REC, 0, 0 },
	{ "private", K_PROP, false, MS_PRIVATE, 0, 0 },
	{ "rprivate", K_PROP, false, MS_PRIVATE | MS_REC, 0, 0 },
	{ "unbindable", K_PROP, false, MS_UNBINDABLE, 0, 0 },
	{ "runbindable", K_PROP, false, MS_UNBINDABLE | MS_REC, 0, 0 },
	{ "sync", K_SB, false, MS_SYNCHRONOUS, 0, MOUNT_SB_SYNC },
	{ "async", K_SB, true, MS_SYNCHRONOUS, 0, MOUNT_SB_SYNC },
	{ "dirsync", K_SB, false, MS_DIRSYNC, 0, MOUNT_SB_DIRSYNC },
	{ "mand", K_SB, false, MS_MANDLOCK, 0, MOUNT_SB_MAND },
	{ "nomand", K_SB, true, MS_MANDLOCK, 0, MOUNT_SB_MAND },
	{ "lazytime", K_SB, false, MS_LAZYTIME, 0, MOUNT_SB_LAZYTIME },
	{ "nolazytime", K_SB, true, MS_LAZYTIME, 0, MOUNT_SB_LAZYTIME },
	/* i_version is chosen by the filesystem itself since Linux 6.x and
	 * MS_SILENT only quiets the kernel log: nothing for a runtime to do. */
	{ "iversion", K_NOOP, false, 0, 0, 0 },
	{ "noiversion", K_NOOP, false, 0, 0, 0 },
	{ "silent", K_NOOP, false, 0, 0, 0 },
	{ "loud", K_NOOP, false, 0, 0, 0 },
	{ "bind", K_BIND, false, MS_BIND, 0, 0 },
	{ "rbind", K_RBIND, false, MS_BIND | MS_REC, 0, 0 },
	{ "remount", K_REMOUNT, false, MS_REMOUNT, 0, 0 },
	{ "idmap", K_IDMAP, false, 0, 0, 0 },
	{ "ridmap", K_RIDMAP, false, 0, 0, 0 },
	{ "tmpcopyup", K_TMPCOPYUP, false, 0, 0, 0 },
};

static const struct opt_def *opt_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof opt_table / sizeof opt_table[0]; i++)
		if (strcmp(opt_table[i].name, name) == 0)
			return &opt_table[i];
	return NULL;
}

bool mount_opts_known(const char *opt) { return opt_lookup(opt) != NULL; }

static void set_or_clear(uint64_t *set, uint64_t *clr, uint64_t bit, bool clear)
{
	if (clear) {
		*set &= ~bit;
		*clr |= bit;
	} else {
		*clr &= ~bit;
		*set |= bit;
	}
}

static void set_atime(uint64_t *set, uint64_t *clr, uint64_t mode)
{
	*set = (*set & ~(uint64_t)MOUNT_ATTR__ATIME) | mode;
	*clr |= MOUNT_ATTR__ATIME;
}

static void append_data(char **data, const char *opt)
{
	size_t old = *data ? strlen(*data) : 0;
	size_t add = strlen(opt);
	char *n = realloc(*data, old + add + 2);

	if (!n)
		abort();
	if (old)
		n[old++] = ',';
	memcpy(n + old, opt, add + 1);
	*data = n;
}

int mount_opts_parse(const struct strv *options, struct mount_opts *o, struct clasp_error *err)
{
	memset(o, 0, sizeof *o);
	for (size_t i = 0; options && i < options->n; i++) {
		const char *name = options->v[i];
		const struct opt_def *d = opt_lookup(name);

		if (!d) {
			if (!*name)
				continue;
			append_data(&o->data, name);
			continue;
		}
		switch (d->kind) {
		case K_FLAG:
			if (d->clear)
				o->ms_flags &= ~d->ms;
			else
				o->ms_flags |= d->ms;
			set_or_clear(&o->attr_set, &o->attr_clr, d->attr, d->clear);
			break;
		case K_ATIME:
			o->ms_flags &= ~(unsigned long)(MS_NOATIME | MS_RELATIME | MS_STRICTATIME);
			if (!d->clear)
				o->ms_flags |= d->ms;
			set_atime(&o->attr_set, &o->attr_clr, d->attr);
			break;
		case K_RFLAG:
			set_or_clear(&o->rattr_set, &o->rattr_clr, d->attr, d->clear);
			break;
		case K_RATIME:
			set_atime(&o->rattr_set, &o->rattr_clr, d->attr);
			break;
		case K_PROP:
			if (o->n_prop == MOUNT_OPTS_MAX_PROP)
				return clasp_error_set(err, EINVAL, "too many propagation options");
			o->prop[o->n_prop++] = d->ms;
			break;
		case K_SB:
			if (d->clear) {
				o->ms_flags &= ~d->ms;
				o->sb_flags &= ~d->sb;
			} else {
				o->ms_flags |= d->ms;
				o->sb_flags |= d->sb;
			}
			break;
		case K_BIND:
			o->bind = true;
			break;
		case K_RBIND:
			o->bind = o->rbind = true;
			break;
		case K_REMOUNT:
			o->remount = true;
			break;
		case K_IDMAP:
			o->idmap = true;
			break;
		case K_RIDMAP:
			o->ridmap = true;
			break;
		case K_TMPCOPYUP:
			o->tmpcopyup = true;
			break;
		case K_NOOP:
			break;
		}
	}
	return 0;
}

void mount_opts_release(struct mount_opts *o)
{
	free(o->data);
	o->data = NULL;
}

uint64_t mount_opts_fresh_attrs(const struct mount_opts *o)
{
	uint64_t a = o->attr_set;
	uint64_t r = o->rattr_set;

	/* A recursive atime mode overrides the plain one: it was asked for
	 * the whole tree, which here is this one mount. */
	if (o->rattr_clr & MOUNT_ATTR__ATIME)
		a &= ~(uint64_t)MOUNT_ATTR__ATIME;
	a |= r;
	a &= ~(o->rattr_clr & ~(uint64_t)MOUNT_ATTR__ATIME & ~r);
	return a;
}
