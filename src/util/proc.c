#include "util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Returns the text after the ")" closing comm, which may itself hold spaces
 * and parentheses. */
static int read_stat(pid_t pid, char *buf, size_t len, char **rest)
{
	char path[64];
	ssize_t n;
	int fd;
	char *p;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return -1;
	*rest = p + 2;
	return 0;
}

int proc_start_time(pid_t pid, uint64_t *out)
{
	char buf[1024];
	char *rest, *tok, *save = NULL;
	int field = 3; /* rest starts at field 3 (state) */

	if (pid <= 0 || read_stat(pid, buf, sizeof buf, &rest) < 0)
		return -1;
	for (tok = strtok_r(rest, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++) {
		if (field == 22) {
			*out = strtoull(tok, NULL, 10);
			return 0;
		}
	}
	return -1;
}

char proc_state(pid_t pid)
{
	char buf[1024];
	char *rest;

	if (pid <= 0 || read_stat(pid, buf, sizeof buf, &rest) < 0)
		return 0;
	return rest[0];
}

bool proc_is_same(pid_t pid, uint64_t start_time)
{
	char buf[1024];
	char *rest, *tok, *save = NULL;
	int field = 3;

	/* One read of /proc/PID/stat for both the state and the start time:
	 * `start`, `state` and `delete` all ask this. */
	if (pid <= 0 || read_stat(pid, buf, sizeof buf, &rest) < 0)
		return false;
	if (rest[0] == 'Z' || rest[0] == 'X')
		return false;
	for (tok = strtok_r(rest, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++)
		if (field == 22)
			return strtoull(tok, NULL, 10) == start_time;
	return false;
}

int proc_signal(pid_t pid, uint64_t start_time, int sig)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int r;

	if (pidfd < 0 && errno != ENOSYS)
		return -1;
	/* The pidfd pins the process: check it is still ours, then signal it. */
	if (!proc_is_same(pid, start_time)) {
		if (pidfd >= 0)
			close(pidfd);
		errno = ESRCH;
		return -1;
	}
	if (pidfd < 0)
		return kill(pid, sig);
	r = (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
	if (r < 0 && errno == ENOSYS)
		r = kill(pid, sig);
	close(pidfd);
	return r;
}
