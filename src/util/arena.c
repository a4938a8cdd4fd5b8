#include "util/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK 16384

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	max_align_t data[];
};

struct arena {
	struct arena_block *head;
};

struct arena *arena_new(void)
{
	struct arena *a = calloc(1, sizeof *a);
	if (!a)
		abort();
	return a;
}

void arena_free(struct arena *a)
{
	struct arena_block *b, *next;

	if (!a)
		return;
	for (b = a->head; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a);
}

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_block *b = a->head;
	size_t align = sizeof(max_align_t);
	size_t need = (size + align - 1) / align * align;
	void *p;

	if (need == 0)
		need = align;
	if (!b || b->cap - b->used < need) {
		size_t cap = need > ARENA_CHUNK ? need : ARENA_CHUNK;
		b = calloc(1, sizeof *b + cap);
		if (!b)
			abort();
		b->cap = cap;
		b->next = a->head;
		a->head = b;
	}
	p = (char *)b->data + b->used;
	b->used += need;
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	p = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void *arena_append(struct arena *a, void *array, size_t n, size_t sz)
{
	/* Reserve one spare zeroed slot so NULL-terminated vectors stay terminated. */
	void *p = arena_alloc(a, (n + 2) * sz);
	if (array && n)
		memcpy(p, array, n * sz);
	return p;
}
