/* ps: the processes of a container's cgroup (and its sub-cgroups). As runc:
 * json prints the pids; table runs the host's ps(1) with the given options
 * (default -ef) and keeps the header and the rows whose PID is in the cgroup.
 * The pids are host pids, since ps runs in the host's pid namespace. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/lifecycle.h"
#include "linux/cgroup/cgroup.h"
#include "util/cleanup.h"

static const char usage[] =
	"Usage: clasp ps [options] <container-id> [ps options]\n\n"
	"List the processes in the container's cgroup (host pids).\n\n"
	"Options:\n"
	"  -f, --format FORMAT  table (default): the output of the host's `ps` run with the\n"
	"                       ps options after the id (default -ef), keeping the header and\n"
	"                       the container's rows; json: a JSON array of the pids\n"
	"  -h, --help           show this help\n";

static int container_pids(struct global_opts *g, const char *id, pid_t **pids, size_t *n,
			  struct clasp_error *err)
{
	_cleanup_close_ int lock = -1;
	struct container_state st;
	struct cgroup_mgr *cg = NULL;
	int r = -1;

	if (state_lock(g->root, id, &lock, err) < 0 || state_read(g->root, id, &st, err) < 0)
		return -1;
	if (!st.cgroup)
		clasp_error_set(err, 0, "container %s has no cgroup", id);
	else if (cgroup_open(st.cgroup, &cg, err) == 0 && cgroup_pids(cg, pids, n, err) == 0)
		r = 0;
	if (cg)
		cgroup_free(cg);
	state_clear(&st);
	return r;
}

/* ps ARGS..., stdout and stderr together (as runc's CombinedOutput). */
static int run_ps(char **args, int nargs, char **out, struct clasp_error *err)
{
	_cleanup_free_ char **argv = calloc((size_t)nargs + 3, sizeof *argv);
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;
	int fds[2], status;
	pid_t pid;

	if (!argv)
		abort();
	argv[0] = "ps";
	if (nargs)
		memcpy(argv + 1, args, (size_t)nargs * sizeof *argv);
	else
		argv[1] = "-ef";
	if (pipe2(fds, O_CLOEXEC) < 0)
		return clasp_error_set(err, errno, "ps: pipe");
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return clasp_error_set(err, errno, "ps: fork");
	}
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		execvp("ps", argv);
		dprintf(2, "exec ps: %s\n", strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		ssize_t r;

		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 8192);
			if (!nb)
				abort();
			buf = nb;
		}
		r = read(fds[0], buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fds[0]);
	buf[len] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return clasp_error_set(err, 0, "ps failed (status %d): %.*s", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
				       (int)strcspn(buf, "\n"), buf);
	*out = steal_pointer(&buf);
	return 0;
}

static int pid_column(const char *header, struct clasp_error *err)
{
	_cleanup_free_ char *h = strdup(header);
	char *save = NULL, *f;
	int i = 0;

	if (!h)
		abort();
	for (f = strtok_r(h, " \t", &save); f; f = strtok_r(NULL, " \t", &save), i++)
		if (strcmp(f, "PID") == 0)
			return i;
	return clasp_error_set(err, 0, "couldn't find PID field in ps output");
}

/* Field `col` (whitespace separated) of line as a pid, or -1. */
static long field_pid(const char *line, int col)
{
	const char *p = line;
	char *end;
	long v;

	for (int i = 0;; i++) {
		p += strspn(p, " \t");
		if (!*p)
			return -1;
		if (i == col)
			break;
		p += strcspn(p, " \t");
	}
	v = strtol(p, &end, 10);
	return (end != p && (*end == ' ' || *end == '\t' || !*end)) ? v : -1;
}

static int print_table(char **args, int nargs, const pid_t *pids, size_t n, struct clasp_error *err)
{
	_cleanup_free_ char *out = NULL;
	char *line, *next;
	int col;

	if (run_ps(args, nargs, &out, err) < 0)
		return -1;
	next = strchr(out, '\n');
	if (next)
		*next++ = '\0';
	if ((col = pid_column(out, err)) < 0)
		return -1;
	printf("%s\n", out);
	for (line = next; line && *line; line = next) {
		long p;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		p = field_pid(line, col);
		for (size_t i = 0; p > 0 && i < n; i++)
			if (pids[i] == p) {
				printf("%s\n", line);
				break;
			}
	}
	return 0;
}

int cmd_ps(struct global_opts *g, int argc, char **argv, struct clasp_error *err)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	_cleanup_free_ pid_t *pids = NULL;
	const char *format = "table";
	size_t n = 0;
	int opt;

	/* "+": everything after the id belongs to ps(1) */
	while ((opt = getopt_long(argc, argv, "+f:h", opts, NULL)) != -1) {
		if (opt == 'f')
			format = optarg;
		else if (opt == 'h')
			return cmd_help(usage);
		else
			return clasp_error_set(err, 0, "ps: invalid option; see --help");
	}
	if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0)
		return clasp_error_set(err, 0, "ps: invalid format \"%s\" (table or json)", format);
	if (argc - optind < 1)
		return clasp_error_set(err, 0, "\"ps\" requires a container id: <container-id> [ps options]");
	if (state_validate_id(argv[optind], err) < 0 || container_pids(g, argv[optind], &pids, &n, err) < 0)
		return -1;
	if (strcmp(format, "json") == 0) {
		if (argc - optind > 1)
			return clasp_error_set(err, 0, "ps: ps options cannot be used with --format json");
		putchar('[');
		for (size_t i = 0; i < n; i++)
			printf("%s%d", i ? "," : "", (int)pids[i]);
		printf("]\n");
		return 0;
	}
	fflush(stdout);
	return print_table(argv + optind + 1, argc - optind - 1, pids, n, err) < 0 ? -1 : 0;
}
