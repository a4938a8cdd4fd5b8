#include "util/error.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Messages are bounded on purpose: a truncated error beats an allocation on the
 * error path. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

const char *clasp_strerror(int errnum, char *buf, size_t len)
{
	const char *s = strerror(errnum);
	size_t i = 0;

	if (len == 0)
		return "";
	for (; s[i] && i + 1 < len; i++)
		buf[i] = (char)(i == 0 ? tolower((unsigned char)s[i]) : s[i]);
	buf[i] = '\0';
	return buf;
}

int clasp_error_set_(struct clasp_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	char ebuf[128];
	size_t n;

	if (!err)
		return -1;
	err->code = errnum;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	if (errnum) {
		n = strlen(err->msg);
		snprintf(err->msg + n, sizeof err->msg - n, ": %s",
			 clasp_strerror(errnum, ebuf, sizeof ebuf));
	}
	return -1;
}

int clasp_error_prefix_(struct clasp_error *err, const char *fmt, ...)
{
	va_list ap;
	char ctx[CLASP_ERROR_MAX];
	char old[CLASP_ERROR_MAX];

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof ctx, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	snprintf(err->msg, sizeof err->msg, "%s: %s", ctx, old);
	return -1;
}

void clasp_error_clear(struct clasp_error *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}
