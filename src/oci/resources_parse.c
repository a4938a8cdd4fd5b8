/* `update --resources`: a LinuxResources object on its own. The section
 * parser is config_resources.c's; this file only adds the raw-input checks
 * that config_parse.c applies to a whole config.json (NUL bytes, nesting,
 * duplicate keys), since the input crosses the same trust boundary. */
#include "oci/resources_parse.h"

#include <string.h>

#include "oci/config_parse_internal.h"

/* A resources object nests four levels at most (.blockIO.throttle...[i].rate);
 * anything far deeper is not a resources object and must not recurse. */
#define RESOURCES_MAX_DEPTH 16

static int check_input(struct pctx *p, const struct json *v, int depth)
{
	size_t i, j, n, mark;
	int r = 0;

	if (depth > RESOURCES_MAX_DEPTH)
		return pc_fail(p, "nested deeper than %d levels", RESOURCES_MAX_DEPTH);
	if (json_type(v) == JSON_ARRAY) {
		n = json_array_len(v);
		for (i = 0; i < n && r == 0; i++) {
			mark = pc_push_index(p, i);
			r = check_input(p, json_array_at(v, i), depth + 1);
			pc_pop(p, mark);
		}
		return r;
	}
	if (json_type(v) != JSON_OBJECT)
		return 0;
	n = json_object_len(v);
	/* Go clients take the last of duplicate keys, json_get() the first:
	 * refuse them rather than disagree with whoever wrote the object. */
	for (i = 1; i < n; i++)
		for (j = 0; j < i; j++)
			if (strcmp(json_object_key(v, i), json_object_key(v, j)) == 0)
				return pc_fail(p, "duplicate key \"%s\"", json_object_key(v, i));
	for (i = 0; i < n && r == 0; i++) {
		mark = pc_push_key(p, json_object_key(v, i));
		r = check_input(p, json_object_value(v, i), depth + 1);
		pc_pop(p, mark);
	}
	return r;
}

int oci_resources_parse(const char *text, size_t len, const char *origin, struct arena *arena,
			struct oci_resources *out, struct clasp_error *err)
{
	struct json *doc = NULL;
	struct pctx p = {0};
	int r;

	memset(out, 0, sizeof *out);
	if (!origin)
		origin = "resources.json";
	/* yajl's strings are NUL-terminated: an embedded NUL would cut a value short. */
	if (memchr(text, '\0', len))
		return clasp_error_set(err, 0, "%s: contains a NUL byte", origin);
	if (json_parse(text, len, &doc, err) < 0)
		return clasp_error_prefix(err, "%s", origin);
	p.a = arena;
	p.origin = origin;
	p.err = err;
	r = pv_object(&p, doc);
	if (r == 0)
		r = check_input(&p, doc, 0);
	if (r == 0)
		r = pc_resources(&p, doc, out);
	json_free(doc);
	if (r < 0)
		return -1;
	out->present = true;
	return 0;
}
