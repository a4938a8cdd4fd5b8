/* A tiny origin server for the egress proxy tests, on 127.0.0.1 (or the
 * address given). A connection whose first bytes look like an HTTP request
 * is served as HTTP/1.1 keep-alive:
 *   GET /            -> "hello from origin\n"
 *   GET /headers     -> the request head as received (to check rewriting)
 *   GET /chunked     -> a chunked body
 *   GET /close       -> a close-delimited body
 *   POST ...         -> "got N bytes\n" after reading a Content-Length body
 * Anything else is echoed back byte for byte (a plain TCP echo, for CONNECT
 * tunnel tests). Single-threaded epoll, so it copes with 1000s of clients.
 * usage: origin PORT [ADDR] */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

struct cl {
	int fd;
	int mode; /* 0 unknown, 1 http, 2 echo */
	char in[65536];
	size_t inlen;
	char *out;
	size_t outlen, outoff;
	int close_after;
};

static void out_add(struct cl *c, const char *p, size_t n)
{
	c->out = realloc(c->out, c->outlen + n);
	memcpy(c->out + c->outlen, p, n);
	c->outlen += n;
}

static void respond(struct cl *c, const char *head, size_t headlen, size_t bodylen)
{
	char buf[70000];
	int n;
	const char *body = "hello from origin\n";

	if (!strncmp(head, "GET /ws ", 8) && strcasestr(head, "\r\nUpgrade: websocket")) {
		const char *r = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
				"Connection: Upgrade\r\n\r\n";
		out_add(c, r, strlen(r));
		c->mode = 2; /* echo from here on */
	} else if (!strncmp(head, "GET /headers ", 13)) {
		n = snprintf(buf, sizeof buf, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n", headlen);
		out_add(c, buf, (size_t)n);
		out_add(c, head, headlen);
	} else if (!strncmp(head, "GET /chunked ", 13)) {
		const char *r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
				"6\r\nhello \r\nc\r\nfrom origin\n\r\n0\r\n\r\n";
		out_add(c, r, strlen(r));
	} else if (!strncmp(head, "GET /close ", 11)) {
		const char *r = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nclose-delimited body\n";
		out_add(c, r, strlen(r));
		c->close_after = 1;
	} else if (!strncmp(head, "POST ", 5)) {
		n = snprintf(buf, sizeof buf, "got %zu bytes\n", bodylen);
		char h[128];
		int hn = snprintf(h, sizeof h, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", n);
		out_add(c, h, (size_t)hn);
		out_add(c, buf, (size_t)n);
	} else {
		n = snprintf(buf, sizeof buf,
			     "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n\r\n%s",
			     strlen(body), body);
		if (!strncmp(head, "HEAD ", 5))
			n -= (int)strlen(body);
		out_add(c, buf, (size_t)n);
	}
}

static void process(struct cl *c)
{
	if (c->mode == 0 && c->inlen >= 4) {
		c->mode = (!strncmp(c->in, "GET ", 4) || !strncmp(c->in, "POST", 4) ||
			   !strncmp(c->in, "HEAD", 4)) ? 1 : 2;
	}
	if (c->mode == 2) {
		out_add(c, c->in, c->inlen);
		c->inlen = 0;
		return;
	}
	while (c->mode == 1 && !c->close_after) {
		char *end = memmem(c->in, c->inlen, "\r\n\r\n", 4);
		size_t headlen, cl = 0;
		char *p;

		if (!end)
			return;
		headlen = (size_t)(end - c->in) + 4;
		for (p = c->in; p < end; p++)
			if (!strncasecmp(p, "\r\nContent-Length:", 17))
				cl = strtoul(p + 17, NULL, 10);
		if (memmem(c->in, headlen, "Transfer-Encoding: chunked", 26)) {
			/* Wait for the last chunk, so a proxy must have validated it all. */
			char *last = memmem(c->in + headlen - 2, c->inlen - headlen + 2, "\r\n0\r\n\r\n", 7);
			if (!last)
				return;
			cl = (size_t)(last + 7 - c->in) - headlen;
		}
		if (c->inlen < headlen + cl)
			return;
		respond(c, c->in, headlen, cl);
		memmove(c->in, c->in + headlen + cl, c->inlen - headlen - cl);
		c->inlen -= headlen + cl;
		if (c->mode == 2 && c->inlen) {
			out_add(c, c->in, c->inlen);
			c->inlen = 0;
		}
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct epoll_event ev, evs[256];
	struct rlimit rl = { 65536, 65536 };
	int one = 1, lfd, ep;

	if (argc < 2) {
		fprintf(stderr, "usage: origin PORT [ADDR]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	setrlimit(RLIMIT_NOFILE, &rl);
	sa.sin_port = htons((uint16_t)atoi(argv[1]));
	inet_pton(AF_INET, argc > 2 ? argv[2] : "127.0.0.1", &sa.sin_addr);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 4096) < 0) {
		perror("origin: bind/listen");
		return 1;
	}
	ep = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	fprintf(stderr, "origin: listening on %s\n", argv[1]);
	for (;;) {
		int n = epoll_wait(ep, evs, 256, -1);
		for (int i = 0; i < n; i++) {
			struct cl *c = evs[i].data.ptr;
			if (!c) {
				int fd;
				while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
					c = calloc(1, sizeof *c);
					c->fd = fd;
					ev.events = EPOLLIN;
					ev.data.ptr = c;
					epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
				}
				continue;
			}
			if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
				ssize_t r = read(c->fd, c->in + c->inlen, sizeof c->in - c->inlen);
				if (r <= 0 && !(r < 0 && errno == EAGAIN)) {
					close(c->fd);
					free(c->out);
					free(c);
					continue;
				}
				if (r > 0) {
					c->inlen += (size_t)r;
					process(c);
				}
			}
			while (c->outoff < c->outlen) {
				ssize_t w = write(c->fd, c->out + c->outoff, c->outlen - c->outoff);
				if (w <= 0)
					break;
				c->outoff += (size_t)w;
			}
			if (c->outoff == c->outlen) {
				c->outoff = c->outlen = 0;
				if (c->close_after) {
					close(c->fd);
					free(c->out);
					free(c);
					continue;
				}
			}
			ev.events = EPOLLIN | (c->outoff < c->outlen ? EPOLLOUT : 0);
			ev.data.ptr = c;
			epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
		}
	}
}
