/* A thin wrapper over yajl, so the JSON library could be swapped without
 * touching the parsers: a read-only tree for input, a generator for output. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_OBJECT, JSON_ARRAY };

struct json; /* a node; the root owns the whole tree */

/* Parse a document. Errors carry yajl's description ("parse error: ..."). */
int json_parse(const char *text, size_t len, struct json **root, struct clasp_error *err);
void json_free(struct json *root);

enum json_type json_type(const struct json *v);
const char *json_type_name(enum json_type t);

/* Object access: NULL when v is not an object or the key is absent. */
const struct json *json_get(const struct json *v, const char *key);
size_t json_object_len(const struct json *v);
const char *json_object_key(const struct json *v, size_t i);
const struct json *json_object_value(const struct json *v, size_t i);

size_t json_array_len(const struct json *v);
const struct json *json_array_at(const struct json *v, size_t i);

/* Scalars: NULL/false when the type differs. */
const char *json_string(const struct json *v);
bool json_bool(const struct json *v);
/* Integers: false when v is not a number holding an integer in range. */
bool json_int64(const struct json *v, int64_t *out);
bool json_uint64(const struct json *v, uint64_t *out);
/* The number as written (for diagnostics), or NULL. */
const char *json_number_text(const struct json *v);

/* Generator. Strings are escaped; keys and values are appended in order. */
struct json_gen;
struct json_gen *json_gen_new(bool pretty);
void json_gen_free(struct json_gen *g);
void json_gen_object_open(struct json_gen *g);
void json_gen_object_close(struct json_gen *g);
void json_gen_array_open(struct json_gen *g);
void json_gen_array_close(struct json_gen *g);
void json_gen_string(struct json_gen *g, const char *s);
void json_gen_stringn(struct json_gen *g, const char *s, size_t n);
void json_gen_int(struct json_gen *g, int64_t v);
void json_gen_uint(struct json_gen *g, uint64_t v);
void json_gen_bool(struct json_gen *g, bool v);
void json_gen_null(struct json_gen *g);
/* key + value helpers for objects */
void json_gen_kv_string(struct json_gen *g, const char *k, const char *v);
void json_gen_kv_int(struct json_gen *g, const char *k, int64_t v);
void json_gen_kv_uint(struct json_gen *g, const char *k, uint64_t v);
void json_gen_kv_bool(struct json_gen *g, const char *k, bool v);
/* The document so far; valid until the next call on g. */
const char *json_gen_buf(struct json_gen *g, size_t *len);
