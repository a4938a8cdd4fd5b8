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
/* Process state letter from /proc/PID/stat ('R','S','Z',...), 0 when gone. */
char proc_state(pid_t pid);
