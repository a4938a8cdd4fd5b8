/* HTTP/1.1 message framing for the egress proxy: pure functions over a byte
 * buffer, no I/O. Strict by design: anything two parsers could read
 * differently (CL+TE, duplicate or odd Content-Length, bare LF, obs-fold,
 * chunk-size oddities) is refused rather than guessed, so nothing can be
 * smuggled past the policy check. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HTTP_MAX_HEAD 16384     /* request head limit: 431 beyond it */
#define HTTP_MAX_RESP_HEAD 65536
#define HTTP_MAX_HEADERS 128
#define HTTP_MAX_CHUNK_LINE 4096
#define HTTP_MAX_TRAILERS 16384

enum { HTTP_INCOMPLETE = 0, HTTP_DONE = 1, HTTP_BAD = -1, HTTP_TOO_LARGE = -2 };

enum http_body { HTTP_BODY_NONE, HTTP_BODY_LENGTH, HTTP_BODY_CHUNKED, HTTP_BODY_CLOSE };

struct http_header {
	const char *name, *value;
	size_t name_len, value_len;
};

struct http_msg {
	const char *method, *target; /* requests */
	size_t method_len, target_len;
	int status;                  /* responses */
	int minor;                   /* HTTP/1.minor */
	struct http_header headers[HTTP_MAX_HEADERS];
	size_t n_headers;
	size_t head_len;             /* bytes of the head, final CRLF included */
	enum http_body body;
	uint64_t content_length;
	bool keep_alive;
	bool conn_upgrade;           /* "upgrade" among the Connection tokens */
	bool upgrade_websocket;      /* Upgrade: websocket */
	bool is_connect;
};

/* Parse a request head at the start of buf. HTTP_DONE fills m (pointers into
 * buf); HTTP_INCOMPLETE wants more bytes; HTTP_BAD is a 400; HTTP_TOO_LARGE
 * (head over HTTP_MAX_HEAD or too many headers) is a 431. */
int http_parse_request(const char *buf, size_t len, struct http_msg *m);

/* Parse a response head. head_request: the request was HEAD (no body). */
int http_parse_response(const char *buf, size_t len, bool head_request, struct http_msg *m);

/* Case-insensitive header name test. */
bool http_header_is(const struct http_header *h, const char *name);
/* True when the Connection header(s) of m name the header name/len. */
bool http_connection_names(const struct http_msg *m, const char *name, size_t len);

/* Incremental validator of a chunked body; the bytes themselves are relayed
 * unchanged, so the upstream sees exactly what was validated. */
struct http_chunked {
	int state;
	uint64_t remaining;
	size_t line_len;
	size_t trailer_bytes;
	int digits;
	bool last;
};
void http_chunked_init(struct http_chunked *c);
/* Consume up to len bytes: returns bytes that belong to the body (they end
 * the body when *done is set) or -1 on a framing error. */
ssize_t http_chunked_feed(struct http_chunked *c, const char *buf, size_t len, bool *done);

/* A request target split into host (brackets kept for IPv6), port and
 * origin-form path (path_len 0 means "/"; a path starting with '?' needs a
 * "/" in front). */
struct http_target {
	const char *host, *port, *path;
	size_t host_len, port_len, path_len;
};
enum { HTTP_URL_OK = 0, HTTP_URL_HTTPS = 1, HTTP_URL_INVALID = -1 };
/* Absolute-form "http://authority[/path][?query]"; port defaults to "80". */
int http_parse_absolute_url(const char *t, size_t len, struct http_target *u);
/* CONNECT authority-form "host:port" / "[v6]:port" (port required). */
int http_parse_authority(const char *t, size_t len, struct http_target *u);
