/* `clasp spec`: the default bundle configuration. */
#pragma once
#include <stdbool.h>

/* The config.json text `runc spec` writes (with ociVersion
 * CLASP_SPEC_VERSION), or its --rootless variant mapping root to the
 * caller's euid/egid. No trailing newline, exactly like runc.
 * The rootless text lives in a static buffer rewritten on each call. */
const char *oci_spec_default_json(bool rootless);
