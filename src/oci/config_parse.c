/* config.json -> struct oci_config: the trust boundary for bundle input.
 * This file holds the raw-input checks (size, NUL, depth, duplicate keys),
 * the top level (root, mounts, hooks, annotations) and loading from a
 * bundle; the sections live in config_{process,linux,resources,seccomp}.c
 * and the path-tracking readers in config_read.c. Everything is checked for
 * type and range here so later layers can use the typed config as is. */
#include "oci/config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/config_parse_internal.h"
#include "util/cleanup.h"

/* Deeper nesting than this is never a real config; the limit keeps yajl's
 * recursive tree free (and any walker) far from the stack's end. */
#define CONFIG_MAX_DEPTH 64
#define CONFIG_MAX_SIZE (32u << 20)

/* ---- top level ---- */

/* SemVer 2.0.0 core (MAJOR.MINOR.PATCH, no leading zeros) with an optional
 * pre-release and/or build suffix of [0-9A-Za-z.+-]. */
static bool is_semver(const char *s)
{
	int part;

	for (part = 0; part < 3; part++) {
		if (*s < '0' || *s > '9')
			return false;
		if (*s == '0' && s[1] >= '0' && s[1] <= '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
		if (part < 2 && *s++ != '.')
			return false;
	}
	if (*s == '-' || *s == '+') {
		if (!s[1])
			return false;
		for (s++; *s; s++)
			if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
			      (*s >= 'A' && *s <= 'Z') || *s == '.' || *s == '-' || *s == '+'))
				return false;
	}
	return *s == '\0';
}

static int parse_root(struct pctx *p, const struct json *doc, struct oci_config *cfg)
{
	const struct json *root;
	size_t mark;
	int r = 0;

	/* Optional in config.md for Hyper-V only; every Linux container needs it. */
	if (pc_object(p, doc, "root", true, &root) < 0)
		return -1;
	mark = pc_push_key(p, "root");
	if (pc_str(p, root, "path", true, &cfg->root_path) < 0 ||
	    pc_bool(p, root, "readonly", &cfg->root_readonly) < 0)
		r = -1;
	else if (!cfg->root_path[0])
		r = pc_fail_at(p, "path", "must not be empty");
	pc_pop(p, mark);
	return r;
}

static int parse_mount(struct pctx *p, const struct json *e, struct oci_mount *m)
{
	char *dest = NULL;

	if (pv_object(p, e) < 0 || pc_str(p, e, "destination", true, &dest) < 0 ||
	    pc_str(p, e, "source", false, &m->source) < 0 ||
	    pc_str(p, e, "type", false, &m->type) < 0 ||
	    pc_strv(p, e, "options", false, &m->options) < 0 ||
	    pc_idmaps(p, e, "uidMappings", &m->uid_mappings, &m->n_uid_mappings) < 0 ||
	    pc_idmaps(p, e, "gidMappings", &m->gid_mappings, &m->n_gid_mappings) < 0)
		return -1;
	if (!dest[0])
		return pc_fail_at(p, "destination", "must not be empty");
	/* Relative destinations are deprecated but allowed on Linux, meaning
	 * relative to "/"; normalize so no later layer has to care. */
	m->destination = dest[0] == '/' ? dest : arena_printf(p->a, "/%s", dest);
	if (!!pc_field(e, "uidMappings") != !!pc_field(e, "gidMappings"))
		return pc_fail_at(p, pc_field(e, "uidMappings") ? "gidMappings" : "uidMappings",
				  "required when %s is set",
				  pc_field(e, "uidMappings") ? "uidMappings" : "gidMappings");
	return 0;
}

static int parse_mounts(struct pctx *p, const struct json *doc, struct oci_config *cfg)
{
	const struct json *arr;
	size_t i, n, mark, imark;
	int r = 0;

	if (pc_array(p, doc, "mounts", false, &arr, &n) < 0)
		return -1;
	if (!arr)
		return 0;
	cfg->mounts = arena_alloc(p->a, (n ? n : 1) * sizeof *cfg->mounts);
	cfg->n_mounts = n;
	mark = pc_push_key(p, "mounts");
	for (i = 0; i < n && r == 0; i++) {
		imark = pc_push_index(p, i);
		r = parse_mount(p, json_array_at(arr, i), &cfg->mounts[i]);
		pc_pop(p, imark);
	}
	pc_pop(p, mark);
	return r;
}

static const char *const hook_names[] = {
	"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop",
	NULL,
};

static int parse_hook(struct pctx *p, const struct json *e, struct oci_hook *h)
{
	if (pv_object(p, e) < 0 || pc_str(p, e, "path", true, &h->path) < 0 ||
	    pc_strv(p, e, "args", false, &h->args) < 0 || pc_strv(p, e, "env", false, &h->env) < 0 ||
	    pc_opt_i64(p, e, "timeout", 1, INT64_MAX, &h->timeout) < 0)
		return -1;
	if (h->path[0] != '/') {
		size_t mark = pc_push_key(p, "path");
		int r = pv_abs_path(p, h->path);

		pc_pop(p, mark);
		return r;
	}
	return 0;
}

static int parse_hooks(struct pctx *p, const struct json *doc, struct oci_config *cfg)
{
	const struct json *hooks, *arr;
	size_t k, i, n, mark, kmark, imark;
	int r = 0;

	if (pc_object(p, doc, "hooks", false, &hooks) < 0)
		return -1;
	if (!hooks)
		return 0;
	mark = pc_push_key(p, "hooks");
	for (k = 0; k < OCI_HOOK_KIND_COUNT && r == 0; k++) {
		struct oci_hook_list *l = &cfg->hooks[k];

		if (pc_array(p, hooks, hook_names[k], false, &arr, &n) < 0) {
			r = -1;
			break;
		}
		if (!arr)
			continue;
		l->v = arena_alloc(p->a, (n ? n : 1) * sizeof *l->v);
		l->n = n;
		kmark = pc_push_key(p, hook_names[k]);
		for (i = 0; i < n && r == 0; i++) {
			imark = pc_push_index(p, i);
			r = parse_hook(p, json_array_at(arr, i), &l->v[i]);
			pc_pop(p, imark);
		}
		pc_pop(p, kmark);
	}
	pc_pop(p, mark);
	return r;
}

static int parse_document(struct pctx *p, const struct json *doc, struct oci_config *cfg)
{
	const struct json *v;
	size_t mark;
	int r;

	if (pv_object(p, doc) < 0)
		return -1;
	if (pc_str(p, doc, "ociVersion", true, &cfg->oci_version) < 0)
		return -1;
	if (!is_semver(cfg->oci_version))
		return pc_fail_at(p, "ociVersion", "\"%s\" is not a SemVer version (MAJOR.MINOR.PATCH)",
				  cfg->oci_version);
	if (parse_root(p, doc, cfg) < 0 || parse_mounts(p, doc, cfg) < 0)
		return -1;
	if (pc_object(p, doc, "process", false, &v) < 0)
		return -1;
	if (v) {
		cfg->process = arena_alloc(p->a, sizeof *cfg->process);
		mark = pc_push_key(p, "process");
		r = pc_process(p, v, cfg->process);
		pc_pop(p, mark);
		if (r < 0)
			return -1;
	}
	if (pc_str(p, doc, "hostname", false, &cfg->hostname) < 0 ||
	    pc_str(p, doc, "domainname", false, &cfg->domainname) < 0 ||
	    parse_hooks(p, doc, cfg) < 0)
		return -1;
	if (pc_string_map(p, doc, "annotations", &cfg->annotations) < 0)
		return -1;
	if (pc_object(p, doc, "linux", false, &v) < 0)
		return -1;
	if (v) {
		cfg->has_linux = true;
		mark = pc_push_key(p, "linux");
		r = pc_linux(p, v, &cfg->linux_);
		pc_pop(p, mark);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* yajl keeps every duplicate key and json_get() returns the first, while Go
 * clients (and runc) take the last: refuse duplicates, so that clasp and
 * whatever validated the config upstream cannot disagree about a value.
 * Recursion is bounded by prescan()'s depth limit. */
static int check_unique_keys(struct pctx *p, const struct json *v)
{
	size_t i, j, n, mark;
	int r = 0;

	if (json_type(v) == JSON_ARRAY) {
		n = json_array_len(v);
		for (i = 0; i < n && r == 0; i++) {
			mark = pc_push_index(p, i);
			r = check_unique_keys(p, json_array_at(v, i));
			pc_pop(p, mark);
		}
		return r;
	}
	if (json_type(v) != JSON_OBJECT)
		return 0;
	n = json_object_len(v);
	if (n > 1 && n <= 16) {
		for (i = 1; i < n; i++)
			for (j = 0; j < i; j++)
				if (strcmp(json_object_key(v, i), json_object_key(v, j)) == 0)
					return pc_fail(p, "duplicate key \"%s\"", json_object_key(v, i));
	} else if (n > 16) {
		_cleanup_free_ const char **keys = malloc(n * sizeof *keys);

		if (!keys)
			return clasp_error_set(p->err, ENOMEM, "%s", p->origin);
		for (i = 0; i < n; i++)
			keys[i] = json_object_key(v, i);
		qsort(keys, n, sizeof *keys, cmp_str);
		for (i = 1; i < n; i++)
			if (strcmp(keys[i], keys[i - 1]) == 0)
				return pc_fail(p, "duplicate key \"%s\"", keys[i]);
	}
	for (i = 0; i < n && r == 0; i++) {
		mark = pc_push_key(p, json_object_key(v, i));
		r = check_unique_keys(p, json_object_value(v, i));
		pc_pop(p, mark);
	}
	return r;
}

/* yajl keeps strings NUL-terminated without their length, so a "\u0000"
 * escape would silently cut a string short (a path, an annotation); refuse
 * it before parsing. The same pass bounds the nesting depth. */
static int prescan(const char *text, size_t len, const char *origin, struct clasp_error *err)
{
	bool in_str = false;
	size_t i, depth = 0;

	for (i = 0; i < len; i++) {
		char c = text[i];

		if (c == '\0')
			return clasp_error_set(err, 0, "%s: invalid JSON: NUL byte at offset %zu",
					       origin, i);
		if (in_str) {
			if (c == '"') {
				in_str = false;
			} else if (c == '\\' && i + 1 < len) {
				i++;
				if (text[i] == 'u' && i + 4 < len && memcmp(text + i + 1, "0000", 4) == 0)
					return clasp_error_set(
						err, 0,
						"%s: string contains a NUL character (\\u0000) at offset %zu",
						origin, i - 1);
			}
		} else if (c == '"') {
			in_str = true;
		} else if (c == '[' || c == '{') {
			if (++depth > CONFIG_MAX_DEPTH)
				return clasp_error_set(err, 0,
						       "%s: invalid JSON: nesting deeper than %d levels",
						       origin, CONFIG_MAX_DEPTH);
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
	}
	return 0;
}

int oci_config_parse(const char *text, size_t len, const char *origin, struct oci_config **out,
		     struct clasp_error *err)
{
	struct json *doc = NULL;
	struct oci_config *cfg;
	struct pctx p = {0};
	struct arena *a;
	int r;

	*out = NULL;
	if (!origin)
		origin = "config.json";
	if (prescan(text, len, origin, err) < 0)
		return -1;
	if (json_parse(text, len, &doc, err) < 0)
		return clasp_error_prefix(err, "%s", origin);
	a = arena_new();
	cfg = arena_alloc(a, sizeof *cfg);
	cfg->arena = a;
	p.a = a;
	p.origin = origin;
	p.err = err;
	r = check_unique_keys(&p, doc);
	if (r == 0)
		r = parse_document(&p, doc, cfg);
	json_free(doc);
	if (r < 0) {
		arena_free(a);
		return -1;
	}
	*out = cfg;
	return 0;
}

int oci_process_parse(const char *text, size_t len, const char *origin, struct arena *arena,
		      struct oci_process **out, struct clasp_error *err)
{
	struct json *doc = NULL;
	struct oci_process *pr;
	struct pctx p = {0};
	int r;

	*out = NULL;
	if (!origin)
		origin = "process.json";
	if (prescan(text, len, origin, err) < 0)
		return -1;
	if (json_parse(text, len, &doc, err) < 0)
		return clasp_error_prefix(err, "%s", origin);
	p.a = arena;
	p.origin = origin;
	p.err = err;
	/* On failure the partial object stays in the arena until it is freed. */
	pr = arena_alloc(arena, sizeof *pr);
	r = check_unique_keys(&p, doc);
	if (r == 0)
		r = pv_object(&p, doc);
	if (r == 0)
		r = pc_process(&p, doc, pr);
	json_free(doc);
	if (r < 0)
		return -1;
	*out = pr;
	return 0;
}

static int read_all(int fd, char **buf, size_t *len, struct clasp_error *err)
{
	_cleanup_free_ char *data = NULL;
	size_t cap = 0, n = 0;
	ssize_t got;

	for (;;) {
		if (n == cap) {
			char *tmp;

			if (cap >= CONFIG_MAX_SIZE)
				return clasp_error_set(err, EFBIG, "read config.json (limit %u MiB)",
						       CONFIG_MAX_SIZE >> 20);
			cap = cap ? cap * 2 : 16384;
			tmp = realloc(data, cap + 1);
			if (!tmp)
				return clasp_error_set(err, ENOMEM, "read config.json");
			data = tmp;
		}
		got = read(fd, data + n, cap - n);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return clasp_error_set(err, errno, "read config.json");
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	data[n] = '\0';
	*buf = steal_pointer(&data);
	*len = n;
	return 0;
}

int oci_config_load(const char *bundle, struct oci_config **out, struct clasp_error *err)
{
	_cleanup_close_ int dirfd = -1, fd = -1;
	_cleanup_free_ char *text = NULL;
	struct stat st;
	size_t len = 0;

	*out = NULL;
	dirfd = open(bundle && *bundle ? bundle : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return clasp_error_set(err, errno, "open bundle %s", bundle && *bundle ? bundle : ".");
	/* O_NONBLOCK: a FIFO named config.json must not hang create. */
	fd = openat(dirfd, "config.json", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return clasp_error_set(err, errno, "open config.json");
	if (fstat(fd, &st) < 0)
		return clasp_error_set(err, errno, "stat config.json");
	if (!S_ISREG(st.st_mode))
		return clasp_error_set(err, 0, "open config.json: not a regular file");
	if (read_all(fd, &text, &len, err) < 0)
		return -1;
	return oci_config_parse(text, len, "config.json", out, err);
}

void oci_config_free(struct oci_config *cfg)
{
	if (cfg)
		arena_free(cfg->arena);
}

const struct oci_namespace *oci_config_namespace(const struct oci_config *cfg, enum oci_ns_type t)
{
	size_t i;

	if (!cfg)
		return NULL;
	for (i = 0; i < cfg->linux_.n_namespaces; i++)
		if (cfg->linux_.namespaces[i].type == t)
			return &cfg->linux_.namespaces[i];
	return NULL;
}

const char *oci_config_annotation(const struct oci_config *cfg, const char *key)
{
	size_t i;

	if (!cfg || !key)
		return NULL;
	for (i = 0; i < cfg->annotations.n; i++)
		if (strcmp(cfg->annotations.v[i].key, key) == 0)
			return cfg->annotations.v[i].value;
	return NULL;
}

const char *oci_ns_type_name(enum oci_ns_type t)
{
	static const char *const names[OCI_NS_COUNT] = {
		"pid", "network", "mount", "ipc", "uts", "user", "cgroup", "time",
	};

	return (unsigned)t < OCI_NS_COUNT ? names[t] : "unknown";
}

const char *oci_hook_kind_name(enum oci_hook_kind k)
{
	return (unsigned)k < OCI_HOOK_KIND_COUNT ? hook_names[k] : "unknown";
}
