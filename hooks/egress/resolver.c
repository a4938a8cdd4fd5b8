#include "resolver.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct resolver {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct dns_job *head, *tail;
	bool stop;
	int pipe[2];
};

void dns_resolve(struct dns_job *job)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	bool forbidden = false;

	job->n_addrs = 0;
	job->result = -1;
	if (getaddrinfo(job->host, NULL, &hints, &res) != 0)
		return;
	for (ai = res; ai && job->n_addrs < DNS_MAX_ADDRS; ai = ai->ai_next) {
		struct sockaddr_storage *ss = &job->addrs[job->n_addrs];

		if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
			continue;
		/* The very answers checked here are the ones connected to. */
		if (job->check_ranges && netrule_addr_forbidden_for_hostname(ai->ai_addr)) {
			forbidden = true;
			continue;
		}
		memset(ss, 0, sizeof *ss);
		memcpy(ss, ai->ai_addr, ai->ai_addrlen);
		if (ai->ai_family == AF_INET)
			((struct sockaddr_in *)ss)->sin_port = htons(job->port);
		else
			((struct sockaddr_in6 *)ss)->sin6_port = htons(job->port);
		job->n_addrs++;
	}
	freeaddrinfo(res);
	job->result = job->n_addrs ? 0 : forbidden ? -2 : -1;
}

static void *worker(void *arg)
{
	struct resolver *r = arg;

	for (;;) {
		struct dns_job *job;
		ssize_t w;

		pthread_mutex_lock(&r->lock);
		while (!r->head && !r->stop)
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->stop) {
			pthread_mutex_unlock(&r->lock);
			return NULL;
		}
		job = r->head;
		r->head = job->next;
		if (!r->head)
			r->tail = NULL;
		pthread_mutex_unlock(&r->lock);
		dns_resolve(job);
		/* A pointer is far below PIPE_BUF, so the write is atomic. */
		do
			w = write(r->pipe[1], &job, sizeof job); // NOLINT(bugprone-sizeof-expression): the pointer itself is the message
		while (w < 0 && errno == EINTR);
	}
}

int resolver_start(struct resolver **out, int threads, struct clasp_error *err)
{
	struct resolver *r = calloc(1, sizeof *r);
	int i;

	if (!r)
		return clasp_error_set(err, ENOMEM, "resolver");
	if (pipe2(r->pipe, O_CLOEXEC) < 0) {
		free(r);
		return clasp_error_set(err, errno, "resolver pipe");
	}
	/* Only the reading end is non-blocking: workers may wait for room. */
	fcntl(r->pipe[0], F_SETFL, O_NONBLOCK);
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	for (i = 0; i < threads; i++) {
		pthread_t t;
		pthread_attr_t attr;
		int e;

		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&attr, (size_t)256 * 1024);
		e = pthread_create(&t, &attr, worker, r);
		pthread_attr_destroy(&attr);
		if (e) {
			if (i == 0) {
				close(r->pipe[0]);
				close(r->pipe[1]);
				free(r);
				return clasp_error_set(err, e, "start resolver thread");
			}
			break;
		}
	}
	*out = r;
	return 0;
}

int resolver_fd(const struct resolver *r)
{
	return r->pipe[0];
}

void resolver_submit(struct resolver *r, struct dns_job *job)
{
	job->next = NULL;
	pthread_mutex_lock(&r->lock);
	if (r->tail)
		r->tail->next = job;
	else
		r->head = job;
	r->tail = job;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

struct dns_job *resolver_done(struct resolver *r)
{
	struct dns_job *job;

	if (read(r->pipe[0], &job, sizeof job) != sizeof job) // NOLINT(bugprone-sizeof-expression): a pointer is the message
		return NULL;
	return job;
}

void resolver_stop(struct resolver *r)
{
	struct dns_job *job;

	pthread_mutex_lock(&r->lock);
	r->stop = true;
	while ((job = r->head)) {
		r->head = job->next;
		free(job);
	}
	r->tail = NULL;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	/* Workers are detached and may still be inside getaddrinfo(); the
	 * resolver and its pipe stay allocated until the process exits. */
}
