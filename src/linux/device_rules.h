/* The device cgroup rules a container always needs, as runc and crun add
 * them: mknod of any node, the standard character devices, ptys, and every
 * node linux.devices creates. Appended after the config's own rules. */
#pragma once
#include "oci/config.h"

void device_rules_add_defaults(struct oci_config *cfg);
