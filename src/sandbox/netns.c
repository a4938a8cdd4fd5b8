/* Kubernetes pods: the pod sandbox container creates the network namespace
 * and app containers join it by path. A join is allowed only into the netns
 * of a running clasp container created with the same network policy, so that
 * the policy (and its proxy) is known to cover the namespace. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sandbox/sandbox_int.h"

int sandbox_check_netns_join(const struct sandbox_plan *plan, const struct sandbox_peer *peers,
			     size_t n_peers, struct clasp_error *err)
{
	struct stat want;
	size_t i;

	if (!plan || !plan->netns_join)
		return 0;
	if (stat(plan->netns_join, &want) < 0)
		return clasp_error_set(err, errno, "%s: network namespace \"%s\"", K_NET_SCOPE, plan->netns_join);
	for (i = 0; i < n_peers; i++) {
		char path[64], digest[64];
		struct stat st;
		struct clasp_error e2 = {0};

		snprintf(path, sizeof path, "/proc/%d/ns/net", (int)peers[i].pid);
		if (peers[i].pid <= 0 || stat(path, &st) < 0)
			continue;
		if (st.st_dev != want.st_dev || st.st_ino != want.st_ino)
			continue;
		if (sandbox_read_net_digest(peers[i].state_dir, digest, &e2) < 0)
			continue;
		if (strcmp(digest, plan->net_digest) == 0)
			return 0;
		return clasp_error_set(err, 0,
				       "%s: the network namespace \"%s\" was created with a different network policy (%s, this container wants %s)",
				       K_NET_SCOPE, plan->netns_join, digest[0] ? digest : "none",
				       plan->net_digest);
	}
	return clasp_error_set(err, 0,
			       "%s: \"%s\" is not the network namespace of a running clasp container; joining an existing network namespace is not allowed (podman --network=none)",
			       K_NET_SCOPE, plan->netns_join);
}
