/* Error carrying: every fallible function returns 0 on success or -1 after
 * filling a struct clasp_error. Callers add context on the way up with
 * clasp_error_prefix(); only main() prints. */
#pragma once
#include <stdarg.h>
#include <stddef.h>

#define CLASP_ERROR_MAX 2048

struct clasp_error {
	int code;                 /* errno of the root cause, 0 if none */
	char msg[CLASP_ERROR_MAX];
};

/* Set the error. With errnum != 0, ": strerror(errnum)" (lower-cased, runc
 * style: "no such file or directory") is appended. Always returns -1. */
int clasp_error_set_(struct clasp_error *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The macro makes the -1 visible at the call site, so static analysers see
 * that every error path returns -1 without reading error.c. */
#define clasp_error_set(...) ({ clasp_error_set_(__VA_ARGS__); -1; })

/* Prepend "context: " to the message. Always returns -1. */
int clasp_error_prefix_(struct clasp_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define clasp_error_prefix(...) ({ clasp_error_prefix_(__VA_ARGS__); -1; })

/* strerror() in lower case, as runc/Go prints it ("no such file or directory"). */
const char *clasp_strerror(int errnum, char *buf, size_t len);

void clasp_error_clear(struct clasp_error *err);
