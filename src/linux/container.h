/* Building a container exactly as the (already rewritten) config says: the
 * parent side spawns the init with clone3 into its namespaces and cgroup,
 * writes its id maps, runs the runtime-namespace hooks, and returns once the
 * init waits on the exec fifo for `start`. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "oci/config.h"

struct cgroup_mgr;
struct seccomp_prog;

struct linux_create_opts {
	const struct oci_config *cfg;
	const char *id;
	const char *bundle;            /* absolute */
	const char *rootfs;            /* absolute, canonical */
	const char *fifo_path;         /* exec fifo, created by linux_container_spawn */
	const char *console_socket;    /* NULL: none */
	bool keep_pty_master;          /* `run` with a terminal and no console socket */
	int preserve_fds;
	bool no_pivot;
	bool no_new_keyring;
	struct cgroup_mgr *cgroup;     /* NULL: no cgroup */
	const struct seccomp_prog *seccomp;
};

struct linux_container {
	pid_t pid;
	int pidfd;
	uint64_t start_time;
	int pty_master;      /* only with keep_pty_master, else -1 */
	int seccomp_fd;      /* listener fd when the profile uses NOTIFY, else -1 */
	bool hooks_started;  /* prestart/createRuntime ran (poststop is due on failure) */
};

int linux_container_spawn(const struct linux_create_opts *o, struct linux_container *out,
			  struct clasp_error *err);
