/* What `run` and `exec` share as the parent of a container process: the pid
 * file, signal forwarding, the pty relay and the exit status. */
#pragma once
#include <signal.h>
#include <sys/types.h>

#include "util/error.h"

/* Write pid atomically to path (relative to the caller's cwd). */
int cmd_write_pid_file(const char *path, pid_t pid, struct clasp_error *err);
/* Every signal we forward, blocked before the child exists (the child
 * unblocks its own); synchronous fault signals stay deliverable. */
void cmd_block_forwarded_signals(sigset_t *set);
/* Wait for pid (with the local terminal in raw mode while a pty is relayed):
 * forward signals from sfd (a signalfd of cmd_block_forwarded_signals'
 * set) through pidfd when >= 0, relay pty <-> stdio when pty >= 0, and
 * return the exit status (128+N for a signal N). */
int cmd_wait_process(pid_t pid, int pidfd, int pty, int sfd);
