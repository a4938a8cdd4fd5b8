#include "linux/device_rules.h"

#include <string.h>

struct rule {
	char type;
	int64_t major, minor; /* -1 = wildcard */
	const char *access;
};

static const struct rule defaults[] = {
	{'c', -1, -1, "m"}, {'b', -1, -1, "m"},
	{'c', 1, 3, "rwm"},   /* /dev/null */
	{'c', 1, 5, "rwm"},   /* /dev/zero */
	{'c', 1, 7, "rwm"},   /* /dev/full */
	{'c', 1, 8, "rwm"},   /* /dev/random */
	{'c', 1, 9, "rwm"},   /* /dev/urandom */
	{'c', 5, 0, "rwm"},   /* /dev/tty */
	{'c', 5, 1, "rwm"},   /* /dev/console */
	{'c', 5, 2, "rwm"},   /* /dev/ptmx */
	{'c', 136, -1, "rwm"}, /* /dev/pts/N */
};

static void add(struct oci_config *cfg, char type, int64_t major, int64_t minor, const char *access)
{
	struct oci_resources *r = &cfg->linux_.resources;
	struct oci_device_rule *d;

	r->devices = arena_append(cfg->arena, r->devices, r->n_devices, sizeof *r->devices);
	d = &r->devices[r->n_devices++];
	memset(d, 0, sizeof *d);
	d->allow = true;
	d->type = type;
	if (major >= 0)
		d->major = (opt_i64){true, major};
	if (minor >= 0)
		d->minor = (opt_i64){true, minor};
	d->access = arena_strdup(cfg->arena, access);
	r->present = true;
}

void device_rules_add_defaults(struct oci_config *cfg)
{
	size_t i;

	for (i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
		add(cfg, defaults[i].type, defaults[i].major, defaults[i].minor, defaults[i].access);
	for (i = 0; i < cfg->linux_.n_devices; i++) {
		const struct oci_device *d = &cfg->linux_.devices[i];
		if (d->type == 'p')
			continue;
		add(cfg, d->type == 'u' ? 'c' : d->type, d->major, d->minor, "rwm");
	}
}
