/* `exec -u uid[:gid]` and `--additional-gids` parsing. */
#include <stdlib.h>

#include "unit.h"
#include "util/userspec.h"

static int ok(const char *s, struct userspec *u)
{
	struct clasp_error err = {0};
	return userspec_parse(s, u, &err);
}

static const char *bad(const char *s)
{
	static struct clasp_error err;
	struct userspec u = {.uid = 7, .gid = 7};

	clasp_error_clear(&err);
	if (userspec_parse(s, &u, &err) == 0)
		return "(accepted)";
	/* A failed parse leaves the output untouched. */
	if (u.uid != 7 || u.gid != 7)
		return "(output modified)";
	return err.msg;
}

TEST(uid_only)
{
	struct userspec u;
	CHECK(ok("1000", &u) == 0);
	CHECK(u.uid == 1000);
	CHECK(!u.has_gid);
	CHECK(ok("0", &u) == 0);
	CHECK(u.uid == 0);
}

TEST(uid_gid)
{
	struct userspec u;
	CHECK(ok("1000:1001", &u) == 0);
	CHECK(u.uid == 1000 && u.gid == 1001 && u.has_gid);
	CHECK(ok("0:0", &u) == 0);
	CHECK(u.uid == 0 && u.gid == 0 && u.has_gid);
	CHECK(ok("4294967294:4294967294", &u) == 0);
	CHECK(u.uid == 4294967294u && u.gid == 4294967294u);
	CHECK(ok("007:08", &u) == 0);
	CHECK(u.uid == 7 && u.gid == 8);
}

TEST(rejects)
{
	CHECK_CONTAINS(bad(""), "empty");
	CHECK_CONTAINS(bad(NULL), "empty");
	CHECK_CONTAINS(bad(":"), "empty id");
	CHECK_CONTAINS(bad(":5"), "uid: empty id");
	CHECK_CONTAINS(bad("5:"), "gid: empty id");
	CHECK_CONTAINS(bad("1:2:3"), "expected uid[:gid]");
	CHECK_CONTAINS(bad("-1"), "not a non-negative");
	CHECK_CONTAINS(bad("+1"), "not a non-negative");
	CHECK_CONTAINS(bad(" 1"), "not a non-negative");
	CHECK_CONTAINS(bad("1 "), "not a non-negative");
	CHECK_CONTAINS(bad("root"), "not a non-negative");
	CHECK_CONTAINS(bad("1000:staff"), "gid");
	CHECK_CONTAINS(bad("0x10"), "not a non-negative");
	CHECK_CONTAINS(bad("4294967295"), "out of range");
	CHECK_CONTAINS(bad("1:4294967295"), "out of range");
	CHECK_CONTAINS(bad("99999999999999999999999"), "out of range");
}

TEST(single_id)
{
	struct clasp_error err = {0};
	uint32_t v = 0;
	CHECK(userspec_parse_id("42", "--x", &v, &err) == 0 && v == 42);
	CHECK(userspec_parse_id("", "--x", &v, &err) < 0);
	CHECK_CONTAINS(err.msg, "--x");
	CHECK(userspec_parse_id(NULL, "--x", &v, &err) < 0);
}

TEST(gid_lists)
{
	struct clasp_error err = {0};
	uint32_t *g = NULL;
	size_t n = 0;

	CHECK(userspec_parse_gid_list("5", &g, &n, &err) == 0);
	CHECK(n == 1 && g[0] == 5);
	CHECK(userspec_parse_gid_list("10,20,30", &g, &n, &err) == 0);
	CHECK(n == 4 && g[1] == 10 && g[2] == 20 && g[3] == 30);
	/* A bad element leaves the list as it was. */
	CHECK(userspec_parse_gid_list("1,,2", &g, &n, &err) < 0);
	CHECK_CONTAINS(err.msg, "empty id");
	CHECK(userspec_parse_gid_list("1,x", &g, &n, &err) < 0);
	CHECK(userspec_parse_gid_list("1,", &g, &n, &err) < 0);
	CHECK(userspec_parse_gid_list(",1", &g, &n, &err) < 0);
	CHECK(userspec_parse_gid_list("", &g, &n, &err) < 0);
	CHECK(userspec_parse_gid_list("4294967295", &g, &n, &err) < 0);
	CHECK(n == 4 && g[0] == 5 && g[3] == 30);
	free(g);
}

int main(void)
{
	RUN(uid_only);
	RUN(uid_gid);
	RUN(rejects);
	RUN(single_id);
	RUN(gid_lists);
	return unit_summary("userspec");
}
