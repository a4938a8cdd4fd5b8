/* Live test of linux/rootfs.c: each scenario runs in a child with its own
 * mount and pid namespaces (and a user namespace for one), builds a busybox
 * rootfs under /tmp, calls rootfs_setup/_setup_console/_pivot/_finalize with
 * a hand-built config, and checks the result from inside. The host side then
 * checks that nothing escaped. Needs root; otherwise it skips with 0 failed. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/rootfs.h"
#include "unit.h"
#include "util/safepath.h"

#define TMPFS_MAGIC 0x01021994

static char tmp[64];
static char escape_name[64];

/* ---- building configs ---- */

static struct oci_config *cfg_new(void)
{
	struct arena *a = arena_new();
	struct oci_config *c = arena_alloc(a, sizeof *c);

	c->arena = a;
	c->has_linux = true;
	return c;
}

static void strv_add(struct arena *a, struct strv *s, const char *v)
{
	char **n = arena_alloc(a, (s->n + 2) * sizeof *n);

	if (s->n)
		memcpy(n, s->v, s->n * sizeof *n);
	n[s->n++] = arena_strdup(a, v);
	n[s->n] = NULL;
	s->v = n;
}

static void add_mount(struct oci_config *c, const char *dest, const char *type, const char *src, const char *opts)
{
	struct oci_mount *m;
	char *copy = strdup(opts), *save = NULL;

	c->mounts = arena_append(c->arena, c->mounts, c->n_mounts, sizeof *c->mounts);
	m = &c->mounts[c->n_mounts++];
	memset(m, 0, sizeof *m);
	m->destination = arena_strdup(c->arena, dest);
	m->type = arena_strdup(c->arena, type);
	m->source = arena_strdup(c->arena, src);
	for (char *o = strtok_r(copy, ",", &save); o; o = strtok_r(NULL, ",", &save))
		strv_add(c->arena, &m->options, o);
	free(copy);
}

static void add_std_mounts(struct oci_config *c)
{
	add_mount(c, "/proc", "proc", "proc", "nosuid,noexec,nodev");
	add_mount(c, "/dev", "tmpfs", "tmpfs", "nosuid,strictatime,mode=755,size=65536k");
	add_mount(c, "/dev/pts", "devpts", "devpts", "nosuid,noexec,newinstance,ptmxmode=0666,mode=0620,gid=5");
	add_mount(c, "/dev/shm", "tmpfs", "shm", "nosuid,noexec,nodev,mode=1777,size=65536k");
	add_mount(c, "/dev/mqueue", "mqueue", "mqueue", "nosuid,noexec,nodev");
	add_mount(c, "/sys", "sysfs", "sysfs", "nosuid,noexec,nodev,ro");
}

/* ---- host-side helpers ---- */

static void xwrite(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

static void xmkdir(const char *fmt, ...)
{
	char p[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p, sizeof p, fmt, ap);
	va_end(ap);
	if (mkdir(p, 0755) < 0 && errno != EEXIST) {
		perror(p);
		exit(2);
	}
}

static void make_rootfs(const char *name)
{
	char cmd[1024];

	xmkdir("%s/%s", tmp, name);
	snprintf(cmd, sizeof cmd,
		 "cd %s/%s && mkdir -p bin proc sys dev tmp etc mnt && cp /bin/busybox bin/busybox && "
		 "ln -s busybox bin/sh && echo root > rootfs-marker",
		 tmp, name);
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot build rootfs %s\n", name);
		exit(2);
	}
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p) < 0 ? 0 : 0;
}

static char *slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return NULL;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

/* The mountinfo line whose mount point is exactly MP (the last one). */
static bool mountinfo_line(const char *mp, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[1024];
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof line, f)) {
		char m[512];

		if (sscanf(line, "%*s %*s %*s %*s %511s", m) == 1 && strcmp(m, mp) == 0) {
			snprintf(out, len, "%s", line);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static bool is_ro(const char *path)
{
	struct statvfs s;

	return statvfs(path, &s) == 0 && (s.f_flag & ST_RDONLY);
}

static bool creat_fails(const char *path, int want_errno)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd >= 0) {
		close(fd);
		unlink(path);
		return false;
	}
	return errno == want_errno;
}

/* ---- running a scenario in fresh namespaces ---- */

struct scenario {
	const char *name;
	int flags;      /* extra CLONE_NEW* */
	bool userns;
	void (*fn)(void);
	bool walk; /* resolve with the O_PATH walk, as without openat2 */
};

static void report(int fd)
{
	char b[64];
	int n = snprintf(b, sizeof b, "%d %d\n", unit_passed, unit_failed);

	if (write(fd, b, (size_t)n) < 0)
		_exit(3);
}

static void map_ids(pid_t pid)
{
	char p[64];

	snprintf(p, sizeof p, "/proc/%d/uid_map", pid);
	xwrite(p, "0 100000 65536\n");
	snprintf(p, sizeof p, "/proc/%d/gid_map", pid);
	xwrite(p, "0 100000 65536\n");
}

static void run(const struct scenario *s)
{
	int res[2], go[2], ready[2];
	pid_t pid;
	int status;
	char buf[64] = "";
	int passed = 0, failed = 0;

	if (pipe(res) < 0 || pipe(go) < 0 || pipe(ready) < 0)
		exit(2);
	pid = fork();
	if (pid == 0) {
		char c;
		pid_t inner;

		alarm(40);
		close(res[0]);
		if (unshare(CLONE_NEWNS | CLONE_NEWPID | s->flags | (s->userns ? CLONE_NEWUSER : 0)) < 0) {
			perror("unshare");
			_exit(2);
		}
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(2);
		if (s->userns && (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0))
			_exit(2);
		inner = fork();
		if (inner == 0) {
			alarm(30);
			unit_passed = unit_failed = 0;
			unit_current = s->name;
			safepath_force_walk(s->walk);
			s->fn();
			report(res[1]);
			_exit(0);
		}
		if (inner < 0 || waitpid(inner, &status, 0) < 0)
			_exit(2);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 4);
	}
	close(res[1]);
	close(go[0]);
	close(ready[1]);
	if (read(ready[0], buf, 1) == 1 && s->userns)
		map_ids(pid);
	if (write(go[1], "g", 1) != 1)
		exit(2);
	ssize_t n = read(res[0], buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = '\0';
	waitpid(pid, &status, 0);
	if (sscanf(buf, "%d %d", &passed, &failed) != 2 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "FAIL %s: scenario died (status 0x%x)\n", s->name, status);
		failed++;
	}
	unit_passed += passed;
	unit_failed += failed;
	close(res[0]);
	close(go[1]);
	close(ready[0]);
}

#define CHECK_OK(call)                                                                       \
	do {                                                                                 \
		struct clasp_error e_ = { 0 };                                               \
		int r_ = (call);                                                             \
		if (r_ < 0)                                                                  \
			fprintf(stderr, "  %s: %s\n", #call, e_.msg);                        \
		CHECK(r_ == 0);                                                              \
		if (r_ < 0)                                                                  \
			return;                                                              \
	} while (0)

/* ---- scenario 1: a full runc-like config, cgroup namespace, console ---- */

static void scen_standard(void)
{
	struct oci_config *c = cfg_new();
	char root[256], bundle[256], src[512], buf[4096], line[1024];
	struct rootfs_opts o = { .rootfs = root, .bundle = bundle, .new_cgroupns = true };
	struct stat st;
	struct statfs sf;
	int ptmx, slave;

	snprintf(root, sizeof root, "%s/std", tmp);
	snprintf(bundle, sizeof bundle, "%s", tmp);
	/* A submount inside the bind source, for rbind/rro. Private to this
	 * mount namespace. */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		perror("rslave");
	snprintf(src, sizeof src, "%s/hostdata/sub", tmp);
	CHECK(mount("tmpfs", src, "tmpfs", 0, "size=1m") == 0);

	add_std_mounts(c);
	add_mount(c, "/sys/fs/cgroup", "cgroup", "cgroup", "nosuid,noexec,nodev,relatime,ro");
	snprintf(src, sizeof src, "%s/hostdata", tmp);
	add_mount(c, "/data", "bind", src, "bind,ro");
	add_mount(c, "/rdata", "bind", "hostdata", "rbind,rw,nosuid");
	add_mount(c, "/rro", "bind", "hostdata", "rbind,rro");
	snprintf(src, sizeof src, "%s/hostfile", tmp);
	add_mount(c, "/etc/hostsfile", "bind", src, "bind,ro");
	add_mount(c, "/tmp", "tmpfs", "tmpfs", "mode=1777,size=1m,noatime,nosymfollow");
	add_mount(c, "/idm", "bind", "hostdata", "bind,idmap");
	{
		struct oci_mount *m = &c->mounts[c->n_mounts - 1];
		m->uid_mappings = arena_alloc(c->arena, sizeof *m->uid_mappings);
		m->gid_mappings = arena_alloc(c->arena, sizeof *m->gid_mappings);
		*m->uid_mappings = (struct oci_idmap){ 0, 1000, 1 };
		*m->gid_mappings = (struct oci_idmap){ 0, 2000, 1 };
		m->n_uid_mappings = m->n_gid_mappings = 1;
	}
	add_mount(c, "/copyme", "tmpfs", "tmpfs", "tmpcopyup,mode=755");
	add_mount(c, "/rdata2", "bind", "hostdata", "rbind");
	add_mount(c, "/rdata2", "", NULL, "remount,bind,ro");
	add_mount(c, "/shared", "bind", "hostdata", "rbind,rshared");
	snprintf(src, sizeof src, "/mnt/evil/%s", escape_name);
	add_mount(c, src, "tmpfs", "tmpfs", "size=1m");
	snprintf(src, sizeof src, "/mnt/evil2/%s-2", escape_name);
	add_mount(c, src, "tmpfs", "tmpfs", "size=1m");
	c->linux_.devices = arena_alloc(c->arena, sizeof *c->linux_.devices);
	c->linux_.n_devices = 1;
	c->linux_.devices[0] = (struct oci_device){ .type = 'c', .path = "/dev/fuse", .major = 10, .minor = 229,
						    .file_mode = { true, 0600 }, .uid = { true, 1000 },
						    .gid = { true, 1001 } };
	strv_add(c->arena, &c->linux_.masked_paths, "/proc/timer_list");
	strv_add(c->arena, &c->linux_.masked_paths, "/sys/firmware");
	strv_add(c->arena, &c->linux_.masked_paths, "/proc/does-not-exist");
	strv_add(c->arena, &c->linux_.readonly_paths, "/proc/sys");
	c->root_readonly = true;

	CHECK_OK(rootfs_setup(c, &o, &e_));
	ptmx = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	CHECK(ptmx >= 0 && unlockpt(ptmx) == 0);
	slave = open(ptsname(ptmx), O_RDWR | O_NOCTTY | O_CLOEXEC);
	CHECK(slave >= 0);
	CHECK_OK(rootfs_setup_console(&o, slave, &e_));
	{
		struct clasp_error e = { 0 };
		CHECK(rootfs_setup_console(&o, ptmx, &e) < 0); /* the master is no slave */
		CHECK_CONTAINS(e.msg, "not a pty slave");
	}
	CHECK_OK(rootfs_pivot(&o, &e_));
	CHECK_OK(rootfs_finalize(c, &o, &e_));

	CHECK(stat("/rootfs-marker", &st) == 0);
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3) &&
	      (st.st_mode & 07777) == 0666);
	CHECK(stat("/dev/urandom", &st) == 0 && st.st_rdev == makedev(1, 9));
	CHECK(stat("/dev/tty", &st) == 0 && st.st_rdev == makedev(5, 0));
	CHECK(stat("/dev/fuse", &st) == 0 && st.st_rdev == makedev(10, 229) && (st.st_mode & 07777) == 0600 &&
	      st.st_uid == 1000 && st.st_gid == 1001);
	CHECK(readlink("/dev/ptmx", buf, sizeof buf) == 8 && memcmp(buf, "pts/ptmx", 8) == 0);
	CHECK(readlink("/dev/fd", buf, sizeof buf) == 13 && memcmp(buf, "/proc/self/fd", 13) == 0);
	CHECK(readlink("/dev/stderr", buf, sizeof buf) == 15);
	{
		int m = open("/dev/ptmx", O_RDWR | O_NOCTTY);
		CHECK(m >= 0 && ptsname(m) && strcmp(ptsname(m), "/dev/pts/0") == 0);
		if (m >= 0)
			close(m);
	}
	CHECK(stat("/dev/console", &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 136);
	CHECK(mountinfo_line("/proc", line, sizeof line) && strstr(line, " - proc "));
	CHECK(mountinfo_line("/dev", line, sizeof line) && strstr(line, " - tmpfs ") && strstr(line, "nosuid"));
	CHECK(mountinfo_line("/dev/pts", line, sizeof line) && strstr(line, " - devpts ") &&
	      strstr(line, "ptmxmode=666"));
	CHECK(mountinfo_line("/dev/shm", line, sizeof line) && strstr(line, "nodev"));
	CHECK(mountinfo_line("/dev/mqueue", line, sizeof line) && strstr(line, " - mqueue "));
	CHECK(mountinfo_line("/sys", line, sizeof line) && strstr(line, " - sysfs ") && strncmp(strstr(line, " /sys ") + 6, "ro", 2) == 0);
	CHECK(mountinfo_line("/sys/fs/cgroup", line, sizeof line) && strstr(line, " - tmpfs ") && is_ro("/sys/fs/cgroup"));
	CHECK(mountinfo_line("/sys/fs/cgroup/memory", line, sizeof line) && strstr(line, " - cgroup ") &&
	      strstr(line, "memory"));
	CHECK(stat("/sys/fs/cgroup/memory/memory.limit_in_bytes", &st) == 0);
	CHECK(mountinfo_line("/sys/fs/cgroup/systemd", line, sizeof line) && strstr(line, "name=systemd"));
	CHECK(mountinfo_line("/sys/fs/cgroup/unified", line, sizeof line) && strstr(line, " - cgroup2 "));
	CHECK(slurp("/data/marker", buf, sizeof buf) && strcmp(buf, "host data\n") == 0);
	CHECK(creat_fails("/data/new", EROFS));
	CHECK(stat("/data/sub/inner", &st) < 0); /* plain bind: no submounts */
	CHECK(!creat_fails("/rdata/w", EROFS));
	CHECK(stat("/rdata/sub", &st) == 0 && mountinfo_line("/rdata/sub", line, sizeof line));
	CHECK(mountinfo_line("/rdata", line, sizeof line) && strstr(line, "nosuid"));
	CHECK(is_ro("/rro") && is_ro("/rro/sub") && creat_fails("/rro/sub/x", EROFS));
	CHECK(slurp("/etc/hostsfile", buf, sizeof buf) && strcmp(buf, "host file\n") == 0);
	CHECK(stat("/tmp", &st) == 0 && (st.st_mode & 07777) == 01777);
	CHECK(mountinfo_line("/tmp", line, sizeof line) && strstr(line, "noatime") && strstr(line, "nosymfollow"));
	CHECK(creat_fails("/newfile", EROFS));
	CHECK(is_ro("/"));
	CHECK(stat("/idm/marker", &st) == 0 && st.st_uid == 1000 && st.st_gid == 2000);
	CHECK(stat("/data/marker", &st) == 0 && st.st_uid == 0);
	CHECK(statfs("/copyme", &sf) == 0 && sf.f_type == TMPFS_MAGIC);
	CHECK(slurp("/copyme/l", buf, sizeof buf) && strcmp(buf, "hello\n") == 0);
	CHECK(lstat("/copyme/l", &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(stat("/copyme/sub", &st) == 0 && (st.st_mode & 07777) == 0710);
	CHECK(!creat_fails("/copyme/new", EROFS));
	CHECK(is_ro("/rdata2"));
	CHECK(mountinfo_line("/shared", line, sizeof line) && strstr(line, "shared:"));
	CHECK(stat("/proc/timer_list", &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3));
	CHECK(slurp("/proc/timer_list", buf, sizeof buf) && buf[0] == '\0');
	CHECK(statfs("/sys/firmware", &sf) == 0 && sf.f_type == TMPFS_MAGIC && is_ro("/sys/firmware"));
	CHECK(creat_fails("/proc/sys/kernel/hostname", EROFS));
	snprintf(src, sizeof src, "/%s", escape_name);
	CHECK(mountinfo_line(src, line, sizeof line)); /* landed inside the rootfs */
	snprintf(src, sizeof src, "/%s-2", escape_name);
	CHECK(mountinfo_line(src, line, sizeof line));
	{
		pid_t p = fork();
		int status = -1;
		if (p == 0) {
			execl("/bin/busybox", "busybox", "true", (char *)NULL);
			_exit(127);
		}
		waitpid(p, &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
}

/* ---- scenario 2: /dev is a symlink to a host directory ---- */

static void scen_dev_symlink(void)
{
	struct oci_config *c = cfg_new();
	char root[256], path[512];
	struct rootfs_opts o = { .rootfs = root, .bundle = tmp };
	struct stat st;

	snprintf(root, sizeof root, "%s/evil", tmp);
	add_mount(c, "/proc", "proc", "proc", "nosuid");
	strv_add(c->arena, &c->linux_.masked_paths, "/proc/timer_list");
	CHECK_OK(rootfs_setup(c, &o, &e_));
	/* The host directory the link names exists, but got nothing. */
	snprintf(path, sizeof path, "%s/bait/null", tmp);
	CHECK(lstat(path, &st) < 0 && errno == ENOENT);
	snprintf(path, sizeof path, "%s%s/bait/null", root, tmp);
	CHECK(lstat(path, &st) == 0 && S_ISCHR(st.st_mode));
	CHECK_OK(rootfs_pivot(&o, &e_));
	CHECK_OK(rootfs_finalize(c, &o, &e_));
	CHECK(stat("/dev/null", &st) == 0 && st.st_rdev == makedev(1, 3));
	CHECK(stat("/proc/timer_list", &st) == 0 && st.st_rdev == makedev(1, 3));
}

/* ---- scenario 3: /dev/null in the image is a symlink to core_pattern ---- */

static void scen_devnull_symlink(void)
{
	struct oci_config *c = cfg_new();
	char root[256], src[512];
	struct rootfs_opts o = { .rootfs = root, .bundle = tmp };
	struct clasp_error e = { 0 };
	struct stat st;

	snprintf(root, sizeof root, "%s/nullink", tmp);
	snprintf(src, sizeof src, "%s/dev", root);
	add_mount(c, "/proc", "proc", "proc", "nosuid");
	add_mount(c, "/dev", "bind", src, "rbind"); /* no devices made: the image's /dev is used */
	strv_add(c->arena, &c->linux_.masked_paths, "/proc/timer_list");
	CHECK_OK(rootfs_setup(c, &o, &e_));
	CHECK_OK(rootfs_pivot(&o, &e_));
	CHECK(rootfs_finalize(c, &o, &e) < 0);
	CHECK_CONTAINS(e.msg, "is not the null device");
	CHECK(stat("/proc/timer_list", &st) == 0 && !S_ISCHR(st.st_mode));

	/* Without a /dev mount, default devices meet the symlink: refused. */
}

static void scen_devnull_symlink_nodev(void)
{
	struct oci_config *c = cfg_new();
	char root[256];
	struct rootfs_opts o = { .rootfs = root, .bundle = tmp };
	struct clasp_error e = { 0 };

	snprintf(root, sizeof root, "%s/nullink", tmp);
	add_mount(c, "/proc", "proc", "proc", "nosuid");
	CHECK(rootfs_setup(c, &o, &e) < 0);
	CHECK_CONTAINS(e.msg, "/dev/null: a different file already exists");
}

/* ---- scenario 4: --no-pivot, cgroup binds without a cgroup namespace ---- */

static void scen_no_pivot(void)
{
	struct oci_config *c = cfg_new();
	char root[256], line[1024];
	struct rootfs_opts o = { .rootfs = root, .bundle = tmp, .no_pivot = true };
	struct stat st;

	snprintf(root, sizeof root, "%s/std", tmp);
	add_std_mounts(c);
	add_mount(c, "/sys/fs/cgroup", "cgroup", "cgroup", "nosuid,noexec,nodev,ro");
	add_mount(c, "/mnt/cg2", "cgroup2", "cgroup2", "nosuid");
	c->linux_.rootfs_propagation = OCI_PROP_PRIVATE;
	CHECK_OK(rootfs_setup(c, &o, &e_));
	CHECK_OK(rootfs_pivot(&o, &e_));
	CHECK_OK(rootfs_finalize(c, &o, &e_));
	CHECK(stat("/rootfs-marker", &st) == 0);
	CHECK(stat("/dev/null", &st) == 0 && st.st_rdev == makedev(1, 3));
	CHECK(mountinfo_line("/sys/fs/cgroup/memory", line, sizeof line) && strstr(line, " - cgroup "));
	CHECK(stat("/sys/fs/cgroup/memory/memory.limit_in_bytes", &st) == 0);
	CHECK(mountinfo_line("/mnt/cg2", line, sizeof line) && strstr(line, " - cgroup2 "));
	CHECK(mountinfo_line("/", line, sizeof line) && !strstr(line, "shared:"));
}

/* ---- scenario 5: user namespace (0 -> 100000), no own network namespace ---- */

static void scen_userns(void)
{
	struct oci_config *c = cfg_new();
	char root[256], line[1024], buf[64];
	struct rootfs_opts o = { .rootfs = root, .bundle = tmp, .userns = true };
	struct stat st;

	snprintf(root, sizeof root, "%s/user", tmp);
	add_std_mounts(c);
	strv_add(c->arena, &c->linux_.masked_paths, "/proc/timer_list");
	strv_add(c->arena, &c->linux_.readonly_paths, "/proc/sys");
	c->root_readonly = true;
	CHECK_OK(rootfs_setup(c, &o, &e_));
	CHECK_OK(rootfs_pivot(&o, &e_));
	CHECK_OK(rootfs_finalize(c, &o, &e_));
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3));
	CHECK(mountinfo_line("/dev/null", line, sizeof line)); /* bound from the host, not mknod */
	CHECK(mountinfo_line("/dev/tty", line, sizeof line));
	CHECK(mountinfo_line("/sys", line, sizeof line) && strstr(line, " - sysfs "));
	CHECK(is_ro("/sys"));
	/* No network namespace of its own: sysfs came from the host's /sys,
	 * recursively bound (submounts included), read-only all the way down. */
	CHECK(mountinfo_line("/sys/fs/cgroup", line, sizeof line) && is_ro("/sys/fs/cgroup"));
	CHECK(mountinfo_line("/dev/pts", line, sizeof line));
	CHECK(stat("/proc/timer_list", &st) == 0 && st.st_rdev == makedev(1, 3));
	CHECK(slurp("/proc/timer_list", buf, sizeof buf) && buf[0] == '\0');
	CHECK(creat_fails("/proc/sys/kernel/hostname", EROFS) || creat_fails("/proc/sys/kernel/hostname", EACCES));
	CHECK(creat_fails("/x", EROFS));
}


/* ---- scenario 6: a directory on the mount path is swapped with a symlink
 * to "/" while mounts are made (CVE-2021-30465 class) ---- */

static void scen_race(void)
{
	struct oci_config *c = cfg_new();
	char root[256], a[512], l[512], dest[512], line[1024];
	struct rootfs_opts o = { .rootfs = root, .bundle = tmp };
	struct mount_ctx ctx = { .cfg = c, .o = &o };
	int ok = 0, refused = 0;
	pid_t swapper;

	snprintf(root, sizeof root, "%s/std", tmp);
	CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
	ctx.rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	snprintf(a, sizeof a, "%s/race/a", root);
	snprintf(l, sizeof l, "%s/race/l", root);
	swapper = fork();
	if (swapper == 0) {
		alarm(20);
		for (;;)
			renameat2(AT_FDCWD, a, AT_FDCWD, l, RENAME_EXCHANGE);
	}
	snprintf(dest, sizeof dest, "/race/a/%s-race", escape_name);
	add_mount(c, dest, "tmpfs", "tmpfs", "size=64k");
	for (int i = 0; i < 300; i++) {
		struct clasp_error e = { 0 };
		if (mount_apply_one(&ctx, &c->mounts[0], &e) == 0)
			ok++;
		else
			refused++;
	}
	kill(swapper, SIGKILL);
	waitpid(swapper, NULL, 0);
	fprintf(stderr, "  race: %d mounted inside, %d refused\n", ok, refused);
	CHECK(ok + refused == 300);
	snprintf(dest, sizeof dest, "/%s-race", escape_name);
	CHECK(!mountinfo_line(dest, line, sizeof line));
	CHECK(ok > 0);
	close(ctx.rootfd);
}

int main(void)
{
	struct stat null_before, null_after;
	char path[512], core_before[256], core_after[256];
	struct stat st;

	if (geteuid() != 0 || access("/bin/busybox", X_OK) != 0) {
		printf("rootfs_live: skipped (needs root and /bin/busybox)\n");
		return unit_summary("rootfs_live");
	}
	alarm(110);
	snprintf(tmp, sizeof tmp, "/tmp/clasp-rootfs-XXXXXX");
	if (!mkdtemp(tmp))
		return 2;
	chmod(tmp, 0755);
	snprintf(escape_name, sizeof escape_name, "clasp-escape-%d", getpid());
	stat("/dev/null", &null_before);
	slurp("/proc/sys/kernel/core_pattern", core_before, sizeof core_before);

	make_rootfs("std");
	snprintf(path, sizeof path,
		 "cd %s/std && mkdir -p copyme/sub && chmod 0710 copyme/sub && echo hello > copyme/sub/f && "
		 "ln -s sub/f copyme/l",
		 tmp);
	CHECK(system(path) == 0);
	xmkdir("%s/hostdata", tmp);
	xmkdir("%s/hostdata/sub", tmp);
	snprintf(path, sizeof path, "%s/hostdata/marker", tmp);
	xwrite(path, "host data\n");
	snprintf(path, sizeof path, "%s/hostfile", tmp);
	xwrite(path, "host file\n");
	snprintf(path, sizeof path, "%s/std/mnt/evil", tmp);
	CHECK(symlink("/", path) == 0);
	snprintf(path, sizeof path, "%s/std/mnt/evil2", tmp);
	CHECK(symlink("../../../../../../..", path) == 0);

	xmkdir("%s/std/race", tmp);
	xmkdir("%s/std/race/a", tmp);
	snprintf(path, sizeof path, "%s/std/race/l", tmp);
	CHECK(symlink("/", path) == 0);

	make_rootfs("evil");
	xmkdir("%s/bait", tmp);
	snprintf(path, sizeof path, "%s/evil/dev", tmp);
	rmdir(path);
	snprintf(core_after, sizeof core_after, "%s/bait", tmp);
	CHECK(symlink(core_after, path) == 0);

	make_rootfs("nullink");
	snprintf(path, sizeof path, "%s/nullink/dev/null", tmp);
	CHECK(symlink("/proc/sys/kernel/core_pattern", path) == 0);

	make_rootfs("user");
	snprintf(path, sizeof path, "chown -R 100000:100000 %s/user", tmp);
	CHECK(system(path) == 0);

	static const struct scenario scenarios[] = {
		{ "standard", CLONE_NEWCGROUP | CLONE_NEWIPC | CLONE_NEWNET, false, scen_standard, false },
		{ "dev_symlink", 0, false, scen_dev_symlink, false },
		{ "standard_walk", CLONE_NEWCGROUP | CLONE_NEWIPC | CLONE_NEWNET, false, scen_standard, true },
		{ "dev_symlink_walk", 0, false, scen_dev_symlink, true },
		{ "devnull_symlink", 0, false, scen_devnull_symlink, false },
		{ "devnull_symlink_nodev", 0, false, scen_devnull_symlink_nodev, false },
		{ "no_pivot", CLONE_NEWIPC, false, scen_no_pivot, false },
		{ "userns", CLONE_NEWIPC, true, scen_userns, false },
		{ "race", 0, false, scen_race, false },
		{ "race_walk", 0, false, scen_race, true },
	};
	for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
		unit_current = scenarios[i].name;
		run(&scenarios[i]);
	}

	/* Host side: nothing escaped. */
	unit_current = "host";
	snprintf(path, sizeof path, "/%s", escape_name);
	CHECK(lstat(path, &st) < 0 && errno == ENOENT);
	snprintf(path, sizeof path, "/%s-2", escape_name);
	CHECK(lstat(path, &st) < 0 && errno == ENOENT);
	snprintf(path, sizeof path, "/%s-race", escape_name);
	CHECK(lstat(path, &st) < 0 && errno == ENOENT);
	snprintf(path, sizeof path, "%s/bait/null", tmp);
	CHECK(lstat(path, &st) < 0);
	stat("/dev/null", &null_after);
	CHECK(null_before.st_uid == null_after.st_uid && null_before.st_gid == null_after.st_gid &&
	      null_before.st_mode == null_after.st_mode);
	slurp("/proc/sys/kernel/core_pattern", core_after, sizeof core_after);
	CHECK_STREQ(core_after, core_before);
	snprintf(path, sizeof path, "%s/hostdata/sub/inner", tmp);
	CHECK(lstat(path, &st) < 0); /* the submount lived only in the child */

	nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return unit_summary("rootfs_live");
}
