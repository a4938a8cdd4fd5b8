/* Shared by the config_*.c parsers only: a parse context that tracks the
 * JSON path of the value being read, so every rejection can name it
 * ("config.json: .linux.namespaces[2].type: unknown namespace \"nett\""),
 * and typed field readers built on util/json.h.
 *
 * Conventions of the readers: a member that is absent or JSON null counts as
 * absent (Go's encoding/json, which runc and most clients use, does the
 * same); `req` turns absence into "required field missing". On success they
 * return 0, on failure -1 with p->err filled and the path naming the field. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "oci/config.h"
#include "util/json.h"

#define PC_PATH_MAX 512

struct pctx {
	struct arena *a;
	const char *origin;
	struct clasp_error *err;
	char path[PC_PATH_MAX];
	size_t len;
	bool truncated;
};

/* Path stack: push returns a mark that pc_pop restores. */
size_t pc_push_key(struct pctx *p, const char *key);
size_t pc_push_index(struct pctx *p, size_t i);
void pc_pop(struct pctx *p, size_t mark);

/* Fail at the current path. Always returns -1. */
int pc_fail(struct pctx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fail at the current path extended by key (restores the path). */
int pc_fail_at(struct pctx *p, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The member, or NULL when absent or null. */
const struct json *pc_field(const struct json *obj, const char *key);

/* Value checks at the current path. */
int pv_object(struct pctx *p, const struct json *v);
int pv_array(struct pctx *p, const struct json *v);
int pv_string(struct pctx *p, const struct json *v, char **out);
int pv_i64(struct pctx *p, const struct json *v, int64_t min, int64_t max, int64_t *out);
int pv_u64(struct pctx *p, const struct json *v, uint64_t max, uint64_t *out);
int pv_strv(struct pctx *p, const struct json *v, struct strv *out);
int pv_abs_path(struct pctx *p, const char *s);

/* Member readers: obj is an object already checked; the path is extended by key. */
int pc_object(struct pctx *p, const struct json *obj, const char *key, bool req,
	      const struct json **out);
int pc_array(struct pctx *p, const struct json *obj, const char *key, bool req,
	     const struct json **out, size_t *n);
int pc_str(struct pctx *p, const struct json *obj, const char *key, bool req, char **out);
int pc_bool(struct pctx *p, const struct json *obj, const char *key, bool *out);
int pc_opt_bool(struct pctx *p, const struct json *obj, const char *key, opt_bool *out);
int pc_i64(struct pctx *p, const struct json *obj, const char *key, bool req, int64_t min,
	   int64_t max, int64_t *out);
int pc_opt_i64(struct pctx *p, const struct json *obj, const char *key, int64_t min, int64_t max,
	       opt_i64 *out);
int pc_u64(struct pctx *p, const struct json *obj, const char *key, bool req, uint64_t max,
	   uint64_t *out);
int pc_u32(struct pctx *p, const struct json *obj, const char *key, bool req, uint32_t *out);
int pc_opt_u64(struct pctx *p, const struct json *obj, const char *key, uint64_t max,
	       opt_u64 *out);
int pc_strv(struct pctx *p, const struct json *obj, const char *key, bool req, struct strv *out);
/* An object whose values are all strings (annotations, sysctl, unified). */
int pc_string_map(struct pctx *p, const struct json *obj, const char *key, struct kvlist *out);
int pc_idmaps(struct pctx *p, const struct json *obj, const char *key, struct oci_idmap **v,
	      size_t *n);

/* Fail at .KEY["name"] with "invalid WHAT" for the first key valid() refuses. */
int pc_check_keys(struct pctx *p, const char *key, const struct kvlist *kv,
		  bool (*valid)(const char *), const char *what);

/* Look a name up in a NULL-terminated table; returns its index or -1. */
int pc_lookup(const char *const *names, const char *s);

/* Section parsers (config_process.c, config_linux.c, config_resources.c, config_seccomp.c). */
int pc_process(struct pctx *p, const struct json *v, struct oci_process *out);
int pc_linux(struct pctx *p, const struct json *v, struct oci_linux *out);
int pc_resources(struct pctx *p, const struct json *v, struct oci_resources *out);
int pc_seccomp(struct pctx *p, const struct json *v, struct oci_seccomp *out);
