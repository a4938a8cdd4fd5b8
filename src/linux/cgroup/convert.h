/* Pure v1 <-> v2 value conversions, the same formulas runc uses, so a
 * config written for one hierarchy means the same thing on the other.
 * No I/O: unit-tested in tests/unit/test_cgroup_convert.c. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* cpu.shares (2..262144) -> cpu.weight (1..10000); 0 stays 0 (unset). */
uint64_t cgconv_shares_to_weight(uint64_t shares);
/* blkio.weight (10..1000) -> io.weight (1..10000); 0 stays 0 (unset). */
uint64_t cgconv_blkio_to_io_weight(uint64_t weight);

/* The cpu.max text for a quota/period pair ("max 100000", "50000 100000",
 * "50000"). Either may be unset; returns false when neither is set. */
bool cgconv_cpu_max(bool quota_set, int64_t quota, bool period_set, uint64_t period,
		    char *buf, size_t len);

/* A v1 limit value (-1 = unlimited) as v1 text ("-1" or the number). */
void cgconv_v1_limit(int64_t v, char *buf, size_t len);
/* A limit as v2 text: negative -> "max". */
void cgconv_v2_limit(int64_t v, char *buf, size_t len);

/* memory.swap.max from OCI swap (memory+swap) and limit, as runc's
 * ConvertMemorySwapToCgroupV2Value: swap -1 -> -1 (max); limit -1 with swap
 * unset -> -1; otherwise swap - limit, an error when there is no limit or
 * swap < limit. *out_set is false when nothing is to be written. */
int cgconv_swap_v2(bool swap_set, int64_t swap, bool limit_set, int64_t limit,
		   bool *out_set, int64_t *out, struct clasp_error *err);

/* Validate a cpus/mems list ("0-3,7"). Returns the highest index or -1 on
 * a syntax error; an empty string is valid (returns -2: "inherit"). */
int cgconv_parse_cpulist(const char *s, uint64_t *mask, size_t mask_words);

/* "2MB" <-> 2097152. Units KB/MB/GB/TB base 1024. */
int cgconv_pagesize_parse(const char *s, uint64_t *bytes);
/* The kernel's name for a huge page size in bytes: 2097152 -> "2MB". */
void cgconv_pagesize_name(uint64_t bytes, char *buf, size_t len);

/* A v1 device rule line "c 1:3 rwm" ("a" for all, "*" for a wildcard). */
void cgconv_device_rule(char type, bool major_set, int64_t major, bool minor_set, int64_t minor,
			const char *access, char *buf, size_t len);

/* Validate a cgroupsPath and normalise it (collapse "//", drop "." and a
 * trailing "/"); ".." components are refused. */
int cgconv_clean_path(const char *in, char **out, struct clasp_error *err);
