/* libFuzzer harness for the seccomp profile: the input is the value of
 * linux.seccomp inside a fixed config, so it goes through the config parser's
 * seccomp rules (config_seccomp.c) and, when accepted, through
 * seccomp_prepare() without a cache (validation and libseccomp compilation
 * to BPF). Nothing is loaded into the fuzzer's own process. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linux/seccomp.h"
#include "oci/config.h"

static const char head[] = "{\"ociVersion\": \"1.0.2\", \"root\": {\"path\": \"rootfs\"}, "
			   "\"linux\": {\"seccomp\": ";
static const char tail[] = "}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct oci_config *cfg = NULL;
	struct seccomp_prog *prog = NULL;
	struct clasp_error err = {0};
	size_t len = sizeof head - 1 + size + sizeof tail - 1;
	char *text;

	if (size > 1 << 20)
		return 0;
	text = malloc(len);
	if (!text)
		return 0;
	memcpy(text, head, sizeof head - 1);
	memcpy(text + sizeof head - 1, data, size);
	memcpy(text + sizeof head - 1 + size, tail, sizeof tail - 1);
	if (oci_config_parse(text, len, "config.json", &cfg, &err) == 0 && cfg->linux_.seccomp) {
		if (seccomp_prepare(cfg->linux_.seccomp, NULL, &prog, &err) == 0) {
			size_t n = 0;
			if (!prog || !seccomp_prog_bpf(prog, &n) || n == 0)
				abort();
			seccomp_prog_free(prog);
		} else if (!err.msg[0]) {
			abort();
		}
	}
	oci_config_free(cfg);
	free(text);
	return 0;
}
