/* Pure cgroup value conversions (runc's formulas). */
#include <stdlib.h>

#include "linux/cgroup/convert.h"
#include "linux/cgroup/devices_bpf.h"
#include "unit.h"

TEST(shares_to_weight)
{
	CHECK(cgconv_shares_to_weight(0) == 0);
	CHECK(cgconv_shares_to_weight(2) == 1);
	CHECK(cgconv_shares_to_weight(512) == 20);
	CHECK(cgconv_shares_to_weight(1024) == 39);
	CHECK(cgconv_shares_to_weight(262144) == 10000);
	/* out of range is clamped, as the kernel does on v1 */
	CHECK(cgconv_shares_to_weight(1) == 1);
	CHECK(cgconv_shares_to_weight(1000000) == 10000);
}

TEST(blkio_weight)
{
	CHECK(cgconv_blkio_to_io_weight(0) == 0);
	CHECK(cgconv_blkio_to_io_weight(10) == 1);
	CHECK(cgconv_blkio_to_io_weight(100) == 910);
	CHECK(cgconv_blkio_to_io_weight(500) == 4950);
	CHECK(cgconv_blkio_to_io_weight(1000) == 10000);
}

TEST(cpu_max)
{
	char b[64];

	CHECK(cgconv_cpu_max(true, 50000, true, 100000, b, sizeof b));
	CHECK_STREQ(b, "50000 100000");
	CHECK(cgconv_cpu_max(true, -1, true, 100000, b, sizeof b));
	CHECK_STREQ(b, "max 100000");
	CHECK(cgconv_cpu_max(true, 20000, false, 0, b, sizeof b));
	CHECK_STREQ(b, "20000");
	CHECK(cgconv_cpu_max(false, 0, true, 250000, b, sizeof b));
	CHECK_STREQ(b, "max 250000");
	CHECK(!cgconv_cpu_max(false, 0, false, 0, b, sizeof b));
}

TEST(limits_text)
{
	char b[32];

	cgconv_v1_limit(-1, b, sizeof b);
	CHECK_STREQ(b, "-1");
	cgconv_v1_limit(-7, b, sizeof b);
	CHECK_STREQ(b, "-1");
	cgconv_v1_limit(67108864, b, sizeof b);
	CHECK_STREQ(b, "67108864");
	cgconv_v2_limit(-1, b, sizeof b);
	CHECK_STREQ(b, "max");
	cgconv_v2_limit(0, b, sizeof b);
	CHECK_STREQ(b, "0");
}

TEST(swap_v2)
{
	struct clasp_error err = { 0 };
	bool set;
	int64_t v;

	/* v1's swap is memory+swap; v2's swap.max is swap alone */
	CHECK(cgconv_swap_v2(true, 1 << 30, true, 512 << 20, &set, &v, &err) == 0 && set && v == 512 << 20);
	CHECK(cgconv_swap_v2(true, 512 << 20, true, 512 << 20, &set, &v, &err) == 0 && set && v == 0);
	CHECK(cgconv_swap_v2(true, -1, true, 512 << 20, &set, &v, &err) == 0 && set && v == -1);
	CHECK(cgconv_swap_v2(false, 0, true, -1, &set, &v, &err) == 0 && set && v == -1);
	CHECK(cgconv_swap_v2(false, 0, true, 100, &set, &v, &err) == 0 && !set);
	CHECK(cgconv_swap_v2(false, 0, false, 0, &set, &v, &err) == 0 && !set);
	CHECK(cgconv_swap_v2(true, 100, false, 0, &set, &v, &err) < 0);
	CHECK_CONTAINS(err.msg, "without memory limit");
	CHECK(cgconv_swap_v2(true, 100, true, -1, &set, &v, &err) < 0);
	CHECK(cgconv_swap_v2(true, 100, true, 200, &set, &v, &err) < 0);
	CHECK_CONTAINS(err.msg, "should be >= memory limit");
}

TEST(cpulist)
{
	uint64_t mask[2];

	CHECK(cgconv_parse_cpulist("0-3,7", mask, 2) == 7);
	CHECK(mask[0] == 0x8f);
	CHECK(cgconv_parse_cpulist("0", NULL, 0) == 0);
	CHECK(cgconv_parse_cpulist("0-3\n", NULL, 0) == 3);
	CHECK(cgconv_parse_cpulist("64-65", mask, 2) == 65);
	CHECK(mask[1] == 3);
	CHECK(cgconv_parse_cpulist("", NULL, 0) == -2);
	CHECK(cgconv_parse_cpulist("3-1", NULL, 0) == -1);
	CHECK(cgconv_parse_cpulist("a", NULL, 0) == -1);
	CHECK(cgconv_parse_cpulist("0-", NULL, 0) == -1);
	CHECK(cgconv_parse_cpulist("1,2,", NULL, 0) == -1);
	CHECK(cgconv_parse_cpulist("1 2", NULL, 0) == -1);
}

TEST(pagesize)
{
	uint64_t b = 0;
	char n[32];

	CHECK(cgconv_pagesize_parse("2MB", &b) == 0 && b == 2097152);
	CHECK(cgconv_pagesize_parse("1GB", &b) == 0 && b == 1073741824);
	CHECK(cgconv_pagesize_parse("64KB", &b) == 0 && b == 65536);
	CHECK(cgconv_pagesize_parse("2mb", &b) < 0);
	CHECK(cgconv_pagesize_parse("0MB", &b) < 0);
	CHECK(cgconv_pagesize_parse("MB", &b) < 0);
	CHECK(cgconv_pagesize_parse("2M", &b) < 0);
	cgconv_pagesize_name(2097152, n, sizeof n);
	CHECK_STREQ(n, "2MB");
	cgconv_pagesize_name(1073741824, n, sizeof n);
	CHECK_STREQ(n, "1GB");
	cgconv_pagesize_name(65536, n, sizeof n);
	CHECK_STREQ(n, "64KB");
}

TEST(device_rule)
{
	char b[64];

	cgconv_device_rule('c', true, 1, true, 3, "rwm", b, sizeof b);
	CHECK_STREQ(b, "c 1:3 rwm");
	cgconv_device_rule('b', false, 0, false, 0, "m", b, sizeof b);
	CHECK_STREQ(b, "b *:* m");
	cgconv_device_rule('c', true, 136, false, 0, NULL, b, sizeof b);
	CHECK_STREQ(b, "c 136:* rwm");
	cgconv_device_rule('a', false, 0, false, 0, "rwm", b, sizeof b);
	CHECK_STREQ(b, "a *:* rwm");
}

TEST(clean_path)
{
	struct clasp_error err = { 0 };
	char *p = NULL;

	CHECK(cgconv_clean_path("/a//b/./c/", &p, &err) == 0);
	CHECK_STREQ(p, "/a/b/c");
	free(p);
	CHECK(cgconv_clean_path("clasp/x", &p, &err) == 0);
	CHECK_STREQ(p, "clasp/x");
	free(p);
	CHECK(cgconv_clean_path("/", &p, &err) < 0);
	CHECK(cgconv_clean_path("", &p, &err) < 0);
	CHECK(cgconv_clean_path("a/../b", &p, &err) < 0);
	CHECK_CONTAINS(err.msg, "\"..\"");
}


/* A tiny interpreter for the instructions the device program uses, so the
 * rules' semantics are checked without loading anything into the kernel.
 * Returns the program's r0, or -1 on an instruction it does not know. */
static int run_bpf(const struct bpf_insn *in, size_t n, char type, int major, int minor, const char *acc)
{
	uint32_t ctx[3];
	uint64_t r[11] = { 0 };
	int t = type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR, a = 0;

	for (; *acc; acc++)
		a |= *acc == 'r' ? BPF_DEVCG_ACC_READ : *acc == 'w' ? BPF_DEVCG_ACC_WRITE : BPF_DEVCG_ACC_MKNOD;
	ctx[0] = (uint32_t)(a << 16 | t);
	ctx[1] = (uint32_t)major;
	ctx[2] = (uint32_t)minor;
	for (size_t pc = 0; pc < n; pc++) {
		const struct bpf_insn *i = &in[pc];
		uint64_t *d = &r[i->dst_reg], sv = r[i->src_reg];
		uint64_t k = (uint64_t)(int64_t)i->imm;

		switch (i->code) {
		case BPF_LDX | BPF_W | BPF_MEM:
			if (i->src_reg != 1 || i->off % 4 || i->off > 8)
				return -1;
			*d = ctx[i->off / 4];
			break;
		case BPF_ALU | BPF_MOV | BPF_X: *d = (uint32_t)sv; break;
		case BPF_ALU | BPF_MOV | BPF_K: *d = (uint32_t)i->imm; break;
		case BPF_ALU | BPF_AND | BPF_K: *d = (uint32_t)(*d & (uint32_t)i->imm); break;
		case BPF_ALU | BPF_RSH | BPF_K: *d = (uint32_t)(*d >> i->imm); break;
		case BPF_JMP | BPF_JNE | BPF_K: if (*d != k) pc += (size_t)i->off; break;
		case BPF_JMP | BPF_JEQ | BPF_K: if (*d == k) pc += (size_t)i->off; break;
		case BPF_JMP | BPF_JNE | BPF_X: if (*d != sv) pc += (size_t)i->off; break;
		case BPF_JMP | BPF_EXIT: return (int)r[0];
		default: return -1;
		}
	}
	return -1; /* fell off the end: the verifier would refuse it */
}

static struct oci_device_rule rule(bool allow, char type, int64_t maj, int64_t min, char *acc)
{
	struct oci_device_rule r = { .allow = allow, .type = type, .access = acc };
	r.major.set = maj >= 0;
	r.major.v = maj;
	r.minor.set = min >= 0;
	r.minor.v = min;
	return r;
}

TEST(devices_bpf)
{
	struct clasp_error err = { 0 };
	struct bpf_insn *p = NULL;
	size_t n = 0;
	struct oci_device_rule rs[] = {
		rule(false, 'a', -1, -1, "rwm"),
		rule(true, 'c', 1, 3, "rwm"),     /* /dev/null */
		rule(true, 'c', 1, 5, "r"),       /* /dev/zero, read only */
		rule(true, 'c', 136, -1, "rw"),   /* any pty */
		rule(false, 'c', 1, 3, "w"),      /* later rule: no writing /dev/null */
		rule(true, 'b', -1, -1, "m"),     /* mknod of any block device */
	};

	CHECK(cg_bpf_devices_build(rs, 6, &p, &n, &err) == 0);
	CHECK(run_bpf(p, n, 'c', 1, 3, "r") == 1);
	CHECK(run_bpf(p, n, 'c', 1, 3, "w") == 0);
	CHECK(run_bpf(p, n, 'c', 1, 3, "rw") == 0);
	CHECK(run_bpf(p, n, 'c', 1, 5, "r") == 1);
	CHECK(run_bpf(p, n, 'c', 1, 5, "rw") == 0);
	CHECK(run_bpf(p, n, 'c', 136, 7, "rw") == 1);
	CHECK(run_bpf(p, n, 'c', 136, 7, "m") == 0);
	CHECK(run_bpf(p, n, 'b', 8, 0, "m") == 1);
	CHECK(run_bpf(p, n, 'b', 8, 0, "r") == 0);
	CHECK(run_bpf(p, n, 'c', 10, 200, "rw") == 0);
	free(p);

	/* no deny-all: the v1 default (allow) holds for everything else */
	{
		struct oci_device_rule d[] = { rule(false, 'c', 10, 200, "rwm") };
		CHECK(cg_bpf_devices_build(d, 1, &p, &n, &err) == 0);
		CHECK(run_bpf(p, n, 'c', 10, 200, "r") == 0);
		CHECK(run_bpf(p, n, 'c', 1, 3, "rw") == 1);
		free(p);
	}
	/* a trailing allow-all makes earlier rules unreachable; none emitted */
	{
		struct oci_device_rule d[] = { rule(false, 'c', 1, 3, "rwm"), rule(true, 'a', -1, -1, "rwm") };
		CHECK(cg_bpf_devices_build(d, 2, &p, &n, &err) == 0);
		CHECK(n == 8);
		CHECK(run_bpf(p, n, 'c', 1, 3, "rw") == 1);
		free(p);
	}
	{
		struct oci_device_rule d[] = { rule(true, 'c', 1, 3, "rwx") };
		CHECK(cg_bpf_devices_build(d, 1, &p, &n, &err) < 0);
		CHECK_CONTAINS(err.msg, "linux.resources.devices[0].access");
	}
}

int main(void)
{
	RUN(shares_to_weight);
	RUN(blkio_weight);
	RUN(cpu_max);
	RUN(limits_text);
	RUN(swap_v2);
	RUN(cpulist);
	RUN(pagesize);
	RUN(device_rule);
	RUN(clean_path);
	RUN(devices_bpf);
	return unit_summary("test_cgroup_convert");
}
