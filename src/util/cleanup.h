/* Scope-bound cleanup, so early returns do not leak. Ownership handed on is
 * made explicit with steal_pointer()/steal_fd(), which leave NULL/-1 behind. */
#pragma once
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <dirent.h>

static inline void clasp_freep(void *p) { free(*(void **)p); }
static inline void clasp_closep(int *fd) { if (*fd >= 0) close(*fd); }
static inline void clasp_fclosep(FILE **f) { if (*f) fclose(*f); }
static inline void clasp_closedirp(DIR **d) { if (*d) closedir(*d); }

#define _cleanup_free_ __attribute__((cleanup(clasp_freep)))
#define _cleanup_close_ __attribute__((cleanup(clasp_closep)))
#define _cleanup_fclose_ __attribute__((cleanup(clasp_fclosep)))
#define _cleanup_closedir_ __attribute__((cleanup(clasp_closedirp)))

static inline void *clasp_steal_pointer(void *pp)
{
	void **p = (void **)pp;
	void *v = *p;
	*p = NULL;
	return v;
}
#define steal_pointer(pp) clasp_steal_pointer(pp)

static inline int steal_fd(int *fd)
{
	int v = *fd;
	*fd = -1;
	return v;
}
