/* The per-container directories of the known clients, which fs.scope lets
 * through although they are host paths. They are matched by their exact
 * layout around the ID, never by the bare ID: a bundle author picks the ID,
 * and an ID such as "root" must not unlock /root. */
#include <string.h>

#include "sandbox/sandbox_int.h"

/* An ID usable as one path component. */
static bool id_ok(const char *id)
{
	return id && *id && !strchr(id, '/') && strcmp(id, ".") && strcmp(id, "..");
}

/* If src contains "/<a>/<id>/<b>" as whole components (b may be NULL),
 * return src cut after that match. */
static char *match_layout(struct arena *a, const char *src, const char *pre, const char *id,
			  const char *post)
{
	char *pat, *hit;
	size_t n;

	if (!id_ok(id))
		return NULL;
	pat = post ? arena_printf(a, "/%s/%s/%s", pre, id, post) : arena_printf(a, "/%s/%s", pre, id);
	n = strlen(pat);
	for (hit = strstr(src, pat); hit; hit = strstr(hit + 1, pat))
		if (hit[n] == '\0' || hit[n] == '/')
			return arena_strndup(a, src, (size_t)(hit - src) + n);
	return NULL;
}

/* containers/storage names its per-container directory after the graph
 * driver: "<driver>-containers". */
static const char *const podman_drivers[] = {
	"overlay-containers", "vfs-containers", "btrfs-containers", "zfs-containers",
};

char *sb_client_dir(struct arena *a, const struct oci_config *cfg, const struct sandbox_ctx *ctx,
		    const char *src)
{
	const char *sid = sb_annotation(cfg, "io.kubernetes.cri.sandbox-id");
	const char *uid = sb_annotation(cfg, "io.kubernetes.pod.uid");
	size_t i;
	char *m;

	/* podman: <graphroot>/<driver>-containers/<ID>/userdata and the same
	 * under its runroot. Rootless podman without fuse-overlayfs stores with
	 * vfs, so its files are under vfs-containers. */
	for (i = 0; i < sizeof podman_drivers / sizeof *podman_drivers; i++)
		if ((m = match_layout(a, src, podman_drivers[i], ctx->id, "userdata")))
			return m;
	/* containerd CRI: <root|state>/io.containerd.grpc.v1.cri/{sandboxes/<sandbox-id>,containers/<ID>} */
	if (sid && (m = match_layout(a, src, "io.containerd.grpc.v1.cri/sandboxes", sid, NULL)))
		return m;
	if ((m = match_layout(a, src, "io.containerd.grpc.v1.cri/containers", ctx->id, NULL)))
		return m;
	/* kubelet: the pod's own directory (its volumes, etc-hosts). */
	if (id_ok(uid)) {
		char *root = arena_printf(a, "/var/lib/kubelet/pods/%s", uid);
		if (sb_path_within(src, root))
			return root;
	}
	return NULL;
}
