#include "http.h"

#include <string.h>
#include <strings.h>

static bool is_tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static bool is_vchar_or_obs(unsigned char c)
{
	return (c >= 0x21 && c != 0x7f);
}

bool http_header_is(const struct http_header *h, const char *name)
{
	return h->name_len == strlen(name) && strncasecmp(h->name, name, h->name_len) == 0;
}

/* Walk the comma-separated tokens of a header value. */
static bool next_token(const char **p, const char *end, const char **tok, size_t *len)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t' || *s == ','))
		s++;
	if (s >= end)
		return false;
	*tok = s;
	while (s < end && *s != ',')
		s++;
	*len = (size_t)(s - *tok);
	while (*len && ((*tok)[*len - 1] == ' ' || (*tok)[*len - 1] == '\t'))
		(*len)--;
	*p = s;
	return true;
}

bool http_connection_names(const struct http_msg *m, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < m->n_headers; i++) {
		const struct http_header *h = &m->headers[i];
		const char *p = h->value, *end = h->value + h->value_len, *tok;
		size_t tl;

		if (!http_header_is(h, "connection"))
			continue;
		while (next_token(&p, end, &tok, &tl))
			if (tl == len && strncasecmp(tok, name, len) == 0)
				return true;
	}
	return false;
}

/* Find the end of the head ("\r\n\r\n") while refusing bare CR/LF. Returns
 * the head length, 0 when incomplete, -1 when malformed. */
static long find_head_end(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\n')
			return -1; /* a LF not preceded by our CR handling below */
		if (buf[i] == '\r') {
			if (i + 1 >= len)
				return 0;
			if (buf[i + 1] != '\n')
				return -1;
			if (i + 3 < len + 0 && buf[i + 2] == '\r' && buf[i + 3] == '\n')
				return (long)(i + 4);
			if (i + 2 < len && buf[i + 2] == '\r' && i + 3 >= len)
				return 0;
			i++; /* skip the LF */
		}
	}
	return 0;
}

static int parse_uint_dec(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (len == 0 || len > 18)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Header lines from p to end (end points at the final CRLF). */
static int parse_headers(const char *p, const char *end, struct http_msg *m, bool request)
{
	bool have_cl = false, have_te = false, have_host = false, te_chunked = false;
	bool conn_close = false, conn_ka = false;

	m->n_headers = 0;
	while (p < end) {
		const char *eol = memmem(p, (size_t)(end - p) + 2, "\r\n", 2);
		const char *colon, *v, *ve, *q;
		struct http_header *h;

		if (!eol)
			return HTTP_BAD;
		if (*p == ' ' || *p == '\t')
			return HTTP_BAD; /* obs-fold */
		colon = memchr(p, ':', (size_t)(eol - p));
		if (!colon || colon == p)
			return HTTP_BAD;
		for (q = p; q < colon; q++)
			if (!is_tchar((unsigned char)*q))
				return HTTP_BAD; /* also refuses "Name :" */
		v = colon + 1;
		ve = eol;
		while (v < ve && (*v == ' ' || *v == '\t'))
			v++;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		for (q = v; q < ve; q++)
			if (!is_vchar_or_obs((unsigned char)*q) && *q != ' ' && *q != '\t')
				return HTTP_BAD;
		if (m->n_headers == HTTP_MAX_HEADERS)
			return HTTP_TOO_LARGE;
		h = &m->headers[m->n_headers++];
		h->name = p;
		h->name_len = (size_t)(colon - p);
		h->value = v;
		h->value_len = (size_t)(ve - v);
		p = eol + 2;

		if (http_header_is(h, "content-length")) {
			if (have_cl)
				return HTTP_BAD;
			have_cl = true;
			if (parse_uint_dec(h->value, h->value_len, &m->content_length) < 0)
				return HTTP_BAD;
		} else if (http_header_is(h, "transfer-encoding")) {
			if (have_te && request)
				return HTTP_BAD;
			have_te = true;
			te_chunked = h->value_len == 7 && strncasecmp(h->value, "chunked", 7) == 0;
			if (request && !te_chunked)
				return HTTP_BAD;
		} else if (http_header_is(h, "host")) {
			if (have_host && request)
				return HTTP_BAD;
			have_host = true;
		} else if (http_header_is(h, "connection")) {
			const char *tp = h->value, *tok;
			size_t tl;
			while (next_token(&tp, h->value + h->value_len, &tok, &tl)) {
				if (tl == 5 && !strncasecmp(tok, "close", 5))
					conn_close = true;
				else if (tl == 10 && !strncasecmp(tok, "keep-alive", 10))
					conn_ka = true;
				else if (tl == 7 && !strncasecmp(tok, "upgrade", 7))
					m->conn_upgrade = true;
			}
		} else if (http_header_is(h, "upgrade")) {
			m->upgrade_websocket =
				h->value_len == 9 && strncasecmp(h->value, "websocket", 9) == 0;
		}
	}
	m->keep_alive = m->minor == 1 ? !conn_close : (conn_ka && !conn_close);
	if (have_te) {
		if (request && (have_cl || m->minor == 0))
			return HTTP_BAD;
		if (!te_chunked) {
			m->body = HTTP_BODY_CLOSE;
			m->keep_alive = false;
		} else {
			m->body = HTTP_BODY_CHUNKED;
		}
		if (have_cl && !request)
			m->keep_alive = false; /* RFC 9112 6.1: TE wins, close after */
	} else if (have_cl) {
		m->body = m->content_length ? HTTP_BODY_LENGTH : HTTP_BODY_NONE;
	} else {
		m->body = request ? HTTP_BODY_NONE : HTTP_BODY_CLOSE;
	}
	return HTTP_DONE;
}

static int parse_version(const char *p, struct http_msg *m)
{
	if (memcmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1'))
		return -1;
	m->minor = p[7] - '0';
	return 0;
}

int http_parse_request(const char *buf, size_t len, struct http_msg *m)
{
	const char *p, *eol, *sp1, *sp2, *q;
	long head;
	int r;

	memset(m, 0, sizeof *m);
	head = find_head_end(buf, len > HTTP_MAX_HEAD ? HTTP_MAX_HEAD : len);
	if (head < 0)
		return HTTP_BAD;
	if (head == 0)
		return len >= HTTP_MAX_HEAD ? HTTP_TOO_LARGE : HTTP_INCOMPLETE;
	m->head_len = (size_t)head;
	eol = memmem(buf, (size_t)head, "\r\n", 2);
	sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	if (!sp1 || sp1 == buf)
		return HTTP_BAD;
	for (q = buf; q < sp1; q++)
		if (!is_tchar((unsigned char)*q))
			return HTTP_BAD;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
	if (!sp2 || sp2 == sp1 + 1 || eol - sp2 != 9)
		return HTTP_BAD;
	for (q = sp1 + 1; q < sp2; q++)
		if (!is_vchar_or_obs((unsigned char)*q) || (unsigned char)*q >= 0x80)
			return HTTP_BAD;
	if (parse_version(sp2 + 1, m) < 0)
		return HTTP_BAD;
	m->method = buf;
	m->method_len = (size_t)(sp1 - buf);
	m->target = sp1 + 1;
	m->target_len = (size_t)(sp2 - sp1 - 1);
	m->is_connect = m->method_len == 7 && memcmp(buf, "CONNECT", 7) == 0;
	p = eol + 2;
	r = parse_headers(p, buf + head - 2, m, true);
	if (r != HTTP_DONE)
		return r;
	if (m->is_connect && m->body != HTTP_BODY_NONE)
		return HTTP_BAD;
	return HTTP_DONE;
}

int http_parse_response(const char *buf, size_t len, bool head_request, struct http_msg *m)
{
	const char *eol, *p;
	long head;
	int r;

	memset(m, 0, sizeof *m);
	head = find_head_end(buf, len > HTTP_MAX_RESP_HEAD ? HTTP_MAX_RESP_HEAD : len);
	if (head < 0)
		return HTTP_BAD;
	if (head == 0)
		return len >= HTTP_MAX_RESP_HEAD ? HTTP_TOO_LARGE : HTTP_INCOMPLETE;
	m->head_len = (size_t)head;
	eol = memmem(buf, (size_t)head, "\r\n", 2);
	if (eol - buf < 12 || parse_version(buf, m) < 0 || buf[8] != ' ' ||
	    buf[9] < '1' || buf[9] > '5' || buf[10] < '0' || buf[10] > '9' || buf[11] < '0' ||
	    buf[11] > '9' || (eol - buf > 12 && buf[12] != ' '))
		return HTTP_BAD;
	m->status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
	p = eol + 2;
	r = parse_headers(p, buf + head - 2, m, false);
	if (r != HTTP_DONE)
		return r;
	if (m->status < 200 || m->status == 204 || m->status == 304 || head_request)
		m->body = HTTP_BODY_NONE;
	return HTTP_DONE;
}

enum {
	CH_SIZE, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF,
	CH_TRAILER_START, CH_TRAILER, CH_TRAILER_LF, CH_FINAL_LF, CH_DONE
};

void http_chunked_init(struct http_chunked *c)
{
	memset(c, 0, sizeof *c);
	c->state = CH_SIZE;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

ssize_t http_chunked_feed(struct http_chunked *c, const char *buf, size_t len, bool *done)
{
	size_t i = 0;

	*done = false;
	while (i < len && c->state != CH_DONE) {
		unsigned char ch = (unsigned char)buf[i];

		if (c->state == CH_DATA) {
			size_t take = len - i;
			if (take > c->remaining)
				take = (size_t)c->remaining;
			c->remaining -= take;
			i += take;
			if (c->remaining == 0)
				c->state = CH_DATA_CR;
			continue;
		}
		if (c->state <= CH_SIZE_LF && ++c->line_len > HTTP_MAX_CHUNK_LINE)
			return -1;
		switch (c->state) {
		case CH_SIZE: {
			int h = hexval((char)ch);
			if (h >= 0) {
				if (++c->digits > 15)
					return -1;
				c->remaining = c->remaining * 16 + (uint64_t)h;
			} else if (c->digits == 0) {
				return -1;
			} else if (ch == ';') {
				c->state = CH_EXT;
			} else if (ch == '\r') {
				c->state = CH_SIZE_LF;
			} else {
				return -1;
			}
			break;
		}
		case CH_EXT:
			if (ch == '\r')
				c->state = CH_SIZE_LF;
			else if (ch != '\t' && (ch < 0x20 || ch == 0x7f))
				return -1;
			break;
		case CH_SIZE_LF:
			if (ch != '\n')
				return -1;
			c->line_len = 0;
			c->digits = 0;
			if (c->remaining == 0) {
				c->state = CH_TRAILER_START;
			} else {
				c->state = CH_DATA;
			}
			break;
		case CH_DATA_CR:
			if (ch != '\r')
				return -1;
			c->state = CH_DATA_LF;
			break;
		case CH_DATA_LF:
			if (ch != '\n')
				return -1;
			c->state = CH_SIZE;
			break;
		case CH_TRAILER_START:
			if (ch == '\r') {
				c->state = CH_FINAL_LF;
				break;
			}
			if (ch == ' ' || ch == '\t' || !is_tchar(ch))
				return -1;
			c->state = CH_TRAILER;
			/* fallthrough */
		case CH_TRAILER:
			if (++c->trailer_bytes > HTTP_MAX_TRAILERS)
				return -1;
			if (ch == '\r')
				c->state = CH_TRAILER_LF;
			else if (ch == '\n' || ch == 0 || ch == 0x7f || (ch < 0x20 && ch != '\t'))
				return -1;
			break;
		case CH_TRAILER_LF:
			if (ch != '\n')
				return -1;
			c->state = CH_TRAILER_START;
			break;
		case CH_FINAL_LF:
			if (ch != '\n')
				return -1;
			c->state = CH_DONE;
			break;
		}
		i++;
	}
	*done = c->state == CH_DONE;
	return (ssize_t)i;
}

static int split_authority(const char *a, size_t len, struct http_target *u, bool port_required)
{
	const char *colon;

	if (len == 0 || memchr(a, '@', len))
		return HTTP_URL_INVALID;
	if (a[0] == '[') {
		const char *close = memchr(a, ']', len);
		if (!close)
			return HTTP_URL_INVALID;
		u->host = a;
		u->host_len = (size_t)(close - a) + 1;
		if (u->host_len == len) {
			if (port_required)
				return HTTP_URL_INVALID;
			u->port = "80";
			u->port_len = 2;
			return HTTP_URL_OK;
		}
		if (close[1] != ':' || u->host_len + 1 == len)
			return HTTP_URL_INVALID;
		u->port = close + 2;
		u->port_len = len - u->host_len - 1;
		return HTTP_URL_OK;
	}
	colon = memchr(a, ':', len);
	if (colon && memchr(colon + 1, ':', len - (size_t)(colon - a) - 1))
		return HTTP_URL_INVALID;
	u->host = a;
	u->host_len = colon ? (size_t)(colon - a) : len;
	if (u->host_len == 0)
		return HTTP_URL_INVALID;
	if (!colon) {
		if (port_required)
			return HTTP_URL_INVALID;
		u->port = "80";
		u->port_len = 2;
		return HTTP_URL_OK;
	}
	u->port = colon + 1;
	u->port_len = len - u->host_len - 1;
	return u->port_len ? HTTP_URL_OK : HTTP_URL_INVALID;
}

int http_parse_absolute_url(const char *t, size_t len, struct http_target *u)
{
	size_t alen;

	memset(u, 0, sizeof *u);
	if (len >= 8 && strncasecmp(t, "https://", 8) == 0)
		return HTTP_URL_HTTPS;
	if (len < 7 || strncasecmp(t, "http://", 7) != 0 || memchr(t, '#', len))
		return HTTP_URL_INVALID;
	t += 7;
	len -= 7;
	for (alen = 0; alen < len && t[alen] != '/' && t[alen] != '?'; alen++)
		;
	u->path = t + alen;
	u->path_len = len - alen;
	return split_authority(t, alen, u, false);
}

int http_parse_authority(const char *t, size_t len, struct http_target *u)
{
	memset(u, 0, sizeof *u);
	if (memchr(t, '/', len) || memchr(t, '?', len) || memchr(t, '#', len))
		return HTTP_URL_INVALID;
	return split_authority(t, len, u, true);
}
