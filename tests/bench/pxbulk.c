/*
 * pxbulk: bulk transfer through an HTTP CONNECT tunnel (or directly), for
 * tests/bench/proxy.sh. The shared origin serves at most 256 MiB per
 * response; this one serves any size, and the client records the longest
 * gap between two reads, which is how a stall in a tunnel shows.
 *
 *   pxbulk serve -p PORT
 *       GET /bytes/N -> 200 with N bytes; keep-alive; one thread per connection.
 *   pxbulk get -t HOST:PORT [-x PROXYHOST:PORT] [-b BYTES] [-n COUNT] [-l LABEL]
 *       COUNT requests for BYTES each, all on one connection (one CONNECT
 *       tunnel when -x is given). Prints one TSV line:
 *       label bytes_per_request count MiB_per_s max_gap_us connect_us
 *       (connect_us: TCP connect plus the CONNECT exchange).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1 << 20)
static char chunk[CHUNK];

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads up to the end of a head; returns its length, or -1. Bytes after it stay in buf. */
static ssize_t read_head(int fd, char *buf, size_t cap, size_t *len)
{
	char *eoh;

	buf[*len] = 0;
	while (!(eoh = strstr(buf, "\r\n\r\n"))) {
		ssize_t r;
		if (*len >= cap - 1)
			return -1;
		r = recv(fd, buf + *len, cap - 1 - *len, 0);
		if (r <= 0)
			return -1;
		*len += (size_t)r;
		buf[*len] = 0;
	}
	return eoh + 4 - buf;
}

static void *serve_conn(void *arg)
{
	int fd = (int)(long)arg;
	char buf[8192];
	size_t len = 0;

	for (;;) {
		ssize_t head = read_head(fd, buf, sizeof buf, &len);
		long long n = -1, left;
		char hdr[160];
		int hl;

		if (head < 0)
			break;
		if (!strncmp(buf, "GET /bytes/", 11))
			n = atoll(buf + 11);
		if (n < 0)
			hl = snprintf(hdr, sizeof hdr, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
		else
			hl = snprintf(hdr, sizeof hdr, "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\n\r\n", n);
		if (send_all(fd, hdr, (size_t)hl) < 0)
			break;
		for (left = n > 0 ? n : 0; left > 0;) {
			size_t k = left > CHUNK ? CHUNK : (size_t)left;
			if (send_all(fd, chunk, k) < 0)
				goto out;
			left -= (long long)k;
		}
		memmove(buf, buf + head, len - (size_t)head);
		len -= (size_t)head;
	}
out:
	close(fd);
	return NULL;
}

static int serve(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	pthread_attr_t at;

	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(ls, 128) < 0) {
		perror("pxbulk: listen");
		return 1;
	}
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	for (;;) {
		pthread_t t;
		int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		if (pthread_create(&t, &at, serve_conn, (void *)(long)fd))
			close(fd);
	}
}

static int parse_hp(const char *s, struct sockaddr_in *sa)
{
	char host[64];
	const char *c = strrchr(s, ':');

	if (!c || (size_t)(c - s) >= sizeof host)
		return -1;
	memcpy(host, s, (size_t)(c - s));
	host[c - s] = 0;
	sa->sin_family = AF_INET;
	sa->sin_port = htons((unsigned short)atoi(c + 1));
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

static int get(const char *target, const char *proxy, long long bytes, int count, const char *label)
{
	static char buf[1 << 18];
	struct sockaddr_in sa;
	char req[512];
	size_t len = 0;
	long long t0, t1, last, max_gap = 0, total = 0;
	int n, one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (parse_hp(proxy ? proxy : target, &sa) < 0) {
		fprintf(stderr, "pxbulk: bad address\n");
		return 2;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	t0 = now_us();
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		perror("pxbulk: connect");
		return 1;
	}
	if (proxy) {
		ssize_t head;
		int st = 0;
		n = snprintf(req, sizeof req, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target);
		if (send_all(fd, req, (size_t)n) < 0 || (head = read_head(fd, buf, sizeof buf, &len)) < 0 ||
		    sscanf(buf, "HTTP/%*s %d", &st) != 1 || st != 200) {
			fprintf(stderr, "pxbulk: CONNECT %s via %s failed (status %d)\n", target, proxy, st);
			return 1;
		}
		memmove(buf, buf + head, len - (size_t)head);
		len -= (size_t)head;
	}
	t1 = now_us();
	for (int i = 0; i < count; i++) {
		ssize_t head;
		long long got;
		n = snprintf(req, sizeof req, "GET /bytes/%lld HTTP/1.1\r\nHost: %s\r\n\r\n", bytes, target);
		if (send_all(fd, req, (size_t)n) < 0 || (head = read_head(fd, buf, sizeof buf, &len)) < 0 ||
		    strncmp(buf + 9, "200", 3)) {
			fprintf(stderr, "pxbulk: request %d failed\n", i);
			return 1;
		}
		got = (long long)len - head;
		len = 0;
		last = now_us();
		while (got < bytes) {
			long long t;
			ssize_t r = recv(fd, buf, sizeof buf, 0);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				fprintf(stderr, "pxbulk: short body (%lld of %lld)\n", got, bytes);
				return 1;
			}
			t = now_us();
			if (t - last > max_gap)
				max_gap = t - last;
			last = t;
			got += r;
		}
		total += got;
	}
	printf("%s\t%lld\t%d\t%.1f\t%lld\t%lld\n", label, bytes, count,
	       (double)total / 1048576.0 / ((double)(now_us() - t1) / 1e6), max_gap, t1 - t0);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *target = NULL, *proxy = NULL, *label = "pxbulk";
	long long bytes = 1LL << 30;
	int opt, port = 0, count = 1;

	if (argc < 2)
		goto usage;
	signal(SIGPIPE, SIG_IGN);
	memset(chunk, 'x', sizeof chunk);
	optind = 2;
	while ((opt = getopt(argc, argv, "p:t:x:Cb:n:l:")) != -1) {
		switch (opt) {
		case 'p': port = atoi(optarg); break;
		case 't': target = optarg; break;
		case 'x': proxy = optarg; break;
		case 'b': bytes = atoll(optarg); break;
		case 'n': count = atoi(optarg); break;
		case 'C': break; /* -x always means CONNECT */
		case 'l': label = optarg; break;
		default: goto usage;
		}
	}
	if (!strcmp(argv[1], "serve") && port > 0)
		return serve(port);
	if (!strcmp(argv[1], "get") && target && bytes > 0 && count > 0)
		return get(target, proxy, bytes, count, label);
usage:
	fprintf(stderr, "usage: pxbulk serve -p PORT | pxbulk get -t HOST:PORT [-x PROXY:PORT] [-b BYTES] [-n COUNT] [-l LABEL]\n");
	return 2;
}
