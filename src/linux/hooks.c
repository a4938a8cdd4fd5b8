#include "linux/hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/fs.h"

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for pid, killing it after timeout_s seconds (0 = no timeout). */
static int wait_hook(pid_t pid, int64_t timeout_s, int *status, bool *timed_out)
{
	_cleanup_close_ int pfd = pidfd_open_(pid);
	int64_t deadline = timeout_s > 0 ? now_ms() + timeout_s * 1000 : -1;

	*timed_out = false;
	if (pfd < 0 && deadline > 0) {
		/* No pidfd (before Linux 5.3): poll the child's exit instead. */
		for (;;) {
			pid_t w = waitpid(pid, status, WNOHANG);

			if (w == pid)
				return 0;
			if (w < 0 && errno != EINTR)
				return -1;
			if (now_ms() >= deadline) {
				kill(pid, SIGKILL);
				*timed_out = true;
				break;
			}
			usleep(10000);
		}
	}
	if (pfd >= 0 && deadline > 0) {
		for (;;) {
			struct pollfd p = {.fd = pfd, .events = POLLIN};
			int64_t left = deadline - now_ms();
			int r;

			if (left <= 0) {
				kill(pid, SIGKILL);
				*timed_out = true;
				break;
			}
			r = poll(&p, 1, (int)(left > 1000000 ? 1000000 : left));
			if (r > 0)
				break;
			if (r < 0 && errno != EINTR)
				break;
		}
	}
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return 0;
}

static int run_one(const struct oci_hook *h, enum oci_hook_kind kind, const char *state_json,
		   struct clasp_error *err)
{
	int pipefd[2];
	pid_t pid;
	int status = 0;
	bool timed_out;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return clasp_error_set(err, errno, "pipe");
	pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return clasp_error_set(err, e, "fork");
	}
	if (pid == 0) {
		char *const empty[] = {NULL};
		char *argv0[] = {h->path, NULL};
		sigset_t all;

		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(pipefd[0], 0) < 0)
			_exit(127);
		execve(h->path, h->args.n ? h->args.v : argv0, h->env.v ? h->env.v : empty);
		fprintf(stderr, "clasp: exec hook %s: %s\n", h->path, strerror(errno));
		_exit(127);
	}
	close(pipefd[0]);
	/* A hook that never reads stdin, or exits early, must not kill us with
	 * SIGPIPE (SIGPIPE is ignored process-wide by main); EPIPE is fine. */
	if (write_all(pipefd[1], state_json, strlen(state_json)) < 0 && errno != EPIPE) {
		/* ignored: the hook's exit status decides */
	}
	close(pipefd[1]);
	if (wait_hook(pid, h->timeout.set ? h->timeout.v : 0, &status, &timed_out) < 0)
		return clasp_error_set(err, errno, "%s hook %s: wait", oci_hook_kind_name(kind), h->path);
	if (timed_out)
		return clasp_error_set(err, 0, "%s hook %s: timed out after %lld s", oci_hook_kind_name(kind),
				       h->path, (long long)h->timeout.v);
	if (WIFSIGNALED(status))
		return clasp_error_set(err, 0, "%s hook %s: killed by signal %d", oci_hook_kind_name(kind),
				       h->path, WTERMSIG(status));
	if (WEXITSTATUS(status) != 0)
		return clasp_error_set(err, 0, "%s hook %s: exit status %d", oci_hook_kind_name(kind), h->path,
				       WEXITSTATUS(status));
	return 0;
}

int hooks_run(const struct oci_hook_list *hooks, enum oci_hook_kind kind, const char *state_json,
	      struct clasp_error *err)
{
	size_t i;

	for (i = 0; hooks && i < hooks->n; i++)
		if (run_one(&hooks->v[i], kind, state_json, err) < 0)
			return -1;
	return 0;
}

void hooks_run_warn(const struct oci_hook_list *hooks, enum oci_hook_kind kind, const char *state_json,
		    void (*warn)(const char *msg))
{
	size_t i;

	for (i = 0; hooks && i < hooks->n; i++) {
		struct clasp_error err;
		if (run_one(&hooks->v[i], kind, state_json, &err) < 0)
			warn(err.msg);
	}
}
