/* libFuzzer harness for the annotation layer: a fixed base config whose
 * annotations come from the input, parsed with oci_config_parse() and then
 * validated and rewritten by sandbox_rewrite() (pure: it creates nothing).
 * Input format: lines "KEY=VALUE"; a KEY not starting with "ing." is put
 * under the ing.paperclip. prefix, so most mutations exercise clasp's own
 * keys. An input starting with '@' uses root.path "/" (the host-root view,
 * which reads the host's own directories) instead of an image rootfs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oci/config.h"
#include "sandbox/sandbox.h"

static const char base_head[] =
	"{\"ociVersion\": \"1.0.2\","
	" \"process\": {\"user\": {\"uid\": 0, \"gid\": 0}, \"args\": [\"sh\"], \"cwd\": \"/\","
	"  \"env\": [\"PATH=/usr/bin:/bin\", \"PAPERCLIPAI_CMD=x\"]},"
	" \"root\": {\"path\": \"%s\", \"readonly\": true},"
	" \"mounts\": [{\"destination\": \"/proc\", \"type\": \"proc\", \"source\": \"proc\"},"
	"  {\"destination\": \"/tmp\", \"type\": \"tmpfs\", \"source\": \"tmpfs\"}],"
	" \"linux\": {\"namespaces\": [{\"type\": \"pid\"}, {\"type\": \"mount\"}]},"
	" \"annotations\": {";

/* Append s[0..n) as a JSON string body. */
static size_t put_json(char *out, const char *s, size_t n)
{
	size_t o = 0, i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c < 0x20) {
			o += (size_t)sprintf(out + o, "\\u%04x", c);
		} else {
			out[o++] = (char)c;
		}
	}
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct oci_config *cfg = NULL;
	struct sandbox_plan *plan = NULL;
	struct clasp_error err = {0};
	struct sandbox_ctx ctx = {
		.id = "fuzz",
		.bundle = "/nonexistent/clasp-fuzz-bundle",
		.state_dir = "/nonexistent/clasp-fuzz-root/fuzz",
		.egress_hook = "/usr/local/libexec/clasp/clasp-egress",
	};
	char *text, *o;
	int first = 1;

	if (size > 1 << 16)
		return 0;
	/* Worst case every byte becomes \u00XX, plus the prefix per line. */
	text = malloc(sizeof base_head + size * 6 + (size + 1) * 24 + 16);
	if (!text)
		return 0;
	if (p < end && *p == '@') {
		o = text + sprintf(text, base_head, "/");
		p++;
	} else {
		o = text + sprintf(text, base_head, "rootfs");
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *eq = memchr(p, '=', (size_t)(eol - p));
		const char *kend = eq ? eq : eol;

		if (!first)
			*o++ = ',';
		first = 0;
		*o++ = '"';
		if ((size_t)(kend - p) < 4 || memcmp(p, "ing.", 4) != 0) {
			memcpy(o, SANDBOX_PREFIX, sizeof SANDBOX_PREFIX - 1);
			o += sizeof SANDBOX_PREFIX - 1;
		}
		o += put_json(o, p, (size_t)(kend - p));
		*o++ = '"';
		*o++ = ':';
		*o++ = '"';
		if (eq)
			o += put_json(o, eq + 1, (size_t)(eol - eq - 1));
		*o++ = '"';
		p = nl ? nl + 1 : end;
	}
	memcpy(o, "}}", 2);
	o += 2;
	/* Duplicate keys are a parse error, which is fine: it is one more path. */
	if (oci_config_parse(text, (size_t)(o - text), "config.json", &cfg, &err) == 0) {
		if (sandbox_rewrite(cfg, &ctx, &plan, &err) == 0)
			sandbox_plan_free(plan);
		else if (!err.msg[0])
			abort();
	}
	oci_config_free(cfg);
	free(text);
	return 0;
}
