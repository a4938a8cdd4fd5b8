/* The bubblewrap-style view for a bundle whose root is the host's `/`
 * (a CLI installed on the host), expressed as plain OCI: root.path becomes
 * an empty directory in the state dir, made by sandbox_prepare() together
 * with its skeleton (mount points, and /bin-style symlinks on a merged-/usr
 * host), and everything the CLI needs is bind-mounted read-only into it.
 *
 * This file reads the host filesystem (lstat, readlink, realpath, a script's
 * first line) but never changes it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sandbox_int.h"
#include "util/cleanup.h"

#define VIEW_DIR "sandbox-root"

static const char *const ro_bind[] = {"rbind", "ro", "nosuid", "nodev", NULL};

static const char *const sys_links[] = {"/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", NULL};

static const char *const etc_files[] = {
	"/etc/ca-certificates", "/etc/ssl", "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf",
	"/etc/passwd", "/etc/group", "/etc/localtime", "/etc/timezone", "/etc/gitconfig", NULL,
};

void sb_mounts_add(struct arena *a, struct sb_mounts *m, const char *dest, const char *type,
		   const char *src, const char *const *opts)
{
	struct oci_mount *mt;
	size_t n = 0, i;

	m->v = arena_append(a, m->v, m->n, sizeof *m->v);
	mt = &m->v[m->n++];
	memset(mt, 0, sizeof *mt);
	mt->destination = arena_strdup(a, dest);
	mt->type = type ? arena_strdup(a, type) : NULL;
	mt->source = src ? arena_strdup(a, src) : NULL;
	while (opts && opts[n])
		n++;
	mt->options.v = arena_alloc(a, (n + 1) * sizeof(char *));
	for (i = 0; i < n; i++)
		mt->options.v[i] = arena_strdup(a, opts[i]);
	mt->options.n = n;
}

bool sb_root_is_host(const struct oci_config *cfg, const struct sandbox_ctx *ctx)
{
	_cleanup_free_ char *joined = NULL;
	char real[PATH_MAX];
	const char *p = cfg->root_path;

	if (!p)
		return false;
	if (p[0] != '/') {
		if (!ctx->bundle || asprintf(&joined, "%s/%s", ctx->bundle, p) < 0)
			return false;
		p = joined;
	}
	return realpath(p, real) && strcmp(real, "/") == 0;
}

static void skel_add(struct sandbox_plan *plan, enum sandbox_skel_kind kind,
		     const char *path, const char *target)
{
	struct arena *a = plan->arena;
	struct sandbox_skel *s;
	size_t i;

	while (*path == '/')
		path++;
	for (i = 0; i < plan->n_skel; i++)
		if (strcmp(plan->skel[i].path, path) == 0)
			return;
	plan->skel = arena_append(a, plan->skel, plan->n_skel, sizeof *plan->skel);
	s = &plan->skel[plan->n_skel++];
	s->kind = kind;
	s->path = arena_strdup(a, path);
	s->target = target ? arena_strdup(a, target) : NULL;
}

/* The view's symlinks (/bin -> usr/bin) resolve inside the view. */
static bool through_skel_link(const struct sandbox_plan *plan, const char *path)
{
	size_t i;

	for (i = 0; i < plan->n_skel; i++)
		if (plan->skel[i].kind == SANDBOX_SKEL_SYMLINK) {
			char abs[PATH_MAX];
			snprintf(abs, sizeof abs, "/%s", plan->skel[i].path);
			if (sb_path_within(path, abs))
				return true;
		}
	return false;
}

static bool covered(const struct sb_mounts *m, const struct sandbox_plan *plan, const char *dir)
{
	size_t i;

	if (through_skel_link(plan, dir))
		return true;
	for (i = 0; i < m->n; i++)
		if (m->v[i].source && m->v[i].type && strcmp(m->v[i].type, "bind") == 0 &&
		    strcmp(m->v[i].source, m->v[i].destination) == 0 && sb_path_within(dir, m->v[i].source))
			return true;
	return false;
}

static void bind_dir_of(struct arena *a, struct sb_mounts *m, struct sandbox_plan *plan, const char *file)
{
	char *dir = arena_strdup(a, file), *slash = strrchr(dir, '/');
	char *clean;

	if (!slash || slash == dir)
		return; /* never the whole host root */
	*slash = '\0';
	if (sb_path_clean(a, "", dir, false, &clean, NULL) < 0 || covered(m, plan, clean))
		return;
	sb_mounts_add(a, m, clean, "bind", clean, ro_bind);
}

static char *find_in_path(struct arena *a, const char *name, const char *path)
{
	const char *p = path;

	if (strchr(name, '/'))
		return name[0] == '/' ? arena_strdup(a, name) : NULL;
	while (p && *p) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *cand = arena_printf(a, "%.*s/%s", (int)n, p, name);
		struct stat st;

		if (n && cand[0] == '/' && stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return cand;
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

/* The binary, its realpath, and for a script its interpreter (through
 * `#!/usr/bin/env NAME` too): npm-installed CLIs are symlinked scripts. */
static void bind_program(struct arena *a, struct sb_mounts *m, struct sandbox_plan *plan,
			 const char *prog, const char *path, int depth)
{
	char real[PATH_MAX], line[256];
	char *exe = find_in_path(a, prog, path);
	_cleanup_close_ int fd = -1;
	ssize_t n;

	if (!exe || depth > 2)
		return;
	bind_dir_of(a, m, plan, exe);
	if (!realpath(exe, real))
		return;
	bind_dir_of(a, m, plan, real);
	fd = open(real, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || (n = read(fd, line, sizeof line - 1)) < 3 || line[0] != '#' || line[1] != '!')
		return;
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	{
		char *save = NULL, *interp = strtok_r(line + 2, " \t", &save), *arg;
		const char *base;

		if (!interp)
			return;
		bind_program(a, m, plan, interp, path, depth + 1);
		base = strrchr(interp, '/');
		if (!base || strcmp(base, "/env"))
			return;
		while ((arg = strtok_r(NULL, " \t", &save)) && arg[0] == '-')
			;
		if (arg && !strchr(arg, '='))
			bind_program(a, m, plan, arg, path, depth + 1);
	}
}

int sb_hostroot_build(struct oci_config *cfg, const struct sandbox_ctx *ctx, struct sandbox_plan *plan,
		      struct sb_mounts *m, struct clasp_error *err)
{
	struct arena *a = cfg->arena;
	const char *devpts[] = {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620",
				ctx->rootless ? NULL : "gid=5", NULL};
	const char *dev[] = {"nosuid", "strictatime", "mode=755", "size=65536k", NULL};
	const char *shm[] = {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k", NULL};
	const char *proc[] = {"nosuid", "noexec", "nodev", NULL};
	const char *path = NULL;
	size_t i;

	if (!ctx->state_dir || ctx->state_dir[0] != '/')
		return clasp_error_set(err, 0, "%s: the host-root view needs an absolute state directory",
				       K_FS_SCOPE);
	plan->view_root = arena_printf(plan->arena, "%s/%s", ctx->state_dir, VIEW_DIR);
	cfg->root_path = arena_strdup(a, plan->view_root);
	cfg->root_readonly = true;

	sb_mounts_add(a, m, "/proc", "proc", "proc", proc);
	sb_mounts_add(a, m, "/dev", "tmpfs", "tmpfs", dev);
	sb_mounts_add(a, m, "/dev/pts", "devpts", "devpts", devpts);
	sb_mounts_add(a, m, "/dev/shm", "tmpfs", "shm", shm);
	sb_mounts_add(a, m, "/usr", "bind", "/usr", ro_bind);
	for (i = 0; sys_links[i]; i++) {
		struct stat st;
		char target[PATH_MAX];
		ssize_t n;

		if (lstat(sys_links[i], &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode) && (n = readlink(sys_links[i], target, sizeof target - 1)) > 0) {
			target[n] = '\0';
			skel_add(plan, SANDBOX_SKEL_SYMLINK, sys_links[i], target);
		} else if (S_ISDIR(st.st_mode)) {
			sb_mounts_add(a, m, sys_links[i], "bind", sys_links[i], ro_bind);
		}
	}
	for (i = 0; etc_files[i]; i++) {
		struct stat st;
		if (stat(etc_files[i], &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
			sb_mounts_add(a, m, etc_files[i], "bind", etc_files[i], ro_bind);
	}
	if (cfg->process && cfg->process->args.n) {
		path = sb_env_get(&cfg->process->env, "PATH");
		bind_program(a, m, plan, cfg->process->args.v[0],
			     path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 0);
	}
	return 0;
}

bool sb_mount_is_bind(const struct oci_mount *mt)
{
	size_t i;

	if (mt->type && strcmp(mt->type, "bind") == 0)
		return true;
	for (i = 0; i < mt->options.n; i++)
		if (!strcmp(mt->options.v[i], "bind") || !strcmp(mt->options.v[i], "rbind"))
			return true;
	return false;
}

/* Every mount point (and the cwd) must exist in the empty view root, which
 * is read-only once the container runs. */
void sb_hostroot_skeleton(struct oci_config *cfg, struct sandbox_plan *plan)
{
	struct arena *a = cfg->arena;
	size_t i;

	for (i = 0; i < cfg->n_mounts; i++) {
		const struct oci_mount *mt = &cfg->mounts[i];
		struct stat st;
		bool file = false;
		char *p, *slash;

		if (!mt->destination || mt->destination[0] != '/' || through_skel_link(plan, mt->destination))
			continue;
		if (sb_mount_is_bind(mt) && mt->source && stat(mt->source, &st) == 0 && !S_ISDIR(st.st_mode))
			file = true;
		/* parents first, so prepare can create them in order */
		p = arena_strdup(a, mt->destination);
		for (slash = strchr(p + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
			*slash = '\0';
			skel_add(plan, SANDBOX_SKEL_DIR, p, NULL);
			*slash = '/';
		}
		if (strcmp(p, "/"))
			skel_add(plan, file ? SANDBOX_SKEL_FILE : SANDBOX_SKEL_DIR, p, NULL);
	}
	if (cfg->process && cfg->process->cwd && cfg->process->cwd[0] == '/' &&
	    strcmp(cfg->process->cwd, "/") && !through_skel_link(plan, cfg->process->cwd)) {
		char *p = NULL, *slash;
		if (sb_path_clean(a, "", cfg->process->cwd, false, &p, NULL) == 0) {
			for (slash = strchr(p + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
				*slash = '\0';
				skel_add(plan, SANDBOX_SKEL_DIR, p, NULL);
				*slash = '/';
			}
			skel_add(plan, SANDBOX_SKEL_DIR, p, NULL);
		}
	}
}
