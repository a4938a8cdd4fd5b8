#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/lifecycle.h"
#include "util/json.h"

static const char usage[] =
	"Usage: clasp list [options]\n\n"
	"List the containers under --root.\n\n"
	"Options:\n"
	"  -f, --format FORMAT  table or json (default table)\n"
	"  -q, --quiet          print only the container ids\n"
	"  -h, --help           show this help\n";

struct row {
	struct container_state st;
	const char *status;
};

int cmd_list(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'}, {"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	const char *format = "table";
	bool quiet = false;
	char **ids = NULL;
	struct row *rows;
	size_t n = 0, i, k = 0;
	int opt;

	while ((opt = getopt_long(argc, argv, "f:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'f': format = optarg; break;
		case 'q': quiet = true; break;
		case 'h': return cmd_help(usage);
		default: return clasp_error_set(err, 0, "invalid option; see --help");
		}
	}
	if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0)
		return clasp_error_set(err, 0, "invalid format option \"%s\" (table or json)", format);
	if (state_list_ids(g->root, &ids, &n, err) < 0)
		return -1;
	rows = calloc(n + 1, sizeof *rows);
	for (i = 0; i < n; i++) {
		struct clasp_error e2;
		/* A container mid-create has no state file yet: skip it. */
		if (state_read(g->root, ids[i], &rows[k].st, &e2) == 0) {
			rows[k].status = lc_status(&rows[k].st, g->root);
			k++;
		}
		free(ids[i]);
	}
	free(ids);
	if (quiet) {
		for (i = 0; i < k; i++)
			printf("%s\n", rows[i].st.id);
	} else if (strcmp(format, "json") == 0) {
		struct json_gen *jg = json_gen_new(false);
		const char *buf;
		size_t len;

		json_gen_array_open(jg);
		for (i = 0; i < k; i++) {
			char *one = lc_state_json(g->root, &rows[i].st, false);
			struct json *doc = NULL;
			size_t j;
			/* Re-emit the state object, so list and state agree field for field. */
			if (json_parse(one, strlen(one), &doc, err) == 0) {
				json_gen_object_open(jg);
				for (j = 0; j < json_object_len(doc); j++) {
					const struct json *v = json_object_value(doc, j);
					int64_t iv;
					json_gen_string(jg, json_object_key(doc, j));
					if (json_type(v) == JSON_STRING)
						json_gen_string(jg, json_string(v));
					else if (json_int64(v, &iv))
						json_gen_int(jg, iv);
					else if (json_type(v) == JSON_OBJECT) {
						size_t a;
						json_gen_object_open(jg);
						for (a = 0; a < json_object_len(v); a++)
							json_gen_kv_string(jg, json_object_key(v, a),
									   json_string(json_object_value(v, a)));
						json_gen_object_close(jg);
					} else
						json_gen_null(jg);
				}
				json_gen_object_close(jg);
				json_free(doc);
			}
			free(one);
		}
		json_gen_array_close(jg);
		buf = json_gen_buf(jg, &len);
		printf("%.*s\n", (int)len, buf);
		json_gen_free(jg);
	} else {
		size_t w_id = 2, w_b = 6;
		for (i = 0; i < k; i++) {
			if (strlen(rows[i].st.id) > w_id)
				w_id = strlen(rows[i].st.id);
			if (rows[i].st.bundle && strlen(rows[i].st.bundle) > w_b)
				w_b = strlen(rows[i].st.bundle);
		}
		printf("%-*s   %-8s   %-8s   %-*s   %-30s   %s\n", (int)w_id, "ID", "PID", "STATUS", (int)w_b,
		       "BUNDLE", "CREATED", "OWNER");
		for (i = 0; i < k; i++)
			printf("%-*s   %-8d   %-8s   %-*s   %-30s   %s\n", (int)w_id, rows[i].st.id,
			       strcmp(rows[i].status, "stopped") == 0 ? 0 : (int)rows[i].st.pid, rows[i].status,
			       (int)w_b, rows[i].st.bundle ? rows[i].st.bundle : "",
			       rows[i].st.created ? rows[i].st.created : "", rows[i].st.owner == 0 ? "root" : "");
	}
	for (i = 0; i < k; i++)
		state_clear(&rows[i].st);
	free(rows);
	return 0;
}
