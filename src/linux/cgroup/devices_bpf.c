/* cgroup v2 device rules as a BPF_CGROUP_DEVICE program, assembled from
 * raw instructions. Register use: r2 = device type, r3 = requested access,
 * r4 = major, r5 = minor, r0 = scratch and result. */
#include "linux/cgroup/devices_bpf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/cgroup/cg_internal.h"
#include "util/cleanup.h"

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

struct prog {
	struct bpf_insn *v;
	size_t n, cap;
	bool oom;
};

static size_t emit(struct prog *p, struct bpf_insn in)
{
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 64;
		struct bpf_insn *nv = realloc(p->v, nc * sizeof *nv);
		if (!nv) {
			p->oom = true;
			return 0;
		}
		p->v = nv;
		p->cap = nc;
	}
	p->v[p->n] = in;
	return p->n++;
}

static int access_bits(const char *a, int *bits)
{
	*bits = 0;
	if (!a || !*a)
		a = "rwm";
	for (; *a; a++) {
		switch (*a) {
		case 'r':
			*bits |= BPF_DEVCG_ACC_READ;
			break;
		case 'w':
			*bits |= BPF_DEVCG_ACC_WRITE;
			break;
		case 'm':
			*bits |= BPF_DEVCG_ACC_MKNOD;
			break;
		default:
			return -1;
		}
	}
	return 0;
}

int cg_bpf_devices_build(const struct oci_device_rule *rules, size_t n, struct bpf_insn **out,
			 size_t *count, struct clasp_error *err)
{
	struct prog p = { 0 };
	bool decided = false;
	const int all = BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE | BPF_DEVCG_ACC_MKNOD;

	*out = NULL;
	*count = 0;
	emit(&p, INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_2, BPF_REG_1, 0, 0));
	emit(&p, INSN(BPF_ALU | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_2, 0, 0));
	emit(&p, INSN(BPF_ALU | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff));
	emit(&p, INSN(BPF_ALU | BPF_RSH | BPF_K, BPF_REG_3, 0, 0, 16));
	emit(&p, INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_4, BPF_REG_1, 4, 0));
	emit(&p, INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_5, BPF_REG_1, 8, 0));
	for (size_t k = n; k-- > 0;) {
		const struct oci_device_rule *r = &rules[k];
		size_t jumps[6], nj = 0;
		int acc;

		if (access_bits(r->access, &acc) < 0) {
			free(p.v);
			return clasp_error_set(err, 0, "linux.resources.devices[%zu].access: invalid \"%s\"", k,
					       r->access);
		}
		if (r->type != 'a' && r->type != 0) {
			int t;
			if (r->type == 'c')
				t = BPF_DEVCG_DEV_CHAR;
			else if (r->type == 'b')
				t = BPF_DEVCG_DEV_BLOCK;
			else {
				free(p.v);
				return clasp_error_set(err, 0, "linux.resources.devices[%zu].type: invalid '%c'", k,
						       r->type);
			}
			jumps[nj++] = emit(&p, INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, 0, t));
			if (r->major.set && r->major.v >= 0)
				jumps[nj++] = emit(&p, INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 0,
							    (int32_t)r->major.v));
			if (r->minor.set && r->minor.v >= 0)
				jumps[nj++] = emit(&p, INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_5, 0, 0,
							    (int32_t)r->minor.v));
		}
		if (acc != all) {
			emit(&p, INSN(BPF_ALU | BPF_MOV | BPF_X, BPF_REG_0, BPF_REG_3, 0, 0));
			emit(&p, INSN(BPF_ALU | BPF_AND | BPF_K, BPF_REG_0, 0, 0, acc));
			if (r->allow) /* every requested bit granted */
				jumps[nj++] = emit(&p, INSN(BPF_JMP | BPF_JNE | BPF_X, BPF_REG_0, BPF_REG_3, 0, 0));
			else /* any requested bit denied */
				jumps[nj++] = emit(&p, INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 0, 0));
		}
		emit(&p, INSN(BPF_ALU | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, r->allow ? 1 : 0));
		emit(&p, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
		if (p.oom)
			break;
		for (size_t j = 0; j < nj; j++)
			p.v[jumps[j]].off = (int16_t)(p.n - jumps[j] - 1);
		if (nj == 0) {
			/* matches everything: earlier rules are overridden, and
			 * the verifier refuses unreachable code after this */
			decided = true;
			break;
		}
		if (p.n > 4000) {
			free(p.v);
			return clasp_error_set(err, 0, "linux.resources.devices: too many rules (%zu)", n);
		}
	}
	if (!decided) {
		emit(&p, INSN(BPF_ALU | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1));
		emit(&p, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	}
	if (p.oom) {
		free(p.v);
		return clasp_error_set(err, ENOMEM, "linux.resources.devices");
	}
	*out = p.v;
	*count = p.n;
	return 0;
}

int cg_bpf_devices_attach(int cgroup_fd, const struct bpf_insn *insns, size_t count,
			  struct clasp_error *err)
{
	union bpf_attr attr;
	char log[4096] = "";
	_cleanup_close_ int prog = -1;

	memset(&attr, 0, sizeof attr);
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = (uint32_t)count;
	attr.license = (uintptr_t) "Apache";
	attr.log_buf = (uintptr_t)log;
	attr.log_size = sizeof log;
	attr.log_level = 1;
	prog = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof attr);
	if (prog < 0 && errno == ENOSPC) {
		/* the verifier log did not fit; load again without it */
		attr.log_buf = 0;
		attr.log_size = 0;
		attr.log_level = 0;
		prog = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof attr);
	}
	if (prog < 0)
		return clasp_error_set(err, errno, "linux.resources.devices: load the device eBPF program%s%s",
				       log[0] ? ": " : "", log);
	memset(&attr, 0, sizeof attr);
	attr.target_fd = (uint32_t)cgroup_fd;
	attr.attach_bpf_fd = (uint32_t)prog;
	attr.attach_type = BPF_CGROUP_DEVICE;
	attr.attach_flags = BPF_F_ALLOW_MULTI;
	if (syscall(SYS_bpf, BPF_PROG_ATTACH, &attr, sizeof attr) < 0)
		return clasp_error_set(err, errno, "linux.resources.devices: attach the device eBPF program");
	return 0;
}

int cg_devices_v2(struct cgroup_mgr *m, const char *dir, const struct oci_device_rule *rules,
		  size_t n, struct clasp_error *err)
{
	_cleanup_free_ struct bpf_insn *insns = NULL;
	_cleanup_close_ int fd = -1;
	size_t count;

	if (cg_bpf_devices_build(rules, n, &insns, &count, err) < 0)
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return clasp_error_set(err, errno, "linux.resources.devices: open %s", dir);
	return cg_bpf_devices_attach(fd, insns, count, err);
}
