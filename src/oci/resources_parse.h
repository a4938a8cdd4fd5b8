/* A lone LinuxResources object, as `update --resources FILE|-` takes it
 * (runc and containerd send exactly the shape of config.json's
 * .linux.resources), parsed with the same rules and errors as the config. */
#pragma once
#include <stddef.h>

#include "oci/config.h"
#include "util/arena.h"
#include "util/error.h"

/* Errors read "resources.json: .memory.limit: expected an integer". The
 * result's strings and arrays are allocated from `arena`; out->present is
 * set on success. */
int oci_resources_parse(const char *text, size_t len, const char *origin, struct arena *arena,
			struct oci_resources *out, struct clasp_error *err);
