/* cgroup v2 device control: the OCI device rules compiled into a
 * BPF_CGROUP_DEVICE program by hand (no BPF toolchain), then loaded and
 * attached to the container's cgroup. */
#pragma once
#include <linux/bpf.h>
#include <stddef.h>

#include "oci/config.h"
#include "util/error.h"

/* Build the program. Semantics follow v1's devices.allow/deny list applied
 * in order: scanning from the last rule back, the first rule that matches
 * decides; an "a" rule matches everything; nothing matching means allow
 * (v1's inherited default). An allow rule matches only when it grants every
 * requested access bit, a deny rule when it covers any of them. */
int cg_bpf_devices_build(const struct oci_device_rule *rules, size_t n, struct bpf_insn **out,
			 size_t *count, struct clasp_error *err);
/* Load and attach (BPF_F_ALLOW_MULTI) to the cgroup v2 directory fd. */
int cg_bpf_devices_attach(int cgroup_fd, const struct bpf_insn *insns, size_t count,
			  struct clasp_error *err);
