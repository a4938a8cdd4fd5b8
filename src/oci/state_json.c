#include "oci/state_json.h"

#include <stdlib.h>
#include <string.h>

#include "oci/version.h"
#include "util/json.h"

static void gen_annotations_from_json(struct json_gen *g, const char *text)
{
	struct json *doc = NULL;
	struct clasp_error err;
	size_t i;

	json_gen_object_open(g);
	if (text && json_parse(text, strlen(text), &doc, &err) == 0) {
		for (i = 0; i < json_object_len(doc); i++) {
			const char *v = json_string(json_object_value(doc, i));
			if (v)
				json_gen_kv_string(g, json_object_key(doc, i), v);
		}
		json_free(doc);
	}
	json_gen_object_close(g);
}

static char *finish(struct json_gen *g)
{
	size_t len;
	const char *buf = json_gen_buf(g, &len);
	char *out = malloc(len + 1);

	if (!out)
		abort();
	memcpy(out, buf, len);
	out[len] = '\0';
	json_gen_free(g);
	return out;
}

char *oci_annotations_json(const struct kvlist *annotations)
{
	struct json_gen *g = json_gen_new(false);
	size_t i;

	json_gen_object_open(g);
	for (i = 0; annotations && i < annotations->n; i++)
		json_gen_kv_string(g, annotations->v[i].key, annotations->v[i].value);
	json_gen_object_close(g);
	return finish(g);
}

char *oci_state_json(const struct state_json_args *a)
{
	struct json_gen *g = json_gen_new(a->pretty);
	size_t i;

	json_gen_object_open(g);
	json_gen_kv_string(g, "ociVersion", CLASP_SPEC_VERSION);
	json_gen_kv_string(g, "id", a->id);
	json_gen_kv_int(g, "pid", a->pid);
	json_gen_kv_string(g, "status", a->status);
	json_gen_kv_string(g, "bundle", a->bundle);
	if (a->rootfs)
		json_gen_kv_string(g, "rootfs", a->rootfs);
	if (a->created)
		json_gen_kv_string(g, "created", a->created);
	if (a->owner)
		json_gen_kv_string(g, "owner", a->owner);
	json_gen_string(g, "annotations");
	if (a->annotations) {
		json_gen_object_open(g);
		for (i = 0; i < a->annotations->n; i++)
			json_gen_kv_string(g, a->annotations->v[i].key, a->annotations->v[i].value);
		json_gen_object_close(g);
	} else {
		gen_annotations_from_json(g, a->annotations_json);
	}
	json_gen_object_close(g);
	return finish(g);
}
