#include "cmd/procwait.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/fs.h"

int cmd_write_pid_file(const char *path, pid_t pid, struct clasp_error *err)
{
	_cleanup_free_ char *abs = NULL;
	char cwd[PATH_MAX], buf[32];
	char *slash;
	int n;

	if (path[0] == '/')
		abs = strdup(path);
	else if (!getcwd(cwd, sizeof cwd))
		return clasp_error_set(err, errno, "--pid-file: getcwd");
	else if (asprintf(&abs, "%s/%s", cwd, path) < 0)
		abs = NULL;
	if (!abs)
		return clasp_error_set(err, ENOMEM, "--pid-file");
	slash = strrchr(abs, '/');
	*slash = '\0';
	n = snprintf(buf, sizeof buf, "%d", (int)pid);
	/* Atomic, so a client polling the file never reads a partial pid. */
	if (write_file_atomic(abs[0] ? abs : "/", slash + 1, buf, (size_t)n, 0644, err) < 0)
		return clasp_error_prefix(err, "--pid-file");
	return 0;
}

void cmd_block_forwarded_signals(sigset_t *set)
{
	sigfillset(set);
	sigdelset(set, SIGSEGV);
	sigdelset(set, SIGBUS);
	sigdelset(set, SIGILL);
	sigdelset(set, SIGFPE);
	sigprocmask(SIG_BLOCK, set, NULL);
}

static int relay(int from, int to)
{
	char buf[8192];
	ssize_t n;

	do
		n = read(from, buf, sizeof buf);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -1;
	return write_all(to, buf, (size_t)n) < 0 ? -1 : 0;
}

static void forward(pid_t pid, int pidfd, int sig)
{
	if (pidfd >= 0)
		syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
	else
		kill(pid, sig);
}

static int wait_loop(pid_t pid, int pidfd, int pty, int sfd)
{
	bool stdin_open = pty >= 0;
	struct pollfd p[3];
	int status;

	for (;;) {
		int n = 0, r;

		p[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
		if (pty >= 0)
			p[n++] = (struct pollfd){.fd = pty, .events = POLLIN};
		if (stdin_open)
			p[n++] = (struct pollfd){.fd = 0, .events = POLLIN};
		r = poll(p, (nfds_t)n, -1);
		if (r < 0 && errno != EINTR)
			return 1;
		if (r <= 0)
			continue;
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof si) == sizeof si) {
				if ((int)si.ssi_signo == SIGCHLD) {
					pid_t w;
					while ((w = waitpid(-1, &status, WNOHANG)) > 0) {
						if (w != pid)
							continue;
						if (pty >= 0) /* drain what the process wrote last */
							while (relay(pty, 1) == 0)
								;
						return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
					}
				} else if ((int)si.ssi_signo == SIGWINCH && pty >= 0) {
					struct winsize ws;
					if (ioctl(0, TIOCGWINSZ, &ws) == 0)
						ioctl(pty, TIOCSWINSZ, &ws);
				} else {
					forward(pid, pidfd, (int)si.ssi_signo);
				}
			}
		}
		if (pty >= 0 && n > 1 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			if (relay(pty, 1) < 0) {
				/* the slave side closed; wait for the exit status */
				pty = -1;
				stdin_open = false;
			}
		}
		if (stdin_open && n > 2 && (p[2].revents & (POLLIN | POLLHUP | POLLERR))) {
			if (relay(0, pty) < 0)
				stdin_open = false;
		}
	}
}

int cmd_wait_process(pid_t pid, int pidfd, int pty, int sfd)
{
	struct termios saved;
	bool raw = false;
	int code;

	/* Relaying a pty to a terminal: ours goes raw, the pty takes our size. */
	if (pty >= 0 && isatty(0) && tcgetattr(0, &saved) == 0) {
		struct termios t = saved;
		struct winsize ws;

		cfmakeraw(&t);
		tcsetattr(0, TCSANOW, &t);
		raw = true;
		if (ioctl(0, TIOCGWINSZ, &ws) == 0)
			ioctl(pty, TIOCSWINSZ, &ws);
	}
	code = wait_loop(pid, pidfd, pty, sfd);
	if (raw)
		tcsetattr(0, TCSANOW, &saved);
	return code;
}
