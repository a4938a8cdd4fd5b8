/* A bump allocator that owns a whole object tree (the typed config), so the
 * tree is released at once and parsers need no per-field free code. */
#pragma once
#include <stddef.h>

struct arena;

struct arena *arena_new(void);
void arena_free(struct arena *a);
/* Zeroed memory; aborts on out-of-memory (as malloc failure would be fatal anyway). */
void *arena_alloc(struct arena *a, size_t size);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Grow an array of n elements of size sz to n+1, copying; returns the new array. */
void *arena_append(struct arena *a, void *array, size_t n, size_t sz);
