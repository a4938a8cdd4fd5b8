/* CVE-2019-5736: a container process that can reach /proc/PID/exe of a
 * runtime process (the init before execve, an exec'd process, a hook running
 * inside the container) could open the runtime's binary for writing. Commands
 * that enter containers therefore run from a sealed memfd copy of the binary:
 * /proc/PID/exe then names an immutable anonymous file, never the host's. */
#pragma once

/* Re-executes from a sealed copy unless already running from one; returns
 * only on failure (errno set) or when already sealed (0). */
int selfexec_sealed(int argc, char **argv);

/* Path of the runtime's binary on the host (not the sealed copy). Call early
 * in main: it also clears the variable that carries it across the re-exec. */
const char *selfexec_original_path(void);
