/* Path-tracking typed readers shared by the config_*.c section parsers
 * (declared in config_parse_internal.h). Keeping type and range checks in
 * one place keeps every error message of one shape:
 * "ORIGIN: .json.path: reason". */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "oci/config_parse_internal.h"

/* ---- path stack ---- */

static void pc_append(struct pctx *p, const char *s, size_t n)
{
	if (p->truncated)
		return;
	if (p->len + n + 4 >= sizeof p->path) {
		memcpy(p->path + p->len, "...", 4);
		p->len += 3;
		p->truncated = true;
		return;
	}
	memcpy(p->path + p->len, s, n);
	p->len += n;
	p->path[p->len] = '\0';
}

static bool is_ident(const char *k)
{
	if (!*k || (*k >= '0' && *k <= '9'))
		return false;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		      (*k >= '0' && *k <= '9') || *k == '_'))
			return false;
	return true;
}

size_t pc_push_key(struct pctx *p, const char *key)
{
	size_t mark = p->len;
	char buf[160];
	size_t n = 0;
	const unsigned char *k;

	if (is_ident(key) && strlen(key) <= 64) {
		pc_append(p, ".", 1);
		pc_append(p, key, strlen(key));
		return mark;
	}
	/* jq style: .annotations["com.example.key"], escaped and shortened. */
	buf[n++] = '[';
	buf[n++] = '"';
	for (k = (const unsigned char *)key; *k && n < sizeof buf - 12; k++) {
		if (*k == '"' || *k == '\\') {
			buf[n++] = '\\';
			buf[n++] = (char)*k;
		} else if (*k < 0x20 || *k == 0x7f) {
			n += (size_t)snprintf(buf + n, sizeof buf - n, "\\x%02x", *k);
		} else {
			buf[n++] = (char)*k;
		}
	}
	if (*k) {
		memcpy(buf + n, "...", 3); // NOLINT(bugprone-not-null-terminated-result): buf is length-counted, not a C string
		n += 3;
	}
	buf[n++] = '"';
	buf[n++] = ']';
	pc_append(p, buf, n);
	return mark;
}

size_t pc_push_index(struct pctx *p, size_t i)
{
	size_t mark = p->len;
	char buf[32];
	int n = snprintf(buf, sizeof buf, "[%zu]", i);

	pc_append(p, buf, (size_t)n);
	return mark;
}

void pc_pop(struct pctx *p, size_t mark)
{
	if (mark < p->len) {
		p->len = mark;
		p->path[mark] = '\0';
		p->truncated = false;
	}
}

static int pc_vfail(struct pctx *p, const char *fmt, va_list ap)
{
	char reason[CLASP_ERROR_MAX / 2], safe[CLASP_ERROR_MAX / 2];
	const unsigned char *r;
	size_t n = 0;

	vsnprintf(reason, sizeof reason, fmt, ap);
	/* Reasons quote config values; keep control bytes (terminal escapes,
	 * newlines that would forge log lines) out of the message. */
	for (r = (const unsigned char *)reason; *r && n + 5 < sizeof safe; r++) {
		if (*r < 0x20 || *r == 0x7f)
			n += (size_t)snprintf(safe + n, sizeof safe - n, "\\x%02x", *r);
		else
			safe[n++] = (char)*r;
	}
	safe[n] = '\0';
	return clasp_error_set(p->err, 0, "%s: %s: %s", p->origin, p->len ? p->path : ".", safe);
}

int pc_fail(struct pctx *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pc_vfail(p, fmt, ap);
	va_end(ap);
	return -1;
}

int pc_fail_at(struct pctx *p, const char *key, const char *fmt, ...)
{
	size_t mark = pc_push_key(p, key);
	va_list ap;

	va_start(ap, fmt);
	pc_vfail(p, fmt, ap);
	va_end(ap);
	pc_pop(p, mark);
	return -1;
}

/* ---- value checks ---- */

const struct json *pc_field(const struct json *obj, const char *key)
{
	const struct json *v = json_get(obj, key);

	return v && json_type(v) != JSON_NULL ? v : NULL;
}

int pv_object(struct pctx *p, const struct json *v)
{
	return json_type(v) == JSON_OBJECT ? 0 : pc_fail(p, "expected an object");
}

int pv_array(struct pctx *p, const struct json *v)
{
	return json_type(v) == JSON_ARRAY ? 0 : pc_fail(p, "expected an array");
}

int pv_string(struct pctx *p, const struct json *v, char **out)
{
	const char *s = json_string(v);

	if (!s)
		return pc_fail(p, "expected a string");
	*out = arena_strdup(p->a, s);
	return 0;
}

int pv_i64(struct pctx *p, const struct json *v, int64_t min, int64_t max, int64_t *out)
{
	int64_t n;

	if (json_int64(v, &n) && n >= min && n <= max) {
		*out = n;
		return 0;
	}
	if (min == INT64_MIN && max == INT64_MAX)
		return pc_fail(p, "expected an integer");
	if (min == 1 && max == INT64_MAX)
		return pc_fail(p, "expected a positive integer");
	return pc_fail(p, "expected an integer between %" PRId64 " and %" PRId64, min, max);
}

int pv_u64(struct pctx *p, const struct json *v, uint64_t max, uint64_t *out)
{
	const char *text = json_number_text(v);
	uint64_t n;

	if (json_uint64(v, &n) && n <= max) {
		*out = n;
		return 0;
	}
	/* A non-negative integer that is merely too large gets the range. */
	if (text && text[0] != '-' && strspn(text, "0123456789") == strlen(text))
		return pc_fail(p, "expected an integer between 0 and %" PRIu64, max);
	return pc_fail(p, "expected a non-negative integer");
}

int pv_strv(struct pctx *p, const struct json *v, struct strv *out)
{
	size_t i, n, mark;

	if (pv_array(p, v) < 0)
		return -1;
	n = json_array_len(v);
	out->v = arena_alloc(p->a, (n + 1) * sizeof(char *));
	out->n = n;
	for (i = 0; i < n; i++) {
		mark = pc_push_index(p, i);
		if (pv_string(p, json_array_at(v, i), &out->v[i]) < 0)
			return -1;
		pc_pop(p, mark);
	}
	out->v[n] = NULL;
	return 0;
}

int pv_abs_path(struct pctx *p, const char *s)
{
	return s[0] == '/' ? 0 : pc_fail(p, "\"%s\" is not an absolute path", s);
}

/* ---- member readers ---- */

int pc_object(struct pctx *p, const struct json *obj, const char *key, bool req,
	      const struct json **out)
{
	const struct json *v = pc_field(obj, key);
	size_t mark;
	int r;

	*out = NULL;
	if (!v)
		return req ? pc_fail_at(p, key, "required field missing") : 0;
	mark = pc_push_key(p, key);
	r = pv_object(p, v);
	pc_pop(p, mark);
	if (r == 0)
		*out = v;
	return r;
}

int pc_array(struct pctx *p, const struct json *obj, const char *key, bool req,
	     const struct json **out, size_t *n)
{
	const struct json *v = pc_field(obj, key);
	size_t mark;
	int r;

	*out = NULL;
	*n = 0;
	if (!v)
		return req ? pc_fail_at(p, key, "required field missing") : 0;
	mark = pc_push_key(p, key);
	r = pv_array(p, v);
	pc_pop(p, mark);
	if (r == 0) {
		*out = v;
		*n = json_array_len(v);
	}
	return r;
}

int pc_str(struct pctx *p, const struct json *obj, const char *key, bool req, char **out)
{
	const struct json *v = pc_field(obj, key);
	size_t mark;
	int r;

	if (!v)
		return req ? pc_fail_at(p, key, "required field missing") : 0;
	mark = pc_push_key(p, key);
	r = pv_string(p, v, out);
	pc_pop(p, mark);
	return r;
}

int pc_bool(struct pctx *p, const struct json *obj, const char *key, bool *out)
{
	const struct json *v = pc_field(obj, key);

	if (!v)
		return 0;
	if (json_type(v) != JSON_BOOL)
		return pc_fail_at(p, key, "expected a boolean");
	*out = json_bool(v);
	return 0;
}

int pc_opt_bool(struct pctx *p, const struct json *obj, const char *key, opt_bool *out)
{
	if (!pc_field(obj, key))
		return 0;
	out->set = true;
	return pc_bool(p, obj, key, &out->v);
}

int pc_i64(struct pctx *p, const struct json *obj, const char *key, bool req, int64_t min,
	   int64_t max, int64_t *out)
{
	const struct json *v = pc_field(obj, key);
	size_t mark;
	int r;

	if (!v)
		return req ? pc_fail_at(p, key, "required field missing") : 0;
	mark = pc_push_key(p, key);
	r = pv_i64(p, v, min, max, out);
	pc_pop(p, mark);
	return r;
}

int pc_opt_i64(struct pctx *p, const struct json *obj, const char *key, int64_t min, int64_t max,
	       opt_i64 *out)
{
	if (!pc_field(obj, key))
		return 0;
	out->set = true;
	return pc_i64(p, obj, key, true, min, max, &out->v);
}

int pc_u64(struct pctx *p, const struct json *obj, const char *key, bool req, uint64_t max,
	   uint64_t *out)
{
	const struct json *v = pc_field(obj, key);
	size_t mark;
	int r;

	if (!v)
		return req ? pc_fail_at(p, key, "required field missing") : 0;
	mark = pc_push_key(p, key);
	r = pv_u64(p, v, max, out);
	pc_pop(p, mark);
	return r;
}

int pc_u32(struct pctx *p, const struct json *obj, const char *key, bool req, uint32_t *out)
{
	uint64_t n = *out;

	if (pc_u64(p, obj, key, req, UINT32_MAX, &n) < 0)
		return -1;
	*out = (uint32_t)n;
	return 0;
}

int pc_opt_u64(struct pctx *p, const struct json *obj, const char *key, uint64_t max,
	       opt_u64 *out)
{
	if (!pc_field(obj, key))
		return 0;
	out->set = true;
	return pc_u64(p, obj, key, true, max, &out->v);
}

int pc_strv(struct pctx *p, const struct json *obj, const char *key, bool req, struct strv *out)
{
	const struct json *v = pc_field(obj, key);
	size_t mark;
	int r;

	if (!v)
		return req ? pc_fail_at(p, key, "required field missing") : 0;
	mark = pc_push_key(p, key);
	r = pv_strv(p, v, out);
	pc_pop(p, mark);
	return r;
}

int pc_string_map(struct pctx *p, const struct json *obj, const char *key, struct kvlist *out)
{
	const struct json *m;
	size_t i, n, mark, kmark;
	int r = 0;

	if (pc_object(p, obj, key, false, &m) < 0)
		return -1;
	if (!m)
		return 0;
	mark = pc_push_key(p, key);
	n = json_object_len(m);
	out->v = arena_alloc(p->a, (n ? n : 1) * sizeof *out->v);
	out->n = n;
	for (i = 0; i < n && r == 0; i++) {
		const char *k = json_object_key(m, i);

		if (!*k) {
			r = pc_fail(p, "empty key");
			break;
		}
		kmark = pc_push_key(p, k);
		out->v[i].key = arena_strdup(p->a, k);
		r = pv_string(p, json_object_value(m, i), &out->v[i].value);
		pc_pop(p, kmark);
	}
	pc_pop(p, mark);
	return r;
}

int pc_idmaps(struct pctx *p, const struct json *obj, const char *key, struct oci_idmap **v,
	      size_t *n)
{
	const struct json *arr;
	size_t i, len, mark, imark;
	int r = 0;

	if (pc_array(p, obj, key, false, &arr, &len) < 0)
		return -1;
	if (!arr)
		return 0;
	mark = pc_push_key(p, key);
	*v = arena_alloc(p->a, (len ? len : 1) * sizeof **v);
	*n = len;
	for (i = 0; i < len && r == 0; i++) {
		const struct json *e = json_array_at(arr, i);
		struct oci_idmap *m = &(*v)[i];

		imark = pc_push_index(p, i);
		if (pv_object(p, e) < 0 || pc_u32(p, e, "containerID", true, &m->container_id) < 0 ||
		    pc_u32(p, e, "hostID", true, &m->host_id) < 0 ||
		    pc_u32(p, e, "size", true, &m->size) < 0)
			r = -1;
		pc_pop(p, imark);
	}
	pc_pop(p, mark);
	return r;
}

int pc_lookup(const char *const *names, const char *s)
{
	int i;

	for (i = 0; names[i]; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

int pc_check_keys(struct pctx *p, const char *key, const struct kvlist *kv,
		  bool (*valid)(const char *), const char *what)
{
	size_t i, mark;

	for (i = 0; i < kv->n; i++) {
		if (valid(kv->v[i].key))
			continue;
		mark = pc_push_key(p, key);
		pc_push_key(p, kv->v[i].key);
		pc_fail(p, "invalid %s", what);
		pc_pop(p, mark);
		return -1;
	}
	return 0;
}
