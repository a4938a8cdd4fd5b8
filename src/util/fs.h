/* Small file-system helpers for the runtime's own files (state, logs). Paths
 * here are the runtime's, never inside a container rootfs: those go through
 * util/safepath.h. */
#pragma once
#include <stddef.h>
#include <sys/types.h>

#include "util/error.h"

int mkdir_p(const char *path, mode_t mode);
/* Write dir/name through a temporary file and rename, so readers never see a
 * partial file. */
int write_file_atomic(const char *dir, const char *name, const void *data, size_t len, mode_t mode,
		      struct clasp_error *err);
/* Read a whole file (NUL-terminated, malloc'd). err->code holds errno. */
int read_file(const char *path, char **out, size_t *len, struct clasp_error *err);
/* Recursive removal that never crosses into another mount. */
int rm_rf(const char *path);
/* write(2) the whole buffer, retrying on EINTR/short writes. */
int write_all(int fd, const void *buf, size_t len);
