/* Lexical path rules for annotation values. Purely textual on purpose: the
 * symlink side (a path that resolves elsewhere) is checked by
 * sandbox_prepare() against realpath(). */
#include <string.h>

#include "sandbox/sandbox_int.h"

int sb_path_clean(struct arena *a, const char *what, const char *in, bool allow_root, char **out,
		  struct clasp_error *err)
{
	size_t len, i = 0, o = 0;
	char *buf;

	if (!in || !*in)
		return clasp_error_set(err, 0, "%s: path is empty", what);
	if (in[0] != '/')
		return clasp_error_set(err, 0, "%s: \"%s\" must be an absolute path", what, in);
	len = strlen(in);
	if (len > 4095)
		return clasp_error_set(err, 0, "%s: path is longer than 4095 bytes", what);
	buf = arena_alloc(a, len + 2);
	while (i < len) {
		size_t s;
		while (i < len && in[i] == '/')
			i++;
		if (i == len)
			break;
		s = i;
		while (i < len && in[i] != '/')
			i++;
		if ((i - s == 1 && in[s] == '.') || (i - s == 2 && in[s] == '.' && in[s + 1] == '.'))
			return clasp_error_set(err, 0, "%s: \"%s\" must not contain \".\" or \"..\" components",
					       what, in);
		buf[o++] = '/';
		memcpy(buf + o, in + s, i - s);
		o += i - s;
	}
	if (o == 0) {
		if (!allow_root)
			return clasp_error_set(err, 0, "%s: \"/\" is not allowed here", what);
		buf[o++] = '/';
	}
	buf[o] = '\0';
	*out = buf;
	return 0;
}

bool sb_path_within(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return path[0] == '/';
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

const char *sb_path_rel(const char *path, const char *root)
{
	if (strcmp(root, "/") == 0)
		return path + 1;
	path += strlen(root);
	return *path == '/' ? path + 1 : path;
}

size_t sb_path_depth(const char *path)
{
	size_t d = 0;

	for (; *path; path++)
		if (*path == '/' && path[1] && path[1] != '/')
			d++;
	return d;
}

char *sb_path_join(struct arena *a, const char *dir, const char *rel)
{
	size_t n = strlen(dir);

	while (*rel == '/')
		rel++;
	if (!*rel)
		return arena_strdup(a, dir);
	if (n && dir[n - 1] == '/')
		return arena_printf(a, "%s%s", dir, rel);
	return arena_printf(a, "%s/%s", dir, rel);
}
