/* util/safepath: resolution and creation never leave the root, with the
 * kernel's openat2(RESOLVE_IN_ROOT) and with the O_PATH walk fallback.
 * Runs unprivileged in a temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "util/safepath.h"

static char root[64];
static int rootfd = -1;
static const char *mode_name = "openat2";

static void mk(const char *rel, bool dir)
{
	char p[512];

	snprintf(p, sizeof p, "%s/%s", root, rel);
	if (dir)
		mkdir(p, 0755);
	else
		close(open(p, O_CREAT | O_WRONLY, 0644));
}

static void ln(const char *target, const char *rel)
{
	char p[512];

	snprintf(p, sizeof p, "%s/%s", root, rel);
	if (symlink(target, p) < 0)
		perror(p);
}

/* Is FD the object at ROOT/REL? */
static bool fd_is(int fd, const char *rel)
{
	char p[512];
	struct stat a, b;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	return fd >= 0 && fstat(fd, &a) == 0 && lstat(p, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static bool host_exists(const char *rel)
{
	struct stat st;

	return lstat(rel, &st) == 0;
}

static void check_fd(int fd, const char *rel, const char *what)
{
	if (!fd_is(fd, rel))
		fprintf(stderr, "  [%s] %s: expected %s\n", mode_name, what, rel);
	CHECK(fd_is(fd, rel));
	if (fd >= 0)
		close(fd);
}

TEST(test_resolve)
{
	struct clasp_error err = { 0 };
	int fd;

	/* Absolute symlink: restarts at the root, not at the host's "/". */
	check_fd(safepath_open(rootfd, "/abs/b", O_PATH | O_DIRECTORY, &err), "a/b", "absolute link");
	check_fd(safepath_open(rootfd, "abs/b", O_PATH, &err), "a/b", "relative path");
	/* ".." stops at the root. */
	check_fd(safepath_open(rootfd, "/../../../etc/passwd", O_PATH, &err), "etc/passwd", "dotdot");
	check_fd(safepath_open(rootfd, "/a/b/../../../../etc/passwd", O_PATH, &err), "etc/passwd", "dotdot 2");
	check_fd(safepath_open(rootfd, "/esc/passwd", O_PATH, &err), "etc/passwd", "relative escaping link");
	check_fd(safepath_open(rootfd, "/hostpasswd", O_PATH, &err), "etc/passwd", "link to /etc/passwd");
	check_fd(safepath_open(rootfd, "/", O_PATH, &err), ".", "root itself");
	check_fd(safepath_open(rootfd, "/chain", O_PATH, &err), "a/b", "chain of links");
	/* O_NOFOLLOW opens the final link itself. */
	check_fd(safepath_open(rootfd, "/hostpasswd", O_PATH | O_NOFOLLOW, &err), "hostpasswd", "nofollow");
	/* Reading through the resolved fd gives the root's file. */
	fd = safepath_open(rootfd, "/hostpasswd", O_RDONLY, &err);
	{
		char buf[32] = "";
		CHECK(fd >= 0 && read(fd, buf, sizeof buf - 1) > 0 && strcmp(buf, "inside\n") == 0);
		if (fd >= 0)
			close(fd);
	}
	/* Loops end with ELOOP, inside. */
	fd = safepath_open(rootfd, "/loop1", O_PATH, &err);
	CHECK(fd < 0 && err.code == ELOOP);
	fd = safepath_open(rootfd, "/missing/x", O_PATH, &err);
	CHECK(fd < 0 && err.code == ENOENT);
	fd = safepath_open(rootfd, "/etc/passwd/x", O_PATH, &err);
	CHECK(fd < 0 && err.code == ENOTDIR);
	fd = safepath_open(rootfd, "/etc/passwd", O_PATH | O_DIRECTORY, &err);
	CHECK(fd < 0 && err.code == ENOTDIR);
}

TEST(test_create)
{
	struct clasp_error err = { 0 };
	char name[64], path[128], base[SAFEPATH_NAME_MAX];
	int fd;

	snprintf(name, sizeof name, "clasp-safepath-%d-%s", getpid(), mode_name);
	/* Through a link to "/": created inside the root. */
	snprintf(path, sizeof path, "/slash/%s/x/y", name);
	fd = safepath_mkdir_all(rootfd, path, 0755, &err);
	snprintf(path, sizeof path, "%s/x/y", name);
	check_fd(fd, path, "mkdir through link to /");
	snprintf(path, sizeof path, "/%s", name);
	CHECK(!host_exists(path));
	/* Through "..": inside too. */
	snprintf(path, sizeof path, "/a/../../../%s-dd/z", name);
	fd = safepath_mkdir_all(rootfd, path, 0755, &err);
	snprintf(path, sizeof path, "%s-dd/z", name);
	check_fd(fd, path, "mkdir through dotdot");
	/* A dangling link: its target is made, inside. */
	snprintf(path, sizeof path, "/dangling-%s", mode_name);
	fd = safepath_mkdir_all(rootfd, path, 0755, &err);
	snprintf(path, sizeof path, "target-%s/sub", mode_name);
	check_fd(fd, path, "mkdir through dangling link");
	/* Files: parents made, the last component a regular file. */
	snprintf(path, sizeof path, "/slash/f-%s/g/file", mode_name);
	fd = safepath_create_file(rootfd, path, 0644, &err);
	{
		struct stat st;
		CHECK(fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode));
	}
	snprintf(path, sizeof path, "f-%s/g/file", mode_name);
	check_fd(fd, path, "create file");
	{
		/* Parents of a file get 0755, not the file's mode. */
		char host[512];
		struct stat st;
		snprintf(host, sizeof host, "%s/f-%s/g", root, mode_name);
		CHECK(stat(host, &st) == 0 && (st.st_mode & 07777) == 0755);
	}
	/* An existing directory is returned as is. */
	check_fd(safepath_create_file(rootfd, "/a", 0644, &err), "a", "create file on a dir");
	fd = safepath_mkdir_all(rootfd, "/etc/passwd", 0755, &err);
	CHECK(fd < 0 && err.code == ENOTDIR);
	/* Parent + base. */
	fd = safepath_open_parent(rootfd, "/abs/b/node", false, base, &err);
	CHECK_STREQ(base, "node");
	check_fd(fd, "a/b", "parent");
	fd = safepath_open_parent(rootfd, "/abs/b/", false, base, &err);
	CHECK_STREQ(base, "b");
	check_fd(fd, "a", "parent of trailing slash");
	snprintf(path, sizeof path, "/slash/p-%s/q/dev-null", mode_name);
	fd = safepath_open_parent(rootfd, path, true, base, &err);
	snprintf(path, sizeof path, "p-%s/q", mode_name);
	check_fd(fd, path, "parent created");
	fd = safepath_open_parent(rootfd, "/a/..", false, base, &err);
	CHECK(fd < 0 && err.code == EINVAL);
	fd = safepath_open_parent(rootfd, "/", false, base, &err);
	CHECK(fd < 0 && err.code == EINVAL);
}

TEST(test_fd_path)
{
	char buf[SAFEPATH_FD_PATH_MAX];

	CHECK_STREQ(safepath_fd_path(7, buf), "/proc/self/fd/7");
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f) { return remove(p) < 0 ? 0 : 0; }

int main(void)
{
	char p[128];

	snprintf(root, sizeof root, "/tmp/clasp-safepath-XXXXXX");
	if (!mkdtemp(root))
		return 2;
	mk("a", true);
	mk("a/b", true);
	mk("etc", true);
	snprintf(p, sizeof p, "%s/etc/passwd", root);
	FILE *f = fopen(p, "w");
	if (!f)
		return 2;
	fputs("inside\n", f);
	fclose(f);
	ln("/a", "abs");
	ln("../../../../../../etc", "esc");
	ln("/etc/passwd", "hostpasswd");
	ln("/", "slash");
	ln("loop2", "loop1");
	ln("/loop1", "loop2");
	ln("hop1", "chain");
	ln("/abs/../abs/b", "hop1");
	ln("/target-openat2/sub", "dangling-openat2");
	ln("/target-walk/sub", "dangling-walk");
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);

	RUN(test_resolve);
	RUN(test_create);
	RUN(test_fd_path);
	safepath_force_walk(true);
	mode_name = "walk";
	RUN(test_resolve);
	RUN(test_create);
	safepath_force_walk(false);

	close(rootfd);
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return unit_summary("safepath");
}
