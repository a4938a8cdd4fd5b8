/* clasp-egress: the egress allowlist proxy. As an OCI prestart hook it binds
 * inside the container's network namespace and dials out from the host's;
 * `serve` runs the same proxy in the foreground for tests and debugging. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook.h"
#include "proxy.h"
#include "util/cleanup.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: clasp-egress hook --policy FILE    (OCI prestart hook; state on stdin)\n"
		   "       clasp-egress serve --listen ADDR:PORT --policy FILE\n");
}

static int read_all(int fd, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);

	if (!buf)
		return -1;
	for (;;) {
		ssize_t r;
		if (n == cap) {
			char *nb;
			if (cap >= (4u << 20)) {
				free(buf);
				errno = EFBIG;
				return -1;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -1;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*out = buf;
	*len = n;
	return 0;
}

static int serve(const char *listen, const char *policy_path)
{
	struct clasp_error err = { 0 };
	struct egress_policy p;
	struct audit audit;
	struct proxy_config cfg = { .pidfd = -1, .ready_fd = -1 };
	int fd, r;

	if (egress_policy_read(policy_path, &p, &err) < 0) {
		fprintf(stderr, "clasp-egress: %s\n", err.msg);
		return 1;
	}
	fd = listen_on(listen, &err);
	if (fd < 0 || audit_open(&audit, p.audit_log, &err) < 0) {
		fprintf(stderr, "clasp-egress: %s\n", err.msg);
		egress_policy_free(&p);
		return 1;
	}
	cfg.policy = &p;
	cfg.listen_fds = &fd;
	cfg.n_listen = 1;
	cfg.audit = &audit;
	fprintf(stderr, "clasp-egress: listening on %s\n", listen);
	r = proxy_run(&cfg, &err);
	if (r < 0)
		fprintf(stderr, "clasp-egress: %s\n", err.msg);
	audit_close(&audit);
	close(fd);
	egress_policy_free(&p);
	return r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *policy = NULL, *listen = NULL;
	struct clasp_error err = { 0 };
	int i, role = 0, r;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("clasp-egress %s\n", CLASP_VERSION);
		return 0;
	}
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--policy") && i + 1 < argc)
			policy = argv[++i];
		else if (!strcmp(argv[i], "--listen") && i + 1 < argc)
			listen = argv[++i];
		else {
			fprintf(stderr, "clasp-egress: unknown argument \"%s\"\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (!policy) {
		fprintf(stderr, "clasp-egress: --policy FILE is required\n");
		return 2;
	}
	if (!strcmp(argv[1], "serve")) {
		if (!listen) {
			fprintf(stderr, "clasp-egress: serve needs --listen ADDR:PORT\n");
			return 2;
		}
		return serve(listen, policy);
	}
	if (!strcmp(argv[1], "hook")) {
		_cleanup_free_ char *state = NULL;
		size_t len = 0;

		if (read_all(0, &state, &len) < 0) {
			fprintf(stderr, "clasp-egress: read container state from stdin: %s\n",
				strerror(errno));
			return 1;
		}
		r = hook_run(policy, state, len, &role, &err);
		if (role == 1)
			_exit(r < 0 ? 1 : 0);
		if (role == 2)
			return r < 0 ? 1 : 0;
		if (r < 0) {
			fprintf(stderr, "clasp-egress: %s\n", err.msg);
			return 1;
		}
		return 0;
	}
	fprintf(stderr, "clasp-egress: unknown command \"%s\"\n", argv[1]);
	usage(stderr);
	return 2;
}
