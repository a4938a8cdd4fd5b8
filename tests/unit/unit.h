/* A tiny unit-test harness: each tests/unit/test_*.c is its own program.
 * CHECK() records a failure and goes on; the program prints a summary line
 * "N passed, M failed" and exits non-zero on any failure. */
#pragma once
#include <stdio.h>
#include <string.h>

static int unit_passed, unit_failed;
static const char *unit_current = "";

#define CHECK(cond)                                                                  \
	do {                                                                         \
		if (cond) {                                                          \
			unit_passed++;                                               \
		} else {                                                             \
			unit_failed++;                                               \
			fprintf(stderr, "FAIL %s: %s:%d: %s\n", unit_current, __FILE__, \
				__LINE__, #cond);                                    \
		}                                                                    \
	} while (0)

#define CHECK_STREQ(a, b)                                                            \
	do {                                                                         \
		const char *_a = (a), *_b = (b);                                     \
		if (_a && _b && strcmp(_a, _b) == 0) {                               \
			unit_passed++;                                               \
		} else {                                                             \
			unit_failed++;                                               \
			fprintf(stderr, "FAIL %s: %s:%d: \"%s\" != \"%s\"\n", unit_current, \
				__FILE__, __LINE__, _a ? _a : "(null)", _b ? _b : "(null)"); \
		}                                                                    \
	} while (0)

/* Substring check, for error messages. */
#define CHECK_CONTAINS(hay, needle)                                                  \
	do {                                                                         \
		const char *_h = (hay), *_n = (needle);                              \
		if (_h && _n && strstr(_h, _n)) {                                    \
			unit_passed++;                                               \
		} else {                                                             \
			unit_failed++;                                               \
			fprintf(stderr, "FAIL %s: %s:%d: \"%s\" does not contain \"%s\"\n", \
				unit_current, __FILE__, __LINE__, _h ? _h : "(null)",  \
				_n ? _n : "(null)");                                 \
		}                                                                    \
	} while (0)

#define TEST(name) static void name(void)
#define RUN(name)                                                                    \
	do {                                                                         \
		unit_current = #name;                                                \
		name();                                                              \
	} while (0)

static inline int unit_summary(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}
