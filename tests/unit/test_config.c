/* Unit tests for src/oci/config_*.c (config.json -> struct oci_config) and
 * src/oci/spec_default.c. Fixtures live in tests/unit/fixtures/config/ (the
 * runtime-spec schema examples copied verbatim, `runc spec` output, and
 * hand-written podman- and containerd-like configs). Run from the repository
 * root: make build/unit/test_config && build/unit/test_config
 * Longer than the usual file on purpose: it is mostly one table row per
 * rejection the parser can produce, with the exact text users will see. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/config.h"
#include "oci/spec_default.h"
#include "oci/version.h"
#include "unit.h"

#define FIXTURES "tests/unit/fixtures/config/"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f) {
		fprintf(stderr, "cannot open %s (run from the repository root): %s\n", path,
			strerror(errno));
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static struct oci_config *parse_str(const char *json, struct clasp_error *err)
{
	struct oci_config *cfg = NULL;

	memset(err, 0, sizeof *err);
	if (oci_config_parse(json, strlen(json), "config.json", &cfg, err) < 0)
		return NULL;
	return cfg;
}

static struct oci_config *parse_file(const char *name, struct clasp_error *err)
{
	char path[512];
	struct oci_config *cfg = NULL;
	size_t len = 0;
	char *text;

	snprintf(path, sizeof path, FIXTURES "%s", name);
	memset(err, 0, sizeof *err);
	text = slurp(path, &len);
	if (!text) {
		snprintf(err->msg, sizeof err->msg, "cannot read %s", path);
		return NULL;
	}
	if (oci_config_parse(text, len, "config.json", &cfg, err) < 0)
		cfg = NULL;
	free(text);
	return cfg;
}

/* ---- schema fixtures ---- */

/* Every good example parses. The freebsd-* and zos-* ones are for other
 * platforms; they still must parse here: their platform sections are unknown
 * properties to a Linux runtime (config.md "Extensibility") and the rest of
 * each document is valid POSIX config. */
TEST(schema_good)
{
	static const char *const good[] = {
		"good/minimal.json",        "good/minimal-for-start.json", "good/spec-example.json",
		"good/linux-netdevice.json", "good/linux-rdma.json",        "good/freebsd-example.json",
		"good/freebsd-minimal.json", "good/zos-example.json",       "good/zos-minimal.json",
	};
	struct clasp_error err;
	size_t i;

	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		struct oci_config *cfg = parse_file(good[i], &err);

		if (!cfg)
			fprintf(stderr, "  %s: %s\n", good[i], err.msg);
		CHECK(cfg != NULL);
		oci_config_free(cfg);
	}
}

/* Each bad example with the exact rejection. bad/freebsd-vnet-disable.json
 * is only invalid in the freebsd section, which Linux ignores as an unknown
 * property, so clasp accepts it (checked here so the choice is explicit). */
TEST(schema_bad)
{
	static const struct {
		const char *file, *error;
	} bad[] = {
		{"bad/linux-hugepage.json",
		 "config.json: .linux.resources.hugepageLimits[0].pageSize: invalid page size \"64kB\" "
		 "(expected <size>KB, MB or GB, e.g. \"2MB\")"},
		{"bad/linux-netdevice.json", "config.json: .linux.netDevices.eth0.name: expected a string"},
		{"bad/linux-rdma.json",
		 "config.json: .linux.resources.rdma.mlx5_1.hcaHandles: expected a non-negative integer"},
	};
	struct clasp_error err;
	struct oci_config *cfg;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cfg = parse_file(bad[i].file, &err);
		CHECK(cfg == NULL);
		CHECK_STREQ(err.msg, bad[i].error);
		oci_config_free(cfg);
	}
	cfg = parse_file("bad/invalid-json.json", &err);
	CHECK(cfg == NULL);
	CHECK_CONTAINS(err.msg, "config.json: invalid JSON: ");
	cfg = parse_file("bad/freebsd-vnet-disable.json", &err);
	CHECK(cfg != NULL);
	oci_config_free(cfg);
}

TEST(spec_example_fields)
{
	struct clasp_error err;
	struct oci_config *c = parse_file("good/spec-example.json", &err);
	const struct oci_linux *l;

	CHECK(c != NULL);
	if (!c)
		return;
	l = &c->linux_;
	CHECK_STREQ(c->oci_version, "0.5.0-dev");
	CHECK_STREQ(c->root_path, "rootfs");
	CHECK(c->root_readonly);
	CHECK_STREQ(c->hostname, "slartibartfast");
	CHECK_STREQ(c->domainname, "foobarbaz.test");
	CHECK(c->process && c->process->terminal);
	CHECK(c->process->user.uid == 1 && c->process->user.gid == 1);
	CHECK(c->process->user.n_additional_gids == 2 && c->process->user.additional_gids[1] == 6);
	CHECK(c->process->capabilities.present && c->process->capabilities.effective.n == 2);
	CHECK_STREQ(c->process->capabilities.ambient.v[0], "CAP_NET_BIND_SERVICE");
	CHECK(c->process->capabilities.ambient.v[1] == NULL);
	CHECK(c->process->n_rlimits == 2 && c->process->rlimits[0].resource == RLIMIT_CORE);
	CHECK(c->process->no_new_privileges);
	CHECK_STREQ(c->process->apparmor_profile, "acme_secure_profile");
	CHECK(c->n_mounts == 7);
	CHECK_STREQ(c->mounts[2].destination, "/dev/pts");
	CHECK(c->mounts[2].options.n == 6 && c->mounts[2].options.v[6] == NULL);
	CHECK(c->mounts[0].options.v == NULL && c->mounts[0].options.n == 0);
	CHECK(c->hooks[OCI_HOOK_PRESTART].n == 2);
	CHECK_STREQ(c->hooks[OCI_HOOK_PRESTART].v[0].args.v[2], "arg2");
	CHECK(c->hooks[OCI_HOOK_POSTSTART].v[0].timeout.set);
	CHECK(c->hooks[OCI_HOOK_POSTSTART].v[0].timeout.v == 5);
	CHECK(!c->hooks[OCI_HOOK_PRESTART].v[1].timeout.set);
	CHECK(c->hooks[OCI_HOOK_POSTSTOP].n == 1 && c->hooks[OCI_HOOK_START_CONTAINER].n == 1);
	CHECK(c->has_linux);
	CHECK(l->n_devices == 2 && l->devices[0].type == 'c' && l->devices[0].major == 10);
	CHECK(l->devices[0].file_mode.set && l->devices[0].file_mode.v == 438);
	CHECK(l->n_uid_mappings == 1 && l->uid_mappings[0].host_id == 1000);
	CHECK(l->uid_mappings[0].size == 32000);
	CHECK(l->sysctl.n == 2);
	CHECK_STREQ(l->sysctl.v[1].key, "net.core.somaxconn");
	CHECK_STREQ(l->cgroups_path, "/myRuntime/myContainer");
	CHECK(l->resources.present);
	CHECK(l->resources.network.class_id.v == 1048577 && l->resources.network.n_priorities == 2);
	CHECK(l->resources.pids_limit.set && l->resources.pids_limit.v == 32771);
	CHECK(l->resources.n_hugepage_limits == 2);
	CHECK(l->resources.hugepage_limits[0].limit == 9223372036854772000ULL);
	CHECK(l->resources.memory.kernel.set && l->resources.memory.kernel.v == -1);
	CHECK(l->resources.memory.swappiness.set && l->resources.memory.swappiness.v == 0);
	CHECK(l->resources.memory.disable_oom_killer.set && !l->resources.memory.disable_oom_killer.v);
	CHECK(l->resources.cpu.quota.v == 1000000 && !l->resources.cpu.idle.set);
	CHECK_STREQ(l->resources.cpu.cpus, "2-3");
	CHECK(l->resources.n_devices == 3 && !l->resources.devices[0].allow);
	CHECK(l->resources.devices[0].type == 'a' && !l->resources.devices[0].major.set);
	CHECK(l->resources.devices[2].type == 'b' && l->resources.devices[2].minor.set);
	CHECK(l->resources.blockio.weight.v == 10 && l->resources.blockio.n_weight_device == 2);
	CHECK(!l->resources.blockio.weight_device[1].leaf_weight.set);
	CHECK(l->resources.blockio.throttle_write_iops.n == 1);
	CHECK(l->resources.blockio.throttle_write_iops.v[0].rate == 300);
	CHECK(l->rootfs_propagation == OCI_PROP_SLAVE);
	CHECK(l->seccomp && l->seccomp->default_action == OCI_SCMP_ALLOW);
	CHECK(l->seccomp->n_syscalls == 1 && l->seccomp->syscalls[0].action == OCI_SCMP_ERRNO);
	CHECK(l->seccomp->architectures.n == 2);
	CHECK(l->time_monotonic.set && l->time_monotonic.secs == 172800);
	CHECK(l->time_boottime.set && l->time_boottime.secs == 604800);
	CHECK(l->n_namespaces == 8 && l->namespaces[7].type == OCI_NS_TIME);
	CHECK(l->masked_paths.n == 4 && l->readonly_paths.n == 6);
	CHECK_STREQ(l->mount_label, "system_u:object_r:svirt_sandbox_file_t:s0:c715,c811");
	CHECK_STREQ(oci_config_annotation(c, "com.example.key2"), "value2");
	CHECK(oci_config_annotation(c, "com.example.nope") == NULL);
	CHECK(oci_config_namespace(c, OCI_NS_USER) != NULL);
	oci_config_free(c);
}

TEST(netdevices_rdma_fields)
{
	struct clasp_error err;
	struct oci_config *c = parse_file("good/linux-netdevice.json", &err);

	CHECK(c && c->linux_.net_devices.n == 3);
	if (c) {
		CHECK_STREQ(c->linux_.net_devices.v[0].key, "eth0");
		CHECK_STREQ(c->linux_.net_devices.v[0].value, "container_eth0");
		CHECK_STREQ(c->linux_.net_devices.v[1].value, "");
	}
	oci_config_free(c);
	c = parse_file("good/linux-rdma.json", &err);
	CHECK(c && c->linux_.resources.n_rdma == 3);
	if (c) {
		CHECK_STREQ(c->linux_.resources.rdma[0].device, "mlx5_1");
		CHECK(c->linux_.resources.rdma[0].hca_handles.v == 3);
		CHECK(!c->linux_.resources.rdma[1].hca_handles.set);
	}
	oci_config_free(c);
	c = parse_file("good/minimal.json", &err);
	CHECK(c && !c->process && !c->has_linux && c->n_mounts == 0 && c->mounts == NULL);
	CHECK(c && c->annotations.n == 0 && oci_config_namespace(c, OCI_NS_PID) == NULL);
	oci_config_free(c);
}

/* ---- runc spec and spec_default ---- */

static char *with_version(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t pre, n;
	char *out;

	if (!at)
		return NULL;
	pre = (size_t)(at - text);
	n = strlen(text) - strlen(from) + strlen(to);
	out = malloc(n + 1);
	memcpy(out, text, pre);
	strcpy(out + pre, to);
	strcat(out, at + strlen(from));
	return out;
}

/* `runc spec` output with clasp's two deliberate differences: the spec
 * version it implements, and its own name as the hostname. */
static char *as_clasp(char *runc)
{
	char *v, *h;

	if (!runc)
		return NULL;
	v = with_version(runc, "\"1.0.2-dev\"", "\"" CLASP_SPEC_VERSION "\"");
	h = v ? with_version(v, "\"hostname\": \"runc\"", "\"hostname\": \"clasp\"") : NULL;
	free(v);
	return h;
}

TEST(spec_default_matches_runc)
{
	size_t len;
	char *runc = slurp(FIXTURES "runc-spec.json", &len);
	char *want = as_clasp(runc);

	CHECK(want != NULL);
	if (want)
		CHECK(strcmp(oci_spec_default_json(false), want) == 0);
	free(runc);
	free(want);
	runc = slurp(FIXTURES "runc-spec-rootless.json", &len);
	want = as_clasp(runc);
	CHECK(want != NULL);
	/* The fixture was written by root (hostID 0); compare where that holds. */
	if (want && geteuid() == 0 && getegid() == 0)
		CHECK(strcmp(oci_spec_default_json(true), want) == 0);
	free(runc);
	free(want);
}

TEST(spec_default_parses)
{
	struct clasp_error err;
	struct oci_config *c;

	c = parse_str(oci_spec_default_json(false), &err);
	CHECK(c != NULL);
	if (c) {
		CHECK_STREQ(c->oci_version, CLASP_SPEC_VERSION);
		CHECK(c->process->terminal && c->process->args.n == 1);
		CHECK_STREQ(c->process->args.v[0], "sh");
		CHECK(c->n_mounts == 7 && c->linux_.n_namespaces == 5);
		CHECK(oci_config_namespace(c, OCI_NS_NETWORK) != NULL);
		CHECK(oci_config_namespace(c, OCI_NS_USER) == NULL);
		CHECK(c->process->n_rlimits == 1 && c->process->rlimits[0].resource == RLIMIT_NOFILE);
	}
	oci_config_free(c);
	c = parse_str(oci_spec_default_json(true), &err);
	CHECK(c != NULL);
	if (c) {
		CHECK(oci_config_namespace(c, OCI_NS_USER) != NULL);
		CHECK(oci_config_namespace(c, OCI_NS_NETWORK) == NULL);
		CHECK(c->linux_.n_uid_mappings == 1 && c->linux_.uid_mappings[0].host_id == geteuid());
		CHECK(c->linux_.n_gid_mappings == 1 && c->linux_.gid_mappings[0].host_id == getegid());
		CHECK(!c->linux_.resources.present);
	}
	oci_config_free(c);
	c = parse_file("runc-spec.json", &err);
	CHECK(c != NULL);
	oci_config_free(c);
	c = parse_file("runc-spec-rootless.json", &err);
	CHECK(c != NULL);
	oci_config_free(c);
}

/* ---- client-shaped configs ---- */

TEST(podman_config)
{
	struct clasp_error err;
	struct oci_config *c = parse_file("podman.json", &err);
	const struct oci_seccomp *s;

	CHECK(c != NULL);
	if (!c) {
		fprintf(stderr, "  %s\n", err.msg);
		return;
	}
	CHECK(c->n_mounts == 12);
	CHECK_STREQ(c->mounts[11].source, "/home/user/project");
	CHECK(c->process->user.umask.set && c->process->user.umask.v == 18);
	CHECK(c->process->user.n_additional_gids == 11);
	CHECK(c->process->capabilities.bounding.n == 11);
	CHECK(c->process->capabilities.ambient.v == NULL);
	CHECK(c->process->n_rlimits == 2 && c->process->rlimits[1].resource == RLIMIT_NPROC);
	CHECK(c->process->rlimits[1].hard == 4194304);
	CHECK(c->process->oom_score_adj.set && c->process->oom_score_adj.v == 0);
	CHECK(c->hooks[OCI_HOOK_CREATE_RUNTIME].n == 1);
	CHECK(c->hooks[OCI_HOOK_CREATE_RUNTIME].v[0].timeout.v == 10);
	CHECK(c->annotations.n == 8);
	CHECK_STREQ(oci_config_annotation(c, "io.container.manager"), "libpod");
	CHECK_STREQ(oci_config_annotation(c, "empty.value"), "");
	CHECK_STREQ(c->linux_.cgroups_path, "machine.slice:libpod:4f1c2b7a9e3d");
	CHECK_STREQ(oci_config_namespace(c, OCI_NS_NETWORK)->path,
		    "/run/netns/netns-0b2c6e0e-2c54-6c7c-7f2c-1d2e3f4a5b6c");
	CHECK(oci_config_namespace(c, OCI_NS_PID)->path == NULL);
	CHECK(c->linux_.resources.memory.limit.v == 536870912);
	s = c->linux_.seccomp;
	CHECK(s && s->default_action == OCI_SCMP_ERRNO && s->default_errno_ret.v == 38);
	CHECK(s && s->n_syscalls == 7);
	if (s && s->n_syscalls == 7) {
		CHECK(s->syscalls[0].errno_ret.set && s->syscalls[0].errno_ret.v == 1);
		CHECK(s->syscalls[1].names.n == 33 && !s->syscalls[1].errno_ret.set);
		CHECK(s->syscalls[3].args[0].value == 4294967295ULL);
		CHECK(s->syscalls[4].args[0].op == OCI_SCMP_CMP_MASKED_EQ);
		CHECK(s->syscalls[4].args[0].value == 2114060288);
		CHECK(s->syscalls[5].n_args == 2 && s->syscalls[5].args[1].index == 2);
		CHECK(s->syscalls[6].args[0].op == OCI_SCMP_CMP_NE);
	}
	CHECK(c->linux_.masked_paths.n == 11);
	oci_config_free(c);
}

TEST(containerd_config)
{
	struct clasp_error err;
	struct oci_config *c = parse_file("containerd.json", &err);

	CHECK(c != NULL);
	if (!c) {
		fprintf(stderr, "  %s\n", err.msg);
		return;
	}
	CHECK(c->process->user.uid == 65532 && c->process->oom_score_adj.v == -998);
	CHECK(c->mounts[7].n_uid_mappings == 1 && c->mounts[7].gid_mappings[0].host_id == 100000);
	CHECK(c->hooks[OCI_HOOK_POSTSTOP].n == 1);
	CHECK(c->linux_.resources.pids_limit.v == -1);
	CHECK(c->linux_.resources.n_devices == 3 && !c->linux_.resources.devices[2].minor.set);
	CHECK(c->linux_.resources.unified.n == 2);
	CHECK_STREQ(c->linux_.resources.unified.v[1].value, "max");
	CHECK(c->linux_.rootfs_propagation == OCI_PROP_SLAVE);
	CHECK(c->linux_.seccomp->flags.n == 1 && c->linux_.seccomp->syscalls[3].action == OCI_SCMP_LOG);
	CHECK(oci_config_namespace(c, OCI_NS_USER) && c->linux_.n_gid_mappings == 1);
	oci_config_free(c);
}

/* ---- every rejection, with its exact text ---- */

#define BASE "\"ociVersion\":\"1.0.0\",\"root\":{\"path\":\"rootfs\"}"
#define DOC(x) "{" BASE "," x "}"
#define PROC(x) DOC("\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\"" x "}")
#define LNX(x) DOC("\"linux\":{" x "}")
#define RES(x) LNX("\"resources\":{" x "}")
#define SCMP(x) LNX("\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ALLOW\"" x "}")
#define SYSCALL(x) SCMP(",\"syscalls\":[{\"names\":[\"read\"],\"action\":\"SCMP_ACT_ALLOW\"" x "}]")
#define E "config.json: "

static const struct {
	const char *json, *error;
} invalid[] = {
	/* top level */
	{"[]", E ".: expected an object"},
	{"{}", E ".ociVersion: required field missing"},
	{"{\"ociVersion\":null}", E ".ociVersion: required field missing"},
	{"{\"ociVersion\":1}", E ".ociVersion: expected a string"},
	{"{\"ociVersion\":\"1.0\"}", E ".ociVersion: \"1.0\" is not a SemVer version (MAJOR.MINOR.PATCH)"},
	{"{\"ociVersion\":\"01.0.0\"}", E ".ociVersion: \"01.0.0\" is not a SemVer version (MAJOR.MINOR.PATCH)"},
	{"{\"ociVersion\":\"1.0.0-\"}", E ".ociVersion: \"1.0.0-\" is not a SemVer version (MAJOR.MINOR.PATCH)"},
	{"{\"ociVersion\":\"1.0.0 \"}", E ".ociVersion: \"1.0.0 \" is not a SemVer version (MAJOR.MINOR.PATCH)"},
	{"{\"ociVersion\":\"1.0.0\"}", E ".root: required field missing"},
	{"{\"ociVersion\":\"1.0.0\",\"root\":\"rootfs\"}", E ".root: expected an object"},
	{"{\"ociVersion\":\"1.0.0\",\"root\":{}}", E ".root.path: required field missing"},
	{"{\"ociVersion\":\"1.0.0\",\"root\":{\"path\":\"\"}}", E ".root.path: must not be empty"},
	{"{\"ociVersion\":\"1.0.0\",\"root\":{\"path\":\"r\",\"readonly\":\"yes\"}}",
	 E ".root.readonly: expected a boolean"},
	{DOC("\"hostname\":1"), E ".hostname: expected a string"},
	{DOC("\"domainname\":[]"), E ".domainname: expected a string"},
	{DOC("\"linux\":[]"), E ".linux: expected an object"},
	{DOC("\"process\":true"), E ".process: expected an object"},
	{DOC("\"root\":{\"path\":\"a\"}"), E ".: duplicate key \"root\""},
	{DOC("\"annotations\":{\"k\":\"1\",\"x\":{\"a\":1,\"a\":2},\"k\":\"2\"}"),
	 E ".annotations: duplicate key \"k\""},
	/* mounts */
	{DOC("\"mounts\":{}"), E ".mounts: expected an array"},
	{DOC("\"mounts\":[\"/tmp\"]"), E ".mounts[0]: expected an object"},
	{DOC("\"mounts\":[{\"destination\":\"/a\"},{\"type\":\"tmpfs\"}]"),
	 E ".mounts[1].destination: required field missing"},
	{DOC("\"mounts\":[{\"destination\":\"\"}]"), E ".mounts[0].destination: must not be empty"},
	{DOC("\"mounts\":[{\"destination\":\"/a\",\"source\":5}]"), E ".mounts[0].source: expected a string"},
	{DOC("\"mounts\":[{\"destination\":\"/a\",\"type\":false}]"), E ".mounts[0].type: expected a string"},
	{DOC("\"mounts\":[{\"destination\":\"/a\",\"options\":[\"ro\",1]}]"),
	 E ".mounts[0].options[1]: expected a string"},
	{DOC("\"mounts\":[{\"destination\":\"/a\",\"options\":\"ro\"}]"), E ".mounts[0].options: expected an array"},
	{DOC("\"mounts\":[{\"destination\":\"/a\",\"uidMappings\":[]}]"),
	 E ".mounts[0].gidMappings: required when uidMappings is set"},
	{DOC("\"mounts\":[{\"destination\":\"/a\",\"gidMappings\":[]}]"),
	 E ".mounts[0].uidMappings: required when gidMappings is set"},
	{DOC("\"mounts\":[{\"destination\":\"/a\",\"uidMappings\":[{\"containerID\":0,\"hostID\":1,\"size\":-1}],"
	     "\"gidMappings\":[]}]"),
	 E ".mounts[0].uidMappings[0].size: expected a non-negative integer"},
	{DOC("\"mounts\":[{\"destination\":\"/a\",\"uidMappings\":[],\"gidMappings\":[{\"containerID\":0,"
	     "\"hostID\":4294967296,\"size\":1}]}]"),
	 E ".mounts[0].gidMappings[0].hostID: expected an integer between 0 and 4294967295"},
	{DOC("\"mounts\":[{\"destination\":\"/a\",\"uidMappings\":[{\"hostID\":0,\"size\":1}],\"gidMappings\":[]}]"),
	 E ".mounts[0].uidMappings[0].containerID: required field missing"},
	{DOC("\"mounts\":[{\"destination\":\"/a\",\"uidMappings\":[5],\"gidMappings\":[]}]"),
	 E ".mounts[0].uidMappings[0]: expected an object"},
	/* process */
	{DOC("\"process\":{\"cwd\":\"/\"}"), E ".process.args: required field missing"},
	{DOC("\"process\":{\"cwd\":\"/\",\"args\":[]}"), E ".process.args: must contain at least one entry"},
	{DOC("\"process\":{\"cwd\":\"/\",\"args\":[\"sh\",null]}"), E ".process.args[1]: expected a string"},
	{DOC("\"process\":{\"args\":[\"sh\"]}"), E ".process.cwd: required field missing"},
	{DOC("\"process\":{\"args\":[\"sh\"],\"cwd\":\"tmp\"}"), E ".process.cwd: \"tmp\" is not an absolute path"},
	{DOC("\"process\":{\"args\":[\"sh\"],\"cwd\":\"\"}"), E ".process.cwd: \"\" is not an absolute path"},
	{PROC(",\"terminal\":\"true\""), E ".process.terminal: expected a boolean"},
	{PROC(",\"consoleSize\":{\"width\":80}"), E ".process.consoleSize.height: required field missing"},
	{PROC(",\"consoleSize\":{\"height\":25,\"width\":-80}"),
	 E ".process.consoleSize.width: expected a non-negative integer"},
	{PROC(",\"consoleSize\":7"), E ".process.consoleSize: expected an object"},
	{PROC(",\"user\":{\"uid\":-1,\"gid\":0}"), E ".process.user.uid: expected a non-negative integer"},
	{PROC(",\"user\":{\"uid\":\"0\",\"gid\":0}"), E ".process.user.uid: expected a non-negative integer"},
	{PROC(",\"user\":{\"uid\":1.5,\"gid\":0}"), E ".process.user.uid: expected a non-negative integer"},
	{PROC(",\"user\":{\"uid\":1e3,\"gid\":0}"), E ".process.user.uid: expected a non-negative integer"},
	{PROC(",\"user\":{\"uid\":0,\"gid\":4294967296}"),
	 E ".process.user.gid: expected an integer between 0 and 4294967295"},
	{PROC(",\"user\":{\"uid\":99999999999999999999999,\"gid\":0}"),
	 E ".process.user.uid: expected an integer between 0 and 4294967295"},
	{PROC(",\"user\":{\"gid\":0}"), E ".process.user.uid: required field missing"},
	{PROC(",\"user\":{\"uid\":0}"), E ".process.user.gid: required field missing"},
	{PROC(",\"user\":{\"uid\":0,\"gid\":0,\"umask\":-1}"), E ".process.user.umask: expected a non-negative integer"},
	{PROC(",\"user\":{\"uid\":0,\"gid\":0,\"additionalGids\":[1,\"x\"]}"),
	 E ".process.user.additionalGids[1]: expected a non-negative integer"},
	{PROC(",\"user\":{\"uid\":0,\"gid\":0,\"additionalGids\":5}"),
	 E ".process.user.additionalGids: expected an array"},
	{PROC(",\"user\":[]"), E ".process.user: expected an object"},
	{PROC(",\"env\":[\"A=1\",2]"), E ".process.env[1]: expected a string"},
	{PROC(",\"capabilities\":{\"bounding\":\"CAP_KILL\"}"), E ".process.capabilities.bounding: expected an array"},
	{PROC(",\"capabilities\":{\"ambient\":[1]}"), E ".process.capabilities.ambient[0]: expected a string"},
	{PROC(",\"capabilities\":[]"), E ".process.capabilities: expected an object"},
	{PROC(",\"rlimits\":{}"), E ".process.rlimits: expected an array"},
	{PROC(",\"rlimits\":[{\"type\":\"RLIMIT_FOO\",\"soft\":1,\"hard\":1}]"),
	 E ".process.rlimits[0].type: unknown rlimit \"RLIMIT_FOO\""},
	{PROC(",\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"soft\":1,\"hard\":1},"
	      "{\"type\":\"RLIMIT_NOFILE\",\"soft\":2,\"hard\":2}]"),
	 E ".process.rlimits[1].type: duplicate rlimit \"RLIMIT_NOFILE\""},
	{PROC(",\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"soft\":10,\"hard\":5}]"),
	 E ".process.rlimits[0].soft: soft limit 10 exceeds hard limit 5"},
	{PROC(",\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"soft\":10}]"), E ".process.rlimits[0].hard: required field missing"},
	{PROC(",\"rlimits\":[{\"soft\":1,\"hard\":1}]"), E ".process.rlimits[0].type: required field missing"},
	{PROC(",\"rlimits\":[{\"type\":\"RLIMIT_CORE\",\"soft\":18446744073709551616,\"hard\":1}]"),
	 E ".process.rlimits[0].soft: expected an integer between 0 and 18446744073709551615"},
	{PROC(",\"rlimits\":[{\"type\":\"RLIMIT_CORE\",\"soft\":-1,\"hard\":1}]"),
	 E ".process.rlimits[0].soft: expected a non-negative integer"},
	{PROC(",\"rlimits\":[7]"), E ".process.rlimits[0]: expected an object"},
	{PROC(",\"noNewPrivileges\":1"), E ".process.noNewPrivileges: expected a boolean"},
	{PROC(",\"oomScoreAdj\":1001"), E ".process.oomScoreAdj: expected an integer between -1000 and 1000"},
	{PROC(",\"oomScoreAdj\":\"5\""), E ".process.oomScoreAdj: expected an integer between -1000 and 1000"},
	{PROC(",\"apparmorProfile\":5"), E ".process.apparmorProfile: expected a string"},
	{PROC(",\"selinuxLabel\":{}"), E ".process.selinuxLabel: expected a string"},
	{PROC(",\"scheduler\":{}"), E ".process.scheduler.policy: required field missing"},
	{PROC(",\"scheduler\":{\"policy\":\"SCHED_FOO\"}"),
	 E ".process.scheduler.policy: unknown scheduler policy \"SCHED_FOO\""},
	{PROC(",\"scheduler\":{\"policy\":\"SCHED_RR\",\"nice\":2147483648}"),
	 E ".process.scheduler.nice: expected an integer between -2147483648 and 2147483647"},
	{PROC(",\"scheduler\":{\"policy\":\"SCHED_RR\",\"priority\":-2147483649}"),
	 E ".process.scheduler.priority: expected an integer between -2147483648 and 2147483647"},
	{PROC(",\"scheduler\":{\"policy\":\"SCHED_RR\",\"flags\":[\"SCHED_FLAG_RECLAIM\",\"SCHED_FLAG_X\"]}"),
	 E ".process.scheduler.flags[1]: unknown scheduler flag \"SCHED_FLAG_X\""},
	{PROC(",\"scheduler\":{\"policy\":\"SCHED_DEADLINE\",\"runtime\":-1}"),
	 E ".process.scheduler.runtime: expected a non-negative integer"},
	{PROC(",\"scheduler\":{\"policy\":\"SCHED_DEADLINE\",\"deadline\":\"1\"}"),
	 E ".process.scheduler.deadline: expected a non-negative integer"},
	{PROC(",\"scheduler\":{\"policy\":\"SCHED_DEADLINE\",\"period\":true}"),
	 E ".process.scheduler.period: expected a non-negative integer"},
	{PROC(",\"ioPriority\":{\"priority\":1}"), E ".process.ioPriority.class: required field missing"},
	{PROC(",\"ioPriority\":{\"class\":\"IOPRIO_CLASS_NONE\",\"priority\":1}"),
	 E ".process.ioPriority.class: unknown I/O priority class \"IOPRIO_CLASS_NONE\""},
	{PROC(",\"ioPriority\":{\"class\":\"IOPRIO_CLASS_BE\",\"priority\":8}"),
	 E ".process.ioPriority.priority: expected an integer between 0 and 7"},
	{PROC(",\"ioPriority\":{\"class\":\"IOPRIO_CLASS_BE\"}"), E ".process.ioPriority.priority: required field missing"},
	{PROC(",\"execCPUAffinity\":{\"initial\":\"a-b\"}"),
	 E ".process.execCPUAffinity.initial: invalid CPU list \"a-b\""},
	{PROC(",\"execCPUAffinity\":{\"final\":7}"), E ".process.execCPUAffinity.final: expected a string"},
	/* hooks */
	{DOC("\"hooks\":[]"), E ".hooks: expected an object"},
	{DOC("\"hooks\":{\"prestart\":{}}"), E ".hooks.prestart: expected an array"},
	{DOC("\"hooks\":{\"poststop\":[{\"path\":\"/a\"},{}]}"), E ".hooks.poststop[1].path: required field missing"},
	{DOC("\"hooks\":{\"createRuntime\":[{\"path\":\"hook\"}]}"),
	 E ".hooks.createRuntime[0].path: \"hook\" is not an absolute path"},
	{DOC("\"hooks\":{\"poststart\":[{\"path\":\"/a\",\"timeout\":0}]}"),
	 E ".hooks.poststart[0].timeout: expected a positive integer"},
	{DOC("\"hooks\":{\"poststart\":[{\"path\":\"/a\",\"timeout\":-3}]}"),
	 E ".hooks.poststart[0].timeout: expected a positive integer"},
	{DOC("\"hooks\":{\"startContainer\":[{\"path\":\"/a\",\"timeout\":\"5\"}]}"),
	 E ".hooks.startContainer[0].timeout: expected a positive integer"},
	{DOC("\"hooks\":{\"createContainer\":[{\"path\":\"/a\",\"args\":\"a\"}]}"),
	 E ".hooks.createContainer[0].args: expected an array"},
	{DOC("\"hooks\":{\"createContainer\":[{\"path\":\"/a\",\"env\":[1]}]}"),
	 E ".hooks.createContainer[0].env[0]: expected a string"},
	{DOC("\"hooks\":{\"prestart\":[\"/bin/true\"]}"), E ".hooks.prestart[0]: expected an object"},
	/* annotations */
	{DOC("\"annotations\":[]"), E ".annotations: expected an object"},
	{DOC("\"annotations\":{\"com.example.x\":1}"), E ".annotations[\"com.example.x\"]: expected a string"},
	{DOC("\"annotations\":{\"a\\\"b\":true}"), E ".annotations[\"a\\\"b\"]: expected a string"},
	{DOC("\"annotations\":{\"\":\"v\"}"), E ".annotations: empty key"},
	{DOC("\"annotations\":{\"plain_key\":null}"), E ".annotations.plain_key: expected a string"},
	/* linux: namespaces, mappings, time, devices */
	{LNX("\"namespaces\":{}"), E ".linux.namespaces: expected an array"},
	{LNX("\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"mount\"},{\"type\":\"nett\"}]"),
	 E ".linux.namespaces[2].type: unknown namespace \"nett\""},
	{LNX("\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"pid\",\"path\":\"/proc/1/ns/pid\"}]"),
	 E ".linux.namespaces[1].type: duplicate namespace \"pid\""},
	{LNX("\"namespaces\":[{\"path\":\"/x\"}]"), E ".linux.namespaces[0].type: required field missing"},
	{LNX("\"namespaces\":[{\"type\":\"network\",\"path\":\"run/netns/x\"}]"),
	 E ".linux.namespaces[0].path: \"run/netns/x\" is not an absolute path"},
	{LNX("\"namespaces\":[{\"type\":\"network\",\"path\":1}]"), E ".linux.namespaces[0].path: expected a string"},
	{LNX("\"namespaces\":[\"pid\"]"), E ".linux.namespaces[0]: expected an object"},
	{LNX("\"uidMappings\":{}"), E ".linux.uidMappings: expected an array"},
	{LNX("\"gidMappings\":[{\"containerID\":0,\"size\":1}]"), E ".linux.gidMappings[0].hostID: required field missing"},
	{LNX("\"timeOffsets\":{\"realtime\":{\"secs\":1}}"),
	 E ".linux.timeOffsets.realtime: unknown clock \"realtime\" (expected \"monotonic\" or \"boottime\")"},
	{LNX("\"timeOffsets\":{\"monotonic\":{\"nanosecs\":1000000000}}"),
	 E ".linux.timeOffsets.monotonic.nanosecs: expected an integer between 0 and 999999999"},
	{LNX("\"timeOffsets\":{\"boottime\":{\"secs\":\"1\"}}"), E ".linux.timeOffsets.boottime.secs: expected an integer"},
	{LNX("\"timeOffsets\":{\"boottime\":5}"), E ".linux.timeOffsets.boottime: expected an object"},
	{LNX("\"timeOffsets\":[]"), E ".linux.timeOffsets: expected an object"},
	{LNX("\"devices\":[{\"type\":\"x\",\"path\":\"/dev/x\",\"major\":1,\"minor\":1}]"),
	 E ".linux.devices[0].type: unknown device type \"x\" (expected c, b, u or p)"},
	{LNX("\"devices\":[{\"type\":\"cc\",\"path\":\"/dev/x\",\"major\":1,\"minor\":1}]"),
	 E ".linux.devices[0].type: unknown device type \"cc\" (expected c, b, u or p)"},
	{LNX("\"devices\":[{\"type\":\"\",\"path\":\"/dev/x\"}]"),
	 E ".linux.devices[0].type: unknown device type \"\" (expected c, b, u or p)"},
	{LNX("\"devices\":[{\"path\":\"/dev/x\"}]"), E ".linux.devices[0].type: required field missing"},
	{LNX("\"devices\":[{\"type\":\"c\",\"major\":1,\"minor\":1}]"), E ".linux.devices[0].path: required field missing"},
	{LNX("\"devices\":[{\"type\":\"c\",\"path\":\"dev/x\",\"major\":1,\"minor\":1}]"),
	 E ".linux.devices[0].path: \"dev/x\" is not an absolute path"},
	{LNX("\"devices\":[{\"type\":\"c\",\"path\":\"/dev/x\",\"minor\":1}]"),
	 E ".linux.devices[0].major: required field missing"},
	{LNX("\"devices\":[{\"type\":\"b\",\"path\":\"/dev/x\",\"major\":1}]"),
	 E ".linux.devices[0].minor: required field missing"},
	{LNX("\"devices\":[{\"type\":\"c\",\"path\":\"/dev/x\",\"major\":\"1\",\"minor\":1}]"),
	 E ".linux.devices[0].major: expected an integer"},
	{LNX("\"devices\":[{\"type\":\"p\",\"path\":\"/dev/x\",\"fileMode\":-1}]"),
	 E ".linux.devices[0].fileMode: expected a non-negative integer"},
	{LNX("\"devices\":[{\"type\":\"p\",\"path\":\"/dev/x\",\"uid\":4294967296}]"),
	 E ".linux.devices[0].uid: expected an integer between 0 and 4294967295"},
	{LNX("\"devices\":[{\"type\":\"p\",\"path\":\"/dev/x\",\"gid\":-2}]"),
	 E ".linux.devices[0].gid: expected a non-negative integer"},
	{LNX("\"netDevices\":[]"), E ".linux.netDevices: expected an object"},
	{LNX("\"netDevices\":{\"eth0\":\"x\"}"), E ".linux.netDevices.eth0: expected an object"},
	{LNX("\"netDevices\":{\"\":{}}"), E ".linux.netDevices: empty key"},
	{LNX("\"cgroupsPath\":1"), E ".linux.cgroupsPath: expected a string"},
	{LNX("\"sysctl\":{\"net.ipv4.ip_forward\":1}"), E ".linux.sysctl[\"net.ipv4.ip_forward\"]: expected a string"},
	{LNX("\"sysctl\":[]"), E ".linux.sysctl: expected an object"},
	{LNX("\"rootfsPropagation\":\"bogus\""), E ".linux.rootfsPropagation: unknown propagation \"bogus\""},
	{LNX("\"rootfsPropagation\":1"), E ".linux.rootfsPropagation: expected a string"},
	{LNX("\"maskedPaths\":[\"/proc/kcore\",\"proc/keys\"]"), E ".linux.maskedPaths[1]: \"proc/keys\" is not an absolute path"},
	{LNX("\"readonlyPaths\":[\"\"]"), E ".linux.readonlyPaths[0]: \"\" is not an absolute path"},
	{LNX("\"readonlyPaths\":[1]"), E ".linux.readonlyPaths[0]: expected a string"},
	{LNX("\"mountLabel\":1"), E ".linux.mountLabel: expected a string"},
	{LNX("\"personality\":{}"), E ".linux.personality.domain: required field missing"},
	{LNX("\"personality\":{\"domain\":\"LINUX64\"}"), E ".linux.personality.domain: unknown personality domain \"LINUX64\""},
	{LNX("\"personality\":{\"domain\":\"LINUX\",\"flags\":[\"SHORT_INODE\"]}"),
	 E ".linux.personality.flags[0]: unknown personality flag \"SHORT_INODE\""},
	{LNX("\"memoryPolicy\":{}"), E ".linux.memoryPolicy.mode: required field missing"},
	{LNX("\"memoryPolicy\":{\"mode\":\"MPOL_X\"}"), E ".linux.memoryPolicy.mode: unknown memory policy mode \"MPOL_X\""},
	{LNX("\"memoryPolicy\":{\"mode\":\"MPOL_BIND\",\"nodes\":\"0-1\",\"flags\":[\"MPOL_F_STATIC_NODES\",\"X\"]}"),
	 E ".linux.memoryPolicy.flags[1]: unknown memory policy flag \"X\""},
	{LNX("\"memoryPolicy\":{\"mode\":\"MPOL_BIND\",\"nodes\":\"zero\"}"),
	 E ".linux.memoryPolicy.nodes: invalid node list \"zero\""},
	{LNX("\"intelRdt\":{\"memBwSchema\":\"L3:0=f\"}"),
	 E ".linux.intelRdt.memBwSchema: must start with \"MB:\" and contain no newline"},
	{LNX("\"intelRdt\":{\"memBwSchema\":\"MB:0=20\\nL3:0=1\"}"),
	 E ".linux.intelRdt.memBwSchema: must start with \"MB:\" and contain no newline"},
	{LNX("\"intelRdt\":{\"schemata\":[\"L3:0=7f0\",\"MB:0=20\\nL2:0=1\"]}"),
	 E ".linux.intelRdt.schemata[1]: must not contain a newline"},
	{LNX("\"intelRdt\":{\"closID\":\"../../x\"}"), E ".linux.intelRdt.closID: invalid CLOS ID \"../../x\""},
	{LNX("\"intelRdt\":{\"closID\":\"..\"}"), E ".linux.intelRdt.closID: invalid CLOS ID \"..\""},
	{LNX("\"intelRdt\":{\"enableMonitoring\":\"yes\"}"), E ".linux.intelRdt.enableMonitoring: expected a boolean"},
	/* linux.resources */
	{LNX("\"resources\":[]"), E ".linux.resources: expected an object"},
	{RES("\"devices\":[{\"access\":\"rwm\"}]"), E ".linux.resources.devices[0].allow: required field missing"},
	{RES("\"devices\":[{\"allow\":\"true\"}]"), E ".linux.resources.devices[0].allow: expected a boolean"},
	{RES("\"devices\":[{\"allow\":true,\"type\":\"u\"}]"),
	 E ".linux.resources.devices[0].type: unknown device type \"u\" (expected a, c or b)"},
	{RES("\"devices\":[{\"allow\":true,\"access\":\"rwx\"}]"),
	 E ".linux.resources.devices[0].access: invalid access \"rwx\" (expected a combination of r, w and m)"},
	{RES("\"devices\":[{\"allow\":true,\"major\":\"1\"}]"), E ".linux.resources.devices[0].major: expected an integer"},
	{RES("\"devices\":[{\"allow\":true,\"minor\":1.5}]"), E ".linux.resources.devices[0].minor: expected an integer"},
	{RES("\"memory\":{\"limit\":\"1G\"}"), E ".linux.resources.memory.limit: expected an integer"},
	{RES("\"memory\":{\"limit\":9223372036854775808}"), E ".linux.resources.memory.limit: expected an integer"},
	{RES("\"memory\":{\"swappiness\":-1}"), E ".linux.resources.memory.swappiness: expected a non-negative integer"},
	{RES("\"memory\":{\"disableOOMKiller\":\"no\"}"), E ".linux.resources.memory.disableOOMKiller: expected a boolean"},
	{RES("\"memory\":{\"checkBeforeUpdate\":0}"), E ".linux.resources.memory.checkBeforeUpdate: expected a boolean"},
	{RES("\"cpu\":{\"shares\":-1}"), E ".linux.resources.cpu.shares: expected a non-negative integer"},
	{RES("\"cpu\":{\"quota\":1.5}"), E ".linux.resources.cpu.quota: expected an integer"},
	{RES("\"cpu\":{\"cpus\":\"a\"}"), E ".linux.resources.cpu.cpus: invalid CPU list \"a\""},
	{RES("\"cpu\":{\"mems\":\"0;1\"}"), E ".linux.resources.cpu.mems: invalid memory node list \"0;1\""},
	{RES("\"cpu\":{\"idle\":true}"), E ".linux.resources.cpu.idle: expected an integer"},
	{RES("\"pids\":{}"), E ".linux.resources.pids.limit: required field missing"},
	{RES("\"pids\":{\"limit\":\"max\"}"), E ".linux.resources.pids.limit: expected an integer"},
	{RES("\"pids\":5"), E ".linux.resources.pids: expected an object"},
	{RES("\"blockIO\":{\"weight\":65536}"), E ".linux.resources.blockIO.weight: expected an integer between 0 and 65535"},
	{RES("\"blockIO\":{\"weightDevice\":[{\"major\":8,\"minor\":0}]}"),
	 E ".linux.resources.blockIO.weightDevice[0]: at least one of weight and leafWeight is required"},
	{RES("\"blockIO\":{\"weightDevice\":[{\"minor\":0,\"weight\":1}]}"),
	 E ".linux.resources.blockIO.weightDevice[0].major: required field missing"},
	{RES("\"blockIO\":{\"throttleReadBpsDevice\":[{\"major\":8,\"minor\":0}]}"),
	 E ".linux.resources.blockIO.throttleReadBpsDevice[0].rate: required field missing"},
	{RES("\"blockIO\":{\"throttleWriteIOPSDevice\":[{\"major\":8,\"minor\":0,\"rate\":-1}]}"),
	 E ".linux.resources.blockIO.throttleWriteIOPSDevice[0].rate: expected a non-negative integer"},
	{RES("\"hugepageLimits\":[{\"pageSize\":\"0MB\",\"limit\":1}]"),
	 E ".linux.resources.hugepageLimits[0].pageSize: invalid page size \"0MB\" (expected <size>KB, MB or GB, e.g. \"2MB\")"},
	{RES("\"hugepageLimits\":[{\"pageSize\":\"2M\",\"limit\":1}]"),
	 E ".linux.resources.hugepageLimits[0].pageSize: invalid page size \"2M\" (expected <size>KB, MB or GB, e.g. \"2MB\")"},
	{RES("\"hugepageLimits\":[{\"pageSize\":\"2MBB\",\"limit\":1}]"),
	 E ".linux.resources.hugepageLimits[0].pageSize: invalid page size \"2MBB\" (expected <size>KB, MB or GB, e.g. \"2MB\")"},
	{RES("\"hugepageLimits\":[{\"pageSize\":\"2MB\"}]"), E ".linux.resources.hugepageLimits[0].limit: required field missing"},
	{RES("\"network\":{\"classID\":4294967296}"),
	 E ".linux.resources.network.classID: expected an integer between 0 and 4294967295"},
	{RES("\"network\":{\"priorities\":[{\"priority\":1}]}"),
	 E ".linux.resources.network.priorities[0].name: required field missing"},
	{RES("\"network\":{\"priorities\":[{\"name\":\"eth0\",\"priority\":-1}]}"),
	 E ".linux.resources.network.priorities[0].priority: expected a non-negative integer"},
	{RES("\"rdma\":{\"mlx5_1\":{}}"),
	 E ".linux.resources.rdma.mlx5_1: at least one of hcaHandles and hcaObjects is required"},
	{RES("\"rdma\":{\"mlx5_1\":{\"hcaObjects\":4294967296}}"),
	 E ".linux.resources.rdma.mlx5_1.hcaObjects: expected an integer between 0 and 4294967295"},
	{RES("\"rdma\":[]"), E ".linux.resources.rdma: expected an object"},
	{RES("\"unified\":{\"memory.max\":1024}"), E ".linux.resources.unified[\"memory.max\"]: expected a string"},
	/* linux.seccomp */
	{LNX("\"seccomp\":{}"), E ".linux.seccomp.defaultAction: required field missing"},
	{LNX("\"seccomp\":\"unconfined\""), E ".linux.seccomp: expected an object"},
	{LNX("\"seccomp\":{\"defaultAction\":\"SCMP_ACT_FOO\"}"),
	 E ".linux.seccomp.defaultAction: unknown seccomp action \"SCMP_ACT_FOO\""},
	{SCMP(",\"defaultErrnoRet\":1"),
	 E ".linux.seccomp.defaultErrnoRet: only valid with SCMP_ACT_ERRNO or SCMP_ACT_TRACE, not SCMP_ACT_ALLOW"},
	{LNX("\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"defaultErrnoRet\":-1}"),
	 E ".linux.seccomp.defaultErrnoRet: expected a non-negative integer"},
	{SCMP(",\"architectures\":[\"SCMP_ARCH_X86_64\",1]"), E ".linux.seccomp.architectures[1]: expected a string"},
	{SCMP(",\"flags\":\"SECCOMP_FILTER_FLAG_LOG\""), E ".linux.seccomp.flags: expected an array"},
	{SCMP(",\"listenerMetadata\":\"x\""), E ".linux.seccomp.listenerMetadata: must not be set without listenerPath"},
	{SCMP(",\"listenerPath\":1"), E ".linux.seccomp.listenerPath: expected a string"},
	{SCMP(",\"syscalls\":{}"), E ".linux.seccomp.syscalls: expected an array"},
	{SCMP(",\"syscalls\":[{\"action\":\"SCMP_ACT_ALLOW\"}]"), E ".linux.seccomp.syscalls[0].names: required field missing"},
	{SCMP(",\"syscalls\":[{\"names\":[],\"action\":\"SCMP_ACT_ALLOW\"}]"),
	 E ".linux.seccomp.syscalls[0].names: must contain at least one entry"},
	{SCMP(",\"syscalls\":[{\"names\":[\"read\"]}]"), E ".linux.seccomp.syscalls[0].action: required field missing"},
	{SCMP(",\"syscalls\":[{\"names\":[\"read\"],\"action\":\"SCMP_ACT_DENY\"}]"),
	 E ".linux.seccomp.syscalls[0].action: unknown seccomp action \"SCMP_ACT_DENY\""},
	{SYSCALL(",\"errnoRet\":1"),
	 E ".linux.seccomp.syscalls[0].errnoRet: only valid with SCMP_ACT_ERRNO or SCMP_ACT_TRACE, not SCMP_ACT_ALLOW"},
	{SYSCALL(",\"args\":[{\"index\":6,\"value\":0,\"op\":\"SCMP_CMP_EQ\"}]"),
	 E ".linux.seccomp.syscalls[0].args[0].index: expected an integer between 0 and 5"},
	{SYSCALL(",\"args\":[{\"index\":0,\"value\":0,\"op\":\"SCMP_CMP_EQ\"},{\"index\":1,\"value\":0,\"op\":\"SCMP_CMP_XX\"}]"),
	 E ".linux.seccomp.syscalls[0].args[1].op: unknown seccomp operator \"SCMP_CMP_XX\""},
	{SYSCALL(",\"args\":[{\"index\":0,\"op\":\"SCMP_CMP_EQ\"}]"),
	 E ".linux.seccomp.syscalls[0].args[0].value: required field missing"},
	{SYSCALL(",\"args\":[{\"index\":0,\"value\":0}]"), E ".linux.seccomp.syscalls[0].args[0].op: required field missing"},
	{SYSCALL(",\"args\":[{\"value\":0,\"op\":\"SCMP_CMP_EQ\"}]"),
	 E ".linux.seccomp.syscalls[0].args[0].index: required field missing"},
	{SYSCALL(",\"args\":[{\"index\":0,\"value\":0,\"valueTwo\":-1,\"op\":\"SCMP_CMP_EQ\"}]"),
	 E ".linux.seccomp.syscalls[0].args[0].valueTwo: expected a non-negative integer"},
	{SYSCALL(",\"args\":{}"), E ".linux.seccomp.syscalls[0].args: expected an array"},
	/* wrong container types for every section */
	{"{\"ociVersion\":\"v1.0.0\"}", E ".ociVersion: \"v1.0.0\" is not a SemVer version (MAJOR.MINOR.PATCH)"},
	{LNX("\"devices\":{}"), E ".linux.devices: expected an array"},
	{LNX("\"devices\":[[]]"), E ".linux.devices[0]: expected an object"},
	{LNX("\"memoryPolicy\":[]"), E ".linux.memoryPolicy: expected an object"},
	{LNX("\"intelRdt\":[]"), E ".linux.intelRdt: expected an object"},
	{LNX("\"personality\":\"LINUX\""), E ".linux.personality: expected an object"},
	{LNX("\"personality\":{\"domain\":\"LINUX\",\"flags\":\"x\"}"), E ".linux.personality.flags: expected an array"},
	{PROC(",\"scheduler\":\"SCHED_RR\""), E ".process.scheduler: expected an object"},
	{PROC(",\"ioPriority\":3"), E ".process.ioPriority: expected an object"},
	{PROC(",\"execCPUAffinity\":\"0-3\""), E ".process.execCPUAffinity: expected an object"},
	{RES("\"devices\":{}"), E ".linux.resources.devices: expected an array"},
	{RES("\"devices\":[true]"), E ".linux.resources.devices[0]: expected an object"},
	{RES("\"memory\":1"), E ".linux.resources.memory: expected an object"},
	{RES("\"cpu\":[]"), E ".linux.resources.cpu: expected an object"},
	{RES("\"blockIO\":[]"), E ".linux.resources.blockIO: expected an object"},
	{RES("\"blockIO\":{\"weightDevice\":{}}"), E ".linux.resources.blockIO.weightDevice: expected an array"},
	{RES("\"blockIO\":{\"weightDevice\":[1]}"), E ".linux.resources.blockIO.weightDevice[0]: expected an object"},
	{RES("\"blockIO\":{\"throttleReadIOPSDevice\":{}}"), E ".linux.resources.blockIO.throttleReadIOPSDevice: expected an array"},
	{RES("\"blockIO\":{\"throttleWriteBpsDevice\":[\"8:0 1\"]}"),
	 E ".linux.resources.blockIO.throttleWriteBpsDevice[0]: expected an object"},
	{RES("\"hugepageLimits\":{}"), E ".linux.resources.hugepageLimits: expected an array"},
	{RES("\"hugepageLimits\":[2]"), E ".linux.resources.hugepageLimits[0]: expected an object"},
	{RES("\"hugepageLimits\":[{\"limit\":1}]"), E ".linux.resources.hugepageLimits[0].pageSize: required field missing"},
	{RES("\"network\":[]"), E ".linux.resources.network: expected an object"},
	{RES("\"network\":{\"priorities\":{}}"), E ".linux.resources.network.priorities: expected an array"},
	{RES("\"network\":{\"priorities\":[\"eth0\"]}"), E ".linux.resources.network.priorities[0]: expected an object"},
	{RES("\"rdma\":{\"\":{\"hcaHandles\":1}}"), E ".linux.resources.rdma: empty key"},
	{RES("\"rdma\":{\"mlx\":1}"), E ".linux.resources.rdma.mlx: expected an object"},
	{RES("\"unified\":[]"), E ".linux.resources.unified: expected an object"},
	{SCMP(",\"syscalls\":[\"read\"]"), E ".linux.seccomp.syscalls[0]: expected an object"},
	{SYSCALL(",\"args\":[0]"), E ".linux.seccomp.syscalls[0].args[0]: expected an object"},
	{DOC("\"annotations\":{\"k01\":\"\",\"k02\":\"\",\"k03\":\"\",\"k04\":\"\",\"k05\":\"\",\"k06\":\"\","
	     "\"k07\":\"\",\"k08\":\"\",\"k09\":\"\",\"k10\":\"\",\"k11\":\"\",\"k12\":\"\",\"k13\":\"\",\"k14\":\"\","
	     "\"k15\":\"\",\"k16\":\"\",\"k17\":\"\",\"k05\":\"x\"}"),
	 E ".annotations: duplicate key \"k05\""},
	{LNX("\"timeOffsets\":{\"monotonic\":{},\"monotonic\":{}}"), E ".linux.timeOffsets: duplicate key \"monotonic\""},
	/* names that end up in paths, files or netlink */
	{LNX("\"sysctl\":{\"net.ipv4.ip_forward\":\"1\",\"kernel..x\":\"1\"}"),
	 E ".linux.sysctl[\"kernel..x\"]: invalid sysctl name"},
	{LNX("\"sysctl\":{\"net/../../x\":\"1\"}"), E ".linux.sysctl[\"net/../../x\"]: invalid sysctl name"},
	{LNX("\"sysctl\":{\"/etc/x\":\"1\"}"), E ".linux.sysctl[\"/etc/x\"]: invalid sysctl name"},
	{LNX("\"sysctl\":{\"kernel.\":\"1\"}"), E ".linux.sysctl[\"kernel.\"]: invalid sysctl name"},
	{LNX("\"sysctl\":{\"a b\":\"1\"}"), E ".linux.sysctl[\"a b\"]: invalid sysctl name"},
	{LNX("\"cgroupsPath\":\"/a/../../b\""), E ".linux.cgroupsPath: \"..\" is not allowed in a cgroup path"},
	{LNX("\"cgroupsPath\":\"..\""), E ".linux.cgroupsPath: \"..\" is not allowed in a cgroup path"},
	{LNX("\"cgroupsPath\":\"x/..\""), E ".linux.cgroupsPath: \"..\" is not allowed in a cgroup path"},
	{RES("\"unified\":{\"../cgroup.procs\":\"1\"}"),
	 E ".linux.resources.unified[\"../cgroup.procs\"]: invalid cgroup file name"},
	{RES("\"unified\":{\"..\":\"1\"}"), E ".linux.resources.unified[\"..\"]: invalid cgroup file name"},
	{RES("\"unified\":{\"memory.max\\n\":\"1\"}"),
	 E ".linux.resources.unified[\"memory.max\\x0a\"]: invalid cgroup file name"},
	{RES("\"rdma\":{\"mlx5 hca_handle=1\":{\"hcaHandles\":1}}"),
	 E ".linux.resources.rdma[\"mlx5 hca_handle=1\"]: invalid RDMA device name"},
	{LNX("\"netDevices\":{\"../x\":{}}"), E ".linux.netDevices[\"../x\"]: invalid interface name"},
	{LNX("\"netDevices\":{\"eth0123456789abcd\":{}}"), E ".linux.netDevices.eth0123456789abcd: invalid interface name"},
	{LNX("\"netDevices\":{\"eth0\":{\"name\":\"a b\"}}"),
	 E ".linux.netDevices.eth0.name: invalid interface name \"a b\""},
	{LNX("\"netDevices\":{\"eth0\":{\"name\":\"\"}}"), E ".linux.netDevices.eth0.name: invalid interface name \"\""},
	{PROC(",\"consoleSize\":{\"height\":65536,\"width\":80}"),
	 E ".process.consoleSize.height: expected an integer between 0 and 65535"},
	/* raw input */
	{"{\"ociVersion\":\"1.0.0\",\"root\":{\"path\":\"root\\u0000fs\"}}",
	 E "string contains a NUL character (\\u0000) at offset 42"},
	{"", E "invalid JSON: parse error: premature EOF"},
};

TEST(invalid_table)
{
	struct clasp_error err;
	size_t i;

	for (i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
		struct oci_config *c = parse_str(invalid[i].json, &err);

		if (c || strcmp(err.msg, invalid[i].error) != 0)
			fprintf(stderr, "  case %zu: %s\n", i, invalid[i].json);
		CHECK(c == NULL);
		CHECK_STREQ(err.msg, invalid[i].error);
		CHECK(err.code == 0);
		oci_config_free(c);
	}
}

/* Things that look odd but are valid, and how they come out. */
TEST(accepted_edge_cases)
{
	struct clasp_error err;
	struct oci_config *c;

	/* Relative mount destinations are deprecated but allowed: relative to "/". */
	c = parse_str(DOC("\"mounts\":[{\"destination\":\"tmp\",\"type\":\"tmpfs\",\"options\":[]}]"), &err);
	CHECK(c != NULL);
	if (c) {
		CHECK_STREQ(c->mounts[0].destination, "/tmp");
		CHECK(c->mounts[0].options.v != NULL && c->mounts[0].options.v[0] == NULL);
		CHECK(c->mounts[0].options.n == 0);
		CHECK(c->mounts[0].source == NULL && c->mounts[0].type != NULL);
	}
	oci_config_free(c);
	/* Unknown properties at every level are ignored; null means absent. */
	c = parse_str(DOC("\"future\":{\"x\":[1,2,{\"y\":null}]},\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\","
			  "\"commandLine\":\"x\",\"user\":{\"uid\":0,\"gid\":0,\"newField\":1},"
			  "\"env\":null},\"windows\":{\"layerFolders\":[]},\"linux\":{\"unknown\":5,"
			  "\"resources\":{\"oomScoreAdj\":100,\"blkioWeight\":{}}},\"hostname\":null"),
		      &err);
	CHECK(c != NULL);
	if (c) {
		CHECK(c->process->env.v == NULL && c->hostname == NULL);
		CHECK(c->linux_.resources.present && !c->linux_.resources.memory.present);
	}
	oci_config_free(c);
	/* Names that look unusual but are legitimate. */
	c = parse_str(LNX("\"sysctl\":{\"net.ipv4.conf.eth0/1.forwarding\":\"1\"},\"cgroupsPath\":"
			  "\"system.slice:clasp:a..b\",\"netDevices\":{\"eth0.100\":{\"name\":\"net%d\"}},"
			  "\"resources\":{\"unified\":{\"io.max\":\"8:0 rbps=1\\n8:16 wbps=2\"}}"),
		      &err);
	CHECK(c != NULL);
	if (c) {
		CHECK_STREQ(c->linux_.net_devices.v[0].value, "net%d");
		CHECK_STREQ(c->linux_.resources.unified.v[0].value, "8:0 rbps=1\n8:16 wbps=2");
	}
	oci_config_free(c);
	/* Recursive propagation spellings, as runc accepts them. */
	c = parse_str(LNX("\"rootfsPropagation\":\"rprivate\""), &err);
	CHECK(c && c->linux_.rootfs_propagation == OCI_PROP_PRIVATE);
	oci_config_free(c);
	c = parse_str(LNX("\"rootfsPropagation\":\"runbindable\""), &err);
	CHECK(c && c->linux_.rootfs_propagation == OCI_PROP_UNBINDABLE);
	oci_config_free(c);
	c = parse_str(LNX("\"rootfsPropagation\":\"shared\""), &err);
	CHECK(c && c->linux_.rootfs_propagation == OCI_PROP_SHARED);
	oci_config_free(c);
	c = parse_str(LNX("\"namespaces\":[]"), &err);
	CHECK(c && c->linux_.rootfs_propagation == OCI_PROP_UNSET && c->linux_.n_namespaces == 0);
	oci_config_free(c);
	/* SemVer variants; an escaped backslash before u0000 is not a NUL. */
	c = parse_str("{\"ociVersion\":\"1.2.3-rc.1+build.5\",\"root\":{\"path\":\"a\\\\u0000\"}}", &err);
	CHECK(c != NULL);
	if (c)
		CHECK_STREQ(c->root_path, "a\\u0000");
	oci_config_free(c);
	/* Integer edges. */
	c = parse_str(PROC(",\"user\":{\"uid\":4294967295,\"gid\":0,\"umask\":63},\"oomScoreAdj\":-1000,"
			   "\"rlimits\":[{\"type\":\"RLIMIT_CORE\",\"soft\":18446744073709551615,"
			   "\"hard\":18446744073709551615}],\"consoleSize\":{\"height\":0,\"width\":0},"
			   "\"terminal\":false"),
		      &err);
	CHECK(c != NULL);
	if (c) {
		CHECK(c->process->user.uid == UINT32_MAX && c->process->user.umask.v == 63);
		CHECK(c->process->rlimits[0].soft == UINT64_MAX);
		CHECK(c->process->oom_score_adj.v == -1000 && c->process->has_console_size);
	}
	oci_config_free(c);
	c = parse_str(LNX("\"devices\":[{\"type\":\"p\",\"path\":\"/dev/fifo\"},{\"type\":\"u\",\"path\":\"/dev/u\","
			  "\"major\":-1,\"minor\":9223372036854775807}],\"timeOffsets\":{\"monotonic\":"
			  "{\"secs\":-9223372036854775808,\"nanosecs\":999999999}}"),
		      &err);
	CHECK(c != NULL);
	if (c) {
		CHECK(c->linux_.devices[0].type == 'p' && c->linux_.devices[0].major == 0);
		CHECK(c->linux_.devices[1].minor == INT64_MAX);
		CHECK(c->linux_.time_monotonic.secs == INT64_MIN);
		CHECK(c->linux_.time_monotonic.nanosecs == 999999999 && !c->linux_.time_boottime.set);
	}
	oci_config_free(c);
	/* Process fields of config.md "Linux Process" that the fixtures lack. */
	c = parse_str(PROC(",\"scheduler\":{\"policy\":\"SCHED_DEADLINE\",\"nice\":-20,\"priority\":0,"
			   "\"flags\":[\"SCHED_FLAG_RESET_ON_FORK\"],\"runtime\":1000,\"deadline\":2000,\"period\":3000},"
			   "\"ioPriority\":{\"class\":\"IOPRIO_CLASS_IDLE\",\"priority\":7},"
			   "\"execCPUAffinity\":{\"initial\":\"7\",\"final\":\"0-3,7\"}"),
		      &err);
	CHECK(c != NULL);
	if (c) {
		CHECK(c->process->scheduler.present && c->process->scheduler.policy_value == 6);
		CHECK(c->process->scheduler.nice == -20 && c->process->scheduler.period == 3000);
		CHECK(c->process->io_priority.present && c->process->io_priority.class_value == 3);
		CHECK(c->process->io_priority.priority == 7);
		CHECK_STREQ(c->process->exec_cpu_affinity_final, "0-3,7");
	}
	oci_config_free(c);
	c = parse_str(PROC(",\"ioPriority\":{\"class\":\"IOPRIO_CLASS_RT\",\"priority\":0}"), &err);
	CHECK(c && c->process->io_priority.class_value == 1);
	oci_config_free(c);
	c = parse_str(PROC(",\"ioPriority\":{\"class\":\"IOPRIO_CLASS_BE\",\"priority\":0}"), &err);
	CHECK(c && c->process->io_priority.class_value == 2);
	oci_config_free(c);
	c = parse_str(LNX("\"personality\":{\"domain\":\"LINUX32\",\"flags\":[]},\"memoryPolicy\":{\"mode\":"
			  "\"MPOL_INTERLEAVE\",\"nodes\":\"2-3\",\"flags\":[\"MPOL_F_STATIC_NODES\"]},"
			  "\"intelRdt\":{\"closID\":\"guaranteed_group\",\"l3CacheSchema\":\"L3:0=7f0\","
			  "\"memBwSchema\":\"MB:0=20\",\"schemata\":[\"L2:0=f\"],\"enableMonitoring\":true},"
			  "\"seccomp\":{\"defaultAction\":\"SCMP_ACT_NOTIFY\",\"listenerPath\":\"/run/agent.sock\","
			  "\"listenerMetadata\":\"m\",\"syscalls\":[{\"names\":[\"mkdir\"],\"action\":\"SCMP_ACT_TRACE\","
			  "\"errnoRet\":5}]}"),
		      &err);
	CHECK(c != NULL);
	if (c) {
		CHECK(c->linux_.personality.present && c->linux_.personality.flags.n == 0);
		CHECK_STREQ(c->linux_.personality.domain, "LINUX32");
		CHECK(c->linux_.memory_policy.present && c->linux_.memory_policy.flags.n == 1);
		CHECK(c->linux_.intel_rdt.present && c->linux_.intel_rdt.enable_monitoring.v);
		CHECK(c->linux_.seccomp->default_action == OCI_SCMP_NOTIFY);
		CHECK_STREQ(c->linux_.seccomp->listener_metadata, "m");
		CHECK(c->linux_.seccomp->syscalls[0].errno_ret.v == 5);
	}
	oci_config_free(c);
	/* Every action and operator name maps to its enum. */
	c = parse_str(SCMP(",\"syscalls\":["
			   "{\"names\":[\"a\"],\"action\":\"SCMP_ACT_KILL\"},"
			   "{\"names\":[\"a\"],\"action\":\"SCMP_ACT_KILL_PROCESS\"},"
			   "{\"names\":[\"a\"],\"action\":\"SCMP_ACT_KILL_THREAD\"},"
			   "{\"names\":[\"a\"],\"action\":\"SCMP_ACT_TRAP\"},"
			   "{\"names\":[\"a\"],\"action\":\"SCMP_ACT_ERRNO\",\"args\":["
			   "{\"index\":0,\"value\":1,\"op\":\"SCMP_CMP_NE\"},{\"index\":1,\"value\":1,\"op\":\"SCMP_CMP_LT\"},"
			   "{\"index\":2,\"value\":1,\"op\":\"SCMP_CMP_LE\"},{\"index\":3,\"value\":1,\"op\":\"SCMP_CMP_EQ\"},"
			   "{\"index\":4,\"value\":1,\"op\":\"SCMP_CMP_GE\"},{\"index\":5,\"value\":1,\"op\":\"SCMP_CMP_GT\"}]},"
			   "{\"names\":[\"a\"],\"action\":\"SCMP_ACT_TRACE\"},"
			   "{\"names\":[\"a\"],\"action\":\"SCMP_ACT_ALLOW\"},"
			   "{\"names\":[\"a\"],\"action\":\"SCMP_ACT_LOG\"},"
			   "{\"names\":[\"a\"],\"action\":\"SCMP_ACT_NOTIFY\"}]"),
		      &err);
	CHECK(c != NULL);
	if (c) {
		const struct oci_seccomp *s = c->linux_.seccomp;
		int i;

		for (i = 0; i < 9; i++)
			CHECK(s->syscalls[i].action == (enum oci_seccomp_action)i);
		for (i = 0; i < 6; i++)
			CHECK(s->syscalls[4].args[i].op == (enum oci_seccomp_op)i &&
			      s->syscalls[4].args[i].index == (uint32_t)i);
	}
	oci_config_free(c);
}

TEST(rlimit_names)
{
	static const struct {
		const char *name;
		int value;
	} all[] = {
		{"RLIMIT_AS", RLIMIT_AS},           {"RLIMIT_CORE", RLIMIT_CORE},
		{"RLIMIT_CPU", RLIMIT_CPU},         {"RLIMIT_DATA", RLIMIT_DATA},
		{"RLIMIT_FSIZE", RLIMIT_FSIZE},     {"RLIMIT_LOCKS", RLIMIT_LOCKS},
		{"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK}, {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE},
		{"RLIMIT_NICE", RLIMIT_NICE},       {"RLIMIT_NOFILE", RLIMIT_NOFILE},
		{"RLIMIT_NPROC", RLIMIT_NPROC},     {"RLIMIT_RSS", RLIMIT_RSS},
		{"RLIMIT_RTPRIO", RLIMIT_RTPRIO},   {"RLIMIT_RTTIME", RLIMIT_RTTIME},
		{"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING}, {"RLIMIT_STACK", RLIMIT_STACK},
	};
	char json[4096];
	size_t i, n = 0;
	struct clasp_error err;
	struct oci_config *c;

	n += (size_t)snprintf(json + n, sizeof json - n,
			      "{" BASE ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"rlimits\":[");
	for (i = 0; i < 16; i++)
		n += (size_t)snprintf(json + n, sizeof json - n, "%s{\"type\":\"%s\",\"soft\":%zu,\"hard\":%zu}",
				      i ? "," : "", all[i].name, i, i + 1);
	snprintf(json + n, sizeof json - n, "]}}");
	c = parse_str(json, &err);
	CHECK(c != NULL);
	if (c)
		for (i = 0; i < 16; i++) {
			CHECK(c->process->rlimits[i].resource == all[i].value);
			CHECK_STREQ(c->process->rlimits[i].type, all[i].name);
			CHECK(c->process->rlimits[i].soft == i && c->process->rlimits[i].hard == i + 1);
		}
	oci_config_free(c);
}

TEST(namespace_names)
{
	static const char *const names[] = {"pid", "network", "mount", "ipc", "uts", "user", "cgroup", "time"};
	struct clasp_error err;
	struct oci_config *c;
	int i;

	c = parse_str(LNX("\"namespaces\":[{\"type\":\"time\"},{\"type\":\"cgroup\"},{\"type\":\"user\"},"
			  "{\"type\":\"uts\"},{\"type\":\"ipc\"},{\"type\":\"mount\"},{\"type\":\"network\","
			  "\"path\":\"/var/run/netns/x\"},{\"type\":\"pid\"}]"),
		      &err);
	CHECK(c != NULL);
	for (i = 0; i < OCI_NS_COUNT; i++) {
		CHECK_STREQ(oci_ns_type_name((enum oci_ns_type)i), names[i]);
		if (c) {
			const struct oci_namespace *ns = oci_config_namespace(c, (enum oci_ns_type)i);

			CHECK(ns && ns->type == (enum oci_ns_type)i);
		}
	}
	if (c)
		CHECK_STREQ(oci_config_namespace(c, OCI_NS_NETWORK)->path, "/var/run/netns/x");
	CHECK_STREQ(oci_ns_type_name(OCI_NS_COUNT), "unknown");
	CHECK(oci_config_namespace(NULL, OCI_NS_PID) == NULL);
	CHECK(oci_config_annotation(NULL, "x") == NULL);
	oci_config_free(c);
	oci_config_free(NULL);
}

TEST(hook_names)
{
	static const char *const names[] = {"prestart", "createRuntime", "createContainer",
					    "startContainer", "poststart", "poststop"};
	struct clasp_error err;
	struct oci_config *c;
	int i;

	for (i = 0; i < OCI_HOOK_KIND_COUNT; i++)
		CHECK_STREQ(oci_hook_kind_name((enum oci_hook_kind)i), names[i]);
	CHECK_STREQ(oci_hook_kind_name(OCI_HOOK_KIND_COUNT), "unknown");
	c = parse_str(DOC("\"hooks\":{\"prestart\":[{\"path\":\"/0\"}],\"createRuntime\":[{\"path\":\"/1\"}],"
			  "\"createContainer\":[{\"path\":\"/2\"}],\"startContainer\":[{\"path\":\"/3\"}],"
			  "\"poststart\":[{\"path\":\"/4\"}],\"poststop\":[{\"path\":\"/5\"}],\"postStop\":5}"),
		      &err);
	CHECK(c != NULL);
	if (c)
		for (i = 0; i < OCI_HOOK_KIND_COUNT; i++) {
			char want[16];

			snprintf(want, sizeof want, "/%d", i);
			CHECK(c->hooks[i].n == 1);
			CHECK_STREQ(c->hooks[i].v[0].path, want);
			CHECK(c->hooks[i].v[0].args.v == NULL && c->hooks[i].v[0].env.v == NULL);
		}
	oci_config_free(c);
}

/* ---- raw input and hostile shapes ---- */

TEST(hostile_input)
{
	struct clasp_error err;
	struct oci_config *c = NULL;
	char *deep;
	size_t i, n;
	char buf[600];
	const char nul_doc[] = "{\"ociVersion\":\"1.0.0\",\"root\":{\"path\":\"r\"}}\0{}";

	/* A raw NUL byte (yajl would stop reading there). */
	memset(&err, 0, sizeof err);
	CHECK(oci_config_parse(nul_doc, sizeof nul_doc - 1, "config.json", &c, &err) < 0);
	CHECK_STREQ(err.msg, "config.json: invalid JSON: NUL byte at offset 42");
	CHECK(c == NULL);
	/* Nesting: 64 levels are fine, 65 are refused before yajl sees them. */
	for (n = 63; n <= 64; n++) {
		deep = malloc(2 * n + 64);
		strcpy(deep, "{" BASE ",\"x\":");
		for (i = 0; i < n; i++)
			strcat(deep, "[");
		for (i = 0; i < n; i++)
			strcat(deep, "]");
		strcat(deep, "}");
		c = parse_str(deep, &err);
		if (n == 63) {
			CHECK(c != NULL);
		} else {
			CHECK(c == NULL);
			CHECK_STREQ(err.msg, "config.json: invalid JSON: nesting deeper than 64 levels");
		}
		oci_config_free(c);
		free(deep);
	}
	/* Brackets inside strings do not count as nesting. */
	deep = malloc(400);
	strcpy(deep, "{" BASE ",\"hostname\":\"");
	for (i = 0; i < 200; i++)
		strcat(deep, "[");
	strcat(deep, "\"}");
	c = parse_str(deep, &err);
	CHECK(c != NULL);
	oci_config_free(c);
	free(deep);
	/* A very long key: the path is shortened, not overflowed. */
	n = (size_t)snprintf(buf, sizeof buf, "{" BASE ",\"annotations\":{\"");
	memset(buf + n, 'k', 400);
	n += 400;
	snprintf(buf + n, sizeof buf - n, "\":1}}");
	c = parse_str(buf, &err);
	CHECK(c == NULL);
	CHECK_CONTAINS(err.msg, "config.json: .annotations[\"kkkk");
	CHECK_CONTAINS(err.msg, "kk...\"]: expected a string");
	/* Control bytes in keys and values never reach the message raw. */
	c = parse_str(LNX("\"namespaces\":[{\"type\":\"n\\u001b[31m\\n\"}]"), &err);
	CHECK(c == NULL);
	CHECK_STREQ(err.msg, "config.json: .linux.namespaces[0].type: unknown namespace \"n\\x1b[31m\\x0a\"");
	c = parse_str(DOC("\"annotations\":{\"a\\tb\":0}"), &err);
	CHECK_STREQ(err.msg, "config.json: .annotations[\"a\\x09b\"]: expected a string");
	/* Duplicate keys deep inside unknown properties: the path is cut at its
	 * buffer's end, never overflowed. */
	{
		char big[2048];
		size_t k;

		n = (size_t)snprintf(big, sizeof big, "{" BASE ",\"x\":");
		for (k = 0; k < 12; k++)
			n += (size_t)snprintf(big + n, sizeof big - n,
					      "{\"level%02zu_abcdefghijklmnopqrstuvwxyz0123456789\":", k);
		n += (size_t)snprintf(big + n, sizeof big - n, "{\"k\":1,\"k\":2}");
		for (k = 0; k < 12; k++)
			big[n++] = '}';
		big[n++] = '}';
		big[n] = '\0';
		c = parse_str(big, &err);
		CHECK(c == NULL);
		CHECK_CONTAINS(err.msg, "config.json: .x.level00_abcdefghijklmnopqrstuvwxyz0123456789.level01_");
		CHECK_CONTAINS(err.msg, "...: duplicate key \"k\"");
		CHECK(strlen(err.msg) < 600);
	}
	/* A NULL origin still names the file. */
	memset(&err, 0, sizeof err);
	CHECK(oci_config_parse("{}", 2, NULL, &c, &err) < 0);
	CHECK_STREQ(err.msg, "config.json: .ociVersion: required field missing");
	memset(&err, 0, sizeof err);
	CHECK(oci_config_parse("{}", 2, "process.json", &c, &err) < 0);
	CHECK_STREQ(err.msg, "process.json: .ociVersion: required field missing");
}

/* Every prefix and many byte flips of a real config: no crash, no leak
 * (under ASan), and either a config or an error message. */
TEST(mutations)
{
	struct clasp_error err;
	struct oci_config *c;
	size_t len, i, ok = 0;
	char *text = slurp(FIXTURES "podman.json", &len);
	char *copy;
	unsigned seed = 12345;

	CHECK(text != NULL);
	if (!text)
		return;
	copy = malloc(len + 1);
	for (i = 0; i <= len; i += 7) {
		c = NULL;
		memset(&err, 0, sizeof err);
		if (oci_config_parse(text, i, "config.json", &c, &err) == 0) {
			ok++;
			oci_config_free(c);
		} else if (!err.msg[0]) {
			CHECK(!"error without message");
		}
	}
	CHECK(ok >= 1);
	for (i = 0; i < 3000; i++) {
		size_t pos, k;

		memcpy(copy, text, len);
		for (k = 0; k < 3; k++) {
			seed = seed * 1103515245u + 12345u;
			pos = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			copy[pos] = "0-1e.\"{}[],:\\ axtn"[(seed >> 8) % 19];
		}
		c = NULL;
		memset(&err, 0, sizeof err);
		if (oci_config_parse(copy, len, "config.json", &c, &err) == 0)
			oci_config_free(c);
		else if (!err.msg[0])
			CHECK(!"error without message");
	}
	free(copy);
	free(text);
}

TEST(process_parse)
{
	struct arena *a = arena_new();
	struct oci_process *pr = NULL;
	struct clasp_error err;
	const char *good = "{\"args\":[\"/bin/ls\",\"-l\"],\"cwd\":\"/work\",\"env\":[\"A=1\"],"
			   "\"user\":{\"uid\":1000,\"gid\":1000},\"terminal\":true,"
			   "\"capabilities\":{\"bounding\":[\"CAP_KILL\"]},\"noNewPrivileges\":true}";

	memset(&err, 0, sizeof err);
	CHECK(oci_process_parse(good, strlen(good), NULL, a, &pr, &err) == 0);
	CHECK(pr && pr->args.n == 2 && pr->user.uid == 1000 && pr->terminal);
	if (pr)
		CHECK_STREQ(pr->cwd, "/work");
	pr = NULL;
#define TXT(s) s, strlen(s)
	CHECK(oci_process_parse(TXT("{\"args\":[\"sh\"],\"cwd\":\"rel\"}"), NULL, a, &pr, &err) < 0);
	CHECK_STREQ(err.msg, "process.json: .cwd: \"rel\" is not an absolute path");
	CHECK(pr == NULL);
	CHECK(oci_process_parse("[]", 2, "p.json", a, &pr, &err) < 0);
	CHECK_STREQ(err.msg, "p.json: .: expected an object");
	CHECK(oci_process_parse(TXT("{\"cwd\":\"/\",\"cwd\":\"/\"}"), NULL, a, &pr, &err) < 0);
	CHECK_STREQ(err.msg, "process.json: .: duplicate key \"cwd\"");
	CHECK(oci_process_parse(TXT("{\"cwd\":\"/\\u0000\"}"), NULL, a, &pr, &err) < 0);
	CHECK_STREQ(err.msg, "process.json: string contains a NUL character (\\u0000) at offset 9");
	CHECK(oci_process_parse(TXT("{"), NULL, a, &pr, &err) < 0);
	CHECK_CONTAINS(err.msg, "process.json: invalid JSON: ");
#undef TXT
	arena_free(a);
}

/* ---- oci_config_load ---- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(load)
{
	char dir[] = "/tmp/clasp-test-config-XXXXXX";
	char path[256];
	struct clasp_error err;
	struct oci_config *c = NULL;

	CHECK(mkdtemp(dir) != NULL);
	memset(&err, 0, sizeof err);
	CHECK(oci_config_load(dir, &c, &err) < 0);
	CHECK_STREQ(err.msg, "open config.json: no such file or directory");
	CHECK(err.code == ENOENT && c == NULL);

	snprintf(path, sizeof path, "%s/config.json", dir);
	write_file(path, oci_spec_default_json(false));
	memset(&err, 0, sizeof err);
	CHECK(oci_config_load(dir, &c, &err) == 0);
	CHECK(c && c->n_mounts == 7);
	oci_config_free(c);
	c = NULL;

	write_file(path, "{\"ociVersion\":\"1.0.0\",\"root\":{\"path\":\"rootfs\"},\"process\":{\"cwd\":\"/\","
			 "\"args\":[\"sh\"],\"user\":{\"uid\":-1,\"gid\":0}}}");
	CHECK(oci_config_load(dir, &c, &err) < 0);
	CHECK_STREQ(err.msg, "config.json: .process.user.uid: expected a non-negative integer");
	write_file(path, "{");
	CHECK(oci_config_load(dir, &c, &err) < 0);
	CHECK_CONTAINS(err.msg, "config.json: invalid JSON: ");
	unlink(path);

	/* Not a regular file: a directory, and a FIFO that must not block. */
	CHECK(mkdir(path, 0700) == 0);
	CHECK(oci_config_load(dir, &c, &err) < 0);
	CHECK_STREQ(err.msg, "open config.json: not a regular file");
	rmdir(path);
	CHECK(mkfifo(path, 0600) == 0);
	CHECK(oci_config_load(dir, &c, &err) < 0);
	CHECK_STREQ(err.msg, "open config.json: not a regular file");
	unlink(path);

	/* Size cap: a 33 MiB config.json is refused, not slurped. */
	{
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		CHECK(fd >= 0 && ftruncate(fd, 33 << 20) == 0);
		close(fd);
		CHECK(oci_config_load(dir, &c, &err) < 0);
		CHECK_STREQ(err.msg, "read config.json (limit 32 MiB): file too large");
		CHECK(err.code == EFBIG);
		unlink(path);
	}
	rmdir(dir);

	memset(&err, 0, sizeof err);
	CHECK(oci_config_load("/nonexistent/clasp-bundle", &c, &err) < 0);
	CHECK_STREQ(err.msg, "open bundle /nonexistent/clasp-bundle: no such file or directory");
	CHECK(err.code == ENOENT);
}

int main(void)
{
	RUN(schema_good);
	RUN(schema_bad);
	RUN(spec_example_fields);
	RUN(netdevices_rdma_fields);
	RUN(spec_default_matches_runc);
	RUN(spec_default_parses);
	RUN(podman_config);
	RUN(containerd_config);
	RUN(invalid_table);
	RUN(accepted_edge_cases);
	RUN(rlimit_names);
	RUN(namespace_names);
	RUN(hook_names);
	RUN(hostile_input);
	RUN(mutations);
	RUN(process_parse);
	RUN(load);
	return unit_summary("test_config");
}
