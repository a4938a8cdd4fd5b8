/* `run`: create + start + wait, forwarding signals to the container and, for
 * a terminal without --console-socket, relaying the pty to our stdio. */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/lifecycle.h"
#include "util/log.h"

int create_parse(int argc, char **argv, struct create_req *req, const char *extra_short,
		 const struct option *extra, int (*on_extra)(int opt, void *ctx), void *ctx,
		 const char *help, struct clasp_error *err);

static const char usage[] =
	"Usage: clasp run [options] <container-id>\n\n"
	"Create and start a container, wait for it to exit, delete it, and exit with its status\n"
	"(128+N when it was killed by signal N).\n\n"
	"Options:\n"
	"  -b, --bundle DIR          path to the bundle (default: current directory)\n"
	"  -d, --detach              do not wait: return once the container runs\n"
	"      --pid-file FILE       write the init's pid to FILE\n"
	"      --console-socket SOCK send the terminal's pty master to this AF_UNIX socket\n"
	"      --preserve-fds N      pass N extra file descriptors (3 .. 3+N-1) to the container\n"
	"      --no-pivot            use MS_MOVE and chroot instead of pivot_root\n"
	"      --no-new-keyring      keep the caller's session keyring\n"
	"      --keep                do not delete the container after it exits\n"
	"  -h, --help                show this help\n";

struct run_flags {
	bool detach;
	bool keep;
};

static int on_flag(int opt, void *ctx)
{
	struct run_flags *f = ctx;

	if (opt == 'd')
		f->detach = true;
	else if (opt == 'k')
		f->keep = true;
	else
		return -1;
	return 0;
}

static int relay(int from, int to)
{
	char buf[8192];
	ssize_t n = read(from, buf, sizeof buf);
	ssize_t off = 0;

	if (n <= 0)
		return -1;
	while (off < n) {
		ssize_t w = write(to, buf + off, (size_t)(n - off));
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += w;
	}
	return 0;
}

static int wait_container(pid_t pid, int pty, int sfd)
{
	struct pollfd p[3];
	bool stdin_open = pty >= 0;
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
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof si) == sizeof si) {
				if ((int)si.ssi_signo == SIGCHLD) {
					pid_t w;
					while ((w = waitpid(-1, &status, WNOHANG)) > 0) {
						if (w != pid)
							continue;
						if (pty >= 0) /* drain what the container wrote last */
							while (relay(pty, 1) == 0)
								;
						if (WIFSIGNALED(status))
							return 128 + WTERMSIG(status);
						return WEXITSTATUS(status);
					}
				} else if ((int)si.ssi_signo == SIGWINCH && pty >= 0) {
					struct winsize ws;
					if (ioctl(0, TIOCGWINSZ, &ws) == 0)
						ioctl(pty, TIOCSWINSZ, &ws);
				} else {
					kill(pid, (int)si.ssi_signo);
				}
			}
		}
		if (pty >= 0 && n > 1 && (p[1].revents & (POLLIN | POLLHUP))) {
			if (relay(pty, 1) < 0) {
				/* the slave side closed; wait for the exit status */
				pty = -1;
				stdin_open = false;
			}
		}
		if (stdin_open && n > 2 && (p[2].revents & (POLLIN | POLLHUP))) {
			if (relay(0, pty) < 0)
				stdin_open = false;
		}
	}
}

int cmd_run(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	static const struct option extra[] = {
		{"detach", no_argument, NULL, 'd'}, {"keep", no_argument, NULL, 'k'}, {NULL, 0, NULL, 0}};
	struct run_flags f = {0};
	struct create_req req = {0};
	struct created c = {.pidfd = -1, .pty_master = -1};
	struct termios saved;
	bool raw = false;
	sigset_t set;
	int sfd, r, code;

	r = create_parse(argc, argv, &req, "d", extra, on_flag, &f, usage, err);
	if (r != 0)
		return r < 0 ? -1 : 0;
	req.keep_pty_master = !f.detach && !req.console_socket;
	/* Block what we forward before the init exists; it unblocks its own. */
	sigfillset(&set);
	sigdelset(&set, SIGSEGV);
	sigdelset(&set, SIGBUS);
	sigdelset(&set, SIGILL);
	sigdelset(&set, SIGFPE);
	if (!f.detach)
		sigprocmask(SIG_BLOCK, &set, NULL);
	if (lc_create(g, &req, &c, err) < 0)
		return -1;
	if (lc_start(g, req.id, err) < 0) {
		struct clasp_error e2;
		lc_delete(g, req.id, true, &e2);
		return -1;
	}
	if (f.detach) {
		if (c.pidfd >= 0)
			close(c.pidfd);
		return 0;
	}
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (c.pty_master >= 0 && isatty(0) && tcgetattr(0, &saved) == 0) {
		struct termios t = saved;
		struct winsize ws;
		cfmakeraw(&t);
		tcsetattr(0, TCSANOW, &t);
		raw = true;
		if (ioctl(0, TIOCGWINSZ, &ws) == 0)
			ioctl(c.pty_master, TIOCSWINSZ, &ws);
	}
	code = wait_container(c.pid, c.pty_master, sfd);
	if (raw)
		tcsetattr(0, TCSANOW, &saved);
	if (!f.keep) {
		struct clasp_error e2;
		if (lc_delete(g, req.id, true, &e2) < 0)
			log_warn("%s", e2.msg);
	}
	return code;
}
