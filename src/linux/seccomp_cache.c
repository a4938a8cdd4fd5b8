/* On-disk cache of compiled seccomp filters. podman sends a ~300-rule
 * profile with every container; compiling it with libseccomp costs
 * milliseconds each time, reading a few KiB back costs microseconds.
 *
 * An entry is DIR/<sha256 key>.bpf: a header (magic, version, length, the
 * digest of the key and of the instructions) and the struct sock_filter
 * array. Entries are written to a temp file and renamed into place, so a
 * reader sees a whole entry or none; the digest catches anything else, and
 * any doubt means "compile again", never an error. */
#include "linux/seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/sha256.h"

#define CACHE_MAGIC "CLASPBPF"
#define CACHE_VERSION 1u
/* Bumped whenever compile() changes how it turns a profile into BPF. */
#define CACHE_SCHEME "clasp-seccomp-cache/1"

struct cache_header {
	char magic[8];
	uint32_t version;
	uint32_t len; /* bytes of BPF that follow */
	unsigned char key[32];
	unsigned char digest[32];
};

static void put_str(struct sha256 *h, const char *s)
{
	/* Length-prefixed, so no two different profiles share a stream. */
	uint64_t n = s ? strlen(s) : UINT64_MAX;
	sha256_update(h, &n, sizeof(n));
	if (s)
		sha256_update(h, s, strlen(s));
}

static void put_u64(struct sha256 *h, uint64_t v)
{
	sha256_update(h, &v, sizeof(v));
}

void seccomp_cache_key(const struct oci_seccomp *s, char hex[65])
{
	const struct scmp_version *v = seccomp_version();
	struct sha256 h;
	unsigned char d[32];

	sha256_init(&h);
	put_str(&h, CACHE_SCHEME);
	put_u64(&h, ((uint64_t)v->major << 32) | ((uint64_t)v->minor << 16) | v->micro);
	put_u64(&h, seccomp_arch_native());
	put_u64(&h, s->default_action);
	put_u64(&h, s->default_errno_ret.set ? s->default_errno_ret.v : UINT64_MAX);
	put_u64(&h, s->architectures.n);
	for (size_t i = 0; i < s->architectures.n; i++)
		put_str(&h, s->architectures.v[i]);
	put_u64(&h, s->n_syscalls);
	for (size_t i = 0; i < s->n_syscalls; i++) {
		const struct oci_seccomp_syscall *sc = &s->syscalls[i];
		put_u64(&h, sc->action);
		put_u64(&h, sc->errno_ret.set ? sc->errno_ret.v : UINT64_MAX);
		put_u64(&h, sc->names.n);
		for (size_t j = 0; j < sc->names.n; j++)
			put_str(&h, sc->names.v[j]);
		put_u64(&h, sc->n_args);
		for (size_t j = 0; j < sc->n_args; j++) {
			put_u64(&h, sc->args[j].index);
			put_u64(&h, sc->args[j].op);
			put_u64(&h, sc->args[j].value);
			put_u64(&h, sc->args[j].value_two);
		}
	}
	sha256_final(&h, d);
	for (int i = 0; i < 32; i++)
		snprintf(hex + (size_t)2 * i, 3, "%02x", d[i]);
}

static int entry_path(const char *dir, const char *key, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/%s.bpf", dir, key);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

static void digest(const void *data, size_t len, unsigned char out[32])
{
	struct sha256 h;
	sha256_init(&h);
	sha256_update(&h, data, len);
	sha256_final(&h, out);
}

static void key_bytes(const char *key, unsigned char out[32])
{
	digest(key, strlen(key), out);
}

int seccomp_cache_load(const char *dir, const char *key, void **bpf, size_t *len)
{
	char path[4096];
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct cache_header hdr;
	unsigned char want[32];
	struct stat st;
	size_t total;

	if (entry_path(dir, key, path, sizeof(path)) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	/* Only an entry this user wrote and nobody else could change is
	 * trusted: the BPF becomes the container's syscall policy. */
	if (st.st_uid != geteuid() || (st.st_mode & 022))
		return -1;
	if (st.st_size < (off_t)sizeof(hdr) ||
	    st.st_size > (off_t)(sizeof(hdr) + BPF_MAXINSNS * sizeof(struct sock_filter)))
		return -1;
	total = (size_t)st.st_size;
	buf = malloc(total);
	if (!buf)
		return -1;
	for (size_t done = 0; done < total;) {
		ssize_t r = pread(fd, buf + done, total - done, (off_t)done);
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	memcpy(&hdr, buf, sizeof(hdr));
	if (memcmp(hdr.magic, CACHE_MAGIC, 8) != 0 || hdr.version != CACHE_VERSION ||
	    hdr.len != total - sizeof(hdr) || hdr.len == 0 || hdr.len % sizeof(struct sock_filter))
		return -1;
	key_bytes(key, want);
	if (memcmp(hdr.key, want, 32) != 0)
		return -1;
	digest(buf + sizeof(hdr), hdr.len, want);
	if (memcmp(hdr.digest, want, 32) != 0)
		return -1;

	*bpf = malloc(hdr.len);
	if (!*bpf)
		return -1;
	memcpy(*bpf, buf + sizeof(hdr), hdr.len);
	*len = hdr.len;
	return 0;
}

static int write_all(int fd, const void *data, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t r = write(fd, (const char *)data + done, len - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

int seccomp_cache_store(const char *dir, const char *key, const void *bpf, size_t len)
{
	char path[4096], tmp[4096];
	_cleanup_close_ int fd = -1;
	struct cache_header hdr = { .version = CACHE_VERSION, .len = (uint32_t)len };
	int n;

	if (len == 0 || len > BPF_MAXINSNS * sizeof(struct sock_filter))
		return -1;
	if (entry_path(dir, key, path, sizeof(path)) < 0)
		return -1;
	n = snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, key);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -1;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -1;

	memcpy(hdr.magic, CACHE_MAGIC, 8);
	key_bytes(key, hdr.key);
	digest(bpf, len, hdr.digest);

	fd = mkostemp(tmp, O_CLOEXEC); /* mode 0600 */
	if (fd < 0)
		return -1;
	if (write_all(fd, &hdr, sizeof(hdr)) < 0 || write_all(fd, bpf, len) < 0 ||
	    rename(tmp, path) < 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}
