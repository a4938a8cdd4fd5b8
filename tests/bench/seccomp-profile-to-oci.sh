#!/bin/sh
# seccomp-profile-to-oci.sh [PROFILE [CAPS]]: turn a Docker/podman seccomp.json
# (archMap, includes/excludes by caps, arches and minKernel) into the OCI
# linux.seccomp object podman would put into config.json, roughly as
# containers/common's pkg/seccomp does for one container:
#   - architectures: the native arch and its subArchitectures from archMap;
#   - a rule is kept when every includes.caps is in CAPS, no excludes.caps is,
#     the native Go arch is in includes.arches (if any) and not in excludes.arches,
#     and the running kernel is at least includes.minKernel;
#   - comment/includes/excludes are dropped, null args/errnoRet removed.
# PROFILE defaults to /usr/share/containers/seccomp.json (Debian package
# golang-github-containers-common); CAPS to podman's default_capabilities, as a
# comma-separated list. Writes the OCI JSON to stdout.
set -eu
profile=${1:-/usr/share/containers/seccomp.json}
caps=${2:-CAP_CHOWN,CAP_DAC_OVERRIDE,CAP_FOWNER,CAP_FSETID,CAP_KILL,CAP_NET_BIND_SERVICE,CAP_SETFCAP,CAP_SETGID,CAP_SETPCAP,CAP_SETUID,CAP_SYS_CHROOT}

case $(uname -m) in
x86_64) goarch=amd64 scmp=SCMP_ARCH_X86_64 ;;
aarch64) goarch=arm64 scmp=SCMP_ARCH_AARCH64 ;;
s390x) goarch=s390x scmp=SCMP_ARCH_S390X ;;
ppc64le) goarch=ppc64le scmp=SCMP_ARCH_PPC64LE ;;
riscv64) goarch=riscv64 scmp=SCMP_ARCH_RISCV64 ;;
*) echo "seccomp-profile-to-oci.sh: unsupported machine $(uname -m)" >&2; exit 1 ;;
esac
kernel=$(uname -r | sed 's/[^0-9.].*//')

exec jq --arg goarch "$goarch" --arg scmp "$scmp" --arg caps "$caps" --arg kernel "$kernel" '
  def ver: split(".") | map(tonumber? // 0);
  ($caps | split(",")) as $have
  | {
      defaultAction,
      defaultErrnoRet,
      architectures: ([.archMap[]? | select(.architecture == $scmp) | .architecture, .subArchitectures[]?]
                      | if length == 0 then [$scmp] else . end),
      syscalls: [
        .syscalls[]
        | select((.includes.caps // []) | all(. as $c | $have | index($c)))
        | select((.excludes.caps // []) | any(. as $c | $have | index($c)) | not)
        | select((.includes.arches // []) as $a | ($a | length) == 0 or ($a | index($goarch)))
        | select((.excludes.arches // []) | index($goarch) | not)
        | select(.includes.minKernel == null or (($kernel | ver) >= (.includes.minKernel | ver)))
        | {names: (.names // [.name]), action}
          + (if .errnoRet != null then {errnoRet} else {} end)
          + (if (.args // []) | length > 0 then {args: [.args[] | {index, value, valueTwo, op}]} else {} end)
      ]
    }
  | if .defaultErrnoRet == null then del(.defaultErrnoRet) else . end
' "$profile"
