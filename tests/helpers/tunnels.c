/* Open N concurrent CONNECT tunnels through a proxy to an echo target, send
 * a line through each, check the echo, and hold every tunnel open until all
 * have answered (so they are truly concurrent). Prints "ok N" on success.
 * usage: tunnels PROXY_PORT TARGET_HOST:PORT N */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

struct t {
	int fd, stage; /* 0 connecting, 1 wait 200, 2 wait echo, 3 done */
	char buf[512];
	size_t len;
	char line[32];
};

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct rlimit rl = { 65536, 65536 };
	struct epoll_event ev, evs[256];
	int n, ep, done = 0, failed = 0;
	struct t *ts;

	if (argc != 4)
		return 2;
	setrlimit(RLIMIT_NOFILE, &rl);
	n = atoi(argv[3]);
	ts = calloc((size_t)n, sizeof *ts);
	sa.sin_port = htons((uint16_t)atoi(argv[1]));
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	ep = epoll_create1(0);
	for (int i = 0; i < n; i++) {
		int one = 1;
		ts[i].fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		/* so our TIME_WAITs never block a test listener on that port */
		setsockopt(ts[i].fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (connect(ts[i].fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS) {
			perror("connect");
			return 1;
		}
		snprintf(ts[i].line, sizeof ts[i].line, "ping %d\n", i);
		ev.events = EPOLLOUT;
		ev.data.ptr = &ts[i];
		epoll_ctl(ep, EPOLL_CTL_ADD, ts[i].fd, &ev);
	}
	while (done + failed < n) {
		int k = epoll_wait(ep, evs, 256, 15000);
		if (k <= 0) {
			fprintf(stderr, "timeout: %d done, %d failed\n", done, failed);
			return 1;
		}
		for (int i = 0; i < k; i++) {
			struct t *t = evs[i].data.ptr;
			if (t->stage == 0) {
				char req[256];
				int l = snprintf(req, sizeof req, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n",
						 argv[2], argv[2]);
				if (write(t->fd, req, (size_t)l) != l) {
					failed++;
					t->stage = 3;
					epoll_ctl(ep, EPOLL_CTL_DEL, t->fd, NULL);
					continue;
				}
				t->stage = 1;
				ev.events = EPOLLIN;
				ev.data.ptr = t;
				epoll_ctl(ep, EPOLL_CTL_MOD, t->fd, &ev);
				continue;
			}
			ssize_t r = read(t->fd, t->buf + t->len, sizeof t->buf - 1 - t->len);
			if (r <= 0) {
				failed++;
				t->stage = 3;
				epoll_ctl(ep, EPOLL_CTL_DEL, t->fd, NULL);
				continue;
			}
			t->len += (size_t)r;
			t->buf[t->len] = 0;
			if (t->stage == 1) {
				char *end = strstr(t->buf, "\r\n\r\n");
				if (!end)
					continue;
				if (strncmp(t->buf, "HTTP/1.1 200 ", 13)) {
					failed++;
					t->stage = 3;
					epoll_ctl(ep, EPOLL_CTL_DEL, t->fd, NULL);
					continue;
				}
				t->len -= (size_t)(end + 4 - t->buf);
				memmove(t->buf, end + 4, t->len + 1);
				t->stage = 2;
				if (write(t->fd, t->line, strlen(t->line)) < 0)
					failed++;
			}
			if (t->stage == 2 && t->len >= strlen(t->line)) {
				if (strncmp(t->buf, t->line, strlen(t->line)) == 0)
					done++;
				else
					failed++;
				t->stage = 3;
				epoll_ctl(ep, EPOLL_CTL_DEL, t->fd, NULL);
			}
		}
	}
	for (int i = 0; i < n; i++)
		close(ts[i].fd);
	if (failed) {
		fprintf(stderr, "%d of %d tunnels failed\n", failed, n);
		return 1;
	}
	printf("ok %d\n", done);
	return 0;
}
