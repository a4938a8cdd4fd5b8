#include "deny.h"

#include <stdio.h>
#include <string.h>

static const struct {
	int status;
	const char *reason, *code, *message;
} table[] = {
	[DENY_INVALID_REQUEST_URL] = { 400, "Bad Request", "invalid_request_url",
				       "The proxy accepts absolute-form http:// request URLs and CONNECT only." },
	[DENY_HTTPS_REQUIRES_CONNECT] = { 400, "Bad Request", "https_requires_connect",
					  "https:// URLs must be requested through a CONNECT tunnel." },
	[DENY_BAD_REQUEST] = { 400, "Bad Request", "invalid_request",
			       "The request framing is invalid." },
	[DENY_TARGET_DENIED] = { 403, "Forbidden", "network_target_denied",
				 "The network target is not allowed by the sandbox egress policy." },
	[DENY_HEADER_TOO_LARGE] = { 431, "Request Header Fields Too Large", "request_header_too_large",
				    "The request headers exceed 16 KiB." },
	[DENY_REQUEST_TIMEOUT] = { 408, "Request Timeout", "request_timeout",
				   "The request headers were not received in time." },
	[DENY_UPSTREAM_ERROR] = { 502, "Bad Gateway", "upstream_error",
				  "The allowed target could not be reached." },
	[DENY_TOO_MANY_CONNECTIONS] = { 503, "Service Unavailable", "too_many_connections",
					"The proxy has too many open connections." },
};

const char *deny_code_name(enum deny_code code)
{
	return table[code].code;
}

size_t deny_response(enum deny_code code, char *buf, size_t len)
{
	char body[256];
	int bl, n;

	bl = snprintf(body, sizeof body, "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}\n",
		      table[code].code, table[code].message);
	n = snprintf(buf, len,
		     "HTTP/1.1 %d %s\r\n"
		     "Content-Type: application/json; charset=utf-8\r\n"
		     "Content-Length: %d\r\n"
		     "Connection: close\r\n"
		     "\r\n%s",
		     table[code].status, table[code].reason, bl, body);
	return n > 0 && (size_t)n < len ? (size_t)n : 0;
}
