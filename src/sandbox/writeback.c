/* Copy realization, second half: writing the agent's changes back to the
 * authoritative tree exactly once.
 *
 * 1. Scan (only when no journal exists yet): compare the copy and the host
 *    tree with the snapshot manifest taken at copy time, and write the list
 *    of actions to BASE.journal (temp + rename, so it exists whole or not).
 *    Deletions come first, children before parents; then creations and
 *    updates, parents before children.
 * 2. Apply: every action is idempotent, and the number of finished actions
 *    is appended to BASE.progress, so a killed or failed write-back resumes
 *    where it stopped when `delete` runs again. Decisions are never taken
 *    twice: a resumed run trusts the journal, not a new scan (which would
 *    see its own writes as host changes).
 *
 * Host-side paths are resolved with openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS) one directory at a time, and the last component is
 * only ever replaced by rename or unlinked, never opened through: a symlink
 * the agent planted (written back as a symlink) cannot redirect a write.
 * Files are written to a temporary name in the same directory and renamed
 * into place.
 *
 * Conflicts (the host changed the entry during the run too): the host
 * version is kept and the container's version saved as NAME.clasp-conflict. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sandbox_int.h"
#include "util/cleanup.h"

#define CONFLICT_SUFFIX ".clasp-conflict"

long sb_writeback_fail_after = -1;

struct wb {
	int hostfd, copyfd;
	const struct sandbox_sync *sync;
	struct sb_manifest m;
	FILE *journal;
	struct clasp_error *err;
	bool root;
	sandbox_conflict_fn fn;
	void *opaque;
};

/* lstat of rel beneath rootfd, never through a symlink. */
static int stat_beneath(int rootfd, const char *rel, struct stat *st)
{
	const char *slash = strrchr(rel, '/');
	_cleanup_close_ int dfd = -1;
	_cleanup_free_ char *dir = NULL;

	if (!slash)
		return fstatat(rootfd, rel, st, AT_SYMLINK_NOFOLLOW);
	dir = strndup(rel, (size_t)(slash - rel));
	if (!dir)
		return -1;
	dfd = sb_open_beneath(rootfd, dir, O_PATH | O_DIRECTORY, 0);
	if (dfd < 0)
		return -1;
	return fstatat(dfd, slash + 1, st, AT_SYMLINK_NOFOLLOW);
}

static char tchar(mode_t m)
{
	return S_ISDIR(m) ? 'd' : S_ISREG(m) ? 'f' : S_ISLNK(m) ? 'l' : '?';
}

static bool host_changed(const struct sb_entry *e, bool exists, const struct stat *hs)
{
	if (!exists || tchar(hs->st_mode) != e->type || (hs->st_mode & 07777) != e->mode)
		return true;
	if (e->type == 'd')
		return false;
	return (uint64_t)hs->st_size != e->size || hs->st_mtim.tv_sec != e->mtime_s ||
	       hs->st_mtim.tv_nsec != e->mtime_ns || (uint64_t)hs->st_ino != e->hino;
}

static bool copy_changed(const struct sb_entry *e, const struct stat *cs)
{
	if (tchar(cs->st_mode) != e->type || (cs->st_mode & 07777) != e->mode)
		return true;
	if (e->type == 'd')
		return false;
	return (uint64_t)cs->st_size != e->size || (uint64_t)cs->st_ino != e->cino ||
	       cs->st_ctim.tv_sec != e->cctime_s || cs->st_ctim.tv_nsec != e->cctime_ns;
}

/* Journal line: "OP MODE REL_COPY REL_HOST". */
static void emit(struct wb *w, char op, unsigned mode, const char *rel_copy, const char *rel_host)
{
	fprintf(w->journal, "%c %o ", op, mode);
	sb_escape_write(w->journal, rel_copy);
	fputc(' ', w->journal);
	sb_escape_write(w->journal, rel_host);
	fputc('\n', w->journal);
}

static int cmp_order_desc(const void *a, const void *b)
{
	const struct sb_entry *x = *(const struct sb_entry *const *)a, *y = *(const struct sb_entry *const *)b;
	return x->order < y->order ? 1 : x->order > y->order ? -1 : 0;
}

/* Entries of the snapshot that are gone from the copy (or changed type). */
static int scan_deletions(struct wb *w)
{
	/* An array of pointers into the manifest: the element size is a pointer's. */
	struct sb_entry **byorder = calloc(w->m.n ? w->m.n : 1, sizeof *byorder); /* NOLINT(bugprone-sizeof-expression) */
	size_t i;

	if (!byorder)
		return clasp_error_set(w->err, ENOMEM, "write-back");
	for (i = 0; i < w->m.n; i++)
		byorder[i] = &w->m.v[i];
	qsort(byorder, w->m.n, sizeof *byorder, cmp_order_desc); /* NOLINT(bugprone-sizeof-expression) */
	for (i = 0; i < w->m.n; i++) {
		const struct sb_entry *e = byorder[i];
		struct stat cs, hs;
		bool in_copy = stat_beneath(w->copyfd, e->path, &cs) == 0;
		bool on_host = stat_beneath(w->hostfd, e->path, &hs) == 0;

		if (in_copy && tchar(cs.st_mode) == e->type)
			continue;
		if (!on_host)
			continue;
		if (host_changed(e, true, &hs)) {
			if (!in_copy)
				emit(w, 'C', 0, e->path, e->path); /* deleted inside, changed outside */
			continue;
		}
		emit(w, e->type == 'd' ? 'R' : 'D', 0, e->path, e->path);
	}
	free(byorder);
	return 0;
}

static int scan_tree(struct wb *w, int dfd, const char *rel, const char *remap);
static int scan_tree_at(struct wb *w, int dfd, const char *name, const char *rel, const char *remap);

/* One entry of the copy. `remap`: the host path this subtree goes to when
 * it is saved whole under a .clasp-conflict name (NULL otherwise). */
static int scan_entry(struct wb *w, int dfd, const char *name, const char *rel, const char *remap,
		      const struct stat *cs)
{
	char op = S_ISDIR(cs->st_mode) ? 'M' : S_ISREG(cs->st_mode) ? 'F' : S_ISLNK(cs->st_mode) ? 'L' : 0;
	const struct sb_entry *e = remap ? NULL : sb_manifest_find(&w->m, rel);
	const char *rel_host = remap ? remap : rel;
	_cleanup_free_ char *saved = NULL;
	struct stat hs;
	bool on_host, hchanged;
	int r = 0;

	if (!op)
		return 0; /* sockets, fifos, devices are not written back */
	if (!remap && e && !copy_changed(e, cs))
		goto recurse;
	if (remap) {
		emit(w, op, cs->st_mode & 07777, rel, rel_host);
		goto recurse;
	}
	on_host = stat_beneath(w->hostfd, rel, &hs) == 0;
	/* With a type change and an unchanged host entry, the deletion pass
	 * already removed the old entry. */
	hchanged = e ? host_changed(e, on_host, &hs) : on_host;
	if (!hchanged) {
		emit(w, op, cs->st_mode & 07777, rel, rel);
		goto recurse;
	}
	if (op == 'M' && on_host && S_ISDIR(hs.st_mode))
		goto recurse; /* both sides have the directory: merge, keep the host's mode */
	if (asprintf(&saved, "%s%s", rel, CONFLICT_SUFFIX) < 0) {
		saved = NULL;
		return clasp_error_set(w->err, ENOMEM, "write-back");
	}
	emit(w, op, cs->st_mode & 07777, rel, saved);
	emit(w, 'C', 1, saved, rel);
	if (op == 'M')
		return scan_tree_at(w, dfd, name, rel, saved);
	return 0;
recurse:
	if (op == 'M')
		r = scan_tree_at(w, dfd, name, rel, remap);
	return r;
}

static int scan_tree_at(struct wb *w, int dfd, const char *name, const char *rel, const char *remap)
{
	_cleanup_close_ int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (sub < 0)
		return clasp_error_set(w->err, errno, "open %s/%s", w->sync->copy, rel);
	return scan_tree(w, sub, rel, remap);
}

static int scan_tree(struct wb *w, int dfd, const char *rel, const char *remap)
{
	DIR *d;
	struct dirent *de;
	int fd = dup(dfd), r = 0;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return clasp_error_set(w->err, errno, "open %s/%s", w->sync->copy, rel);
	}
	while ((de = readdir(d))) {
		_cleanup_free_ char *sub = NULL, *subremap = NULL;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = clasp_error_set(w->err, errno, "stat %s/%s/%s", w->sync->copy, rel, de->d_name);
			break;
		}
		if (asprintf(&sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name) < 0 ||
		    (remap && asprintf(&subremap, "%s/%s", remap, de->d_name) < 0)) {
			r = clasp_error_set(w->err, ENOMEM, "write-back");
			break;
		}
		if (scan_entry(w, dfd, de->d_name, sub, subremap, &st) < 0) {
			r = -1;
			break;
		}
	}
	closedir(d);
	return r;
}

static int write_journal(struct wb *w, const char *journal, const char *manifest)
{
	_cleanup_free_ char *tmp = NULL;
	int r;

	if (sb_manifest_load(manifest, &w->m, w->err) < 0)
		return -1;
	if (asprintf(&tmp, "%s.tmp", journal) < 0) {
		tmp = NULL;
		return clasp_error_set(w->err, ENOMEM, "write-back");
	}
	w->journal = fopen(tmp, "we");
	if (!w->journal)
		return clasp_error_set(w->err, errno, "open %s", tmp);
	r = scan_deletions(w);
	if (r == 0)
		r = scan_tree(w, w->copyfd, "", NULL);
	if (fflush(w->journal) != 0 || fsync(fileno(w->journal)) < 0)
		r = r < 0 ? r : clasp_error_set(w->err, errno, "write %s", tmp);
	fclose(w->journal);
	w->journal = NULL;
	sb_manifest_free(&w->m);
	if (r == 0 && rename(tmp, journal) < 0)
		r = clasp_error_set(w->err, errno, "rename %s", tmp);
	if (r < 0)
		unlink(tmp);
	return r;
}

/* ---- apply ---- */

/* The host directory holding rel (created, 0755, where missing: a
 * directory the host deleted is recreated to receive the agent's files). */
static int host_parent(struct wb *w, const char *rel, const char **base)
{
	_cleanup_free_ char *dir = strdup(rel);
	char *p, *slash;
	int fd;

	if (!dir)
		return -1;
	slash = strrchr(dir, '/');
	*base = slash ? rel + (slash - dir) + 1 : rel;
	fd = dup(w->hostfd);
	if (!slash || fd < 0)
		return fd;
	*slash = '\0';
	for (p = dir; p; p = slash ? slash + 1 : NULL) {
		int next;
		slash = strchr(p, '/');
		if (slash)
			*slash = '\0';
		next = sb_open_beneath(fd, p, O_PATH | O_DIRECTORY, 0);
		if (next < 0 && errno == ENOENT) {
			if (mkdirat(fd, p, 0755) < 0 && errno != EEXIST) {
				close(fd);
				return -1;
			}
			next = sb_open_beneath(fd, p, O_PATH | O_DIRECTORY, 0);
		}
		close(fd);
		if (next < 0)
			return -1;
		fd = next;
	}
	return fd;
}

static void report(struct wb *w, const char *rel, const char *saved)
{
	_cleanup_free_ char *a = NULL, *b = NULL;

	if (!w->fn)
		return;
	if (asprintf(&a, "%s/%s", w->sync->host, rel) < 0)
		return;
	if (saved && asprintf(&b, "%s/%s", w->sync->host, saved) < 0)
		b = NULL;
	w->fn(a, saved ? b : NULL, w->opaque);
}

static int apply_file(struct wb *w, char op, unsigned mode, const char *rc, const char *rh, size_t idx)
{
	_cleanup_close_ int parent = -1, src = -1, out = -1;
	char tmp[64], target[PATH_MAX];
	struct stat ss, hs;
	const char *base;
	uid_t uid;
	gid_t gid;

	parent = host_parent(w, rh, &base);
	if (parent < 0) {
		if (errno == ELOOP || errno == ENOTDIR || errno == EXDEV) {
			report(w, rh, NULL); /* the host path goes through a symlink: not written */
			return 0;
		}
		return clasp_error_set(w->err, errno, "open parent of %s/%s", w->sync->host, rh);
	}
	src = sb_open_beneath(w->copyfd, rc, op == 'F' ? O_RDONLY | O_NOCTTY : O_PATH, 0);
	if (src < 0 || fstat(src, &ss) < 0)
		return clasp_error_set(w->err, errno, "open %s/%s", w->sync->copy, rc);
	uid = ss.st_uid;
	gid = ss.st_gid;
	if (fstatat(parent, base, &hs, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(hs.st_mode)) {
		uid = hs.st_uid; /* a modified file keeps its host owner */
		gid = hs.st_gid;
	}
	snprintf(tmp, sizeof tmp, ".clasp-wb-%zu.tmp", idx);
	unlinkat(parent, tmp, 0);
	if (op == 'F') {
		struct timespec ts[2] = {ss.st_atim, ss.st_mtim};
		out = openat(parent, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (out < 0)
			return clasp_error_set(w->err, errno, "create %s/%s", w->sync->host, rh);
		if (sb_copy_data(src, out, w->err) < 0) {
			unlinkat(parent, tmp, 0);
			return clasp_error_prefix(w->err, "write back %s/%s", w->sync->host, rh);
		}
		if ((w->root && fchown(out, uid, gid) < 0) || fchmod(out, mode) < 0 || futimens(out, ts) < 0 ||
		    fsync(out) < 0) {
			int e = errno;
			unlinkat(parent, tmp, 0);
			return clasp_error_set(w->err, e, "write back %s/%s", w->sync->host, rh);
		}
	} else {
		ssize_t n = readlinkat(src, "", target, sizeof target - 1);
		if (n < 0)
			return clasp_error_set(w->err, errno, "readlink %s/%s", w->sync->copy, rc);
		target[n] = '\0';
		if (symlinkat(target, parent, tmp) < 0)
			return clasp_error_set(w->err, errno, "symlink %s/%s", w->sync->host, rh);
		if (w->root)
			fchownat(parent, tmp, ss.st_uid, ss.st_gid, AT_SYMLINK_NOFOLLOW);
	}
	if (renameat(parent, tmp, parent, base) < 0) {
		int e = errno;
		unlinkat(parent, tmp, 0);
		if (e == EISDIR || e == ENOTEMPTY || e == EEXIST) {
			report(w, rh, NULL); /* a directory is in the way on the host */
			return 0;
		}
		return clasp_error_set(w->err, e, "rename into %s/%s", w->sync->host, rh);
	}
	return 0;
}

static int apply_dir(struct wb *w, unsigned mode, const char *rc, const char *rh)
{
	_cleanup_close_ int parent = -1, fd = -1;
	const char *base;
	bool made;

	parent = host_parent(w, rh, &base);
	if (parent < 0) {
		if (errno == ELOOP || errno == ENOTDIR || errno == EXDEV) {
			report(w, rh, NULL);
			return 0;
		}
		return clasp_error_set(w->err, errno, "open parent of %s/%s", w->sync->host, rh);
	}
	made = mkdirat(parent, base, 0700) == 0;
	if (!made && errno != EEXIST)
		return clasp_error_set(w->err, errno, "mkdir %s/%s", w->sync->host, rh);
	fd = openat(parent, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		report(w, rh, NULL); /* a file or symlink is in the way */
		return 0;
	}
	if (made && w->root) {
		struct stat cs;
		if (stat_beneath(w->copyfd, rc, &cs) == 0 && fchown(fd, cs.st_uid, cs.st_gid) < 0)
			return clasp_error_set(w->err, errno, "chown %s/%s", w->sync->host, rh);
	}
	if (fchmod(fd, mode) < 0)
		return clasp_error_set(w->err, errno, "chmod %s/%s", w->sync->host, rh);
	return 0;
}

static int apply_remove(struct wb *w, char op, const char *rh)
{
	_cleanup_close_ int parent = -1;
	_cleanup_free_ char *dir = NULL;
	const char *slash = strrchr(rh, '/'), *base = slash ? slash + 1 : rh;

	if (slash) {
		dir = strndup(rh, (size_t)(slash - rh));
		parent = dir ? sb_open_beneath(w->hostfd, dir, O_PATH | O_DIRECTORY, 0) : -1;
	} else {
		parent = dup(w->hostfd);
	}
	if (parent < 0)
		return errno == ENOENT ? 0 : (report(w, rh, NULL), 0);
	if (unlinkat(parent, base, op == 'R' ? AT_REMOVEDIR : 0) == 0 || errno == ENOENT)
		return 0;
	if (errno == ENOTEMPTY || errno == EEXIST || errno == EISDIR || errno == ENOTDIR) {
		report(w, rh, NULL); /* the host added or changed something there: kept */
		return 0;
	}
	return clasp_error_set(w->err, errno, "remove %s/%s", w->sync->host, rh);
}

static int apply_line(struct wb *w, char *line, size_t idx)
{
	char op, *rc, *rh, *sp;
	unsigned mode;

	if (sscanf(line, "%c %o", &op, &mode) != 2 || !(rc = strchr(line + 2, ' ')))
		return clasp_error_set(w->err, 0, "corrupt write-back journal line %zu", idx + 1);
	rc++;
	if (!(sp = strchr(rc, ' ')))
		return clasp_error_set(w->err, 0, "corrupt write-back journal line %zu", idx + 1);
	*sp = '\0';
	rh = sp + 1;
	sb_unescape(rc);
	sb_unescape(rh);
	switch (op) {
	case 'F':
	case 'L':
		return apply_file(w, op, mode, rc, rh, idx);
	case 'M':
		return apply_dir(w, mode, rc, rh);
	case 'D':
	case 'R':
		return apply_remove(w, op, rh);
	case 'C':
		report(w, rh, mode ? rc : NULL);
		return 0;
	}
	return clasp_error_set(w->err, 0, "corrupt write-back journal line %zu", idx + 1);
}

static size_t count_lines(const char *path)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	size_t n = 0;
	int c;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	return n;
}

int sb_writeback(const struct sandbox_sync *s, const char *base, sandbox_conflict_fn fn, void *opaque,
		 struct clasp_error *err)
{
	_cleanup_free_ char *journal = NULL, *progress = NULL, *manifest = NULL, *line = NULL;
	_cleanup_close_ int hostfd = -1, copyfd = -1;
	_cleanup_fclose_ FILE *jf = NULL, *pf = NULL;
	struct wb w = {.sync = s, .err = err, .root = geteuid() == 0, .fn = fn, .opaque = opaque};
	size_t done, idx = 0, cap = 0;
	long applied = 0;
	ssize_t n;

	if (asprintf(&journal, "%s.journal", base) < 0 || asprintf(&progress, "%s.progress", base) < 0 ||
	    asprintf(&manifest, "%s.manifest", base) < 0)
		return clasp_error_set(err, ENOMEM, "write-back");
	hostfd = open(s->host, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (hostfd < 0)
		return clasp_error_set(err, errno, "write-back: open %s", s->host);
	copyfd = open(s->copy, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (copyfd < 0)
		return clasp_error_set(err, errno, "write-back: open copy %s", s->copy);
	w.hostfd = hostfd;
	w.copyfd = copyfd;
	if (access(journal, F_OK) < 0) {
		unlink(progress);
		if (write_journal(&w, journal, manifest) < 0)
			return clasp_error_prefix(err, "write-back of %s", s->host);
	}
	done = count_lines(progress);
	jf = fopen(journal, "re");
	pf = fopen(progress, "ae");
	if (!jf || !pf)
		return clasp_error_set(err, errno, "write-back: open %s", jf ? progress : journal);
	while ((n = getline(&line, &cap, jf)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (idx >= done) {
			if (sb_writeback_fail_after >= 0 && applied >= sb_writeback_fail_after)
				return clasp_error_set(err, EIO, "write-back of %s: simulated failure", s->host);
			if (apply_line(&w, line, idx) < 0)
				return clasp_error_prefix(err, "write-back of %s (resume with delete)", s->host);
			fprintf(pf, "%zu\n", idx);
			fflush(pf);
			applied++;
		}
		idx++;
	}
	if (fsync(fileno(pf)) < 0)
		return clasp_error_set(err, errno, "write-back: %s", progress);
	return 0;
}
