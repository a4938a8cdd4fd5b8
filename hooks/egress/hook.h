/* OCI prestart hook mode and the listeners shared with serve mode. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proxy.h"

/* Parse the "pid" of an OCI state document. */
int hook_state_pid(const char *json, size_t len, pid_t *pid, struct clasp_error *err);

/* Parse "ADDR:PORT" (IPv4, or [IPv6]:PORT) and return a listening socket. */
int listen_on(const char *addr, struct clasp_error *err);

/* Hook mode. Returns in three processes: the hook itself (*role 0: exit
 * with the return value: 0 once the proxy is listening), the intermediate
 * child (*role 1: exit 0 at once) and the proxy (*role 2: exit with the
 * return value when it stops). */
int hook_run(const char *policy_path, const char *state_json, size_t state_len, int *role,
	     struct clasp_error *err);
