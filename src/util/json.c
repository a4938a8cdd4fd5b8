#include "util/json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

/* struct json is yajl's tree node; the cast keeps yajl out of every header. */
#define V(v) ((yajl_val)(v))

int json_parse(const char *text, size_t len, struct json **root, struct clasp_error *err)
{
	char errbuf[512];
	char *copy;
	yajl_val v;
	char *nl;

	/* yajl_tree_parse wants a NUL-terminated string. */
	copy = malloc(len + 1);
	if (!copy)
		return clasp_error_set(err, ENOMEM, "parse JSON");
	memcpy(copy, text, len);
	copy[len] = '\0';
	errbuf[0] = '\0';
	v = yajl_tree_parse(copy, errbuf, sizeof errbuf);
	free(copy);
	if (!v) {
		/* yajl's message spans several lines with a caret picture; keep line one. */
		nl = strchr(errbuf, '\n');
		if (nl)
			*nl = '\0';
		return clasp_error_set(err, 0, "invalid JSON: %s", errbuf[0] ? errbuf : "parse error");
	}
	*root = (struct json *)v;
	return 0;
}

void json_free(struct json *root)
{
	if (root)
		yajl_tree_free(V(root));
}

enum json_type json_type(const struct json *v)
{
	if (!v)
		return JSON_NULL;
	switch (V(v)->type) {
	case yajl_t_string: return JSON_STRING;
	case yajl_t_number: return JSON_NUMBER;
	case yajl_t_object: return JSON_OBJECT;
	case yajl_t_array: return JSON_ARRAY;
	case yajl_t_true:
	case yajl_t_false: return JSON_BOOL;
	default: return JSON_NULL;
	}
}

const char *json_type_name(enum json_type t)
{
	static const char *names[] = {"null", "boolean", "number", "string", "object", "array"};
	return names[t];
}

const struct json *json_get(const struct json *v, const char *key)
{
	size_t i;

	if (!v || V(v)->type != yajl_t_object)
		return NULL;
	for (i = 0; i < V(v)->u.object.len; i++)
		if (strcmp(V(v)->u.object.keys[i], key) == 0)
			return (const struct json *)V(v)->u.object.values[i];
	return NULL;
}

size_t json_object_len(const struct json *v)
{
	return v && V(v)->type == yajl_t_object ? V(v)->u.object.len : 0;
}

const char *json_object_key(const struct json *v, size_t i)
{
	return V(v)->u.object.keys[i];
}

const struct json *json_object_value(const struct json *v, size_t i)
{
	return (const struct json *)V(v)->u.object.values[i];
}

size_t json_array_len(const struct json *v)
{
	return v && V(v)->type == yajl_t_array ? V(v)->u.array.len : 0;
}

const struct json *json_array_at(const struct json *v, size_t i)
{
	return (const struct json *)V(v)->u.array.values[i];
}

const char *json_string(const struct json *v)
{
	return v && V(v)->type == yajl_t_string ? V(v)->u.string : NULL;
}

bool json_bool(const struct json *v)
{
	return v && V(v)->type == yajl_t_true;
}

const char *json_number_text(const struct json *v)
{
	return v && V(v)->type == yajl_t_number ? V(v)->u.number.r : NULL;
}

static bool is_integer_text(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

bool json_int64(const struct json *v, int64_t *out)
{
	const char *s = json_number_text(v);
	char *end;
	long long n;

	if (!s || !is_integer_text(s))
		return false;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno || *end)
		return false;
	*out = n;
	return true;
}

bool json_uint64(const struct json *v, uint64_t *out)
{
	const char *s = json_number_text(v);
	char *end;
	unsigned long long n;

	if (!s || !is_integer_text(s) || *s == '-')
		return false;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = n;
	return true;
}

struct json_gen {
	yajl_gen g;
};

struct json_gen *json_gen_new(bool pretty)
{
	struct json_gen *g = calloc(1, sizeof *g);

	if (!g)
		abort();
	g->g = yajl_gen_alloc(NULL);
	if (!g->g)
		abort();
	yajl_gen_config(g->g, yajl_gen_beautify, pretty ? 1 : 0);
	yajl_gen_config(g->g, yajl_gen_indent_string, "\t");
	yajl_gen_config(g->g, yajl_gen_validate_utf8, 0);
	return g;
}

void json_gen_free(struct json_gen *g)
{
	if (g) {
		yajl_gen_free(g->g);
		free(g);
	}
}

void json_gen_object_open(struct json_gen *g) { yajl_gen_map_open(g->g); }
void json_gen_object_close(struct json_gen *g) { yajl_gen_map_close(g->g); }
void json_gen_array_open(struct json_gen *g) { yajl_gen_array_open(g->g); }
void json_gen_array_close(struct json_gen *g) { yajl_gen_array_close(g->g); }

void json_gen_stringn(struct json_gen *g, const char *s, size_t n)
{
	yajl_gen_string(g->g, (const unsigned char *)s, n);
}

void json_gen_string(struct json_gen *g, const char *s)
{
	if (!s)
		yajl_gen_null(g->g);
	else
		json_gen_stringn(g, s, strlen(s));
}

void json_gen_int(struct json_gen *g, int64_t v) { yajl_gen_integer(g->g, (long long)v); }

void json_gen_uint(struct json_gen *g, uint64_t v)
{
	char buf[32];
	int n = snprintf(buf, sizeof buf, "%" PRIu64, v);
	/* yajl_gen_integer is signed; emit large unsigned values verbatim. */
	yajl_gen_number(g->g, buf, (size_t)n);
}

void json_gen_bool(struct json_gen *g, bool v) { yajl_gen_bool(g->g, v); }
void json_gen_null(struct json_gen *g) { yajl_gen_null(g->g); }

void json_gen_kv_string(struct json_gen *g, const char *k, const char *v)
{
	json_gen_string(g, k);
	json_gen_string(g, v);
}

void json_gen_kv_int(struct json_gen *g, const char *k, int64_t v)
{
	json_gen_string(g, k);
	json_gen_int(g, v);
}

void json_gen_kv_uint(struct json_gen *g, const char *k, uint64_t v)
{
	json_gen_string(g, k);
	json_gen_uint(g, v);
}

void json_gen_kv_bool(struct json_gen *g, const char *k, bool v)
{
	json_gen_string(g, k);
	json_gen_bool(g, v);
}

const char *json_gen_buf(struct json_gen *g, size_t *len)
{
	const unsigned char *buf;
	size_t n;

	yajl_gen_get_buf(g->g, &buf, &n);
	if (len)
		*len = n;
	return (const char *)buf;
}
