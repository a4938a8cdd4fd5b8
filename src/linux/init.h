/* The container's init, between clone and execve. Runs in the child only and
 * never returns: errors go back to the parent over the sync socket. */
#pragma once
#include "linux/container.h"

struct init_args {
	const struct linux_create_opts *o;
	int sync;            /* child end of the sync socket */
	int fifo_fd;         /* O_PATH fd of the exec fifo */
	int clone_flags;     /* namespaces already created by clone */
	int joined_flags;    /* namespaces already joined by path before the init was forked */
};

__attribute__((noreturn)) void init_main(const struct init_args *a);
