/* The seccomp filter of linux.seccomp (config-linux.md v1.3.0).
 *
 * Split in two so the container's own setup is never filtered and so a bad
 * profile fails create before anything exists:
 *   seccomp_prepare()  in the runtime, before spawning: validates the profile
 *                      (errors carry the JSON path) and compiles it with
 *                      libseccomp to classic BPF, through an on-disk cache;
 *   seccomp_install()  in the container child, as late as possible: loads the
 *                      BPF with raw seccomp(2), so every kernel flag works
 *                      whatever libseccomp knows (WAIT_KILLABLE_RECV).
 * A NOTIFY profile yields a listener fd in the child; the runtime forwards it
 * with seccomp_send_listener() (see docs/seccomp.md for the whole flow and
 * the syscalls that run after the load). */
#pragma once
/* With -Isrc this file shadows the kernel's <linux/seccomp.h>, which
 * libseccomp's <seccomp.h> includes: pull the kernel header in as well, so
 * both names give both sets of definitions. (-iquote src would avoid it.) */
#include_next <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "oci/config.h"
#include "util/error.h"

struct seccomp_prog; /* compiled BPF + load flags + whether the profile uses NOTIFY */

/* Validate and compile. Unknown architectures, flags or errnoRet on an action
 * that takes none are errors ("linux.seccomp.flags[1]: unknown flag \"X\"");
 * syscall names libseccomp does not know are skipped, as runc does. With
 * cache_dir != NULL the BPF is looked up in / stored to that directory (created
 * 0700 if missing), keyed by sha256 of the profile's canonical form, the native
 * architecture and the libseccomp version; a cache that cannot be read or
 * written only costs a compile, it never fails the call. */
int seccomp_prepare(const struct oci_seccomp *s, const char *cache_dir, struct seccomp_prog **out,
		    struct clasp_error *err);

/* Load the filter into the calling thread (with TSYNC: process). Needs
 * no_new_privs or CAP_SYS_ADMIN in the current user namespace. *notify_fd gets
 * the listener fd (O_CLOEXEC) when the profile uses SCMP_ACT_NOTIFY, else -1. */
int seccomp_install(const struct seccomp_prog *p, int *notify_fd, struct clasp_error *err);

bool seccomp_prog_has_notify(const struct seccomp_prog *p);

/* Connect to listener_path (AF_UNIX, SOCK_STREAM), send state_json as the
 * payload with notify_fd in SCM_RIGHTS on the first sendmsg, close. state_json
 * must be the whole "container process state" document (ociVersion, fds
 * ["seccompFd"], pid, metadata, state): build it with seccomp_listener_payload(). */
int seccomp_send_listener(const char *listener_path, int notify_fd, const char *state_json,
			  struct clasp_error *err);

/* Build the container process state: {"ociVersion", "fds": ["seccompFd"],
 * "pid", "metadata" (omitted when NULL), "state": state_json (the runtime
 * state document of runtime.md, embedded as is)}. *out is malloc'd. */
int seccomp_listener_payload(const char *state_json, pid_t pid, const char *metadata, char **out,
			     struct clasp_error *err);

void seccomp_prog_free(struct seccomp_prog *p);

/* For tests and benchmarks: the raw struct sock_filter array, and whether
 * seccomp_prepare() took it from the cache. */
const void *seccomp_prog_bpf(const struct seccomp_prog *p, size_t *len);
bool seccomp_prog_from_cache(const struct seccomp_prog *p);

/* Between seccomp.c and seccomp_cache.c. The key covers everything that
 * shapes the BPF (not flags or the listener, which do not). */
void seccomp_cache_key(const struct oci_seccomp *s, char hex[65]);
/* 0 and a malloc'd copy when a valid entry exists; -1 otherwise (no error:
 * a miss or a damaged entry both mean "compile"). */
int seccomp_cache_load(const char *dir, const char *key, void **bpf, size_t *len);
/* Best effort, atomic (temp file + rename); returns -1 on failure. */
int seccomp_cache_store(const char *dir, const char *key, const void *bpf, size_t len);
