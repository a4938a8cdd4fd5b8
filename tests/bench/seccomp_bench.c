/* seccomp_bench PROFILE.json [N]: the cost of clasp's seccomp setup for one
 * OCI linux.seccomp object (e.g. tests/fixtures/podman-seccomp-oci.json):
 * seccomp_prepare() without cache, with a cold cache (compile + store), with
 * a warm cache (hit), and seccomp_install() (the seccomp(2) load) in a fresh
 * child. Prints medians and minima in microseconds. Built by
 * tests/bench/seccomp-bench.sh against the library objects. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux/seccomp.h"
#include "oci/config.h"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *what, double *t, int n)
{
	qsort(t, n, sizeof(*t), cmp_double);
	printf("%-36s median %9.1f us   min %9.1f us   (n=%d)\n", what, t[n / 2], t[0], n);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, len = 0, r;

	if (!f)
		return NULL;
	do {
		if (len + 4096 > cap) {
			cap = (cap + 4096) * 2;
			buf = realloc(buf, cap);
		}
		r = fread(buf + len, 1, cap - len - 1, f);
		len += r;
	} while (r > 0);
	fclose(f);
	buf[len] = 0;
	return buf;
}

static void die(const char *what, const struct clasp_error *err)
{
	fprintf(stderr, "seccomp_bench: %s: %s\n", what, err->msg);
	exit(1);
}

int main(int argc, char **argv)
{
	struct clasp_error err = { 0 };
	struct oci_config *cfg = NULL;
	char *profile, *doc, dir[] = "/tmp/clasp-seccomp-bench.XXXXXX", cache[64], cmd[128];
	int n = argc > 2 ? atoi(argv[2]) : 200;
	double *t;
	size_t len;

	if (argc < 2 || n < 1) {
		fprintf(stderr, "usage: seccomp_bench PROFILE.json [N]\n");
		return 2;
	}
	profile = slurp(argv[1]);
	if (!profile) {
		perror(argv[1]);
		return 1;
	}
	if (asprintf(&doc, "{\"ociVersion\":\"1.3.0\",\"root\":{\"path\":\"rootfs\"},"
			   "\"linux\":{\"seccomp\":%s}}", profile) < 0 ||
	    oci_config_parse(doc, strlen(doc), argv[1], &cfg, &err) < 0)
		die("parse", &err);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	t = calloc(n, sizeof(*t));

	const struct oci_seccomp *s = cfg->linux_.seccomp;
	size_t names = 0;
	for (size_t i = 0; i < s->n_syscalls; i++)
		names += s->syscalls[i].names.n;
	printf("profile %s: %zu rules, %zu names, %zu architectures; libseccomp %u.%u.%u\n", argv[1],
	       s->n_syscalls, names, s->architectures.n, seccomp_version()->major,
	       seccomp_version()->minor, seccomp_version()->micro);

	struct seccomp_prog *p = NULL;
	for (int i = 0; i < n; i++) {
		double t0 = now_us();
		if (seccomp_prepare(s, NULL, &p, &err) < 0)
			die("prepare", &err);
		t[i] = now_us() - t0;
		if (i + 1 < n)
			seccomp_prog_free(p);
	}
	seccomp_prog_bpf(p, &len);
	printf("BPF: %zu instructions\n", len / 8);
	seccomp_prog_free(p);
	report("prepare, no cache (compile)", t, n);

	for (int i = 0; i < n; i++) {
		char key[65], entry[256];
		seccomp_cache_key(s, key);
		snprintf(entry, sizeof(entry), "%s/%s.bpf", cache, key);
		unlink(entry);
		double t0 = now_us();
		if (seccomp_prepare(s, cache, &p, &err) < 0)
			die("prepare", &err);
		t[i] = now_us() - t0;
		seccomp_prog_free(p);
	}
	report("prepare, cold cache (compile+store)", t, n);

	for (int i = 0; i < n; i++) {
		double t0 = now_us();
		if (seccomp_prepare(s, cache, &p, &err) < 0)
			die("prepare", &err);
		t[i] = now_us() - t0;
		if (!seccomp_prog_from_cache(p)) {
			fprintf(stderr, "seccomp_bench: expected a cache hit\n");
			return 1;
		}
		seccomp_prog_free(p);
	}
	report("prepare, warm cache (hit)", t, n);

	if (seccomp_prepare(s, cache, &p, &err) < 0)
		die("prepare", &err);
	for (int i = 0; i < n; i++) {
		int fds[2], st;
		double v = -1;
		if (pipe(fds) < 0)
			return 1;
		pid_t pid = fork();
		if (pid == 0) {
			int nfd;
			close(fds[0]);
			prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
			double t0 = now_us();
			if (seccomp_install(p, &nfd, &err) < 0)
				_exit(1);
			v = now_us() - t0;
			_exit(write(fds[1], &v, sizeof(v)) == sizeof(v) ? 0 : 1);
		}
		close(fds[1]);
		if (read(fds[0], &v, sizeof(v)) != sizeof(v))
			v = -1;
		close(fds[0]);
		waitpid(pid, &st, 0);
		if (v < 0) {
			fprintf(stderr, "seccomp_bench: install failed in the child\n");
			return 1;
		}
		t[i] = v;
	}
	seccomp_prog_free(p);
	report("install (seccomp(2) load)", t, n);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "seccomp_bench: could not remove %s\n", dir);
	oci_config_free(cfg);
	free(t);
	free(doc);
	free(profile);
	return 0;
}
