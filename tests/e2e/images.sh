#!/bin/sh
# images.sh: the e2e suites' local image, built from Debian's busybox-static (no registry needed).
#
#   images.sh rootfs-tar DIR        -> DIR/busybox-rootfs.tar   (for `podman import`)
#   images.sh oci-archive DIR NAME  -> DIR/busybox-oci.tar      (for `ctr images import`), an OCI
#                                      image layout tarball whose index names the image NAME
#
# The rootfs is tests/fixtures/make-rootfs.sh's: busybox and its applets, users root, tester (1000)
# and nobody, /bin/notexec (mode 0644) for the exit-code tests. Both outputs are cached in DIR.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mode=${1:?usage: images.sh rootfs-tar|oci-archive DIR [NAME]}
dir=${2:?usage: images.sh rootfs-tar|oci-archive DIR [NAME]}
mkdir -p "$dir"

rootfs_tar() {
  [ -s "$dir/busybox-rootfs.tar" ] && return 0
  rm -rf "$dir/rootfs"
  sh "$here/../fixtures/make-rootfs.sh" "$dir/rootfs"
  # Fixed owner and mtime keep the layer digest stable between runs.
  tar -C "$dir/rootfs" --owner=0 --group=0 --numeric-owner --mtime=@0 --sort=name \
      -cf "$dir/busybox-rootfs.tar.tmp" .
  mv "$dir/busybox-rootfs.tar.tmp" "$dir/busybox-rootfs.tar"
  rm -rf "$dir/rootfs"
}

sha() { sha256sum "$1" | cut -d' ' -f1; }

oci_archive() {
  name=${1:?oci-archive needs an image NAME}
  [ -s "$dir/busybox-oci.tar" ] && return 0
  rootfs_tar
  lay="$dir/oci-layout.d"
  rm -rf "$lay"
  mkdir -p "$lay/blobs/sha256"
  layer=$(sha "$dir/busybox-rootfs.tar")
  cp "$dir/busybox-rootfs.tar" "$lay/blobs/sha256/$layer"
  lsize=$(stat -c %s "$dir/busybox-rootfs.tar")
  printf '{"architecture":"%s","os":"linux","config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Cmd":["sh"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created_by":"tests/e2e/images.sh"}]}' \
    "$(dpkg --print-architecture 2>/dev/null || echo amd64)" "$layer" >"$lay/config.json"
  cfg=$(sha "$lay/config.json"); csize=$(stat -c %s "$lay/config.json")
  mv "$lay/config.json" "$lay/blobs/sha256/$cfg"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
    "$cfg" "$csize" "$layer" "$lsize" >"$lay/manifest.json"
  man=$(sha "$lay/manifest.json"); msize=$(stat -c %s "$lay/manifest.json")
  mv "$lay/manifest.json" "$lay/blobs/sha256/$man"
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
    "$man" "$msize" "$name" "${name##*:}" >"$lay/index.json"
  printf '{"imageLayoutVersion":"1.0.0"}' >"$lay/oci-layout"
  tar -C "$lay" --owner=0 --group=0 --numeric-owner -cf "$dir/busybox-oci.tar.tmp" oci-layout index.json blobs
  mv "$dir/busybox-oci.tar.tmp" "$dir/busybox-oci.tar"
  rm -rf "$lay"
}

case "$mode" in
  rootfs-tar) rootfs_tar; echo "$dir/busybox-rootfs.tar" ;;
  oci-archive) oci_archive "${3:-}"; echo "$dir/busybox-oci.tar" ;;
  *) echo "images.sh: unknown mode $mode" >&2; exit 2 ;;
esac
