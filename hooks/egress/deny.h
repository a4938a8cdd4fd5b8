/* The JSON denial responses. Their bytes are part of the interface: a
 * malformed CONNECT target must get exactly the bytes of a policy denial. */
#pragma once
#include <stddef.h>

enum deny_code {
	DENY_INVALID_REQUEST_URL,   /* 400 */
	DENY_HTTPS_REQUIRES_CONNECT, /* 400 */
	DENY_BAD_REQUEST,           /* 400: framing/smuggling */
	DENY_TARGET_DENIED,         /* 403 */
	DENY_HEADER_TOO_LARGE,      /* 431 */
	DENY_REQUEST_TIMEOUT,       /* 408 */
	DENY_UPSTREAM_ERROR,        /* 502 */
	DENY_TOO_MANY_CONNECTIONS,  /* 503 */
};

/* Full response (status line, headers, body). Returns its length, or 0 if
 * buf is too small (512 bytes always suffice). */
size_t deny_response(enum deny_code code, char *buf, size_t len);
const char *deny_code_name(enum deny_code code);
