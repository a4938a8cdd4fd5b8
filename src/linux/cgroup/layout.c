/* Host layout discovery: which cgroup hierarchies are mounted where
 * (/proc/self/mountinfo) and where this process sits in each
 * (/proc/self/cgroup), which is what relative cgroupsPaths hang off. */
#include "linux/cgroup/layout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"

static const char *const known_v1[] = { "cpu",     "cpuacct", "cpuset",     "memory", "devices",
					"freezer", "net_cls", "net_prio",   "blkio",  "perf_event",
					"hugetlb", "pids",    "rdma",       "misc",   NULL };

static bool is_known_v1(const char *c)
{
	for (int i = 0; known_v1[i]; i++)
		if (strcmp(known_v1[i], c) == 0)
			return true;
	return false;
}

bool cg_list_has(const char *list, const char *item)
{
	size_t il = strlen(item);
	const char *p = list;

	while (p && *p) {
		const char *e = strchrnul(p, ',');
		if ((size_t)(e - p) == il && strncmp(p, item, il) == 0)
			return true;
		p = *e ? e + 1 : NULL;
	}
	return false;
}

void cg_mounts_free(struct cg_mounts *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		free(ms->v[i].controllers);
		free(ms->v[i].mount);
		free(ms->v[i].root);
		free(ms->v[i].own);
	}
	free(ms->v);
	ms->v = NULL;
	ms->n = 0;
}

/* mountinfo escapes spaces etc. as \ooo */
static void unescape(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
		    s[3] <= '7') {
			*o++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

static int add_mount(struct cg_mounts *ms, char *controllers, const char *mount, const char *root,
		     bool v2)
{
	struct cg_mount *nv;

	for (size_t i = 0; i < ms->n; i++) {
		/* the same hierarchy mounted twice: keep the first */
		if (ms->v[i].v2 == v2 && strcmp(ms->v[i].controllers, controllers) == 0) {
			free(controllers);
			return 0;
		}
	}
	nv = realloc(ms->v, (ms->n + 1) * sizeof *nv);
	if (!nv) {
		free(controllers);
		return -1;
	}
	ms->v = nv;
	nv = &ms->v[ms->n];
	memset(nv, 0, sizeof *nv);
	nv->controllers = controllers;
	nv->mount = strdup(mount);
	nv->root = strdup(root);
	nv->v2 = v2;
	ms->n++;
	return nv->mount && nv->root ? 0 : -1;
}

/* The controllers of a v1 mount from its super options, in order. */
static char *v1_controllers(const char *opts)
{
	size_t len = strlen(opts);
	char *out = calloc(1, len + 1);
	_cleanup_free_ char *dup = strdup(opts);
	char *save = NULL;

	if (!out || !dup) {
		free(out);
		return NULL;
	}
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!is_known_v1(t))
			continue;
		if (*out)
			strcat(out, ",");
		strcat(out, t);
	}
	return out;
}

static int read_own(struct cg_mounts *ms)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/cgroup", "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		char *c1 = strchr(line, ':'), *c2, *nl;

		if (!c1 || !(c2 = strchr(c1 + 1, ':')))
			continue;
		*c1 = *c2 = '\0';
		if ((nl = strchr(c2 + 1, '\n')))
			*nl = '\0';
		for (size_t i = 0; i < ms->n; i++) {
			struct cg_mount *m = &ms->v[i];
			bool match;
			const char *first_end;

			if (m->own)
				continue;
			if (m->v2) {
				match = strcmp(line, "0") == 0 && c1[1] == '\0';
			} else {
				/* same hierarchy when its first controller is listed */
				_cleanup_free_ char *first = strdup(m->controllers);
				if (!first)
					break;
				first_end = strchrnul(first, ',');
				first[first_end - first] = '\0';
				match = cg_list_has(c1 + 1, first);
			}
			if (match)
				m->own = strdup(c2 + 1);
		}
	}
	free(line);
	return 0;
}

int cg_mounts_read(struct cg_mounts *ms, struct clasp_error *err)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	memset(ms, 0, sizeof *ms);
	if (!f)
		return clasp_error_set(err, errno, "open /proc/self/mountinfo");
	while (rc == 0 && getline(&line, &cap, f) > 0) {
		char *fields[7] = { 0 }, *save = NULL, *dash, *fstype, *src, *sopts;
		int i = 0;

		dash = strstr(line, " - ");
		if (!dash)
			continue;
		*dash = '\0';
		for (char *t = strtok_r(line, " ", &save); t && i < 7; t = strtok_r(NULL, " ", &save))
			fields[i++] = t;
		if (i < 5)
			continue;
		save = NULL;
		fstype = strtok_r(dash + 3, " ", &save);
		src = strtok_r(NULL, " ", &save);
		sopts = strtok_r(NULL, " \n", &save);
		(void)src;
		if (!fstype || !sopts)
			continue;
		unescape(fields[3]);
		unescape(fields[4]);
		if (strcmp(fstype, "cgroup2") == 0) {
			char *c = strdup("");
			rc = c ? add_mount(ms, c, fields[4], fields[3], true) : -1;
		} else if (strcmp(fstype, "cgroup") == 0) {
			char *c = v1_controllers(sopts);
			if (c && !*c) {
				free(c); /* a named hierarchy (name=systemd): not ours to use */
				continue;
			}
			rc = c ? add_mount(ms, c, fields[4], fields[3], false) : -1;
		}
	}
	free(line);
	if (rc < 0) {
		cg_mounts_free(ms);
		return clasp_error_set(err, ENOMEM, "read /proc/self/mountinfo");
	}
	if (ms->n == 0)
		return clasp_error_set(err, 0, "no cgroup filesystem is mounted");
	read_own(ms);
	return 0;
}

enum cgroup_layout cg_mounts_layout(const struct cg_mounts *ms)
{
	bool v1 = false, v2 = false;

	for (size_t i = 0; i < ms->n; i++) {
		if (ms->v[i].v2)
			v2 = true;
		else
			v1 = true;
	}
	if (v1 && v2)
		return CGROUP_LAYOUT_HYBRID;
	return v2 ? CGROUP_LAYOUT_V2 : CGROUP_LAYOUT_V1;
}

int cgroup_detect_layout(enum cgroup_layout *out, struct clasp_error *err)
{
	struct cg_mounts ms;

	if (cg_mounts_read(&ms, err) < 0)
		return -1;
	*out = cg_mounts_layout(&ms);
	cg_mounts_free(&ms);
	return 0;
}

const char *cgroup_layout_name(enum cgroup_layout l)
{
	switch (l) {
	case CGROUP_LAYOUT_V1:
		return "v1";
	case CGROUP_LAYOUT_V2:
		return "v2";
	default:
		return "hybrid";
	}
}

/* The base a relative path hangs off: the process's own cgroup (v1 and
 * hybrid), or its parent on pure v2, since a cgroup holding processes
 * cannot delegate controllers to children there (runc does the same). */
char *cg_resolve_dir(const struct cg_mount *m, const char *clean_path, bool pure_v2)
{
	char *out = NULL;
	const char *own = m->own ? m->own : "/";
	_cleanup_free_ char *base = NULL;
	size_t rl = strlen(m->root);

	if (clean_path[0] == '/') {
		if (asprintf(&out, "%s%s", m->mount, clean_path) < 0)
			return NULL;
		return out;
	}
	/* own is relative to the hierarchy root; the mount may show a subtree */
	if (strcmp(m->root, "/") != 0 && strncmp(own, m->root, rl) == 0 &&
	    (own[rl] == '/' || own[rl] == '\0'))
		own += rl;
	base = strdup(own);
	if (!base)
		return NULL;
	if (pure_v2) {
		char *s = strrchr(base, '/');
		if (s)
			*s = '\0';
	}
	{
		size_t bl = strlen(base);
		while (bl > 0 && base[bl - 1] == '/')
			base[--bl] = '\0';
	}
	if (asprintf(&out, "%s%s%s/%s", m->mount, base[0] && base[0] != '/' ? "/" : "", base,
		     clean_path) < 0)
		return NULL;
	return out;
}
