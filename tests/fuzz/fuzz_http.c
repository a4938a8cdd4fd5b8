/* libFuzzer harness for the proxy's HTTP parser: request heads, responses,
 * chunked bodies, request targets and the origin-form rewrite. The invariants checked
 * here are the ones the proxy relies on: a parsed head lies inside the input
 * and ends with CRLFCRLF, header slices lie inside the head, and the chunked
 * validator never claims more bytes than it was given.
 *   clang-14 -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Isrc \
 *     -Ihooks/egress $(pkg-config --cflags yajl) tests/fuzz/fuzz_http.c \
 *     hooks/egress/{http,relay,proxy,audit,deny,resolver}.c \
 *     src/sandbox/{netrule,egress_policy}.c src/util/{error,sha256}.c -o build/fuzz_http
 *   mkdir -p build/fuzz-corpus
 *   build/fuzz_http -max_total_time=20 build/fuzz-corpus tests/fuzz/corpus/http */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "proxy.h"
#include "sandbox/netrule.h"

static void check_msg(const char *buf, size_t len, const struct http_msg *m)
{
	size_t i;

	if (m->head_len > len || m->head_len < 4 || memcmp(buf + m->head_len - 4, "\r\n\r\n", 4))
		abort();
	for (i = 0; i < m->n_headers; i++) {
		const struct http_header *h = &m->headers[i];
		if (h->name < buf || h->name + h->name_len > buf + m->head_len)
			abort();
		if (h->value < buf || h->value + h->value_len > buf + m->head_len)
			abort();
		if (memchr(h->value, '\r', h->value_len) || memchr(h->value, '\n', h->value_len))
			abort();
	}
	if (m->body == HTTP_BODY_CHUNKED && m->content_length && m->status == 0)
		abort(); /* a request never carries both */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct http_msg m;
	struct http_target u;
	struct http_chunked c;
	bool done;
	ssize_t k;
	size_t off = 0;
	int r;

	r = http_parse_request(buf, size, &m);
	if (r == HTTP_DONE) {
		char host[NETRULE_HOST_MAX + 1];
		uint16_t port;
		struct clasp_error err;

		check_msg(buf, size, &m);
		if (m.method < buf || m.target + m.target_len > buf + m.head_len)
			abort();
		if ((m.is_connect ? http_parse_authority(m.target, m.target_len, &u)
				  : http_parse_absolute_url(m.target, m.target_len, &u)) == HTTP_URL_OK) {
			if (u.host + u.host_len > m.target + m.target_len)
				abort();
			if (netrule_parse_target(u.host, u.host_len, u.port, u.port_len, host, &port,
						 &err) == 0 &&
			    (strlen(host) > NETRULE_HOST_MAX || port == 0))
				abort();
			if (!m.is_connect) {
				static char out[2 * HTTP_MAX_HEAD + 512];
				size_t n = proxy_rewrite_request(&m, &u, "example.com", 80, 0, out,
								 sizeof out);
				/* the rewritten head is itself one valid request */
				struct http_msg m2;
				r = n ? http_parse_request(out, n, &m2) : HTTP_DONE;
				if (r != HTTP_DONE && r != HTTP_TOO_LARGE)
					abort();
			}
		}
		/* the body that follows, if chunked */
		if (m.body == HTTP_BODY_CHUNKED) {
			http_chunked_init(&c);
			k = http_chunked_feed(&c, buf + m.head_len, size - m.head_len, &done);
			if (k > (ssize_t)(size - m.head_len))
				abort();
		}
	}
	r = http_parse_response(buf, size, size & 1, &m);
	if (r == HTTP_DONE)
		check_msg(buf, size, &m);
	/* the whole input as a chunked body, fed in uneven pieces */
	http_chunked_init(&c);
	while (off < size) {
		size_t piece = 1 + (off * 7) % 13;
		if (piece > size - off)
			piece = size - off;
		k = http_chunked_feed(&c, buf + off, piece, &done);
		if (k < 0 || done)
			break;
		if ((size_t)k != piece)
			abort(); /* without an error or the end, everything is consumed */
		off += piece;
	}
	return 0;
}
