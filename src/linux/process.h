/* Process settings applied in the container's init (and in exec'd
 * processes), in the order that keeps each step possible: rlimits and
 * oom_score_adj while still privileged, then identity and capabilities,
 * no_new_privs, and the seccomp filter as late as the profile allows. */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

#include "oci/config.h"

struct seccomp_prog;

/* Validate capability names up front (unknown ones only warn, config.md). */
void process_check_capabilities(const struct oci_process *p);

int process_set_rlimits(const struct oci_process *p, struct clasp_error *err);
/* From the parent, as runc does: a child in a user namespace, or one made
 * non-dumpable, cannot write its own /proc files. */
int process_write_oom_score_adj(const struct oci_process *p, pid_t pid, struct clasp_error *err);
int process_set_personality(const struct oci_linux *l, struct clasp_error *err);
int process_set_scheduler(const struct oci_process *p, struct clasp_error *err);
int process_set_io_priority(const struct oci_process *p, struct clasp_error *err);

/* Groups, gid, uid (keeping capabilities across the switch), then the five
 * capability sets and no_new_privs; the seccomp filter is loaded at the point
 * its privileges allow (see docs/seccomp.md). *notify_fd receives the seccomp
 * listener fd when the profile uses SCMP_ACT_NOTIFY, else -1. */
int process_finalize_identity(const struct oci_process *p, bool userns_setgroups_denied,
			      const struct seccomp_prog *seccomp, int *notify_fd, struct clasp_error *err);

/* Resolve args[0] against PATH from the process env, as execvp would, with
 * runc's error texts. Returns a malloc'd path. */
int process_find_executable(const struct oci_process *p, char **out, struct clasp_error *err);

/* The process env, plus HOME from the container's /etc/passwd when it has
 * none, as runc does. Call inside the container root, just before execve. */
char **process_env_with_home(const struct oci_process *p);

/* Close every fd from `first` up except keep[] (sorted in place), with
 * close_range where the kernel has it: none of the runtime's fds may reach
 * the container (CVE-2024-21626). */
void process_close_fds_except(unsigned first, int *keep, size_t n);

/* Mark every fd >= 3 + preserve_fds close-on-exec, except keep[]. */
int process_cloexec_fds(int preserve_fds, struct clasp_error *err);

/* chdir to cwd and make sure it lies inside the current root (a leaked host
 * directory fd would show as "(unreachable)", CVE-2024-21626). */
int process_chdir(const char *cwd, struct clasp_error *err);
