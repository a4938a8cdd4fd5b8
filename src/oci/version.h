/* The OCI Runtime Specification version clasp implements (reported by
 * `clasp --version`, state.json, features and the default `clasp spec`). */
#pragma once

#define CLASP_SPEC_VERSION "1.3.0"
