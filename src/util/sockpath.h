/* AF_UNIX paths longer than sun_path would be silently truncated by a naive
 * copy; check them before any bind or connect. */
#pragma once
#include "util/error.h"

#define SOCKPATH_MAX 107

/* 0 when path fits in sockaddr_un.sun_path with its NUL, else -1 with
 * "socket path is N bytes, exceeding the Linux limit of 107: PATH". */
int sockpath_check(const char *path, struct clasp_error *err);
