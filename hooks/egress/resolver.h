/* Host-side DNS off the event loop: a few resolver threads shared by all
 * connections (never one per connection), so a slow lookup stalls only the
 * request that needs it. Finished jobs come back through a pipe the epoll
 * loop watches. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "sandbox/netrule.h"

#define DNS_MAX_ADDRS 8

struct dns_job {
	struct dns_job *next;
	void *owner;                 /* loop thread only; NULL once abandoned */
	char host[NETRULE_HOST_MAX + 1];
	uint16_t port;
	bool check_ranges;           /* drop forbidden answers (hostname rules) */
	int result;                  /* 0 ok, -1 no address, -2 only forbidden ones */
	struct sockaddr_storage addrs[DNS_MAX_ADDRS];
	size_t n_addrs;
};

struct resolver;

int resolver_start(struct resolver **out, int threads, struct clasp_error *err);
int resolver_fd(const struct resolver *r);
void resolver_submit(struct resolver *r, struct dns_job *job);
/* A finished job, or NULL when none is ready. The caller frees it. */
struct dns_job *resolver_done(struct resolver *r);
/* Threads stuck in a lookup are left to die with the process. */
void resolver_stop(struct resolver *r);

/* The lookup itself (also used synchronously, and by tests). */
void dns_resolve(struct dns_job *job);
