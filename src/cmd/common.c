#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

int cmd_help(const char *text)
{
	fputs(text, stdout);
	return 0;
}

int cmd_want_args(const char *cmd, int argc, char **argv, int n, const char *what,
		  struct clasp_error *err)
{
	(void)argv;
	if (argc != n)
		return clasp_error_set(err, 0, "\"%s\" requires exactly %d argument%s: %s", cmd, n,
				       n == 1 ? "" : "s", what);
	return 0;
}
