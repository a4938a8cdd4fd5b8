/* The proxy's HTTP/1.1 request parser: framing, limits and smuggling. */
#include <stdlib.h>
#include <string.h>

#include "deny.h"
#include "http.h"
#include "proxy.h"
#include "resolver.h"
#include <poll.h>
#include <netinet/in.h>
#include "unit.h"

static struct http_msg m;

static int req(const char *s)
{
	return http_parse_request(s, strlen(s), &m);
}

TEST(simple_get)
{
	const char *s = "GET http://example.com/a?b=1 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\nNEXT";
	CHECK(req(s) == HTTP_DONE);
	CHECK(m.head_len == strlen(s) - 4);
	CHECK(m.method_len == 3 && !memcmp(m.method, "GET", 3));
	CHECK(m.target_len == strlen("http://example.com/a?b=1"));
	CHECK(m.minor == 1 && m.keep_alive && !m.is_connect);
	CHECK(m.n_headers == 2);
	CHECK(m.body == HTTP_BODY_NONE);
	CHECK(req("GET http://x/ HTTP/1.0\r\n\r\n") == HTTP_DONE && !m.keep_alive);
	CHECK(req("GET http://x/ HTTP/1.0\r\nConnection: keep-alive\r\n\r\n") == HTTP_DONE &&
	      m.keep_alive);
	CHECK(req("GET http://x/ HTTP/1.1\r\nConnection: close\r\n\r\n") == HTTP_DONE &&
	      !m.keep_alive);
	CHECK(req("GET http://x/ HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n") ==
		      HTTP_DONE &&
	      m.conn_upgrade && m.upgrade_websocket);
	CHECK(req("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n") == HTTP_DONE &&
	      m.is_connect);
	CHECK(req("GET http://x/ HTTP/1.1\r\nX:  v  \r\n\r\n") == HTTP_DONE);
	CHECK(m.headers[0].value_len == 1 && m.headers[0].value[0] == 'v');
	CHECK(req("GET http://x/ HTTP/1.1\r\nX:\r\n\r\n") == HTTP_DONE && m.headers[0].value_len == 0);
}

TEST(incomplete)
{
	CHECK(req("") == HTTP_INCOMPLETE);
	CHECK(req("GET http://x/ HTTP/1.1\r") == HTTP_INCOMPLETE);
	CHECK(req("GET http://x/ HTTP/1.1\r\n") == HTTP_INCOMPLETE);
	CHECK(req("GET http://x/ HTTP/1.1\r\nHost: x\r\n") == HTTP_INCOMPLETE);
	CHECK(req("GET http://x/ HTTP/1.1\r\nHost: x\r\n\r") == HTTP_INCOMPLETE);
}

TEST(malformed)
{
	CHECK(req("GET http://x/ HTTP/1.1\n\n") == HTTP_BAD);             /* bare LF */
	CHECK(req("GET http://x/ HTTP/1.1\r\nA: b\n\r\n") == HTTP_BAD);
	CHECK(req("GET http://x/ HTTP/1.1\r\nA: b\rc\r\n\r\n") == HTTP_BAD); /* bare CR */
	CHECK(req("GET http://x/ HTTP/1.1\r\nA: b\r\n c\r\n\r\n") == HTTP_BAD); /* obs-fold */
	CHECK(req("GET http://x/ HTTP/1.1\r\nA : b\r\n\r\n") == HTTP_BAD);
	CHECK(req("GET http://x/ HTTP/1.1\r\n: b\r\n\r\n") == HTTP_BAD);
	CHECK(req("GET http://x/ HTTP/1.1\r\nNoColon\r\n\r\n") == HTTP_BAD);
	CHECK(req("GET http://x/ HTTP/1.1\r\nA: \x01\r\n\r\n") == HTTP_BAD);
	CHECK(http_parse_request("GET http://x/ HTTP/1.1\r\nA: \0\r\n\r\n", 32, &m) == HTTP_BAD);
	CHECK(req("GET  http://x/ HTTP/1.1\r\n\r\n") == HTTP_BAD);
	CHECK(req("GET http://x/  HTTP/1.1\r\n\r\n") == HTTP_BAD);
	CHECK(req("GET http://x/ HTTP/2.0\r\n\r\n") == HTTP_BAD);
	CHECK(req("GET http://x/ http/1.1\r\n\r\n") == HTTP_BAD);
	CHECK(req("GET http://x/ HTTP/1.1 \r\n\r\n") == HTTP_BAD);
	CHECK(req("GET http://x/\r\n\r\n") == HTTP_BAD);
	CHECK(req("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") == HTTP_BAD);
	CHECK(req("G(T http://x/ HTTP/1.1\r\n\r\n") == HTTP_BAD);
	CHECK(req("\r\nGET http://x/ HTTP/1.1\r\n\r\n") == HTTP_BAD);
	CHECK(req("GET http://x/\x7f HTTP/1.1\r\n\r\n") == HTTP_BAD);
	CHECK(req("GET http://x/\xc3\xa9 HTTP/1.1\r\n\r\n") == HTTP_BAD);
	CHECK(req(" GET http://x/ HTTP/1.1\r\n\r\n") == HTTP_BAD);
}

TEST(smuggling)
{
	/* CL + TE */
	CHECK(req("POST http://x/ HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n") ==
	      HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n") ==
	      HTTP_BAD);
	/* duplicate CL, even with equal values, and list values */
	CHECK(req("POST http://x/ HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n") == HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n") == HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\ncontent-length: 5\r\nCONTENT-LENGTH: 6\r\n\r\n") == HTTP_BAD);
	/* invalid CL */
	CHECK(req("POST http://x/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n") == HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\nContent-Length: +5\r\n\r\n") == HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n") == HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\nContent-Length: \r\n\r\n") == HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n") == HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n") == HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\nContent-Length : 5\r\n\r\n") == HTTP_BAD);
	/* TE variants */
	CHECK(req("POST http://x/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") == HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n") == HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\nTransfer-Encoding: xchunked\r\n\r\n") == HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n") ==
	      HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\nTransfer-Encoding:\tchunked\r\n\r\n") == HTTP_DONE);
	CHECK(req("POST http://x/ HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n") == HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") == HTTP_DONE &&
	      m.body == HTTP_BODY_CHUNKED);
	CHECK(req("POST http://x/ HTTP/1.1\r\nTransfer-Encoding: CHUNKED\r\n\r\n") == HTTP_DONE);
	CHECK(req("POST http://x/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n") == HTTP_BAD);
	CHECK(req("POST http://x/ HTTP/1.1\r\nContent-Length: 5\r\n\r\n") == HTTP_DONE &&
	      m.body == HTTP_BODY_LENGTH && m.content_length == 5);
	CHECK(req("POST http://x/ HTTP/1.1\r\nContent-Length: 0\r\n\r\n") == HTTP_DONE &&
	      m.body == HTTP_BODY_NONE);
	/* duplicate Host */
	CHECK(req("GET http://x/ HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == HTTP_BAD);
	/* CONNECT with a body */
	CHECK(req("CONNECT x:443 HTTP/1.1\r\nContent-Length: 5\r\n\r\n") == HTTP_BAD);
	CHECK(req("CONNECT x:443 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") == HTTP_BAD);
}

TEST(limits)
{
	size_t n = HTTP_MAX_HEAD + 100, i;
	char *big = malloc(n + 1);

	memcpy(big, "GET http://x/ HTTP/1.1\r\n", 24);
	for (i = 24; i < n; i++)
		big[i] = 'a';
	big[n] = 0;
	memcpy(big + 24, "X-Big: ", 7);
	CHECK(http_parse_request(big, n, &m) == HTTP_TOO_LARGE);
	CHECK(http_parse_request(big, HTTP_MAX_HEAD - 1, &m) == HTTP_INCOMPLETE);
	CHECK(http_parse_request(big, HTTP_MAX_HEAD, &m) == HTTP_TOO_LARGE);
	/* exactly at the limit, complete */
	memcpy(big + HTTP_MAX_HEAD - 4, "\r\n\r\n", 4);
	CHECK(http_parse_request(big, HTTP_MAX_HEAD, &m) == HTTP_DONE);
	free(big);

	/* too many headers */
	{
		char buf[8192];
		size_t len = (size_t)sprintf(buf, "GET http://x/ HTTP/1.1\r\n");
		for (i = 0; i < HTTP_MAX_HEADERS + 1; i++)
			len += (size_t)sprintf(buf + len, "H%zu: v\r\n", i);
		len += (size_t)sprintf(buf + len, "\r\n");
		CHECK(http_parse_request(buf, len, &m) == HTTP_TOO_LARGE);
	}
}

TEST(pipelining)
{
	const char *two = "GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\nGET http://b/ HTTP/1.1\r\nHost: b\r\n\r\n";
	size_t first;

	CHECK(req(two) == HTTP_DONE);
	first = m.head_len;
	CHECK(first == strlen(two) / 2);
	CHECK(http_parse_request(two + first, strlen(two) - first, &m) == HTTP_DONE);
	CHECK(m.target_len == 9 && !memcmp(m.target, "http://b/", 9));
	/* a body in between: the next request starts after Content-Length bytes */
	CHECK(req("POST http://a/ HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET http://b/ HTTP/1.1\r\n\r\n") ==
	      HTTP_DONE);
	CHECK(m.content_length == 3);
}

static ssize_t chunk_all(const char *s, size_t len, bool *done)
{
	struct http_chunked c;
	http_chunked_init(&c);
	return http_chunked_feed(&c, s, len, done);
}

static ssize_t chunk(const char *s, bool *done)
{
	return chunk_all(s, strlen(s), done);
}

TEST(chunked)
{
	bool done;
	const char *ok = "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: v\r\n\r\nNEXT";
	struct http_chunked c;
	size_t i;
	ssize_t total = 0;

	CHECK(chunk(ok, &done) == (ssize_t)strlen(ok) - 4 && done);
	CHECK(chunk("0\r\n\r\n", &done) == 5 && done);
	CHECK(chunk("A\r\n0123456789\r\n0\r\n\r\n", &done) == 20 && done);
	/* byte at a time */
	http_chunked_init(&c);
	for (i = 0; i < strlen(ok); i++) {
		ssize_t k = http_chunked_feed(&c, ok + i, 1, &done);
		CHECK(k >= 0);
		total += k;
		if (done)
			break;
	}
	CHECK(done && total == (ssize_t)strlen(ok) - 4);
	/* incomplete */
	CHECK(chunk("5\r\nhel", &done) == 6 && !done);
	/* errors */
	CHECK(chunk("\r\n", &done) < 0);                   /* no size */
	CHECK(chunk("g\r\n", &done) < 0);
	CHECK(chunk("-5\r\n", &done) < 0);
	CHECK(chunk(" 5\r\n", &done) < 0);
	CHECK(chunk("5 \r\nhello\r\n", &done) < 0);
	CHECK(chunk("0x5\r\nhello\r\n", &done) < 0);
	CHECK(chunk("5\nhello\r\n", &done) < 0);           /* bare LF */
	CHECK(chunk("5\r\nhelloX\r\n", &done) < 0);        /* data longer than size */
	CHECK(chunk("5\r\nhello\n0\r\n\r\n", &done) < 0);
	CHECK(chunk("1000000000000000\r\n", &done) < 0);   /* overflow (16 hex digits) */
	CHECK(chunk("0\r\nX: v\n\r\n", &done) < 0);
	CHECK(chunk("0\r\n bad\r\n\r\n", &done) < 0);
	CHECK(chunk("0\r\n\rX", &done) < 0);
	CHECK(chunk("5;\x01\r\n", &done) < 0);
	{
		char line[HTTP_MAX_CHUNK_LINE + 10];
		memset(line, 'a', sizeof line);
		line[0] = '1';
		line[1] = ';';
		CHECK(chunk_all(line, sizeof line, &done) < 0);
	}
}

TEST(responses)
{
	const char *r = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
	CHECK(http_parse_response(r, strlen(r), false, &m) == HTTP_DONE);
	CHECK(m.status == 200 && m.body == HTTP_BODY_LENGTH && m.content_length == 5 && m.keep_alive);
	CHECK(http_parse_response(r, strlen(r), true, &m) == HTTP_DONE && m.body == HTTP_BODY_NONE);
	r = "HTTP/1.1 204 No Content\r\n\r\n";
	CHECK(http_parse_response(r, strlen(r), false, &m) == HTTP_DONE && m.body == HTTP_BODY_NONE);
	r = "HTTP/1.1 200 OK\r\n\r\n";
	CHECK(http_parse_response(r, strlen(r), false, &m) == HTTP_DONE && m.body == HTTP_BODY_CLOSE);
	r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n";
	CHECK(http_parse_response(r, strlen(r), false, &m) == HTTP_DONE &&
	      m.body == HTTP_BODY_CHUNKED && !m.keep_alive);
	r = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n";
	CHECK(http_parse_response(r, strlen(r), false, &m) == HTTP_BAD);
	r = "HTTP/1.1 100 Continue\r\n\r\n";
	CHECK(http_parse_response(r, strlen(r), false, &m) == HTTP_DONE && m.status == 100);
	r = "HTTP/1.1 2000 OK\r\n\r\n";
	CHECK(http_parse_response(r, strlen(r), false, &m) == HTTP_BAD);
	r = "HTTP/1.1 200\r\n\r\n";
	CHECK(http_parse_response(r, strlen(r), false, &m) == HTTP_DONE);
}

TEST(urls)
{
	struct http_target u;
#define URL(s) http_parse_absolute_url(s, strlen(s), &u)
#define AUTH(s) http_parse_authority(s, strlen(s), &u)
	CHECK(URL("http://example.com/a?b") == HTTP_URL_OK);
	CHECK(u.host_len == 11 && !memcmp(u.host, "example.com", 11));
	CHECK(u.port_len == 2 && !memcmp(u.port, "80", 2));
	CHECK(u.path_len == 4 && !memcmp(u.path, "/a?b", 4));
	CHECK(URL("HTTP://example.com:8080") == HTTP_URL_OK && u.path_len == 0);
	CHECK(u.port_len == 4 && !memcmp(u.port, "8080", 4));
	CHECK(URL("http://example.com?x") == HTTP_URL_OK && u.path[0] == '?');
	CHECK(URL("http://[::1]:8080/") == HTTP_URL_OK && u.host_len == 5);
	CHECK(URL("http://[::1]/") == HTTP_URL_OK && u.port_len == 2);
	CHECK(URL("https://example.com/") == HTTP_URL_HTTPS);
	CHECK(URL("/relative") == HTTP_URL_INVALID);
	CHECK(URL("*") == HTTP_URL_INVALID);
	CHECK(URL("ftp://example.com/") == HTTP_URL_INVALID);
	CHECK(URL("http://") == HTTP_URL_INVALID);
	CHECK(URL("http:///path") == HTTP_URL_INVALID);
	CHECK(URL("http://user@example.com/") == HTTP_URL_INVALID);
	CHECK(URL("http://example.com:/") == HTTP_URL_INVALID);
	CHECK(URL("http://example.com/#frag") == HTTP_URL_INVALID);
	CHECK(URL("http://::1/") == HTTP_URL_INVALID);
	CHECK(URL("http://[::1/") == HTTP_URL_INVALID);
	CHECK(URL("http://[::1]x/") == HTTP_URL_INVALID);
	CHECK(AUTH("example.com:443") == HTTP_URL_OK && u.port_len == 3);
	CHECK(AUTH("[::1]:443") == HTTP_URL_OK && u.host_len == 5);
	CHECK(AUTH("example.com") == HTTP_URL_INVALID);
	CHECK(AUTH("[::1]") == HTTP_URL_INVALID);
	CHECK(AUTH("example.com:") == HTTP_URL_INVALID);
	CHECK(AUTH(":443") == HTTP_URL_INVALID);
	CHECK(AUTH("http://example.com:443") == HTTP_URL_INVALID);
	CHECK(AUTH("example.com:443/") == HTTP_URL_INVALID);
	CHECK(AUTH("u@example.com:443") == HTTP_URL_INVALID);
	CHECK(AUTH("::1:443") == HTTP_URL_INVALID);
}

TEST(rewrite)
{
	const char *s = "GET http://Example.com./p?q HTTP/1.1\r\nHost: evil\r\nConnection: keep-alive, X-Secret\r\n"
			"X-Secret: s\r\nProxy-Authorization: Basic x\r\nProxy-Connection: keep-alive\r\n"
			"Keep-Alive: 5\r\nTE: trailers\r\nTrailer: X\r\nUpgrade: h2c\r\nAccept: */*\r\n\r\n";
	struct http_target u;
	char out[4096];
	size_t n;

	CHECK(req(s) == HTTP_DONE);
	CHECK(http_parse_absolute_url(m.target, m.target_len, &u) == HTTP_URL_OK);
	n = proxy_rewrite_request(&m, &u, "example.com", 80, 0, out, sizeof out);
	CHECK(n > 0);
	out[n] = 0;
	CHECK_STREQ(out, "GET /p?q HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n");
	CHECK(req("GET http://[::1]:8080 HTTP/1.1\r\n\r\n") == HTTP_DONE);
	CHECK(http_parse_absolute_url(m.target, m.target_len, &u) == HTTP_URL_OK);
	n = proxy_rewrite_request(&m, &u, "::1", 8080, 0, out, sizeof out);
	out[n] = 0;
	CHECK_STREQ(out, "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n");
	CHECK(proxy_rewrite_request(&m, &u, "::1", 8080, 0, out, 10) == 0);
}

TEST(denials)
{
	char buf[512];
	size_t n = deny_response(DENY_TARGET_DENIED, buf, sizeof buf);
	const char *want =
		"HTTP/1.1 403 Forbidden\r\n"
		"Content-Type: application/json; charset=utf-8\r\n"
		"Content-Length: 119\r\n"
		"Connection: close\r\n"
		"\r\n"
		"{\"error\":{\"code\":\"network_target_denied\",\"message\":\"The network target is not "
		"allowed by the sandbox egress policy.\"}}\n";

	buf[n] = 0;
	CHECK_STREQ(buf, want);
	for (int c = DENY_INVALID_REQUEST_URL; c <= DENY_TOO_MANY_CONNECTIONS; c++) {
		const char *body;
		n = deny_response((enum deny_code)c, buf, sizeof buf);
		CHECK(n > 0);
		buf[n] = 0;
		body = strstr(buf, "\r\n\r\n") + 4;
		CHECK((size_t)atoi(strstr(buf, "Content-Length: ") + 16) == strlen(body));
		CHECK(body[strlen(body) - 1] == '\n');
		CHECK_CONTAINS(body, deny_code_name((enum deny_code)c));
	}
	CHECK(!strncmp(buf, "HTTP/1.1 503 ", 13));
	deny_response(DENY_HEADER_TOO_LARGE, buf, sizeof buf);
	CHECK(!strncmp(buf, "HTTP/1.1 431 ", 13));
	deny_response(DENY_REQUEST_TIMEOUT, buf, sizeof buf);
	CHECK(!strncmp(buf, "HTTP/1.1 408 ", 13));
	deny_response(DENY_UPSTREAM_ERROR, buf, sizeof buf);
	CHECK(!strncmp(buf, "HTTP/1.1 502 ", 13));
	deny_response(DENY_HTTPS_REQUIRES_CONNECT, buf, sizeof buf);
	CHECK_CONTAINS(buf, "\"https_requires_connect\"");
	CHECK(deny_response(DENY_TARGET_DENIED, buf, 20) == 0);
}

TEST(resolver)
{
	struct dns_job j = { .port = 8080 };
	struct resolver *r = NULL;
	struct clasp_error err;
	struct dns_job *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b), *d;
	struct pollfd pfd;
	int got = 0;

	strcpy(j.host, "localhost");
	j.check_ranges = true;
	dns_resolve(&j);
	CHECK(j.result == -2 && j.n_addrs == 0); /* a hostname rule never reaches loopback */
	j.check_ranges = false;
	dns_resolve(&j);
	CHECK(j.result == 0 && j.n_addrs >= 1);
	CHECK(((struct sockaddr_in *)&j.addrs[0])->sin_port == htons(8080));
	strcpy(j.host, "no-such-host.invalid");
	dns_resolve(&j);
	CHECK(j.result == -1);

	CHECK(resolver_start(&r, 2, &err) == 0);
	strcpy(a->host, "localhost");
	strcpy(b->host, "localhost");
	b->check_ranges = true;
	resolver_submit(r, a);
	resolver_submit(r, b);
	pfd.fd = resolver_fd(r);
	pfd.events = POLLIN;
	while (got < 2 && poll(&pfd, 1, 5000) == 1) {
		while ((d = resolver_done(r))) {
			CHECK(d == a ? d->result == 0 : d->result == -2);
			free(d);
			got++;
		}
	}
	CHECK(got == 2);
	resolver_stop(r);
}

int main(void)
{
	RUN(simple_get);
	RUN(incomplete);
	RUN(malformed);
	RUN(smuggling);
	RUN(limits);
	RUN(pipelining);
	RUN(chunked);
	RUN(responses);
	RUN(urls);
	RUN(rewrite);
	RUN(denials);
	RUN(resolver);
	return unit_summary("http");
}
