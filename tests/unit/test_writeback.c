/* The sandbox's side effects on temp dirs: prepare (checks, copy, view,
 * policy), copy-mode write-back at finish (changes, conflicts, resume after
 * an interrupted write-back, symlinks that must not redirect a write),
 * undo after a failed create, and the Kubernetes netns join check. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "sandbox/sandbox_int.h"
#include "unit.h"

static char top[64];

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fprintf(stderr, "  command failed: %s\n", cmd);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return;
	}
	fputs(text, f);
	fclose(f);
}

static char *get(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static char *P(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *P(const char *fmt, ...)
{
	static char bufs[8][1024];
	static int i;
	char rel[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rel, sizeof rel, fmt, ap);
	va_end(ap);
	i = (i + 1) % 8;
	snprintf(bufs[i], sizeof bufs[i], "%s/%s", top, rel);
	return bufs[i];
}

/* ---- config building ---- */

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
	c->arena = a;
	c->root_path = arena_strdup(a, "rootfs");
	c->process = arena_alloc(a, sizeof *c->process);
	c->process->args.v = arena_alloc(a, 2 * sizeof(char *));
	c->process->args.v[0] = arena_strdup(a, "sh");
	c->process->args.n = 1;
	c->process->env.v = arena_alloc(a, sizeof(char *));
	c->linux_.namespaces = arena_alloc(a, 2 * sizeof *c->linux_.namespaces);
	c->linux_.namespaces[0].type = OCI_NS_PID;
	c->linux_.namespaces[1].type = OCI_NS_MOUNT;
	c->linux_.n_namespaces = 2;
	c->has_linux = true;
	return c;
}

struct fixture {
	struct oci_config *cfg;
	struct sandbox_plan *plan;
	struct sandbox_ctx ctx;
	char state[512], bundle[512];
};

static int setup(struct fixture *f, struct oci_config *c, struct clasp_error *err)
{
	memset(err, 0, sizeof *err);
	f->cfg = c;
	snprintf(f->state, sizeof f->state, "%s/state/c1", top);
	snprintf(f->bundle, sizeof f->bundle, "%s/bundle", top);
	f->ctx = (struct sandbox_ctx){.id = "c1", .bundle = f->bundle, .state_dir = f->state,
				      .egress_hook = "/usr/libexec/clasp/clasp-egress"};
	if (sandbox_rewrite(c, &f->ctx, &f->plan, err) < 0)
		return -1;
	return sandbox_prepare(f->plan, err);
}

static void teardown(struct fixture *f)
{
	sandbox_plan_free(f->plan);
	arena_free(f->cfg->arena);
	f->plan = NULL;
}

static struct oci_config *copy_cfg(void)
{
	struct oci_config *c = new_cfg();
	annotate(c, "ing.paperclip.fs.scope", "workspace");
	annotate(c, "ing.paperclip.fs.workspace", P("ws"));
	annotate(c, "ing.paperclip.workspace.realization", "copy");
	return c;
}

static void make_ws(void)
{
	sh("rm -rf '%s'/ws '%s'/state '%s'/.clasp-copy-* '%s'/outside; mkdir -p '%s'/ws/sub '%s'/ws/gone '%s'/outside '%s'/state",
	   top, top, top, top, top, top, top, top);
	put(P("ws/a.txt"), "host a\n");
	put(P("ws/sub/b.txt"), "host b\n");
	put(P("ws/del.txt"), "to delete\n");
	put(P("ws/gone/x"), "x\n");
	put(P("ws/same.txt"), "aaaa\n");
	if (symlink("a.txt", P("ws/link")) < 0)
		perror("symlink");
}

/* ---- conflict collection ---- */

static char conflicts[8][2][1024];
static int n_conflicts;

static void on_conflict(const char *path, const char *saved, void *opaque)
{
	if (n_conflicts < 8) {
		snprintf(conflicts[n_conflicts][0], 1024, "%s", path);
		snprintf(conflicts[n_conflicts][1], 1024, "%s", saved ? saved : "");
	}
	n_conflicts++;
}

static const char *copy_of(const struct fixture *f, const char *rel)
{
	static char buf[1024];
	snprintf(buf, sizeof buf, "%s/%s", f->plan->syncs[0].copy, rel);
	return buf;
}

TEST(copy_then_write_back)
{
	struct fixture f;
	struct clasp_error err;
	struct stat st;
	char target[256];
	ssize_t n;

	make_ws();
	CHECK(setup(&f, copy_cfg(), &err) == 0);
	if (!f.plan) {
		fprintf(stderr, "  %s\n", err.msg);
		return;
	}
	CHECK(exists(P("state/c1/sandbox.json")));
	CHECK(stat(f.plan->copy_base, &st) == 0 && (st.st_mode & 0777) == 0700);
	CHECK_STREQ(get(copy_of(&f, "a.txt")), "host a\n");
	CHECK_STREQ(get(copy_of(&f, "sub/b.txt")), "host b\n");
	n = readlink(copy_of(&f, "link"), target, sizeof target - 1);
	CHECK(n == 5);

	/* the agent works in the copy */
	put(copy_of(&f, "a.txt"), "agent a\n");
	put(copy_of(&f, "new.txt"), "new\n");
	sh("mkdir -p '%s' && echo n > '%s'/n.txt", copy_of(&f, "newdir"), copy_of(&f, "newdir"));
	unlink(copy_of(&f, "del.txt"));
	sh("rm -rf '%s'", copy_of(&f, "gone"));
	chmod(copy_of(&f, "sub/b.txt"), 0600);
	unlink(copy_of(&f, "link"));
	CHECK(symlink("sub/b.txt", copy_of(&f, "link")) == 0);
	CHECK(symlink("/etc", copy_of(&f, "evil")) == 0);
	/* same size, mtime reset: still a change (ctime) */
	CHECK(stat(copy_of(&f, "same.txt"), &st) == 0);
	put(copy_of(&f, "same.txt"), "bbbb\n");
	{
		struct timespec ts[2] = {st.st_atim, st.st_mtim};
		utimensat(AT_FDCWD, copy_of(&f, "same.txt"), ts, 0);
	}

	/* nothing reaches the host before delete */
	CHECK_STREQ(get(P("ws/a.txt")), "host a\n");
	CHECK(!exists(P("ws/new.txt")));

	n_conflicts = 0;
	CHECK(sandbox_finish(f.state, on_conflict, NULL, &err) == 0);
	CHECK(n_conflicts == 0);
	CHECK_STREQ(get(P("ws/a.txt")), "agent a\n");
	CHECK_STREQ(get(P("ws/new.txt")), "new\n");
	CHECK_STREQ(get(P("ws/newdir/n.txt")), "n\n");
	CHECK_STREQ(get(P("ws/same.txt")), "bbbb\n");
	CHECK(!exists(P("ws/del.txt")));
	CHECK(!exists(P("ws/gone")));
	CHECK(stat(P("ws/sub/b.txt"), &st) == 0 && (st.st_mode & 0777) == 0600);
	n = readlink(P("ws/link"), target, sizeof target - 1);
	CHECK(n > 0 && (target[n] = 0, !strcmp(target, "sub/b.txt")));
	n = readlink(P("ws/evil"), target, sizeof target - 1);
	CHECK(n > 0 && (target[n] = 0, !strcmp(target, "/etc"))); /* a link, not followed */
	CHECK(!exists(f.plan->copy_base));
	CHECK(!exists(P("state/c1/sandbox.json")));
	CHECK(!exists(P("state/c1/sandbox-sync-0.journal")));
	/* exactly once: a second delete is a no-op */
	put(P("ws/a.txt"), "host again\n");
	CHECK(sandbox_finish(f.state, on_conflict, NULL, &err) == 0);
	CHECK_STREQ(get(P("ws/a.txt")), "host again\n");
	teardown(&f);
}

TEST(conflicts_keep_host_version)
{
	struct fixture f;
	struct clasp_error err;

	make_ws();
	CHECK(setup(&f, copy_cfg(), &err) == 0);
	if (!f.plan)
		return;
	put(copy_of(&f, "a.txt"), "agent a\n");
	put(P("ws/a.txt"), "host changed a\n");
	unlink(copy_of(&f, "del.txt"));
	put(P("ws/del.txt"), "host changed del\n");
	put(copy_of(&f, "both.txt"), "agent both\n");
	put(P("ws/both.txt"), "host both\n");
	n_conflicts = 0;
	CHECK(sandbox_finish(f.state, on_conflict, NULL, &err) == 0);
	CHECK_STREQ(get(P("ws/a.txt")), "host changed a\n");
	CHECK_STREQ(get(P("ws/a.txt.clasp-conflict")), "agent a\n");
	CHECK_STREQ(get(P("ws/del.txt")), "host changed del\n");
	CHECK_STREQ(get(P("ws/both.txt")), "host both\n");
	CHECK_STREQ(get(P("ws/both.txt.clasp-conflict")), "agent both\n");
	CHECK(n_conflicts == 3);
	bool saw_a = false, saw_del = false;
	for (int i = 0; i < n_conflicts && i < 8; i++) {
		if (!strcmp(conflicts[i][0], P("ws/a.txt")) && !strcmp(conflicts[i][1], P("ws/a.txt.clasp-conflict")))
			saw_a = true;
		if (!strcmp(conflicts[i][0], P("ws/del.txt")) && conflicts[i][1][0] == '\0')
			saw_del = true;
	}
	CHECK(saw_a);
	CHECK(saw_del);
	CHECK(!exists(f.plan->copy_base));
	teardown(&f);
}

TEST(interrupted_write_back_resumes)
{
	struct fixture f;
	struct clasp_error err;
	int i;

	make_ws();
	CHECK(setup(&f, copy_cfg(), &err) == 0);
	if (!f.plan)
		return;
	for (i = 0; i < 6; i++) {
		char name[32], text[32];
		snprintf(name, sizeof name, "f%d", i);
		snprintf(text, sizeof text, "agent %d\n", i);
		put(copy_of(&f, name), text);
	}
	unlink(copy_of(&f, "del.txt"));
	sb_writeback_fail_after = 3;
	CHECK(sandbox_finish(f.state, on_conflict, NULL, &err) == -1);
	CHECK_CONTAINS(err.msg, "simulated failure");
	sb_writeback_fail_after = -1;
	/* nothing lost: the copy, the journal and sandbox.json are kept */
	CHECK(exists(f.plan->copy_base));
	CHECK(exists(P("state/c1/sandbox.json")));
	CHECK(exists(P("state/c1/sandbox-sync-0.journal")));
	int written = 0;
	for (i = 0; i < 6; i++) {
		char name[32];
		snprintf(name, sizeof name, "ws/f%d", i);
		written += exists(P("%s", name));
	}
	CHECK(written < 6);
	/* the host copy of a written file now differs from the snapshot:
	 * a fresh scan would call it a conflict; the journal does not. */
	n_conflicts = 0;
	CHECK(sandbox_finish(f.state, on_conflict, NULL, &err) == 0);
	CHECK(n_conflicts == 0);
	for (i = 0; i < 6; i++) {
		char name[32], text[32];
		snprintf(name, sizeof name, "ws/f%d", i);
		snprintf(text, sizeof text, "agent %d\n", i);
		CHECK_STREQ(get(P("%s", name)), text);
	}
	CHECK(!exists(P("ws/del.txt")));
	CHECK(!exists(f.plan->copy_base));
	CHECK(!exists(P("state/c1/sandbox.json")));
	teardown(&f);
}

/* A symlink swapped in on the host side between scan and apply (as if the
 * agent had planted it) must not redirect the write outside the tree. */
TEST(symlink_cannot_redirect_write)
{
	struct fixture f;
	struct clasp_error err;

	make_ws();
	CHECK(setup(&f, copy_cfg(), &err) == 0);
	if (!f.plan)
		return;
	put(copy_of(&f, "sub/b.txt"), "agent b\n");
	put(copy_of(&f, "sub/c.txt"), "agent c\n");
	sb_writeback_fail_after = 0; /* journal written, nothing applied */
	CHECK(sandbox_finish(f.state, on_conflict, NULL, &err) == -1);
	sb_writeback_fail_after = -1;
	sh("rm -rf '%s' && ln -s '%s' '%s'", P("ws/sub"), P("outside"), P("ws/sub"));
	n_conflicts = 0;
	CHECK(sandbox_finish(f.state, on_conflict, NULL, &err) == 0);
	CHECK(!exists(P("outside/b.txt")));
	CHECK(!exists(P("outside/c.txt")));
	CHECK(n_conflicts == 2); /* reported, not written */
	teardown(&f);

	/* an agent's symlink in the copy is written back as a link, and a
	 * file beside it still goes to its own place */
	make_ws();
	CHECK(setup(&f, copy_cfg(), &err) == 0);
	if (!f.plan)
		return;
	sh("rm -rf '%s' && ln -s '%s' '%s'", copy_of(&f, "sub"), P("outside"), copy_of(&f, "sub"));
	CHECK(sandbox_finish(f.state, on_conflict, NULL, &err) == 0);
	struct stat st;
	CHECK(lstat(P("ws/sub"), &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(!exists(P("outside/b.txt")));
	teardown(&f);
}

TEST(undo_prepare_removes_copy_not_workspace)
{
	struct fixture f;
	struct clasp_error err;

	make_ws();
	CHECK(setup(&f, copy_cfg(), &err) == 0);
	if (!f.plan)
		return;
	CHECK(exists(f.plan->copy_base));
	CHECK(sandbox_undo_prepare(f.state, &err) == 0);
	CHECK(!exists(f.plan->copy_base));
	CHECK(!exists(P("state/c1/sandbox.json")));
	CHECK(!exists(P("state/c1/sandbox-sync-0.manifest")));
	CHECK_STREQ(get(P("ws/a.txt")), "host a\n");
	CHECK(exists(P("ws/sub/b.txt")));
	/* a state dir without sandbox.json is a no-op */
	CHECK(sandbox_undo_prepare(f.state, &err) == 0);
	CHECK(sandbox_finish(f.state, NULL, NULL, &err) == 0);
	teardown(&f);
}

TEST(prepare_checks)
{
	struct fixture f;
	struct clasp_error err;
	struct oci_config *c;

	make_ws();
	c = new_cfg();
	annotate(c, "ing.paperclip.fs.scope", "workspace");
	annotate(c, "ing.paperclip.fs.workspace", P("nope"));
	CHECK(setup(&f, c, &err) == -1);
	CHECK_CONTAINS(err.msg, "ing.paperclip.fs.workspace: \"");
	CHECK_CONTAINS(err.msg, "/nope\" does not exist");
	CHECK(!exists(P("state/c1/sandbox.json")));
	teardown(&f);

	/* an alias that a symlink in the workspace leads outside */
	CHECK(symlink(P("outside"), P("ws/out")) == 0);
	c = new_cfg();
	annotate(c, "ing.paperclip.fs.scope", "workspace");
	annotate(c, "ing.paperclip.fs.workspace", P("ws"));
	annotate(c, "ing.paperclip.workspace.path-aliases", "[]");
	{
		char v[1024];
		snprintf(v, sizeof v, "[{\"path\":\"/app\",\"target\":\"%s\"}]", P("ws/out"));
		c->annotations.v[c->annotations.n - 1].value = arena_strdup(c->arena, v);
	}
	CHECK(setup(&f, c, &err) == -1);
	CHECK_CONTAINS(err.msg, "ing.paperclip.workspace.path-aliases[0]: Sandbox path alias \"/app\" must target the synchronized workspace");
	teardown(&f);

	/* a config bind through that symlink */
	c = new_cfg();
	annotate(c, "ing.paperclip.fs.scope", "workspace");
	annotate(c, "ing.paperclip.fs.workspace", P("ws"));
	c->mounts = arena_alloc(c->arena, sizeof *c->mounts);
	c->mounts[0].destination = arena_strdup(c->arena, "/x");
	c->mounts[0].type = arena_strdup(c->arena, "bind");
	c->mounts[0].source = arena_strdup(c->arena, P("ws/out"));
	c->n_mounts = 1;
	CHECK(setup(&f, c, &err) == -1);
	CHECK_CONTAINS(err.msg, ".mounts[0]: \"");
	CHECK_CONTAINS(err.msg, "outside \"");
	teardown(&f);

	/* a leftover copy directory is not reused */
	c = copy_cfg();
	CHECK(setup(&f, c, &err) == 0);
	struct fixture g;
	CHECK(setup(&g, copy_cfg(), &err) == -1);
	CHECK_CONTAINS(err.msg, "already exists");
	CHECK(exists(f.plan->copy_base)); /* the first one's copy is untouched */
	teardown(&g);
	CHECK(sandbox_undo_prepare(f.state, &err) == 0);
	teardown(&f);
}

TEST(extra_restore_path_round_trip)
{
	struct fixture f;
	struct clasp_error err;
	struct oci_config *c = copy_cfg();
	char v[1024];

	make_ws();
	sh("mkdir -p '%s' && echo c > '%s'", P("cache/x"), P("cache/x/f"));
	snprintf(v, sizeof v, "[{\"path\":\"%s\",\"access\":\"rw\"}]", P("cache/x"));
	annotate(c, "ing.paperclip.fs.extra-paths", v);
	snprintf(v, sizeof v, "[\"%s\"]", P("cache"));
	annotate(c, "ing.paperclip.workspace.outbound-restore-paths", v);
	CHECK(setup(&f, c, &err) == 0);
	if (!f.plan) {
		fprintf(stderr, "  %s\n", err.msg);
		return;
	}
	CHECK(f.plan->n_syncs == 2);
	char p[1024];
	snprintf(p, sizeof p, "%s/x/f", f.plan->syncs[1].copy);
	put(p, "agent c\n");
	CHECK(sandbox_finish(f.state, NULL, NULL, &err) == 0);
	CHECK_STREQ(get(P("cache/x/f")), "agent c\n");
	teardown(&f);
	sh("rm -rf '%s'", P("cache"));
}

TEST(host_root_view_and_policy)
{
	struct fixture f;
	struct clasp_error err;
	struct oci_config *c = new_cfg();
	struct stat st;

	make_ws();
	c->root_path = arena_strdup(c->arena, "/");
	annotate(c, "ing.paperclip.fs.scope", "workspace");
	annotate(c, "ing.paperclip.fs.workspace", P("ws"));
	annotate(c, "ing.paperclip.net.scope", "allowlist");
	annotate(c, "ing.paperclip.net.allowlist", "[\"example.com:443\"]");
	CHECK(setup(&f, c, &err) == 0);
	if (!f.plan) {
		fprintf(stderr, "  %s\n", err.msg);
		return;
	}
	CHECK(stat(P("state/c1/sandbox-root/usr"), &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(stat(P("state/c1/sandbox-root/etc/passwd"), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0);
	CHECK(stat(P("state/c1/sandbox-root/tmp"), &st) == 0);
	if (lstat("/bin", &st) == 0 && S_ISLNK(st.st_mode))
		CHECK(lstat(P("state/c1/sandbox-root/bin"), &st) == 0 && S_ISLNK(st.st_mode));
	{
		char ws_mp[1024];
		snprintf(ws_mp, sizeof ws_mp, "%s/sandbox-root%s", f.state, P("ws"));
		CHECK(stat(ws_mp, &st) == 0 && S_ISDIR(st.st_mode));
	}
	struct egress_policy pol;
	CHECK(egress_policy_read(P("state/c1/egress-policy"), &pol, &err) == 0);
	CHECK(pol.n_rules == 1 && pol.rules[0].port == 443 && pol.port == 31337);
	egress_policy_free(&pol);
	char digest[64];
	CHECK(sandbox_read_net_digest(f.state, digest, &err) == 0);
	CHECK_STREQ(digest, f.plan->net_digest);
	CHECK(sandbox_finish(f.state, NULL, NULL, &err) == 0);
	CHECK(!exists(P("state/c1/sandbox-root")));
	CHECK(!exists(P("state/c1/egress-policy")));
	CHECK(exists(P("ws/a.txt")));
	teardown(&f);
}

TEST(netns_join_peer)
{
	struct fixture f, peer;
	struct clasp_error err;
	struct oci_config *c = new_cfg();

	make_ws();
	/* the peer: a "running" container whose init is this process */
	struct oci_config *pc = new_cfg();
	annotate(pc, "ing.paperclip.net.scope", "deny");
	CHECK(setup(&peer, pc, &err) == 0);
	/* the joiner, in the next state dir */
	annotate(c, "ing.paperclip.net.scope", "deny");
	annotate(c, "io.kubernetes.cri.container-type", "container");
	annotate(c, "io.kubernetes.cri.sandbox-id", "sb");
	c->linux_.namespaces = arena_append(c->arena, c->linux_.namespaces, c->linux_.n_namespaces,
					    sizeof *c->linux_.namespaces);
	c->linux_.namespaces[c->linux_.n_namespaces].type = OCI_NS_NETWORK;
	c->linux_.namespaces[c->linux_.n_namespaces++].path = arena_strdup(c->arena, "/proc/self/ns/net");
	memset(&err, 0, sizeof err);
	f.cfg = c;
	f.ctx = (struct sandbox_ctx){.id = "c2", .bundle = "/b", .state_dir = P("state/c2")};
	CHECK(sandbox_rewrite(c, &f.ctx, &f.plan, &err) == 0);
	struct sandbox_peer p = {.pid = getpid(), .state_dir = peer.state};
	CHECK(sandbox_check_netns_join(f.plan, &p, 1, &err) == 0);
	/* another policy in that namespace: refused */
	snprintf(f.plan->net_digest, sizeof f.plan->net_digest, "allowlist:0123456789abcdef:31337");
	CHECK(sandbox_check_netns_join(f.plan, &p, 1, &err) == -1);
	CHECK_CONTAINS(err.msg, "was created with a different network policy");
	teardown(&f);
	CHECK(sandbox_finish(peer.state, NULL, NULL, &err) == 0);
	teardown(&peer);
}

int main(void)
{
	snprintf(top, sizeof top, "/tmp/clasp-wb-XXXXXX");
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(copy_then_write_back);
	RUN(conflicts_keep_host_version);
	RUN(interrupted_write_back_resumes);
	RUN(symlink_cannot_redirect_write);
	RUN(undo_prepare_removes_copy_not_workspace);
	RUN(prepare_checks);
	RUN(extra_restore_path_round_trip);
	RUN(host_root_view_and_policy);
	RUN(netns_join_peer);
	sh("rm -rf '%s'", top);
	return unit_summary("test_writeback");
}
