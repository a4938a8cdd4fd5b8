/* linux/mount_opts: OCI option strings -> MS_*, MOUNT_ATTR_*, propagation, data. */
#include <stdlib.h>
#include <sys/mount.h>

#include "linux/mount_opts.h"
#include "unit.h"

static struct mount_opts parse(const char *csv)
{
	static char *v[32];
	struct strv s = { v, 0 };
	char *copy = strdup(csv), *save = NULL;
	struct mount_opts o;
	struct clasp_error err = { 0 };

	for (char *t = strtok_r(copy, ",", &save); t && s.n < 31; t = strtok_r(NULL, ",", &save))
		v[s.n++] = strdup(t);
	v[s.n] = NULL;
	if (mount_opts_parse(&s, &o, &err) < 0)
		fprintf(stderr, "parse %s: %s\n", csv, err.msg);
	for (size_t i = 0; i < s.n; i++)
		free(v[i]);
	free(copy);
	return o;
}

TEST(test_flags)
{
	struct mount_opts o = parse("nosuid,noexec,nodev,ro");

	CHECK(o.ms_flags == (MS_NOSUID | MS_NOEXEC | MS_NODEV | MS_RDONLY));
	CHECK(o.attr_set == (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NODEV | MOUNT_ATTR_RDONLY));
	CHECK(o.attr_clr == 0 && !o.bind && !o.data);
	mount_opts_release(&o);

	o = parse("ro,rw,suid,exec,dev");
	CHECK(o.ms_flags == 0);
	CHECK(o.attr_set == 0);
	CHECK(o.attr_clr == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NODEV));
	mount_opts_release(&o);
}

TEST(test_atime)
{
	struct mount_opts o = parse("noatime");

	CHECK((o.attr_set & MOUNT_ATTR__ATIME) == MOUNT_ATTR_NOATIME && (o.attr_clr & MOUNT_ATTR__ATIME));
	CHECK(o.ms_flags == MS_NOATIME);
	mount_opts_release(&o);
	o = parse("noatime,strictatime");
	CHECK((o.attr_set & MOUNT_ATTR__ATIME) == MOUNT_ATTR_STRICTATIME && o.ms_flags == MS_STRICTATIME);
	mount_opts_release(&o);
	o = parse("strictatime,nostrictatime");
	CHECK((o.attr_set & MOUNT_ATTR__ATIME) == MOUNT_ATTR_RELATIME && o.ms_flags == 0);
	mount_opts_release(&o);
	o = parse("nodiratime,relatime");
	CHECK(o.attr_set == MOUNT_ATTR_NODIRATIME && o.ms_flags == (MS_NODIRATIME | MS_RELATIME));
	mount_opts_release(&o);
}

TEST(test_recursive)
{
	struct mount_opts o = parse("rbind,rro,rnosuid,rnoatime,rexec");

	CHECK(o.bind && o.rbind);
	CHECK(o.rattr_set == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOATIME));
	CHECK(o.rattr_clr == (MOUNT_ATTR__ATIME | MOUNT_ATTR_NOEXEC));
	CHECK(o.attr_set == 0 && o.ms_flags == 0);
	CHECK(mount_opts_fresh_attrs(&o) == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOATIME));
	mount_opts_release(&o);
	o = parse("noexec,rexec,rrw");
	CHECK(mount_opts_fresh_attrs(&o) == 0);
	mount_opts_release(&o);
}

TEST(test_propagation_and_data)
{
	struct mount_opts o = parse("bind,rprivate,unbindable,mode=755,size=65536k,newinstance,defaults");

	CHECK(o.bind && !o.rbind);
	CHECK(o.n_prop == 2 && o.prop[0] == (MS_PRIVATE | MS_REC) && o.prop[1] == MS_UNBINDABLE);
	CHECK_STREQ(o.data, "mode=755,size=65536k,newinstance");
	mount_opts_release(&o);
	o = parse("sync,dirsync,lazytime,mand,nomand,silent,iversion,remount,tmpcopyup,idmap");
	CHECK(o.sb_flags == (MOUNT_SB_SYNC | MOUNT_SB_DIRSYNC | MOUNT_SB_LAZYTIME));
	CHECK(o.remount && o.tmpcopyup && o.idmap && !o.ridmap);
	CHECK(o.data == NULL);
	mount_opts_release(&o);
	CHECK(mount_opts_known("rshared") && mount_opts_known("nosymfollow") && !mount_opts_known("size=1"));
}

int main(void)
{
	RUN(test_flags);
	RUN(test_atime);
	RUN(test_recursive);
	RUN(test_propagation_and_data);
	return unit_summary("mount_opts");
}
