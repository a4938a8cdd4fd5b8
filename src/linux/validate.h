/* Up-front checks that the config can be built on this kernel, so create
 * fails with the field's name before anything exists (runtime.md: a config
 * that cannot be applied MUST fail create). */
#pragma once
#include "oci/config.h"

int linux_validate(const struct oci_config *cfg, struct clasp_error *err);
