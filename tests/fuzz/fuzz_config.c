/* libFuzzer harness for config.json parsing and validation: oci_config_parse()
 * on arbitrary bytes, then oci_config_free(). The invariants are the parser's
 * contract: it returns 0 with a config or -1 with a non-empty message, never
 * both, and whatever it returns can be freed (ASan/UBSan watch the rest). */
#include <stdint.h>
#include <stdlib.h>

#include "oci/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct oci_config *cfg = NULL;
	struct clasp_error err = {0};
	int r;

	r = oci_config_parse((const char *)data, size, "config.json", &cfg, &err);
	if (r == 0 && !cfg)
		abort();
	if (r < 0 && !err.msg[0])
		abort();
	if (r == 0) {
		/* the lookups every later layer uses */
		(void)oci_config_namespace(cfg, OCI_NS_USER);
		(void)oci_config_annotation(cfg, "ing.paperclip.fs.scope");
	}
	oci_config_free(cfg);
	return 0;
}
