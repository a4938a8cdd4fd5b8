/* Copy realization, first half: the private copy of an authoritative tree
 * and the snapshot manifest that write-back measures changes against.
 *
 * Data moves by reflink (FICLONE) when the copy shares the filesystem (the
 * default copy-dir is the workspace's parent for that reason), else by
 * copy_file_range, else by read/write. Regular files, directories and
 * symlinks are copied with their modes, owners (as root) and times; sockets,
 * fifos and device nodes are skipped and never written back.
 *
 * Manifest: one line per entry, "T MODE SIZE MTIME.NS HOSTINO COPYINO
 * COPYCTIME.NS PATH", PATH %-escaped. The host columns tell whether the
 * host changed the entry during the run, the copy's inode and ctime whether
 * the agent did (ctime cannot be reset from inside). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sandbox_int.h"
#include "util/cleanup.h"

int sb_copy_data(int in, int out, struct clasp_error *err)
{
	char buf[65536];
	ssize_t n;
	bool cfr = true;

	if (ioctl(out, FICLONE, in) == 0)
		return 0;
	for (;;) {
		if (cfr) {
			n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0);
			if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
				      errno == EOPNOTSUPP || errno == EPERM)) {
				cfr = false;
				continue;
			}
		} else {
			n = read(in, buf, sizeof buf);
			if (n > 0) {
				ssize_t w = 0, m;
				while (w < n) {
					m = write(out, buf + w, (size_t)(n - w));
					if (m < 0 && errno == EINTR)
						continue;
					if (m < 0)
						return clasp_error_set(err, errno, "write");
					w += m;
				}
			}
		}
		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return clasp_error_set(err, errno, cfr ? "copy_file_range" : "read");
	}
}

void sb_escape_write(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c <= 0x20 || c == '%' || c == 0x7f)
			fprintf(f, "%%%02x", c);
		else
			fputc(c, f);
	}
}

void sb_unescape(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (s[0] == '%' && s[1] && s[2]) {
			char hex[3] = {s[1], s[2], 0};
			*o++ = (char)strtoul(hex, NULL, 16);
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

static char type_char(mode_t m)
{
	return S_ISDIR(m) ? 'd' : S_ISREG(m) ? 'f' : S_ISLNK(m) ? 'l' : 0;
}

struct copy_state {
	FILE *manifest;
	bool root;
	struct clasp_error *err;
};

static void record(struct copy_state *cs, const char *rel, const struct stat *h, const struct stat *c)
{
	fprintf(cs->manifest, "%c %o %" PRIu64 " %" PRId64 ".%09ld %" PRIu64 " %" PRIu64 " %" PRId64 ".%09ld ",
		type_char(h->st_mode), (unsigned)(h->st_mode & 07777), (uint64_t)h->st_size,
		(int64_t)h->st_mtim.tv_sec, h->st_mtim.tv_nsec, (uint64_t)h->st_ino, (uint64_t)c->st_ino,
		(int64_t)c->st_ctim.tv_sec, c->st_ctim.tv_nsec);
	sb_escape_write(cs->manifest, rel);
	fputc('\n', cs->manifest);
}

static int copy_meta(int fd, const struct stat *st, bool root, const char *what, struct clasp_error *err)
{
	struct timespec ts[2] = {st->st_atim, st->st_mtim};

	if (root && fchown(fd, st->st_uid, st->st_gid) < 0)
		return clasp_error_set(err, errno, "chown %s", what);
	if (fchmod(fd, st->st_mode & 07777) < 0)
		return clasp_error_set(err, errno, "chmod %s", what);
	if (futimens(fd, ts) < 0)
		return clasp_error_set(err, errno, "set times of %s", what);
	return 0;
}

static int copy_dir(struct copy_state *cs, int sfd, int dfd, const char *rel);

static int copy_entry(struct copy_state *cs, int sfd, int dfd, const char *name, const char *rel,
		      const struct stat *st)
{
	struct clasp_error *err = cs->err;
	struct stat cst;

	if (S_ISREG(st->st_mode)) {
		_cleanup_close_ int in = openat(sfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
		_cleanup_close_ int out = -1;
		if (in < 0)
			return clasp_error_set(err, errno, "open %s", rel);
		out = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (out < 0)
			return clasp_error_set(err, errno, "create copy of %s", rel);
		if (sb_copy_data(in, out, err) < 0)
			return clasp_error_prefix(err, "copy %s", rel);
		if (copy_meta(out, st, cs->root, rel, err) < 0 || fstat(out, &cst) < 0)
			return -1;
	} else if (S_ISLNK(st->st_mode)) {
		char target[PATH_MAX];
		struct timespec ts[2] = {st->st_atim, st->st_mtim};
		ssize_t n = readlinkat(sfd, name, target, sizeof target - 1);
		if (n < 0)
			return clasp_error_set(err, errno, "readlink %s", rel);
		target[n] = '\0';
		if (symlinkat(target, dfd, name) < 0)
			return clasp_error_set(err, errno, "symlink %s", rel);
		if (cs->root && fchownat(dfd, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) < 0)
			return clasp_error_set(err, errno, "chown %s", rel);
		utimensat(dfd, name, ts, AT_SYMLINK_NOFOLLOW);
		if (fstatat(dfd, name, &cst, AT_SYMLINK_NOFOLLOW) < 0)
			return clasp_error_set(err, errno, "stat copy of %s", rel);
	} else if (S_ISDIR(st->st_mode)) {
		_cleanup_close_ int s2 = -1, d2 = -1;
		if (mkdirat(dfd, name, 0700) < 0)
			return clasp_error_set(err, errno, "mkdir copy of %s", rel);
		s2 = openat(sfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		d2 = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (s2 < 0 || d2 < 0)
			return clasp_error_set(err, errno, "open %s", rel);
		/* The directory's line comes first, so that write-back creates
		 * parents before children and deletes children first. */
		record(cs, rel, st, st);
		if (copy_dir(cs, s2, d2, rel) < 0)
			return -1;
		return copy_meta(d2, st, cs->root, rel, err);
	} else {
		return 0;
	}
	record(cs, rel, st, &cst);
	return 0;
}

static int copy_dir(struct copy_state *cs, int sfd, int dfd, const char *rel)
{
	DIR *d;
	struct dirent *de;
	int fd = dup(sfd), r = 0;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return clasp_error_set(cs->err, errno, "open %s", rel);
	}
	while ((de = readdir(d))) {
		struct stat st;
		_cleanup_free_ char *sub = NULL;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(sfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			r = clasp_error_set(cs->err, errno, "stat %s/%s", rel, de->d_name);
			break;
		}
		if (asprintf(&sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name) < 0) {
			sub = NULL;
			r = clasp_error_set(cs->err, ENOMEM, "copy");
			break;
		}
		if (copy_entry(cs, sfd, dfd, de->d_name, sub, &st) < 0) {
			r = -1;
			break;
		}
	}
	closedir(d);
	return r;
}

int sb_copy_tree(const char *src, const char *dst, const char *manifest, struct clasp_error *err)
{
	_cleanup_close_ int sfd = -1, dfd = -1, mfd = -1;
	struct copy_state cs = {.root = geteuid() == 0, .err = err};
	struct stat st;
	int r;

	sfd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0 || fstat(sfd, &st) < 0)
		return clasp_error_set(err, errno, "open workspace %s", src);
	if (mkdir(dst, 0700) < 0)
		return clasp_error_set(err, errno, "mkdir %s", dst);
	dfd = open(dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return clasp_error_set(err, errno, "open %s", dst);
	mfd = open(manifest, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (mfd < 0 || !(cs.manifest = fdopen(mfd, "w")))
		return clasp_error_set(err, errno, "open %s", manifest);
	mfd = -1; /* NOLINT(clang-analyzer-deadcode.DeadStores): read by the cleanup attribute; cs.manifest owns the fd now */
	r = copy_dir(&cs, sfd, dfd, "");
	if (r == 0)
		r = copy_meta(dfd, &st, cs.root, src, err);
	if (fflush(cs.manifest) != 0 || fsync(fileno(cs.manifest)) < 0)
		r = r < 0 ? r : clasp_error_set(err, errno, "write %s", manifest);
	fclose(cs.manifest);
	if (r < 0)
		clasp_error_prefix(err, "copy %s to %s", src, dst);
	return r;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct sb_entry *)a)->path, ((const struct sb_entry *)b)->path);
}

int sb_manifest_load(const char *path, struct sb_manifest *m, struct clasp_error *err)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	memset(m, 0, sizeof *m);
	if (!f)
		return clasp_error_set(err, errno, "open %s", path);
	while ((n = getline(&line, &cap, f)) > 0) {
		struct sb_entry e = {0};
		unsigned mode;
		int off = 0;
		char t;

		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (sscanf(line, "%c %o %" SCNu64 " %" SCNd64 ".%ld %" SCNu64 " %" SCNu64 " %" SCNd64 ".%ld %n", &t,
			   &mode, &e.size, &e.mtime_s, &e.mtime_ns, &e.hino, &e.cino, &e.cctime_s, &e.cctime_ns,
			   &off) != 9 || !off) {
			free(line);
			sb_manifest_free(m);
			return clasp_error_set(err, 0, "%s: corrupt line", path);
		}
		e.type = t;
		e.mode = mode;
		e.path = strdup(line + off);
		if (!e.path) {
			free(line);
			sb_manifest_free(m);
			return clasp_error_set(err, ENOMEM, "%s", path);
		}
		sb_unescape(e.path);
		if (m->n == m->cap) {
			size_t nc = m->cap ? m->cap * 2 : 256;
			struct sb_entry *v = realloc(m->v, nc * sizeof *v);
			if (!v) {
				free(e.path);
				free(line);
				sb_manifest_free(m);
				return clasp_error_set(err, ENOMEM, "%s", path);
			}
			m->v = v;
			m->cap = nc;
		}
		e.order = m->n;
		m->v[m->n++] = e;
	}
	free(line);
	qsort(m->v, m->n, sizeof *m->v, cmp_entry);
	return 0;
}

struct sb_entry *sb_manifest_find(const struct sb_manifest *m, const char *path)
{
	struct sb_entry key = {.path = (char *)path};
	return m->n ? bsearch(&key, m->v, m->n, sizeof *m->v, cmp_entry) : NULL;
}

void sb_manifest_free(struct sb_manifest *m)
{
	size_t i;
	for (i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	memset(m, 0, sizeof *m);
}
