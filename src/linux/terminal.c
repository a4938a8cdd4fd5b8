#include "linux/terminal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "linux/sync.h"
#include "util/cleanup.h"
#include "util/sockpath.h"

int terminal_open(const struct oci_process *p, int *master, int *slave, struct clasp_error *err)
{
	_cleanup_close_ int m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	char name[64];
	int s;

	if (m < 0)
		return clasp_error_set(err, errno, "open /dev/ptmx");
	if (unlockpt(m) < 0 || ptsname_r(m, name, sizeof name) != 0)
		return clasp_error_set(err, errno, "unlock pty");
	s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		return clasp_error_set(err, errno, "open %s", name);
	if (p->has_console_size) {
		struct winsize ws = {.ws_row = (unsigned short)p->console_height,
				     .ws_col = (unsigned short)p->console_width};
		ioctl(s, TIOCSWINSZ, &ws);
	}
	*master = steal_fd(&m);
	*slave = s;
	return 0;
}

int terminal_attach(int slave, struct clasp_error *err)
{
	if (dup2(slave, 0) < 0 || dup2(slave, 1) < 0 || dup2(slave, 2) < 0)
		return clasp_error_set(err, errno, "dup pty to stdio");
	if (ioctl(0, TIOCSCTTY, 0) < 0)
		return clasp_error_set(err, errno, "set controlling terminal");
	if (slave > 2)
		close(slave);
	return 0;
}

int terminal_connect(const char *console_socket, struct clasp_error *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int s;

	if (sockpath_check(console_socket, err) < 0)
		return -1;
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return clasp_error_set(err, errno, "console socket");
	strcpy(sa.sun_path, console_socket);
	if (connect(s, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int e = errno;
		close(s);
		return clasp_error_set(err, e, "connect to console socket %s", console_socket);
	}
	return s;
}

int terminal_send_master(const char *console_socket, int master, struct clasp_error *err)
{
	_cleanup_close_ int s = terminal_connect(console_socket, err);

	if (s < 0)
		return -1;
	return send_fd(s, master, "/dev/ptmx", err);
}
