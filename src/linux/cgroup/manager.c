/* Creating, recording, reopening and removing a container's cgroups.
 * What we create is recorded (and serialized into state.json) so that
 * destroy removes exactly that and never a directory someone else made. */
#include "linux/cgroup/cg_internal.h"
#include "linux/cgroup/convert.h"
#include "linux/cgroup/layout.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/cleanup.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

void cgroup_free(struct cgroup_mgr *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nh; i++) {
		free(m->h[i].controllers);
		free(m->h[i].mount);
		free(m->h[i].path);
	}
	free(m->h);
	for (size_t i = 0; i < m->ncreated; i++)
		free(m->created[i]);
	free(m->created);
	if (m->v2_fd >= 0)
		close(m->v2_fd);
	free(m);
}

enum cgroup_layout cgroup_layout_of(const struct cgroup_mgr *m)
{
	return m->layout;
}

struct cg_hier *cg_v2(struct cgroup_mgr *m)
{
	for (size_t i = 0; i < m->nh; i++)
		if (m->h[i].v2)
			return &m->h[i];
	return NULL;
}

bool cg_v2_has_controller(const char *dir, const char *ctrl)
{
	_cleanup_free_ char *s = cg_read(dir, "cgroup.controllers");
	char *save = NULL;

	if (!s)
		return false;
	for (char *t = strtok_r(s, " \n", &save); t; t = strtok_r(NULL, " \n", &save))
		if (strcmp(t, ctrl) == 0)
			return true;
	return false;
}

bool cg_find(struct cgroup_mgr *m, const char *v1name, const char *v2name, struct cg_target *t)
{
	struct cg_hier *v2;

	if (v1name) {
		for (size_t i = 0; i < m->nh; i++) {
			if (!m->h[i].v2 && cg_list_has(m->h[i].controllers, v1name)) {
				t->dir = m->h[i].path;
				t->v2 = false;
				return true;
			}
		}
	}
	v2 = cg_v2(m);
	if (v2 && v2name && (!*v2name || cg_v2_has_controller(v2->path, v2name))) {
		t->dir = v2->path;
		t->v2 = true;
		return true;
	}
	return false;
}

const char *cgroup_path_for(struct cgroup_mgr *m, const char *controller)
{
	struct cg_target t;
	const char *v2name = controller;

	if (!controller)
		return NULL;
	/* v1 names map onto their v2 successors */
	if (strcmp(controller, "blkio") == 0)
		v2name = "io";
	else if (strcmp(controller, "cpuacct") == 0)
		v2name = "cpu";
	else if (strcmp(controller, "freezer") == 0 || strcmp(controller, "devices") == 0)
		v2name = "";
	if (*controller == '\0')
		return cg_v2(m) ? cg_v2(m)->path : NULL;
	return cg_find(m, controller, v2name, &t) ? t.dir : NULL;
}

int cgroup_clone_into_fd(struct cgroup_mgr *m)
{
	return m->layout == CGROUP_LAYOUT_V2 ? m->v2_fd : -1;
}

static int record_created(struct cgroup_mgr *m, const char *dir)
{
	char **nc = realloc(m->created, (m->ncreated + 1) * sizeof *nc);

	if (!nc)
		return -1;
	m->created = nc;
	if (!(nc[m->ncreated] = strdup(dir)))
		return -1;
	m->ncreated++;
	return 0;
}

static void cg_write_raw_at(const char *dir, const char *file, const char *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/%s", dir, file);
	(void)cg_write_raw(path, val);
}

/* A new v1 cpuset is empty and cannot take tasks: fill it from its parent. */
static int cpuset_inherit(const char *parent, const char *dir, struct clasp_error *err)
{
	static const char *const files[] = { "cpuset.cpus", "cpuset.mems" };

	for (int i = 0; i < 2; i++) {
		_cleanup_free_ char *cur = cg_read(dir, files[i]);
		_cleanup_free_ char *par = NULL;

		if (cur && cur[0] != '\n' && cur[0] != '\0')
			continue;
		par = cg_read(parent, files[i]);
		if (!par || par[0] == '\n' || par[0] == '\0')
			return clasp_error_set(err, 0, "%s/%s is empty; cannot populate a child cpuset",
					       parent, files[i]);
		if (cg_write(dir, files[i], par, files[i], err) < 0)
			return -1;
	}
	return 0;
}

/* Delegate every available controller from a v2 directory we created to
 * its children; existing directories are left as the host set them. One
 * that cannot be enabled is skipped: apply names the key that needs it. */
static int v2_enable_subtree(const char *dir, struct clasp_error *err)
{
	_cleanup_free_ char *ctrls = cg_read(dir, "cgroup.controllers");
	char *save = NULL;

	if (!ctrls)
		return clasp_error_set(err, errno, "read %s/cgroup.controllers", dir);
	for (char *t = strtok_r(ctrls, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
		char val[64];
		snprintf(val, sizeof val, "+%s", t);
		cg_write_raw_at(dir, "cgroup.subtree_control", val);
	}
	return 0;
}

/* mkdir -p from the mount point down to h->path, recording what we make. */
static int make_dirs(struct cgroup_mgr *m, struct cg_hier *h, struct clasp_error *err)
{
	char buf[PATH_MAX];
	size_t ml = strlen(h->mount);
	bool cpuset = !h->v2 && cg_list_has(h->controllers, "cpuset");

	if (strlen(h->path) >= sizeof buf)
		return clasp_error_set(err, ENAMETOOLONG, "cgroup path %s", h->path);
	for (int attempt = 0;; attempt++) {
		char *p;
		bool raced = false;

		strcpy(buf, h->path);
		p = buf + ml;
		while (*p == '/')
			p++;
		while (p && *p) {
			char *slash = strchr(p, '/');
			char parent[PATH_MAX];

			if (slash)
				*slash = '\0';
			snprintf(parent, sizeof parent, "%.*s", (int)(p - 1 - buf), buf);
			if (mkdir(buf, 0755) == 0) {
				if (record_created(m, buf) < 0)
					return clasp_error_set(err, ENOMEM, "cgroup");
				if (cpuset && cpuset_inherit(parent, buf, err) < 0)
					return clasp_error_prefix(err, "cgroup %s", buf);
				/* an intermediate directory we made passes controllers on */
				if (h->v2 && slash && v2_enable_subtree(buf, err) < 0)
					return clasp_error_prefix(err, "cgroup %s", buf);
			} else if (errno == ENOENT && attempt < 5) {
				/* a parent we saw was removed meanwhile (another
				 * container's delete): start over */
				raced = true;
				break;
			} else if (errno != EEXIST) {
				if (m->rootless && (errno == EACCES || errno == EPERM || errno == EROFS))
					return 1;
				return clasp_error_set(err, errno, "mkdir %s", buf);
			}
			if (!slash)
				break;
			*slash = '/';
			p = slash + 1;
		}
		if (!raced)
			return 0;
		sleep_ms(1);
	}
}

static int rmdir_retry(const char *dir, bool tree, struct clasp_error *err);

static int remove_created(struct cgroup_mgr *m, struct clasp_error *err)
{
	int rc = 0;

	/* deepest first; a leaf must go, a shared parent may stay in use */
	for (size_t i = m->ncreated; i-- > 0;) {
		bool leaf = false;

		for (size_t j = 0; j < m->nh; j++)
			if (strcmp(m->h[j].path, m->created[i]) == 0)
				leaf = true;
		if (leaf) {
			if (rmdir_retry(m->created[i], true, rc ? NULL : err) < 0)
				rc = -1;
		} else if (rmdir(m->created[i]) < 0 && errno != ENOENT && errno != EBUSY &&
			   errno != ENOTEMPTY && rc == 0) {
			rc = clasp_error_set(err, errno, "rmdir %s", m->created[i]);
		}
		free(m->created[i]);
		m->created[i] = NULL;
	}
	m->ncreated = 0;
	return rc;
}

/* The hierarchies and this container's directory in each, nothing created. */
static int plan_paths(const char *id, const char *cgroups_path, bool rootless, struct cgroup_mgr **out,
		      struct clasp_error *err)
{
	struct cg_mounts ms;
	_cleanup_free_ char *clean = NULL;
	_cleanup_free_ char *dflt = NULL;
	struct cgroup_mgr *m;
	enum cgroup_layout layout;

	*out = NULL;
	if (!cgroups_path || !*cgroups_path) {
		if (!id || !*id || strchr(id, '/'))
			return clasp_error_set(err, 0, "cgroup: invalid container id \"%s\"", id ? id : "");
		if (asprintf(&dflt, "clasp/%s", id) < 0)
			return clasp_error_set(err, ENOMEM, "cgroup");
		cgroups_path = dflt;
	}
	if (cgconv_clean_path(cgroups_path, &clean, err) < 0)
		return clasp_error_prefix(err, "linux.cgroupsPath");
	if (cg_mounts_read(&ms, err) < 0)
		return clasp_error_prefix(err, "cgroup");
	layout = cg_mounts_layout(&ms);
	m = calloc(1, sizeof *m);
	if (!m || !(m->h = calloc(ms.n, sizeof *m->h))) {
		free(m);
		cg_mounts_free(&ms);
		return clasp_error_set(err, ENOMEM, "cgroup");
	}
	m->layout = layout;
	m->v2_fd = -1;
	m->rootless = rootless;
	for (size_t i = 0; i < ms.n; i++) {
		struct cg_hier *h = &m->h[m->nh];

		h->path = cg_resolve_dir(&ms.v[i], clean, layout == CGROUP_LAYOUT_V2);
		h->v2 = ms.v[i].v2;
		h->controllers = steal_pointer(&ms.v[i].controllers);
		h->mount = steal_pointer(&ms.v[i].mount);
		m->nh++;
		if (!h->path) {
			cg_mounts_free(&ms);
			cgroup_free(m);
			return clasp_error_set(err, ENOMEM, "cgroup");
		}
	}
	cg_mounts_free(&ms);
	*out = m;
	return 0;
}

int cgroup_open_interrupted(const char *id, struct cgroup_mgr **out, struct clasp_error *err)
{
	struct cgroup_mgr *m;
	struct stat st;

	*out = NULL;
	/* Only the default clasp/<id>: a directory there is ours by
	 * construction, never a cgroup some config asked us to join. */
	if (plan_paths(id, NULL, geteuid() != 0, &m, err) < 0)
		return -1;
	for (size_t i = 0; i < m->nh; i++)
		if (stat(m->h[i].path, &st) == 0 && S_ISDIR(st.st_mode) && record_created(m, m->h[i].path) < 0) {
			cgroup_free(m);
			return clasp_error_set(err, ENOMEM, "cgroup");
		}
	if (m->ncreated == 0) {
		cgroup_free(m);
		return 0;
	}
	*out = m;
	return 0;
}

int cgroup_create(const char *id, const char *cgroups_path, bool rootless, struct cgroup_mgr **out,
		  struct clasp_error *err)
{
	struct cgroup_mgr *m;

	*out = NULL;
	if (plan_paths(id, cgroups_path, rootless, &m, err) < 0)
		return -1;
	for (size_t i = 0; i < m->nh; i++) {
		int r = make_dirs(m, &m->h[i], err);
		if (r < 0) {
			struct clasp_error ignore;
			remove_created(m, &ignore);
			cgroup_free(m);
			return clasp_error_prefix(err, "create cgroup");
		}
		if (r == 0) {
			struct stat st;
			int e = stat(m->h[i].path, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
			if (e) {
				struct clasp_error ignore;
				remove_created(m, &ignore);
				clasp_error_set(err, e, "create cgroup: %s", m->h[i].path);
				cgroup_free(m);
				return -1;
			}
		}
		if (r > 0) {
			/* rootless without delegation: this hierarchy is not ours */
			free(m->h[i].path);
			m->h[i].path = NULL;
		}
	}
	/* drop hierarchies skipped (rootless) */
	for (size_t i = 0; i < m->nh;) {
		if (!m->h[i].path) {
			free(m->h[i].controllers);
			free(m->h[i].mount);
			memmove(&m->h[i], &m->h[i + 1], (m->nh - i - 1) * sizeof *m->h);
			m->nh--;
		} else {
			i++;
		}
	}
	if (m->rootless && m->nh == 0) {
		/* No hierarchy is delegated to us: no cgroup at all, which the
		 * caller accepts only when the config asks for no limits. */
		cgroup_free(m);
		return 0;
	}
	if (m->layout == CGROUP_LAYOUT_V2 && cg_v2(m)) {
		m->v2_fd = open(cg_v2(m)->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (m->v2_fd < 0) {
			struct clasp_error ignore;
			int e = errno;
			remove_created(m, &ignore);
			cgroup_free(m);
			return clasp_error_set(err, e, "open cgroup directory");
		}
	}
	*out = m;
	return 0;
}

char *cgroup_serialize(const struct cgroup_mgr *m)
{
	struct json_gen *g = json_gen_new(false);
	const char *buf;
	size_t len;
	char *out;

	if (!g)
		return NULL;
	json_gen_object_open(g);
	json_gen_kv_string(g, "layout", cgroup_layout_name(m->layout));
	json_gen_kv_bool(g, "rootless", m->rootless);
	json_gen_string(g, "hierarchies");
	json_gen_array_open(g);
	for (size_t i = 0; i < m->nh; i++) {
		json_gen_object_open(g);
		json_gen_kv_string(g, "controllers", m->h[i].controllers);
		json_gen_kv_string(g, "mount", m->h[i].mount);
		json_gen_kv_string(g, "path", m->h[i].path);
		json_gen_kv_bool(g, "v2", m->h[i].v2);
		json_gen_object_close(g);
	}
	json_gen_array_close(g);
	json_gen_string(g, "created");
	json_gen_array_open(g);
	for (size_t i = 0; i < m->ncreated; i++)
		json_gen_string(g, m->created[i]);
	json_gen_array_close(g);
	json_gen_object_close(g);
	buf = json_gen_buf(g, &len);
	out = buf ? strndup(buf, len) : NULL;
	json_gen_free(g);
	return out;
}

int cgroup_open(const char *serialized, struct cgroup_mgr **out, struct clasp_error *err)
{
	struct json *root = NULL;
	const struct json *hs, *cr, *l;
	struct cgroup_mgr *m;
	const char *ls;

	*out = NULL;
	if (!serialized || json_parse(serialized, strlen(serialized), &root, err) < 0)
		return serialized ? clasp_error_prefix(err, "cgroup state")
				  : clasp_error_set(err, 0, "cgroup state: missing");
	m = calloc(1, sizeof *m);
	if (!m) {
		json_free(root);
		return clasp_error_set(err, ENOMEM, "cgroup state");
	}
	m->v2_fd = -1;
	l = json_get(root, "layout");
	ls = l ? json_string(l) : NULL;
	if (!ls)
		goto bad;
	m->layout = strcmp(ls, "v1") == 0 ? CGROUP_LAYOUT_V1
		    : strcmp(ls, "v2") == 0 ? CGROUP_LAYOUT_V2
					     : CGROUP_LAYOUT_HYBRID;
	m->rootless = json_bool(json_get(root, "rootless"));
	hs = json_get(root, "hierarchies");
	cr = json_get(root, "created");
	if (!hs || json_type(hs) != JSON_ARRAY || !cr || json_type(cr) != JSON_ARRAY)
		goto bad;
	m->h = calloc(json_array_len(hs) + 1, sizeof *m->h);
	m->created = calloc(json_array_len(cr) + 1, sizeof *m->created);
	if (!m->h || !m->created)
		goto bad;
	for (size_t i = 0; i < json_array_len(hs); i++) {
		const struct json *o = json_array_at(hs, i);
		const char *c = json_string(json_get(o, "controllers"));
		const char *mt = json_string(json_get(o, "mount"));
		const char *p = json_string(json_get(o, "path"));
		struct cg_hier *h = &m->h[m->nh];

		if (!c || !mt || !p || p[0] != '/')
			goto bad;
		h->controllers = strdup(c);
		h->mount = strdup(mt);
		h->path = strdup(p);
		h->v2 = json_bool(json_get(o, "v2"));
		m->nh++;
		if (!h->controllers || !h->mount || !h->path)
			goto bad;
	}
	for (size_t i = 0; i < json_array_len(cr); i++) {
		const char *p = json_string(json_array_at(cr, i));
		if (!p || p[0] != '/' || !(m->created[m->ncreated] = strdup(p)))
			goto bad;
		m->ncreated++;
	}
	json_free(root);
	if (m->layout == CGROUP_LAYOUT_V2 && cg_v2(m))
		m->v2_fd = open(cg_v2(m)->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*out = m;
	return 0;
bad:
	json_free(root);
	cgroup_free(m);
	return clasp_error_set(err, 0, "cgroup state: malformed");
}

int cgroup_enter(struct cgroup_mgr *m, pid_t pid, struct clasp_error *err)
{
	char val[32];

	snprintf(val, sizeof val, "%d", (int)pid);
	for (size_t i = 0; i < m->nh; i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof path, "%s/cgroup.procs", m->h[i].path);
		if (cg_write_raw(path, val) < 0)
			return clasp_error_set(err, errno, "join cgroup: write %s to %s", val, path);
	}
	return 0;
}

/* rmdir, removing sub-cgroups the container made first; EBUSY while the
 * last tasks are still exiting, so retry for a while. */
static int rmdir_retry(const char *dir, bool tree, struct clasp_error *err)
{
	if (tree) {
		_cleanup_closedir_ DIR *d = opendir(dir);
		struct dirent *de;

		while (d && (de = readdir(d))) {
			char sub[PATH_MAX];

			if (de->d_type != DT_DIR || de->d_name[0] == '.')
				continue;
			snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
			if (rmdir_retry(sub, true, err) < 0)
				return -1;
		}
	}
	for (int i = 0;; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY || i >= 200)
			return clasp_error_set(err, errno, "rmdir %s", dir);
		sleep_ms(i < 10 ? 2 : 20);
	}
}

int cgroup_destroy(struct cgroup_mgr *m, struct clasp_error *err)
{
	pid_t *pids = NULL;
	size_t n = 0;
	struct clasp_error ignore;

	/* best effort: anything left running would keep the cgroup busy */
	if (cgroup_pids(m, &pids, &n, &ignore) == 0 && n > 0)
		cgroup_kill_all(m, SIGKILL, &ignore);
	free(pids);
	if (m->v2_fd >= 0) {
		close(m->v2_fd);
		m->v2_fd = -1;
	}
	if (remove_created(m, err) < 0)
		return clasp_error_prefix(err, "remove cgroup");
	return 0;
}
