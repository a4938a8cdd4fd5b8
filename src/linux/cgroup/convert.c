#include "linux/cgroup/convert.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t cgconv_shares_to_weight(uint64_t shares)
{
	if (shares == 0)
		return 0;
	if (shares < 2)
		shares = 2;
	if (shares > 262144)
		shares = 262144;
	return 1 + ((shares - 2) * 9999) / 262142;
}

uint64_t cgconv_blkio_to_io_weight(uint64_t weight)
{
	if (weight == 0)
		return 0;
	if (weight < 10)
		weight = 10;
	if (weight > 1000)
		weight = 1000;
	return 1 + (weight - 10) * 9999 / 990;
}

bool cgconv_cpu_max(bool quota_set, int64_t quota, bool period_set, uint64_t period, char *buf,
		    size_t len)
{
	int n;

	if (!quota_set && !period_set)
		return false;
	if (quota_set && quota > 0)
		n = snprintf(buf, len, "%" PRId64, quota);
	else
		n = snprintf(buf, len, "max");
	if (period_set && period > 0 && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " %" PRIu64, period);
	return true;
}

void cgconv_v1_limit(int64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRId64, v < 0 ? (int64_t)-1 : v);
}

void cgconv_v2_limit(int64_t v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "max");
	else
		snprintf(buf, len, "%" PRId64, v);
}

int cgconv_swap_v2(bool swap_set, int64_t swap, bool limit_set, int64_t limit, bool *out_set,
		   int64_t *out, struct clasp_error *err)
{
	*out_set = false;
	if (!swap_set) {
		/* "memory unlimited" means memory and swap unlimited, as on v1 */
		if (limit_set && limit == -1) {
			*out_set = true;
			*out = -1;
		}
		return 0;
	}
	if (swap == -1) {
		*out_set = true;
		*out = -1;
		return 0;
	}
	if (swap < -1)
		return clasp_error_set(err, 0, "invalid swap value %" PRId64, swap);
	if (!limit_set || limit == -1)
		return clasp_error_set(err, 0, "unable to set swap limit without memory limit");
	if (limit < 0)
		return clasp_error_set(err, 0, "invalid memory value %" PRId64, limit);
	if (swap < limit)
		return clasp_error_set(err, 0,
				       "memory+swap limit (%" PRId64 ") should be >= memory limit (%" PRId64 ")",
				       swap, limit);
	*out_set = true;
	*out = swap - limit;
	return 0;
}

int cgconv_parse_cpulist(const char *s, uint64_t *mask, size_t mask_words)
{
	int max = -2;
	const char *p = s;

	if (mask)
		memset(mask, 0, mask_words * sizeof *mask);
	while (*p == ' ' || *p == '\n')
		p++;
	if (*p == '\0')
		return -2;
	for (;;) {
		char *end;
		unsigned long a, b;

		if (*p < '0' || *p > '9')
			return -1;
		a = strtoul(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return -1;
			b = strtoul(p, &end, 10);
			p = end;
			if (b < a)
				return -1;
		}
		if (b > 65535)
			return -1;
		for (unsigned long i = a; i <= b; i++)
			if (mask && i / 64 < mask_words)
				mask[i / 64] |= 1ULL << (i % 64);
		if ((int)b > max)
			max = (int)b;
		if (*p == ',') {
			p++;
			continue;
		}
		while (*p == '\n' || *p == ' ')
			p++;
		return *p ? -1 : max;
	}
}

int cgconv_pagesize_parse(const char *s, uint64_t *bytes)
{
	static const char *units[] = { "KB", "MB", "GB", "TB", NULL };
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v == 0)
		return -1;
	for (int i = 0; units[i]; i++) {
		if (strcmp(end, units[i]) == 0) {
			uint64_t mul = 1024ULL << (10 * i);
			if (v > UINT64_MAX / mul)
				return -1;
			*bytes = v * mul;
			return 0;
		}
	}
	return -1;
}

void cgconv_pagesize_name(uint64_t bytes, char *buf, size_t len)
{
	static const char *units[] = { "B", "KB", "MB", "GB", "TB" };
	int i = 0;

	while (i < 4 && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		i++;
	}
	snprintf(buf, len, "%" PRIu64 "%s", bytes, units[i]);
}

void cgconv_device_rule(char type, bool major_set, int64_t major, bool minor_set, int64_t minor,
			const char *access, char *buf, size_t len)
{
	char maj[24], min[24];

	if (!access || !*access)
		access = "rwm";
	if (type == 'a' || type == 0) {
		/* the kernel only accepts "a" alone: all devices, all access */
		snprintf(buf, len, "a *:* %s", access);
		return;
	}
	if (major_set && major >= 0)
		snprintf(maj, sizeof maj, "%" PRId64, major);
	else
		strcpy(maj, "*");
	if (minor_set && minor >= 0)
		snprintf(min, sizeof min, "%" PRId64, minor);
	else
		strcpy(min, "*");
	snprintf(buf, len, "%c %s:%s %s", type, maj, min, access);
}

int cgconv_clean_path(const char *in, char **out, struct clasp_error *err)
{
	size_t n = strlen(in);
	char *buf = malloc(n + 2);
	size_t o = 0;
	const char *p = in;

	if (!buf)
		return clasp_error_set(err, ENOMEM, "cgroupsPath");
	if (*p == '/')
		buf[o++] = '/';
	while (*p) {
		const char *e;
		size_t len;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchrnul(p, '/');
		len = (size_t)(e - p);
		if (len == 1 && p[0] == '.') {
			p = e;
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			free(buf);
			return clasp_error_set(err, 0, "cgroupsPath \"%s\": \"..\" is not allowed", in);
		}
		if (o > 0 && buf[o - 1] != '/')
			buf[o++] = '/';
		memcpy(buf + o, p, len);
		o += len;
		p = e;
	}
	buf[o] = '\0';
	if (o == 0 || strcmp(buf, "/") == 0) {
		free(buf);
		return clasp_error_set(err, 0, "cgroupsPath \"%s\": refusing the root cgroup", in);
	}
	*out = buf;
	return 0;
}
