#include "oci/state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/fs.h"
#include "util/json.h"

int state_validate_id(const char *id, struct clasp_error *err)
{
	size_t n = id ? strlen(id) : 0;
	size_t i;

	if (n == 0)
		return clasp_error_set(err, 0, "invalid container id: empty");
	if (n > STATE_ID_MAX)
		return clasp_error_set(err, 0, "invalid container id: longer than %d bytes", STATE_ID_MAX);
	if (strcmp(id, ".") == 0 || strcmp(id, "..") == 0)
		return clasp_error_set(err, 0, "invalid container id: %s", id);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)id[i];
		/* runc's rule: letters, digits and _ + - . only; that excludes "/". */
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '+' || c == '-' || c == '.'))
			return clasp_error_set(err, 0, "invalid container id: %s", id);
	}
	return 0;
}

char *state_dir(const char *root, const char *id)
{
	char *p;

	if (asprintf(&p, "%s/%s", root, id) < 0)
		abort();
	return p;
}

int state_reserve(const char *root, const char *id, int *lock_fd, struct clasp_error *err)
{
	_cleanup_free_ char *dir = state_dir(root, id);
	int fd;

	if (mkdir_p(root, 0711) < 0)
		return clasp_error_set(err, errno, "create state root %s", root);
	if (mkdir(dir, 0711) < 0) {
		if (errno == EEXIST)
			return clasp_error_set(err, 0, "container with id exists: %s", id);
		return clasp_error_set(err, errno, "create state directory %s", dir);
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		rmdir(dir);
		return clasp_error_set(err, e, "lock state directory %s", dir);
	}
	*lock_fd = fd;
	return 0;
}

int state_lock(const char *root, const char *id, int *lock_fd, struct clasp_error *err)
{
	_cleanup_free_ char *dir = NULL;
	int fd;

	if (state_validate_id(id, err) < 0)
		return -1;
	dir = state_dir(root, id);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return clasp_error_set(err, 0, "container does not exist");
		return clasp_error_set(err, errno, "open state directory %s", dir);
	}
	if (flock(fd, LOCK_EX) < 0) {
		int e = errno;
		close(fd);
		return clasp_error_set(err, e, "lock state directory %s", dir);
	}
	*lock_fd = fd;
	return 0;
}

int state_write(const char *root, const struct container_state *st, struct clasp_error *err)
{
	_cleanup_free_ char *dir = state_dir(root, st->id);
	struct json_gen *g = json_gen_new(false);
	const char *buf;
	size_t len;
	int r;

	json_gen_object_open(g);
	json_gen_kv_string(g, "id", st->id);
	json_gen_kv_string(g, "bundle", st->bundle);
	json_gen_kv_string(g, "rootfs", st->rootfs);
	json_gen_kv_string(g, "status", st->status);
	json_gen_kv_int(g, "pid", st->pid);
	json_gen_kv_uint(g, "startTime", st->start_time);
	json_gen_kv_string(g, "created", st->created);
	json_gen_kv_uint(g, "owner", st->owner);
	json_gen_kv_string(g, "cgroup", st->cgroup);
	json_gen_kv_string(g, "annotations", st->annotations);
	json_gen_kv_bool(g, "timeNamespace", st->has_time_ns);
	json_gen_kv_bool(g, "noPivot", st->no_pivot);
	json_gen_object_close(g);
	buf = json_gen_buf(g, &len);
	r = write_file_atomic(dir, "state.json", buf, len, 0600, err);
	json_gen_free(g);
	return r;
}

static char *dup_field(const struct json *root, const char *key)
{
	const char *s = json_string(json_get(root, key));
	return s ? strdup(s) : NULL;
}

int state_read(const char *root, const char *id, struct container_state *st, struct clasp_error *err)
{
	_cleanup_free_ char *dir = state_dir(root, id);
	_cleanup_free_ char *path = NULL;
	_cleanup_free_ char *text = NULL;
	struct json *doc = NULL;
	size_t len;
	int64_t i;
	uint64_t u;

	memset(st, 0, sizeof *st);
	if (asprintf(&path, "%s/state.json", dir) < 0)
		abort();
	if (read_file(path, &text, &len, err) < 0) {
		if (err->code == ENOENT)
			return clasp_error_set(err, 0, "container does not exist");
		return -1;
	}
	if (json_parse(text, len, &doc, err) < 0)
		return clasp_error_prefix(err, "%s", path);
	st->id = dup_field(doc, "id");
	st->bundle = dup_field(doc, "bundle");
	st->rootfs = dup_field(doc, "rootfs");
	st->status = dup_field(doc, "status");
	st->created = dup_field(doc, "created");
	st->cgroup = dup_field(doc, "cgroup");
	st->annotations = dup_field(doc, "annotations");
	if (json_int64(json_get(doc, "pid"), &i))
		st->pid = (pid_t)i;
	if (json_uint64(json_get(doc, "startTime"), &u))
		st->start_time = u;
	if (json_uint64(json_get(doc, "owner"), &u))
		st->owner = (uid_t)u;
	st->has_time_ns = json_bool(json_get(doc, "timeNamespace"));
	st->no_pivot = json_bool(json_get(doc, "noPivot"));
	json_free(doc);
	if (!st->id || !st->status) {
		state_clear(st);
		return clasp_error_set(err, 0, "%s: corrupt state file", path);
	}
	return 0;
}

int state_remove(const char *root, const char *id, struct clasp_error *err)
{
	_cleanup_free_ char *dir = state_dir(root, id);

	if (rm_rf(dir) < 0 && errno != ENOENT)
		return clasp_error_set(err, errno, "remove state directory %s", dir);
	return 0;
}

void state_clear(struct container_state *st)
{
	free(st->id);
	free(st->bundle);
	free(st->rootfs);
	free(st->status);
	free(st->created);
	free(st->cgroup);
	free(st->annotations);
	memset(st, 0, sizeof *st);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int state_list_ids(const char *root, char ***ids, size_t *n, struct clasp_error *err)
{
	_cleanup_closedir_ DIR *d = opendir(root);
	struct dirent *de;
	char **v = NULL;
	size_t cnt = 0;

	*ids = NULL;
	*n = 0;
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return clasp_error_set(err, errno, "open state root %s", root);
	}
	while ((de = readdir(d))) {
		char **nv;
		if (de->d_name[0] == '.')
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		nv = realloc(v, (cnt + 1) * sizeof *v);
		if (!nv)
			abort();
		v = nv;
		v[cnt++] = strdup(de->d_name);
	}
	if (cnt)
		qsort(v, cnt, sizeof *v, cmp_str);
	*ids = v;
	*n = cnt;
	return 0;
}
