/* `run`: create + start + wait, forwarding signals to the container and, for
 * a terminal without --console-socket, relaying the pty to our stdio. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/lifecycle.h"
#include "cmd/procwait.h"
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

int cmd_run(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	static const struct option extra[] = {
		{"detach", no_argument, NULL, 'd'}, {"keep", no_argument, NULL, 'k'}, {NULL, 0, NULL, 0}};
	struct run_flags f = {0};
	struct create_req req = {0};
	struct created c = {.pidfd = -1, .pty_master = -1};
	sigset_t set;
	int sfd, r, code;

	r = create_parse(argc, argv, &req, "d", extra, on_flag, &f, usage, err);
	if (r != 0)
		return r < 0 ? -1 : 0;
	req.keep_pty_master = !f.detach && !req.console_socket;
	if (!f.detach)
		cmd_block_forwarded_signals(&set);
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
	code = cmd_wait_process(c.pid, c.pidfd, c.pty_master, sfd);
	if (!f.keep) {
		struct clasp_error e2;
		if (lc_delete(g, req.id, true, &e2) < 0)
			log_warn("%s", e2.msg);
	}
	return code;
}
