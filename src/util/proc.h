/* Facts about live processes, read from /proc. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Field 22 of /proc/PID/stat (clock ticks since boot); -1 when gone. */
int proc_start_time(pid_t pid, uint64_t *out);
/* True when pid is alive, not a zombie, and started at start_time. This is how
 * a recycled PID is told apart from the container's init. */
bool proc_is_same(pid_t pid, uint64_t start_time);
/* Signal pid only if it is still the process that started at start_time.
 * With a pidfd the check and the signal cannot race with PID reuse; kernels
 * without pidfd_open (before 5.3) get the check-then-kill(2) best effort.
 * Returns 0, or -1 with errno (ESRCH when the process is not ours any more). */
int proc_signal(pid_t pid, uint64_t start_time, int sig);

/* Process state letter from /proc/PID/stat ('R','S','Z',...), 0 when gone. */
char proc_state(pid_t pid);
