/* The pure rewrite of src/sandbox: one test per rule and per error text of
 * spec/annotations.md. Configs are built by hand (no parser needed). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "sandbox/sandbox_int.h"
#include "unit.h"

static struct sandbox_ctx ctx = {
	.id = "c1",
	.bundle = "/nonexistent/bundle",
	.state_dir = "/run/clasp/c1",
	.egress_hook = "/usr/libexec/clasp/clasp-egress",
};

static void strv_set(struct arena *a, struct strv *s, const char *const *items)
{
	size_t n = 0, i;
	while (items[n])
		n++;
	s->v = arena_alloc(a, (n + 1) * sizeof(char *));
	for (i = 0; i < n; i++)
		s->v[i] = arena_strdup(a, items[i]);
	s->n = n;
}

static void add_mount(struct oci_config *c, const char *dest, const char *type, const char *src,
		      const char *const *opts)
{
	struct oci_mount *m;
	c->mounts = arena_append(c->arena, c->mounts, c->n_mounts, sizeof *c->mounts);
	m = &c->mounts[c->n_mounts++];
	memset(m, 0, sizeof *m);
	m->destination = arena_strdup(c->arena, dest);
	m->type = type ? arena_strdup(c->arena, type) : NULL;
	m->source = src ? arena_strdup(c->arena, src) : NULL;
	if (opts)
		strv_set(c->arena, &m->options, opts);
}

static void add_ns(struct oci_config *c, enum oci_ns_type t, const char *path)
{
	struct oci_linux *l = &c->linux_;
	l->namespaces = arena_append(c->arena, l->namespaces, l->n_namespaces, sizeof *l->namespaces);
	l->namespaces[l->n_namespaces].type = t;
	l->namespaces[l->n_namespaces].path = path ? arena_strdup(c->arena, path) : NULL;
	l->n_namespaces++;
}

static void annotate(struct oci_config *c, const char *k, const char *v)
{
	c->annotations.v = arena_append(c->arena, c->annotations.v, c->annotations.n, sizeof(struct kv));
	c->annotations.v[c->annotations.n].key = arena_strdup(c->arena, k);
	c->annotations.v[c->annotations.n].value = arena_strdup(c->arena, v);
	c->annotations.n++;
}

static struct oci_config *new_cfg(void)
{
	struct arena *a = arena_new();
	struct oci_config *c = arena_alloc(a, sizeof *c);
	static const char *const env[] = {
		"PATH=/usr/local/bin:/usr/bin:/bin", "TERM=xterm", "PAPERCLIPAI_CMD=secret",
		"DATABASE_URL=postgres://x", "DATABASE_MIGRATION_URL=x", "PGPASSWORD=x", "PGPASSFILE=x",
		"POSTGRES_PASSWORD=x", "BETTER_AUTH_SECRET=x", "JWT_SECRET=x", "AUTH_JWT_SECRET=x",
		"PLUNK_REPORT_TOKEN=x", "PAPERCLIP_API_KEY=x", "PAPERCLIP_RUNTIME_API_URL=http://h",
		"PAPERCLIP_LISTEN_HOST=h", "PAPERCLIP_LISTEN_PORT=1", "HTTP_PROXY=http://evil",
		"https_proxy=http://evil", "ALL_PROXY=x", "no_proxy=*", "PAPERCLIPX=keep", NULL,
	};
	static const char *const args[] = {"sh", NULL};
	static const char *const devopts[] = {"nosuid", "mode=755", NULL};

	c->arena = a;
	c->root_path = arena_strdup(a, "rootfs");
	c->process = arena_alloc(a, sizeof *c->process);
	strv_set(a, &c->process->env, env);
	strv_set(a, &c->process->args, args);
	c->process->cwd = arena_strdup(a, "/");
	c->has_linux = true;
	add_ns(c, OCI_NS_PID, NULL);
	add_ns(c, OCI_NS_MOUNT, NULL);
	add_ns(c, OCI_NS_IPC, NULL);
	add_mount(c, "/proc", "proc", "proc", NULL);
	add_mount(c, "/dev", "tmpfs", "tmpfs", devopts);
	add_mount(c, "/tmp", "tmpfs", "tmpfs", NULL);
	return c;
}

static void free_cfg(struct oci_config *c)
{
	arena_free(c->arena);
}

static const struct oci_mount *find_mount(const struct oci_config *c, const char *dest)
{
	const struct oci_mount *m = NULL;
	size_t i;
	for (i = 0; i < c->n_mounts; i++)
		if (!strcmp(c->mounts[i].destination, dest))
			m = &c->mounts[i];
	return m;
}

static size_t count_mounts(const struct oci_config *c, const char *dest)
{
	size_t i, n = 0;
	for (i = 0; i < c->n_mounts; i++)
		n += !strcmp(c->mounts[i].destination, dest);
	return n;
}

static bool mount_has(const struct oci_mount *m, const char *opt)
{
	size_t i;
	for (i = 0; m && i < m->options.n; i++)
		if (!strcmp(m->options.v[i], opt))
			return true;
	return false;
}

static const char *env(const struct oci_config *c, const char *name)
{
	return sb_env_get(&c->process->env, name);
}

/* Rewrite expecting an error containing `want`. */
static void expect_error(struct oci_config *c, const char *want)
{
	struct sandbox_plan *plan = NULL;
	struct clasp_error err = {0};
	int r = sandbox_rewrite(c, &ctx, &plan, &err);
	CHECK(r == -1);
	CHECK(plan == NULL);
	CHECK_CONTAINS(err.msg, want);
	if (r == 0)
		sandbox_plan_free(plan);
	free_cfg(c);
}

static struct sandbox_plan *expect_ok(struct oci_config *c)
{
	struct sandbox_plan *plan = NULL;
	struct clasp_error err = {0};
	int r = sandbox_rewrite(c, &ctx, &plan, &err);
	if (r != 0)
		fprintf(stderr, "  unexpected error: %s\n", err.msg);
	CHECK(r == 0);
	return plan;
}

static struct oci_config *ws_cfg(void)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.fs.scope", "workspace");
	annotate(c, "ing.paperclip.fs.workspace", "/home/u/proj");
	return c;
}

/* ---- plain OCI ---- */

TEST(no_keys_changes_nothing)
{
	struct oci_config *c = new_cfg();
	size_t nm = c->n_mounts, ne = c->process->env.n;
	annotate(c, "io.kubernetes.pod.uid", "x");
	annotate(c, "ing.paperclipx.fs.scope", "workspace"); /* not the prefix */
	struct sandbox_plan *plan = expect_ok(c);
	CHECK(plan == NULL);
	CHECK(c->n_mounts == nm);
	CHECK(c->process->env.n == ne);
	CHECK(!c->root_readonly);
	CHECK_STREQ(env(c, "PAPERCLIPAI_CMD"), "secret");
	free_cfg(c);
}

TEST(unknown_key_refused)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.fs.scop", "workspace");
	expect_error(c, "ing.paperclip.fs.scop: unknown annotation under ing.paperclip.");
}

TEST(bad_values_refused)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.fs.scope", "all");
	expect_error(c, "ing.paperclip.fs.scope: expected \"workspace\", got \"all\"");
	c = new_cfg();
	annotate(c, "ing.paperclip.net.scope", "none");
	expect_error(c, "ing.paperclip.net.scope: expected \"deny\" or \"allowlist\", got \"none\"");
	c = ws_cfg();
	annotate(c, "ing.paperclip.workspace.realization", "clone");
	expect_error(c, "ing.paperclip.workspace.realization: expected \"in_place\" or \"copy\", got \"clone\"");
	c = ws_cfg();
	annotate(c, "ing.paperclip.fs.workspace-access", "wr");
	expect_error(c, "ing.paperclip.fs.workspace-access: expected \"rw\" or \"ro\", got \"wr\"");
}

/* ---- paths ---- */

TEST(workspace_required)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.fs.scope", "workspace");
	expect_error(c, "ing.paperclip.fs.workspace: required when ing.paperclip.fs.scope or ing.paperclip.workspace.* is set");
	c = new_cfg();
	annotate(c, "ing.paperclip.workspace.realization", "copy");
	expect_error(c, "ing.paperclip.fs.workspace: required when");
	c = new_cfg();
	annotate(c, "ing.paperclip.fs.workspace-target", "/w");
	expect_error(c, "ing.paperclip.fs.workspace-target: requires ing.paperclip.fs.workspace");
}

TEST(paths_must_be_absolute_and_clean)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.fs.scope", "workspace");
	annotate(c, "ing.paperclip.fs.workspace", "proj");
	expect_error(c, "ing.paperclip.fs.workspace: \"proj\" must be an absolute path");
	c = new_cfg();
	annotate(c, "ing.paperclip.fs.scope", "workspace");
	annotate(c, "ing.paperclip.fs.workspace", "/home/../etc");
	expect_error(c, "ing.paperclip.fs.workspace: \"/home/../etc\" must not contain \".\" or \"..\" components");
	c = new_cfg();
	annotate(c, "ing.paperclip.fs.scope", "workspace");
	annotate(c, "ing.paperclip.fs.workspace", "/");
	expect_error(c, "ing.paperclip.fs.workspace: \"/\" is not allowed here");
	c = new_cfg();
	annotate(c, "ing.paperclip.fs.scope", "workspace");
	annotate(c, "ing.paperclip.fs.workspace", "");
	expect_error(c, "ing.paperclip.fs.workspace: path is empty");
	c = ws_cfg();
	annotate(c, "ing.paperclip.fs.extra-paths", "[\"/opt/a\", \"/opt/./b\"]");
	expect_error(c, "ing.paperclip.fs.extra-paths[1]: \"/opt/./b\" must not contain");
	c = ws_cfg();
	annotate(c, "ing.paperclip.fs.workspace-target", "app");
	expect_error(c, "ing.paperclip.fs.workspace-target: \"app\" must be an absolute path");
}

TEST(paths_are_normalised)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.fs.scope", "workspace");
	annotate(c, "ing.paperclip.fs.workspace", "//home//u/proj/");
	struct sandbox_plan *plan = expect_ok(c);
	CHECK(find_mount(c, "/home/u/proj") != NULL);
	CHECK_STREQ(plan->workspace, "/home/u/proj");
	sandbox_plan_free(plan);
	free_cfg(c);
}

/* ---- fs.scope=workspace, image rootfs ---- */

TEST(fs_scope_image_rootfs)
{
	struct oci_config *c = ws_cfg();
	struct sandbox_plan *plan = expect_ok(c);
	const struct oci_mount *ws = find_mount(c, "/home/u/proj"), *tmp = find_mount(c, "/tmp");
	CHECK(plan != NULL);
	CHECK(c->root_readonly);
	CHECK_STREQ(c->root_path, "rootfs");
	CHECK(ws && !strcmp(ws->type, "bind") && !strcmp(ws->source, "/home/u/proj"));
	CHECK(mount_has(ws, "rw") && mount_has(ws, "rbind") && mount_has(ws, "nosuid"));
	CHECK(count_mounts(c, "/tmp") == 1);
	CHECK(tmp && !strcmp(tmp->type, "tmpfs") && mount_has(tmp, "mode=1777"));
	CHECK(find_mount(c, "/proc") != NULL);
	CHECK_STREQ(env(c, "PAPERCLIP_WORKSPACE_ROOT"), "/home/u/proj");
	CHECK_STREQ(env(c, "PAPERCLIP_WORKSPACE_REALIZATION_MODE"), "in_place");
	CHECK(plan->n_checks >= 1 && !strcmp(plan->checks[0].path, "/home/u/proj"));
	CHECK(plan->view_root == NULL && plan->copy_base == NULL && !plan->write_policy);
	sandbox_plan_free(plan);
	free_cfg(c);
}

TEST(workspace_target_and_access)
{
	struct oci_config *c = ws_cfg();
	annotate(c, "ing.paperclip.fs.workspace-target", "/workspace");
	annotate(c, "ing.paperclip.fs.workspace-access", "ro");
	struct sandbox_plan *plan = expect_ok(c);
	const struct oci_mount *ws = find_mount(c, "/workspace");
	CHECK(ws && !strcmp(ws->source, "/home/u/proj") && mount_has(ws, "ro") && !mount_has(ws, "rw"));
	CHECK(find_mount(c, "/home/u/proj") == NULL);
	CHECK_STREQ(env(c, "PAPERCLIP_WORKSPACE_ROOT"), "/workspace");
	sandbox_plan_free(plan);
	free_cfg(c);
}

TEST(extra_paths)
{
	struct oci_config *c = ws_cfg();
	annotate(c, "ing.paperclip.fs.extra-paths",
		 "[\"/opt/tools\", {\"path\":\"/var/cache/x\",\"access\":\"rw\"}, {\"path\":\"/srv/ro\"}]");
	struct sandbox_plan *plan = expect_ok(c);
	const struct oci_mount *a = find_mount(c, "/opt/tools"), *b = find_mount(c, "/var/cache/x"),
			       *d = find_mount(c, "/srv/ro");
	CHECK(a && mount_has(a, "ro") && !strcmp(a->source, "/opt/tools"));
	CHECK(b && mount_has(b, "rw"));
	CHECK(d && mount_has(d, "ro"));
	sandbox_plan_free(plan);
	free_cfg(c);
}

TEST(extra_paths_errors)
{
	struct oci_config *c = ws_cfg();
	annotate(c, "ing.paperclip.fs.extra-paths", "[{\"path\":\"/a\",\"access\":\"x\"}]");
	expect_error(c, "ing.paperclip.fs.extra-paths[0].access: expected \"ro\" or \"rw\", got \"x\"");
	c = ws_cfg();
	annotate(c, "ing.paperclip.fs.extra-paths", "[\"/a\", {\"path\":\"/b\",\"mode\":\"rw\"}]");
	expect_error(c, "ing.paperclip.fs.extra-paths[1]: unknown field \"mode\"");
	c = ws_cfg();
	annotate(c, "ing.paperclip.fs.extra-paths", "[\"/a\", 3]");
	expect_error(c, "ing.paperclip.fs.extra-paths[1]: expected a path string or");
	c = ws_cfg();
	annotate(c, "ing.paperclip.fs.extra-paths", "{\"path\":\"/a\"}");
	expect_error(c, "ing.paperclip.fs.extra-paths: expected a JSON array, got object");
	c = ws_cfg();
	annotate(c, "ing.paperclip.fs.extra-paths", "[\"/a\"");
	expect_error(c, "ing.paperclip.fs.extra-paths: invalid JSON");
	c = ws_cfg();
	annotate(c, "ing.paperclip.fs.extra-paths", "[{\"access\":\"rw\"}]");
	expect_error(c, "ing.paperclip.fs.extra-paths[0]: missing \"path\"");
	c = new_cfg();
	annotate(c, "ing.paperclip.fs.workspace", "/w");
	annotate(c, "ing.paperclip.fs.extra-paths", "[\"/a\"]");
	expect_error(c, "ing.paperclip.fs.extra-paths: requires ing.paperclip.fs.scope=workspace");
}

TEST(foreign_bind_refused)
{
	struct oci_config *c = ws_cfg();
	static const char *const o[] = {"rbind", NULL};
	add_mount(c, "/host-etc", "bind", "/etc", o);
	expect_error(c, "ing.paperclip.fs.scope=workspace: .mounts[3]: bind mount of host path \"/etc\" at \"/host-etc\" is not allowed; declare it in ing.paperclip.fs.extra-paths");
	/* a bind written as options only, no type */
	c = ws_cfg();
	add_mount(c, "/data", NULL, "/srv/data", o);
	expect_error(c, "bind mount of host path \"/srv/data\"");
	/* a dotdot escape from the workspace is not "in" the workspace */
	c = ws_cfg();
	add_mount(c, "/x", "bind", "/home/u/proj/../../../etc", o);
	expect_error(c, "must not contain \".\" or \"..\" components");
}

TEST(allowed_binds)
{
	struct oci_config *c = ws_cfg();
	static const char *const o[] = {"rbind", "rw", NULL};
	annotate(c, "ing.paperclip.fs.extra-paths", "[\"/opt/tools\"]");
	add_mount(c, "/src", "bind", "/home/u/proj/src", o);
	add_mount(c, "/t", "bind", "/opt/tools/bin", o);
	add_mount(c, "/b", "bind", "files/conf", o); /* bundle-relative */
	add_mount(c, "/b2", "bind", "/nonexistent/bundle/x", o);
	struct sandbox_plan *plan = expect_ok(c);
	CHECK(find_mount(c, "/src") != NULL);
	CHECK(mount_has(find_mount(c, "/t"), "ro")); /* declared read-only */
	CHECK(find_mount(c, "/b") != NULL);
	CHECK(find_mount(c, "/b2") != NULL);
	/* the realpath containment is left to prepare */
	bool seen = false;
	for (size_t i = 0; i < plan->n_checks; i++)
		seen = seen || (!strcmp(plan->checks[i].path, "/home/u/proj/src") &&
				plan->checks[i].within && !strcmp(plan->checks[i].within, "/home/u/proj"));
	CHECK(seen);
	sandbox_plan_free(plan);
	free_cfg(c);
}

TEST(client_dirs)
{
	static const char *const o[] = {"bind", NULL};
	struct oci_config *c = ws_cfg();
	add_mount(c, "/etc/hosts", "bind", "/var/lib/containers/storage/overlay-containers/c1/userdata/hosts", o);
	add_mount(c, "/run/.containerenv", "bind", "/run/containers/storage/overlay-containers/c1/userdata/.containerenv", o);
	struct sandbox_plan *plan = expect_ok(c);
	sandbox_plan_free(plan);
	free_cfg(c);

	/* another container's directory */
	c = ws_cfg();
	add_mount(c, "/etc/hosts", "bind", "/var/lib/containers/storage/overlay-containers/c2/userdata/hosts", o);
	expect_error(c, "overlay-containers/c2/userdata/hosts");
	/* the bare id never unlocks a path */
	c = ws_cfg();
	add_mount(c, "/r", "bind", "/c1", o);
	expect_error(c, "bind mount of host path \"/c1\"");
	c = ws_cfg();
	add_mount(c, "/r", "bind", "/var/lib/containers/storage/overlay-containers/c1", o);
	expect_error(c, "not allowed");

	/* rootless podman with vfs storage: runroot and graph root in the user's directories */
	c = ws_cfg();
	add_mount(c, "/etc/hosts", "bind", "/run/user/1001/containers/vfs-containers/c1/userdata/hosts", o);
	add_mount(c, "/run/.containerenv", "bind", "/run/user/1001/containers/vfs-containers/c1/userdata/.containerenv", o);
	add_mount(c, "/etc/hostname", "bind", "/home/u/.local/share/containers/storage/vfs-containers/c1/userdata/hostname", o);
	plan = expect_ok(c);
	sandbox_plan_free(plan);
	free_cfg(c);
	/* look-alikes: an unknown driver prefix, a component that merely ends in the prefix,
	 * the id's directory without userdata, and another container's directory */
	c = ws_cfg();
	add_mount(c, "/etc/hosts", "bind", "/run/user/1001/containers/evil-containers/c1/userdata/hosts", o);
	expect_error(c, "evil-containers/c1/userdata/hosts\" at \"/etc/hosts\" is not allowed");
	c = ws_cfg();
	add_mount(c, "/etc/hosts", "bind", "/home/u/myvfs-containers/c1/userdata/hosts", o);
	expect_error(c, "not allowed");
	c = ws_cfg();
	add_mount(c, "/r", "bind", "/run/user/1001/containers/vfs-containers/c1", o);
	expect_error(c, "not allowed");
	c = ws_cfg();
	add_mount(c, "/etc/hosts", "bind", "/run/user/1001/containers/vfs-containers/c2/userdata/hosts", o);
	expect_error(c, "vfs-containers/c2/userdata/hosts");

	/* containerd CRI */
	c = ws_cfg();
	annotate(c, "io.kubernetes.cri.sandbox-id", "sb123");
	add_mount(c, "/etc/hostname", "bind", "/var/lib/containerd/io.containerd.grpc.v1.cri/sandboxes/sb123/hostname", o);
	add_mount(c, "/dev/shm", "bind", "/run/containerd/io.containerd.grpc.v1.cri/sandboxes/sb123/shm", o);
	add_mount(c, "/dev/termination-log", "bind", "/var/lib/containerd/io.containerd.grpc.v1.cri/containers/c1/log", o);
	plan = expect_ok(c);
	sandbox_plan_free(plan);
	free_cfg(c);
	c = ws_cfg();
	add_mount(c, "/etc/hostname", "bind", "/var/lib/containerd/io.containerd.grpc.v1.cri/sandboxes/sb123/hostname", o);
	expect_error(c, "sandboxes/sb123/hostname"); /* no sandbox-id annotation */

	/* kubelet pod dir */
	c = ws_cfg();
	annotate(c, "io.kubernetes.pod.uid", "0b5c-11");
	add_mount(c, "/etc/hosts", "bind", "/var/lib/kubelet/pods/0b5c-11/etc-hosts", o);
	add_mount(c, "/data", "bind", "/var/lib/kubelet/pods/0b5c-11/volumes/kubernetes.io~empty-dir/d", o);
	plan = expect_ok(c);
	sandbox_plan_free(plan);
	free_cfg(c);
	c = ws_cfg();
	annotate(c, "io.kubernetes.pod.uid", "0b5c-11");
	add_mount(c, "/data", "bind", "/var/lib/kubelet/pods/other/volumes/x", o);
	expect_error(c, "/var/lib/kubelet/pods/other/volumes/x");
	/* hostPath volume */
	c = ws_cfg();
	annotate(c, "io.kubernetes.pod.uid", "0b5c-11");
	add_mount(c, "/data", "bind", "/srv/hostpath", o);
	expect_error(c, "declare it in ing.paperclip.fs.extra-paths");
}

TEST(non_pseudo_mount_refused)
{
	struct oci_config *c = ws_cfg();
	add_mount(c, "/disk", "ext4", "/dev/sda1", NULL);
	expect_error(c, "ing.paperclip.fs.scope=workspace: .mounts[3]: mount of type \"ext4\" from \"/dev/sda1\" is not allowed");
}

TEST(namespaces_required)
{
	struct oci_config *c = ws_cfg();
	c->linux_.namespaces[0].type = OCI_NS_UTS; /* drop pid */
	expect_error(c, "ing.paperclip.fs.scope=workspace requires a new pid namespace");
	c = ws_cfg();
	c->linux_.namespaces[0].path = arena_strdup(c->arena, "/proc/1/ns/pid");
	expect_error(c, "requires a new pid namespace: with the host's, /proc/<pid>/root opens the host filesystem");
	c = ws_cfg();
	c->linux_.namespaces[1].type = OCI_NS_UTS; /* drop mount */
	expect_error(c, "ing.paperclip.fs.scope=workspace requires a new mount namespace");
}

TEST(block_device_refused)
{
	struct oci_config *c = ws_cfg();
	c->linux_.devices = arena_alloc(c->arena, sizeof *c->linux_.devices);
	c->linux_.devices[0].type = 'b';
	c->linux_.devices[0].path = arena_strdup(c->arena, "/dev/sda");
	c->linux_.n_devices = 1;
	expect_error(c, ".linux.devices[0]: block device \"/dev/sda\" is not allowed");
}

/* ---- host-root view ---- */

static bool has_skel(const struct sandbox_plan *p, enum sandbox_skel_kind k, const char *path, const char *target)
{
	for (size_t i = 0; i < p->n_skel; i++)
		if (p->skel[i].kind == k && !strcmp(p->skel[i].path, path) &&
		    (!target || (p->skel[i].target && !strcmp(p->skel[i].target, target))))
			return true;
	return false;
}

TEST(host_root_view)
{
	struct oci_config *c = ws_cfg();
	struct stat st;
	c->root_path = arena_strdup(c->arena, "/");
	struct sandbox_plan *plan = expect_ok(c);
	CHECK(plan && plan->view_root && !strcmp(plan->view_root, "/run/clasp/c1/sandbox-root"));
	CHECK_STREQ(c->root_path, "/run/clasp/c1/sandbox-root");
	CHECK(c->root_readonly);
	const struct oci_mount *usr = find_mount(c, "/usr");
	CHECK(usr && !strcmp(usr->source, "/usr") && mount_has(usr, "ro"));
	CHECK(find_mount(c, "/proc") && !strcmp(find_mount(c, "/proc")->type, "proc"));
	CHECK(count_mounts(c, "/proc") == 1); /* the config's own is replaced */
	CHECK(find_mount(c, "/dev") && find_mount(c, "/dev/pts") && find_mount(c, "/dev/shm"));
	CHECK(mount_has(find_mount(c, "/dev/pts"), "gid=5"));
	CHECK(find_mount(c, "/tmp") && !strcmp(find_mount(c, "/tmp")->type, "tmpfs"));
	CHECK(find_mount(c, "/etc/passwd") && mount_has(find_mount(c, "/etc/passwd"), "ro"));
	CHECK(find_mount(c, "/root") == NULL && find_mount(c, "/home") == NULL);
	CHECK(find_mount(c, "/home/u/proj") != NULL);
	if (lstat("/bin", &st) == 0 && S_ISLNK(st.st_mode)) {
		CHECK(has_skel(plan, SANDBOX_SKEL_SYMLINK, "bin", "usr/bin"));
		CHECK(find_mount(c, "/bin") == NULL);
	} else {
		CHECK(find_mount(c, "/bin") != NULL);
	}
	CHECK(has_skel(plan, SANDBOX_SKEL_DIR, "home/u/proj", NULL));
	CHECK(has_skel(plan, SANDBOX_SKEL_FILE, "etc/passwd", NULL));
	CHECK(has_skel(plan, SANDBOX_SKEL_DIR, "tmp", NULL));
	/* sh lives in /usr/bin here: nothing more to bind */
	CHECK(find_mount(c, "/usr/bin") == NULL);
	sandbox_plan_free(plan);
	free_cfg(c);
}

TEST(host_root_rootless_devpts)
{
	struct oci_config *c = ws_cfg();
	struct sandbox_ctx saved = ctx;
	c->root_path = arena_strdup(c->arena, "/");
	ctx.rootless = true;
	struct sandbox_plan *plan = expect_ok(c);
	ctx = saved;
	CHECK(!mount_has(find_mount(c, "/dev/pts"), "gid=5"));
	sandbox_plan_free(plan);
	free_cfg(c);
}

/* An npm-style CLI: bin/tool -> ../lib/pkg/cli.js with an env #! line. */
TEST(host_root_program_dirs)
{
	char dir[] = "/tmp/sbtest-XXXXXX", p[512];
	FILE *f;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(p, sizeof p, "%s/bin", dir); mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/lib", dir); mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/lib/pkg", dir); mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/lib/pkg/cli.js", dir);
	f = fopen(p, "w");
	fputs("#!/usr/bin/env -S node --no-warnings\nconsole.log(1)\n", f);
	fclose(f);
	chmod(p, 0755);
	snprintf(p, sizeof p, "%s/bin/tool", dir);
	CHECK(symlink("../lib/pkg/cli.js", p) == 0);

	struct oci_config *c = ws_cfg();
	c->root_path = arena_strdup(c->arena, "/");
	char pathenv[600];
	snprintf(pathenv, sizeof pathenv, "%s/bin:/usr/bin", dir);
	sb_env_set(c->arena, &c->process->env, "PATH", pathenv);
	c->process->args.v[0] = arena_strdup(c->arena, "tool");
	struct sandbox_plan *plan = expect_ok(c);
	snprintf(p, sizeof p, "%s/bin", dir);
	CHECK(find_mount(c, p) && mount_has(find_mount(c, p), "ro"));
	snprintf(p, sizeof p, "%s/lib/pkg", dir);
	CHECK(find_mount(c, p) && mount_has(find_mount(c, p), "ro"));
	sandbox_plan_free(plan);
	free_cfg(c);
	snprintf(p, sizeof p, "rm -rf '%s'", dir);
	CHECK(system(p) == 0);
}

/* ---- network ---- */

static bool has_ns(const struct oci_config *c, enum oci_ns_type t, bool want_path)
{
	for (size_t i = 0; i < c->linux_.n_namespaces; i++)
		if (c->linux_.namespaces[i].type == t && (c->linux_.namespaces[i].path != NULL) == want_path)
			return true;
	return false;
}

TEST(net_deny)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.net.scope", "deny");
	struct sandbox_plan *plan = expect_ok(c);
	CHECK(has_ns(c, OCI_NS_NETWORK, false));
	CHECK(env(c, "HTTP_PROXY") == NULL && env(c, "https_proxy") == NULL);
	CHECK(env(c, "ALL_PROXY") == NULL && env(c, "no_proxy") == NULL);
	CHECK(c->hooks[OCI_HOOK_PRESTART].n == 0);
	CHECK_STREQ(plan->net_digest, "deny");
	CHECK(!plan->write_policy);
	CHECK(!c->root_readonly); /* net only: no fs rules */
	CHECK(env(c, "PAPERCLIP_WORKSPACE_ROOT") == NULL);
	sandbox_plan_free(plan);
	free_cfg(c);
}

TEST(net_join_refused)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.net.scope", "deny");
	add_ns(c, OCI_NS_NETWORK, "/var/run/netns/x");
	expect_error(c, "ing.paperclip.net.scope: joining the existing network namespace \"/var/run/netns/x\" is not allowed; let the runtime create one (podman --network=none)");
	c = new_cfg();
	annotate(c, "ing.paperclip.net.scope", "allowlist");
	annotate(c, "ing.paperclip.net.allowlist", "[\"example.com\"]");
	add_ns(c, OCI_NS_NETWORK, "/proc/1/ns/net");
	expect_error(c, "joining the existing network namespace");
	/* without net.scope it is plain OCI */
	c = ws_cfg();
	add_ns(c, OCI_NS_NETWORK, "/var/run/netns/x");
	struct sandbox_plan *plan = expect_ok(c);
	sandbox_plan_free(plan);
	free_cfg(c);
}

TEST(net_join_kubernetes)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.net.scope", "allowlist");
	annotate(c, "ing.paperclip.net.allowlist", "[\"example.com\"]");
	annotate(c, "io.kubernetes.cri.container-type", "container");
	annotate(c, "io.kubernetes.cri.sandbox-id", "sb1");
	add_ns(c, OCI_NS_NETWORK, "/proc/self/ns/net");
	struct sandbox_plan *plan = expect_ok(c);
	CHECK(plan && plan->netns_join && !strcmp(plan->netns_join, "/proc/self/ns/net"));
	CHECK(c->hooks[OCI_HOOK_PRESTART].n == 0); /* the sandbox container runs the proxy */
	CHECK(!plan->write_policy);
	CHECK_STREQ(env(c, "HTTPS_PROXY"), "http://127.0.0.1:31337");
	/* no running peer: refused */
	struct clasp_error err = {0};
	CHECK(sandbox_check_netns_join(plan, NULL, 0, &err) == -1);
	CHECK_CONTAINS(err.msg, "not the network namespace of a running clasp container");
	sandbox_plan_free(plan);
	free_cfg(c);
}

TEST(net_allowlist)
{
	struct oci_config *c = new_cfg();
	static const char *const a0[] = {"/usr/bin/other", NULL};
	c->hooks[OCI_HOOK_PRESTART].v = arena_alloc(c->arena, sizeof(struct oci_hook));
	c->hooks[OCI_HOOK_PRESTART].v[0].path = arena_strdup(c->arena, "/usr/bin/other");
	strv_set(c->arena, &c->hooks[OCI_HOOK_PRESTART].v[0].args, a0);
	c->hooks[OCI_HOOK_PRESTART].n = 1;
	annotate(c, "ing.paperclip.net.scope", "allowlist");
	annotate(c, "ing.paperclip.net.allowlist", "[\"Example.COM.\", \"api.x.io:8443\", \"https://h.io\", \"http://p.io\", \"https://q.io:9443\"]");
	annotate(c, "ing.paperclip.net.trusted-urls", "[\"http://127.0.0.1:3100/api\", \"https://cp.example\"]");
	annotate(c, "ing.paperclip.net.proxy-port", "3128");
	annotate(c, "ing.paperclip.net.audit-log", "/var/log/clasp/audit.jsonl");
	struct sandbox_plan *plan = expect_ok(c);
	struct oci_hook_list *pre = &c->hooks[OCI_HOOK_PRESTART];
	CHECK(has_ns(c, OCI_NS_NETWORK, false));
	CHECK(pre->n == 2);
	CHECK_STREQ(pre->v[0].path, "/usr/libexec/clasp/clasp-egress");
	CHECK(pre->v[0].args.n == 4);
	CHECK_STREQ(pre->v[0].args.v[1], "hook");
	CHECK_STREQ(pre->v[0].args.v[2], "--policy");
	CHECK_STREQ(pre->v[0].args.v[3], "/run/clasp/c1/egress-policy");
	CHECK_STREQ(pre->v[1].path, "/usr/bin/other");
	CHECK_STREQ(env(c, "HTTP_PROXY"), "http://127.0.0.1:3128");
	CHECK_STREQ(env(c, "HTTPS_PROXY"), "http://127.0.0.1:3128");
	CHECK_STREQ(env(c, "http_proxy"), "http://127.0.0.1:3128");
	CHECK_STREQ(env(c, "https_proxy"), "http://127.0.0.1:3128");
	CHECK_STREQ(env(c, "NO_PROXY"), "");
	CHECK_STREQ(env(c, "no_proxy"), "");
	CHECK_STREQ(env(c, "NODE_USE_ENV_PROXY"), "1");
	CHECK(env(c, "ALL_PROXY") == NULL);
	CHECK(plan->write_policy);
	CHECK_STREQ(plan->policy_path, "/run/clasp/c1/egress-policy");
	CHECK(plan->policy.port == 3128);
	CHECK_STREQ(plan->policy.audit_log, "/var/log/clasp/audit.jsonl");
	CHECK_STREQ(plan->policy.state_dir, "/run/clasp/c1");
	CHECK(plan->policy.n_rules == 7);
	/* normalised host; the port rules (stricter than Paperclip for URLs) */
	CHECK_STREQ(plan->policy.rules[0].host, "example.com");
	CHECK(plan->policy.rules[0].port == 0);
	CHECK(plan->policy.rules[1].port == 8443);
	CHECK(plan->policy.rules[2].port == 443);
	CHECK(plan->policy.rules[3].port == 80);
	CHECK(plan->policy.rules[4].port == 9443);
	CHECK(plan->policy.rules[5].kind == NETRULE_TRUSTED && plan->policy.rules[5].port == 3100);
	CHECK(plan->policy.rules[6].port == 443);
	CHECK(!strncmp(plan->net_digest, "allowlist:", 10));
	sandbox_plan_free(plan);
	free_cfg(c);
}

TEST(allowlist_entry_errors)
{
	struct { const char *list, *want; } cases[] = {
		{"[\"a.com\", \"b.com\", \"*.x.com\"]",
		 "ing.paperclip.net.allowlist[2]: use an exact hostname; wildcards are not supported"},
		{"[\"\"]", "ing.paperclip.net.allowlist[0]: allowlist entry is empty"},
		{"[\"https://u:p@h.com\"]", "ing.paperclip.net.allowlist[0]: allowlist entry must not carry userinfo"},
		{"[\"https://h.com/path\"]", "ing.paperclip.net.allowlist[0]: allowlist entry must not carry a path"},
		{"[\"https://h.com?q=1\"]", "ing.paperclip.net.allowlist[0]: allowlist entry must not carry a query"},
		{"[\"https://h.com#f\"]", "ing.paperclip.net.allowlist[0]: allowlist entry must not carry a fragment"},
		{"[\"h.com:0\"]", "ing.paperclip.net.allowlist[0]: port 0 is outside 1-65535"},
		{"[\"h.com:http\"]", "ing.paperclip.net.allowlist[0]: port \"http\" is not a number"},
		{"[\"127.1\"]", "ing.paperclip.net.allowlist[0]: \"127.1\" is not a canonical IPv4 address"},
		{"[3]", "ing.paperclip.net.allowlist[0]: expected a string"},
		{"\"h.com\"", "ing.paperclip.net.allowlist: expected a JSON array, got string"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct oci_config *c = new_cfg();
		annotate(c, "ing.paperclip.net.scope", "allowlist");
		annotate(c, "ing.paperclip.net.allowlist", cases[i].list);
		expect_error(c, cases[i].want);
	}
}

TEST(trusted_urls)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.net.scope", "allowlist");
	annotate(c, "ing.paperclip.net.trusted-urls", "[\"http://cp.local\"]");
	struct sandbox_plan *plan = expect_ok(c); /* trusted URLs alone are enough */
	CHECK(plan && plan->policy.n_rules == 1 && plan->policy.rules[0].port == 80);
	sandbox_plan_free(plan);
	free_cfg(c);
	c = new_cfg();
	annotate(c, "ing.paperclip.net.scope", "allowlist");
	annotate(c, "ing.paperclip.net.trusted-urls", "[\"ftp://cp.local\"]");
	expect_error(c, "ing.paperclip.net.trusted-urls[0]: trusted URL must be an http:// or https:// URL");
	c = new_cfg();
	annotate(c, "ing.paperclip.net.scope", "allowlist");
	annotate(c, "ing.paperclip.net.trusted-urls", "[\"http://127.0.0.1:31337\"]");
	expect_error(c, "ing.paperclip.net.trusted-urls[0]: port 31337 is the proxy port (ing.paperclip.net.proxy-port); pick another proxy port");
}

TEST(allowlist_needs_a_rule)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.net.scope", "allowlist");
	expect_error(c, "ing.paperclip.net.allowlist: ing.paperclip.net.scope=allowlist needs at least one allowlist entry or trusted URL");
	c = new_cfg();
	annotate(c, "ing.paperclip.net.scope", "allowlist");
	annotate(c, "ing.paperclip.net.allowlist", "[]");
	annotate(c, "ing.paperclip.net.trusted-urls", "[]");
	expect_error(c, "needs at least one allowlist entry or trusted URL");
}

TEST(proxy_port_and_audit_log)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.net.scope", "allowlist");
	annotate(c, "ing.paperclip.net.allowlist", "[\"a.com\"]");
	annotate(c, "ing.paperclip.net.proxy-port", "70000");
	expect_error(c, "ing.paperclip.net.proxy-port: port \"70000\" is outside 1-65535");
	c = new_cfg();
	annotate(c, "ing.paperclip.net.scope", "allowlist");
	annotate(c, "ing.paperclip.net.allowlist", "[\"a.com\"]");
	annotate(c, "ing.paperclip.net.audit-log", "audit.log");
	expect_error(c, "ing.paperclip.net.audit-log: \"audit.log\" must be an absolute path");
	c = ws_cfg();
	annotate(c, "ing.paperclip.net.scope", "allowlist");
	annotate(c, "ing.paperclip.net.allowlist", "[\"a.com\"]");
	annotate(c, "ing.paperclip.net.audit-log", "/home/u/proj/audit.log");
	expect_error(c, "ing.paperclip.net.audit-log: \"/home/u/proj/audit.log\" must not be inside the writable workspace");
}

TEST(net_keys_need_allowlist_scope)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.net.scope", "deny");
	annotate(c, "ing.paperclip.net.allowlist", "[\"a.com\"]");
	expect_error(c, "ing.paperclip.net.allowlist: requires ing.paperclip.net.scope=allowlist");
	c = new_cfg();
	annotate(c, "ing.paperclip.net.proxy-port", "3128");
	expect_error(c, "ing.paperclip.net.proxy-port: requires ing.paperclip.net.scope=allowlist");
}

TEST(allowlist_needs_hook_binary)
{
	struct oci_config *c = new_cfg();
	struct sandbox_ctx saved = ctx;
	ctx.egress_hook = NULL;
	annotate(c, "ing.paperclip.net.scope", "allowlist");
	annotate(c, "ing.paperclip.net.allowlist", "[\"a.com\"]");
	expect_error(c, "ing.paperclip.net.scope=allowlist needs the clasp-egress hook binary");
	ctx = saved;
}

/* ---- realization ---- */

TEST(copy_realization)
{
	struct oci_config *c = ws_cfg();
	static const char *const o[] = {"rbind", NULL};
	annotate(c, "ing.paperclip.workspace.realization", "copy");
	annotate(c, "ing.paperclip.workspace.path-aliases", "[{\"path\":\"/app\",\"target\":\"/home/u/proj/app\"}]");
	add_mount(c, "/cfgbind", "bind", "/home/u/proj/sub", o);
	struct sandbox_plan *plan = expect_ok(c);
	const struct oci_mount *ws = find_mount(c, "/home/u/proj");
	CHECK(plan && plan->copy && plan->n_syncs == 1);
	CHECK(!strncmp(plan->copy_base, "/home/u/.clasp-copy-c1-", 23));
	CHECK_STREQ(plan->syncs[0].host, "/home/u/proj");
	CHECK(ws && !strcmp(ws->source, plan->syncs[0].copy));
	char want[512];
	snprintf(want, sizeof want, "%s/app", plan->syncs[0].copy);
	CHECK(find_mount(c, "/app") && !strcmp(find_mount(c, "/app")->source, want));
	snprintf(want, sizeof want, "%s/sub", plan->syncs[0].copy);
	CHECK(find_mount(c, "/cfgbind") && !strcmp(find_mount(c, "/cfgbind")->source, want));
	CHECK_STREQ(env(c, "PAPERCLIP_WORKSPACE_REALIZATION_MODE"), "copy");
	sandbox_plan_free(plan);
	free_cfg(c);
}

TEST(copy_dir)
{
	struct oci_config *c = ws_cfg();
	annotate(c, "ing.paperclip.workspace.realization", "copy");
	annotate(c, "ing.paperclip.workspace.copy-dir", "/var/tmp/copies");
	struct sandbox_plan *plan = expect_ok(c);
	CHECK(plan && !strncmp(plan->copy_base, "/var/tmp/copies/.clasp-copy-c1-", 31));
	sandbox_plan_free(plan);
	free_cfg(c);
	c = ws_cfg();
	annotate(c, "ing.paperclip.workspace.realization", "copy");
	annotate(c, "ing.paperclip.workspace.copy-dir", "/home/u/proj/.cache");
	expect_error(c, "ing.paperclip.workspace.copy-dir: \"/home/u/proj/.cache\" must not be inside the workspace \"/home/u/proj\"");
	c = ws_cfg();
	annotate(c, "ing.paperclip.workspace.copy-dir", "/var/tmp");
	expect_error(c, "ing.paperclip.workspace.copy-dir: requires ing.paperclip.workspace.realization=copy");
}

TEST(copy_writable_extra_needs_restore)
{
	struct oci_config *c = ws_cfg();
	annotate(c, "ing.paperclip.workspace.realization", "copy");
	annotate(c, "ing.paperclip.fs.extra-paths", "[\"/opt/ro\", {\"path\":\"/var/cache/x\",\"access\":\"rw\"}]");
	expect_error(c, "ing.paperclip.fs.extra-paths[1]: Writable sandbox path \"/var/cache/x\" is outside synchronized workspace \"/home/u/proj\" and has no outbound restore mapping.");

	c = ws_cfg();
	annotate(c, "ing.paperclip.workspace.realization", "copy");
	annotate(c, "ing.paperclip.fs.extra-paths", "[\"/opt/ro\", {\"path\":\"/var/cache/x/y\",\"access\":\"rw\"}, \"/home/u/proj/docs\"]");
	annotate(c, "ing.paperclip.workspace.outbound-restore-paths", "[\"/var/cache/x\", \"/home/u/proj/out\"]");
	struct sandbox_plan *plan = expect_ok(c);
	CHECK(plan && plan->n_syncs == 2);
	CHECK_STREQ(plan->syncs[1].host, "/var/cache/x");
	char want[512];
	snprintf(want, sizeof want, "%s/y", plan->syncs[1].copy);
	CHECK(find_mount(c, "/var/cache/x/y") && !strcmp(find_mount(c, "/var/cache/x/y")->source, want));
	CHECK(find_mount(c, "/opt/ro") && !strcmp(find_mount(c, "/opt/ro")->source, "/opt/ro"));
	snprintf(want, sizeof want, "%s/docs", plan->syncs[0].copy);
	CHECK(find_mount(c, "/home/u/proj/docs") && !strcmp(find_mount(c, "/home/u/proj/docs")->source, want));
	CHECK(mount_has(find_mount(c, "/home/u/proj/docs"), "ro"));
	sandbox_plan_free(plan);
	free_cfg(c);

	c = ws_cfg();
	annotate(c, "ing.paperclip.workspace.realization", "copy");
	annotate(c, "ing.paperclip.workspace.outbound-restore-paths", "[\"/home\"]");
	expect_error(c, "ing.paperclip.workspace.outbound-restore-paths[0]: \"/home\" must not contain the workspace \"/home/u/proj\"");
	c = ws_cfg();
	annotate(c, "ing.paperclip.workspace.outbound-restore-paths", "[\"/x\"]");
	expect_error(c, "ing.paperclip.workspace.outbound-restore-paths: requires ing.paperclip.workspace.realization=copy");
	c = ws_cfg();
	annotate(c, "ing.paperclip.workspace.realization", "copy");
	annotate(c, "ing.paperclip.workspace.outbound-restore-paths", "[\"x\"]");
	expect_error(c, "ing.paperclip.workspace.outbound-restore-paths[0]: \"x\" must be an absolute path");
}

TEST(aliases)
{
	struct oci_config *c = ws_cfg();
	annotate(c, "ing.paperclip.workspace.path-aliases", "[{\"path\":\"/app\",\"target\":\"/home/u/proj\"}, {\"path\":\"/w\",\"target\":\"/home/u/other\"}]");
	expect_error(c, "ing.paperclip.workspace.path-aliases[1]: Sandbox path alias \"/w\" must target the synchronized workspace \"/home/u/proj\".");
	c = ws_cfg();
	annotate(c, "ing.paperclip.workspace.path-aliases", "[{\"path\":\"/app\",\"target\":\"/home/u/projX\"}]");
	expect_error(c, "must target the synchronized workspace");
	c = ws_cfg();
	annotate(c, "ing.paperclip.workspace.path-aliases", "[{\"path\":\"/app\"}]");
	expect_error(c, "ing.paperclip.workspace.path-aliases[0]: needs both \"path\" and \"target\"");
	c = ws_cfg();
	annotate(c, "ing.paperclip.workspace.path-aliases", "[{\"path\":\"app\",\"target\":\"/home/u/proj\"}]");
	expect_error(c, "ing.paperclip.workspace.path-aliases[0].path: \"app\" must be an absolute path");

	c = ws_cfg();
	annotate(c, "ing.paperclip.workspace.path-aliases", "[{\"path\":\"/app\",\"target\":\"/home/u/proj/pkg\"}]");
	struct sandbox_plan *plan = expect_ok(c);
	const struct oci_mount *m = find_mount(c, "/app");
	CHECK(m && !strcmp(m->source, "/home/u/proj/pkg") && mount_has(m, "rw"));
	bool seen = false;
	for (size_t i = 0; i < plan->n_checks; i++)
		seen = seen || (!strcmp(plan->checks[i].path, "/home/u/proj/pkg") && plan->checks[i].message &&
				strstr(plan->checks[i].message, "must target the synchronized workspace"));
	CHECK(seen); /* symlinks out of the workspace are caught by prepare */
	sandbox_plan_free(plan);
	free_cfg(c);
}

/* ---- env ---- */

TEST(env_hygiene)
{
	struct oci_config *c = ws_cfg();
	struct sandbox_plan *plan = expect_ok(c);
	const char *gone[] = {"PAPERCLIPAI_CMD", "DATABASE_URL", "DATABASE_MIGRATION_URL", "PGPASSWORD",
			      "PGPASSFILE", "POSTGRES_PASSWORD", "BETTER_AUTH_SECRET", "JWT_SECRET",
			      "AUTH_JWT_SECRET", "PLUNK_REPORT_TOKEN", "PAPERCLIP_API_KEY", NULL};
	for (size_t i = 0; gone[i]; i++)
		CHECK(env(c, gone[i]) == NULL);
	CHECK_STREQ(env(c, "PAPERCLIP_RUNTIME_API_URL"), "http://h");
	CHECK_STREQ(env(c, "PAPERCLIP_LISTEN_HOST"), "h");
	CHECK_STREQ(env(c, "PAPERCLIP_LISTEN_PORT"), "1");
	CHECK_STREQ(env(c, "PAPERCLIPX"), "keep");
	CHECK_STREQ(env(c, "TERM"), "xterm");
	/* proxy variables are only touched with a net.scope */
	CHECK_STREQ(env(c, "HTTP_PROXY"), "http://evil");
	CHECK(c->process->env.v[c->process->env.n] == NULL);
	sandbox_plan_free(plan);
	free_cfg(c);
}

TEST(env_scrub_with_only_net)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.net.scope", "deny");
	struct sandbox_plan *plan = expect_ok(c);
	CHECK(env(c, "PAPERCLIPAI_CMD") == NULL);
	CHECK(env(c, "HTTP_PROXY") == NULL);
	sandbox_plan_free(plan);
	free_cfg(c);
}

/* The real parser's output goes through the rewrite the same way. */
TEST(parsed_fixture_config)
{
	struct oci_config *c = NULL;
	struct clasp_error err = {0};
	if (oci_config_load("tests/fixtures", &c, &err) < 0) {
		fprintf(stderr, "  skipped: %s\n", err.msg);
		return;
	}
	annotate(c, "ing.paperclip.fs.scope", "workspace");
	annotate(c, "ing.paperclip.fs.workspace", "/home/u/proj");
	annotate(c, "ing.paperclip.net.scope", "deny");
	struct sandbox_plan *plan = expect_ok(c);
	CHECK(plan != NULL);
	CHECK(c->root_readonly);
	CHECK(find_mount(c, "/home/u/proj") != NULL);
	CHECK(count_mounts(c, "/tmp") == 1);
	CHECK(has_ns(c, OCI_NS_NETWORK, false));
	CHECK(c->process->env.v[c->process->env.n] == NULL);
	sandbox_plan_free(plan);
	oci_config_free(c);
}

int main(void)
{
	RUN(no_keys_changes_nothing);
	RUN(unknown_key_refused);
	RUN(bad_values_refused);
	RUN(workspace_required);
	RUN(paths_must_be_absolute_and_clean);
	RUN(paths_are_normalised);
	RUN(fs_scope_image_rootfs);
	RUN(workspace_target_and_access);
	RUN(extra_paths);
	RUN(extra_paths_errors);
	RUN(foreign_bind_refused);
	RUN(allowed_binds);
	RUN(client_dirs);
	RUN(non_pseudo_mount_refused);
	RUN(namespaces_required);
	RUN(block_device_refused);
	RUN(host_root_view);
	RUN(host_root_rootless_devpts);
	RUN(host_root_program_dirs);
	RUN(net_deny);
	RUN(net_join_refused);
	RUN(net_join_kubernetes);
	RUN(net_allowlist);
	RUN(allowlist_entry_errors);
	RUN(trusted_urls);
	RUN(allowlist_needs_a_rule);
	RUN(proxy_port_and_audit_log);
	RUN(net_keys_need_allowlist_scope);
	RUN(allowlist_needs_hook_binary);
	RUN(copy_realization);
	RUN(copy_dir);
	RUN(copy_writable_extra_needs_restore);
	RUN(aliases);
	RUN(env_hygiene);
	RUN(env_scrub_with_only_net);
	RUN(parsed_fixture_config);
	return unit_summary("test_sandbox");
}
