/* enosys SYSCALL[,SYSCALL...] -- PROGRAM [ARGS...]: run PROGRAM as if the
 * kernel predated the named system calls.
 *
 * A seccomp filter answers each named call with ENOSYS, which is what an old
 * kernel says, so clasp's fallbacks (clone(2) for clone3, the O_PATH walk for
 * openat2, mount(2) for the new mount API) can be tested on this kernel. The
 * filter is inherited across fork and execve, so it also covers clasp's
 * sealed re-exec, its init and the container. no_new_privs is set first, as
 * an unprivileged filter requires.
 *
 * A SYSCALL is a name libseccomp knows, a number, or one of the groups
 *   newmount  fsopen fsconfig fsmount fspick move_mount open_tree mount_setattr
 *   pidfd     pidfd_open pidfd_send_signal pidfd_getfd
 * Exits 125 on a usage or setup error, otherwise never returns (execvp). */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static const struct {
	const char *name;
	const char *members;
} groups[] = {
	{ "newmount", "fsopen,fsconfig,fsmount,fspick,move_mount,open_tree,mount_setattr" },
	{ "pidfd", "pidfd_open,pidfd_send_signal,pidfd_getfd" },
};

static int usage(void)
{
	fprintf(stderr, "usage: enosys SYSCALL[,SYSCALL...] -- PROGRAM [ARGS...]\n");
	return 125;
}

static int add_one(scmp_filter_ctx ctx, const char *name)
{
	char *end;
	long nr = strtol(name, &end, 10);
	int r;

	if (!*name || *end)
		nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR || nr < 0) {
		fprintf(stderr, "enosys: unknown system call \"%s\"\n", name);
		return -1;
	}
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), (int)nr, 0);
	if (r < 0) {
		fprintf(stderr, "enosys: rule for %s: %s\n", name, strerror(-r));
		return -1;
	}
	return 0;
}

static int add_list(scmp_filter_ctx ctx, const char *list, int depth)
{
	char *copy = strdup(list), *save = NULL;
	int r = 0;

	if (!copy)
		return -1;
	for (char *s = strtok_r(copy, ",", &save); s && r == 0; s = strtok_r(NULL, ",", &save)) {
		const char *members = NULL;

		for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
			if (strcmp(groups[i].name, s) == 0)
				members = groups[i].members;
		r = members && depth == 0 ? add_list(ctx, members, 1) : add_one(ctx, s);
	}
	free(copy);
	return r;
}

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	int r;

	if (argc < 4 || strcmp(argv[2], "--") != 0)
		return usage();
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		fprintf(stderr, "enosys: seccomp_init failed\n");
		return 125;
	}
	if (add_list(ctx, argv[1], 0) < 0) {
		seccomp_release(ctx);
		return 125;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		perror("enosys: no_new_privs");
		return 125;
	}
	r = seccomp_load(ctx);
	seccomp_release(ctx);
	if (r < 0) {
		fprintf(stderr, "enosys: load the filter: %s\n", strerror(-r));
		return 125;
	}
	execvp(argv[3], argv + 3);
	fprintf(stderr, "enosys: exec %s: %s\n", argv[3], strerror(errno));
	return 127;
}
