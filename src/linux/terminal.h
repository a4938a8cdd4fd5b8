/* The container's terminal: a pty from the container's own devpts, made the
 * process's controlling terminal, and its master handed to the client over
 * --console-socket (SCM_RIGHTS), as runc does. Shared by create and exec. */
#pragma once
#include "oci/config.h"

/* Open a pty pair through /dev/ptmx of the current root, with the process's
 * consoleSize. Both fds are O_CLOEXEC. */
int terminal_open(const struct oci_process *p, int *master, int *slave, struct clasp_error *err);
/* Make slave stdio and the controlling terminal (the caller is a session
 * leader); closes slave when it is not one of 0..2. */
int terminal_attach(int slave, struct clasp_error *err);
/* Connect to the AF_UNIX console socket (107-byte path limit checked). */
int terminal_connect(const char *console_socket, struct clasp_error *err);
/* Connect to the AF_UNIX console socket and send master over it. */
int terminal_send_master(const char *console_socket, int master, struct clasp_error *err);
