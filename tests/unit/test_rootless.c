/* The pure parts of rootless mode: which resource fields count as a limit,
 * when the id-map helpers are needed, the default state root. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/rootless.h"
#include "unit.h"

TEST(requested_resource)
{
	struct oci_resources r;

	memset(&r, 0, sizeof r);
	CHECK(rootless_requested_resource(&r) == NULL);
	/* present but empty, or device rules only: no limit */
	r.present = r.memory.present = true;
	r.n_devices = 1;
	CHECK(rootless_requested_resource(&r) == NULL);
	r.pids_limit.set = true;
	CHECK_STREQ(rootless_requested_resource(&r), "linux.resources.pids.limit");
	r.memory.limit.set = true;
	CHECK_STREQ(rootless_requested_resource(&r), "linux.resources.memory.limit");
	memset(&r, 0, sizeof r);
	r.cpu.cpus = "0-1";
	CHECK_STREQ(rootless_requested_resource(&r), "linux.resources.cpu.cpus");
	memset(&r, 0, sizeof r);
	r.unified.n = 1;
	CHECK_STREQ(rootless_requested_resource(&r), "linux.resources.unified");
}

TEST(maps_need_helper)
{
	struct oci_idmap own = {.container_id = 0, .host_id = geteuid(), .size = 1};
	struct oci_idmap two[2] = {own, {.container_id = 1, .host_id = 100000, .size = 65536}};

	if (geteuid() == 0) {
		/* root (of any user namespace) writes maps itself */
		CHECK(!rootless_maps_need_helper(two, 2, false));
		return;
	}
	CHECK(!rootless_maps_need_helper(&own, 1, false));
	CHECK(rootless_maps_need_helper(two, 2, false));
}

TEST(default_root)
{
	char *root = NULL;
	struct clasp_error err = {0};

	setenv("XDG_RUNTIME_DIR", "/run/user/4242", 1);
	CHECK(rootless_default_root(&root, &err) == 0);
	CHECK_STREQ(root, "/run/user/4242/clasp");
	free(root);
	root = NULL;
	setenv("XDG_RUNTIME_DIR", "relative", 1);
	if (rootless_default_root(&root, &err) < 0)
		CHECK_CONTAINS(err.msg, "--root");
	free(root);
}

int main(void)
{
	RUN(requested_resource);
	RUN(maps_need_helper);
	RUN(default_root);
	return unit_summary("test_rootless");
}
