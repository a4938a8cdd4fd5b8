/* The parent <-> init protocol over a SOCK_SEQPACKET socketpair. Each message
 * is one struct sync_msg, optionally carrying one fd (SCM_RIGHTS); an error
 * message carries its text in `text`. */
#pragma once
#include <stdint.h>

#include "util/error.h"

enum sync_type {
	SYNC_GO = 1,          /* parent -> init: ids mapped, cgroup joined */
	SYNC_PTY,             /* init -> parent: pty master attached */
	SYNC_MOUNTS_DONE,     /* init -> parent: run prestart/createRuntime hooks now */
	SYNC_HOOKS_DONE,      /* parent -> init */
	SYNC_SECCOMP_FD,      /* init -> parent: seccomp listener fd attached */
	SYNC_READY,           /* init -> parent: waiting on the exec fifo */
	SYNC_ERROR,           /* init -> parent: text holds the error */
	SYNC_PID,             /* intermediate -> parent: the init's host pid */
};

struct sync_msg {
	int32_t type;
	int32_t code; /* errno for SYNC_ERROR */
	char text[CLASP_ERROR_MAX];
};

int sync_send(int sock, enum sync_type type, int fd, struct clasp_error *err);
/* Same, with a 32-bit value (the init's host pid for SYNC_GO). */
int sync_send_val(int sock, enum sync_type type, int32_t val, int fd, struct clasp_error *err);
int sync_recv_val(int sock, enum sync_type want, int32_t *val, int *fd, struct clasp_error *err);
/* Any message: its type, value and fd. SYNC_ERROR becomes err. */
int sync_recv_msg(int sock, int32_t *type, int32_t *val, int *fd, struct clasp_error *err);
int sync_send_error(int sock, const struct clasp_error *e);
/* Receive one message; *fd gets an attached fd or -1. A SYNC_ERROR message is
 * turned into err (and -1 returned). want = expected type (0 = any). */
int sync_recv(int sock, enum sync_type want, int *fd, struct clasp_error *err);
/* Send an fd over a connected AF_UNIX socket (console socket protocol). */
int send_fd(int sock, int fd, const char *name, struct clasp_error *err);
