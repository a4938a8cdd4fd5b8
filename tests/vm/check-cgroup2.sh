#!/bin/bash
# check-cgroup2.sh: `make check-cgroup2`. Runs clasp's cgroup tests on PURE
# cgroup v2, which this project's hosts (hybrid) cannot show and whose cgroup
# mounts must not be changed: boots Debian's own kernel (linux-image-amd64's
# package, unpacked with dpkg -x under build/vm, never installed) under
# qemu (TCG) with a busybox initramfs whose /init mounts only cgroup2
# (cgroup_no_v1=all) and enables the controllers, and runs the static clasp
# (`make static`) on tests/vm/cgroup2-tests.sh, all in one boot, including
# rootless limits in a cgroup delegated to a test user of the VM.
# Prints the guest's "N passed, M failed"; exits 0 only if all passed.
#
# Missing host packages (qemu-system-x86, busybox-static, jq) are installed
# with apt-get. Environment: VM_TIMEOUT (seconds, default 240), VM_MEM (MiB,
# default 768), VM_KERNEL_PKG (default: what linux-image-amd64 depends on),
# CLASP_STATIC (a static clasp to test instead of building build/static/clasp),
# VM_LOG (keep the serial log there).
set -Eeuo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=$REPO/build/vm
TIMEOUT=${VM_TIMEOUT:-240}
MEM=${VM_MEM:-768}

log() { printf '[check-cgroup2] %s\n' "$*" >&2; }
die() {
	log "ERROR: $*"
	exit 2
}

[ "$(id -u)" -eq 0 ] || die "must run as root (apt-get, dpkg -x ownership, device nodes in the initramfs)"

# ---- host tools
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
{ [ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1; } || need+=(busybox-static)
command -v jq >/dev/null || need+=(jq)
if ((${#need[@]})); then
	log "installing ${need[*]}"
	timeout 300 apt-get update -qq || true
	DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null ||
		die "apt-get install ${need[*]} failed"
fi
command -v setpriv >/dev/null || die "setpriv (util-linux) is needed to run clasp spec --rootless as the test user"
BUSYBOX=/bin/busybox
ldd "$BUSYBOX" >/dev/null 2>&1 && die "$BUSYBOX is not static (install busybox-static)"

# ---- the static clasp
CLASP=${CLASP_STATIC:-}
if [ -z "$CLASP" ]; then
	log "make static"
	make -C "$REPO" -s static >"$OUT.make.log" 2>&1 || {
		tail -20 "$OUT.make.log" >&2
		die "make static failed"
	}
	CLASP=$REPO/build/static/clasp
fi
ldd "$CLASP" >/dev/null 2>&1 && die "$CLASP is not statically linked"

# ---- the kernel: Debian's package, unpacked (never installed)
mkdir -p "$OUT/debs" "$OUT/kernel"
PKG=${VM_KERNEL_PKG:-$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')}
if [ -z "$PKG" ]; then
	timeout 300 apt-get update -qq || true
	PKG=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
fi
if [ -z "$PKG" ]; then # offline: whatever was fetched before
	deb=$(ls -1t "$OUT"/debs/linux-image-*.deb 2>/dev/null | head -1 || true)
	[ -n "$deb" ] || die "cannot resolve linux-image-amd64 and no kernel package is cached in $OUT/debs"
	PKG=$(dpkg-deb -f "$deb" Package)
fi
KVER=${PKG#linux-image-}
deb=$(ls -1t "$OUT"/debs/"$PKG"_*.deb 2>/dev/null | head -1 || true)
if [ -z "$deb" ]; then
	log "apt-get download $PKG"
	tmp=$(mktemp -d "$OUT/debs/.dl.XXXXXX")
	chown _apt "$tmp" 2>/dev/null || true # apt downloads as _apt
	(cd "$tmp" && timeout 600 apt-get download -qq "$PKG") || {
		rm -rf "$tmp"
		die "apt-get download $PKG failed"
	}
	mv "$tmp"/*.deb "$OUT/debs/"
	rm -rf "$tmp"
	deb=$(ls -1t "$OUT"/debs/"$PKG"_*.deb | head -1)
fi
KDIR=$OUT/kernel/$KVER
if [ ! -e "$KDIR/.done" ]; then
	log "unpacking $(basename "$deb")"
	rm -rf "$KDIR" "$KDIR.tmp"
	mkdir -p "$KDIR.tmp"
	dpkg -x "$deb" "$KDIR.tmp/x"
	mv "$KDIR.tmp/x/boot/vmlinuz-$KVER" "$KDIR.tmp/vmlinuz"
	mv "$KDIR.tmp/x/boot/config-$KVER" "$KDIR.tmp/config"
	rm -rf "$KDIR.tmp/x" # no modules: everything the tests use is built in
	# The uncompressed ELF boots through the PVH entry point, skipping the
	# firmware and the XZ decompression (~4 s under TCG).
	for off in $(LC_ALL=C grep -abo $'\xfd7zXZ' "$KDIR.tmp/vmlinuz" | head -5 | cut -d: -f1); do
		tail -c +$((off + 1)) "$KDIR.tmp/vmlinuz" | xz -dc >"$KDIR.tmp/vmlinux" 2>/dev/null || true
		[ "$(head -c4 "$KDIR.tmp/vmlinux" | od -An -c | tr -d ' ')" = '177ELF' ] && break
		rm -f "$KDIR.tmp/vmlinux"
	done
	: >"$KDIR.tmp/.done"
	mv "$KDIR.tmp" "$KDIR"
fi
KERNEL=$KDIR/vmlinux
[ -s "$KERNEL" ] || KERNEL=$KDIR/vmlinuz

# ---- the initramfs: busybox, /init, and /payload (clasp, rootfs, bundles, tests)
R=$OUT/initramfs
rm -rf "$R"
mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,root,payload}
cp "$BUSYBOX" "$R/bin/busybox"
for p in $("$BUSYBOX" --list-full); do
	[ -e "$R/$p" ] || ln -s /bin/busybox "$R/$p"
done
install -m 0755 "$HERE/init" "$R/init"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$R/etc/passwd"
printf 'root:x:0:\ntty:x:5:\nnogroup:x:65534:\n' >"$R/etc/group"
# the rootless cases' test user (busybox su switches to it inside the VM)
TUID=1000
printf 'tester:x:%d:%d:tester:/home/tester:/bin/sh\n' $TUID $TUID >>"$R/etc/passwd"
printf 'tester:x:%d:\n' $TUID >>"$R/etc/group"
install -d -m 0700 -o $TUID -g $TUID "$R/home/tester"
# the kernel opens /dev/console for init before devtmpfs is mounted
mknod -m 600 "$R/dev/console" c 5 1
install -m 0755 "$CLASP" "$R/payload/clasp"
install -m 0644 "$HERE/cgroup2-tests.sh" "$R/payload/cgroup2-tests.sh"
RF=$R/payload/rootfs
mkdir -p "$RF"/{bin,proc,sys,dev,tmp,etc,root}
cp "$BUSYBOX" "$RF/bin/busybox"
for a in $("$BUSYBOX" --list); do [ "$a" = busybox ] || ln -s busybox "$RF/bin/$a"; done
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$RF/etc/passwd"
printf 'root:x:0:\n' >"$RF/etc/group"

GATE='while [ ! -e /dev/shm/go ]; do sleep 0.1; done; '
bundle() { # bundle NAME 'shell command' 'jq filter on the config'
	mkdir -p "$R/payload/b-$1"
	jq --arg cmd "$2" '.root.path = "/payload/rootfs" | .process.args = ["sh", "-c", $cmd] | '"$3" \
		"$REPO/tests/fixtures/config.json" >"$R/payload/b-$1/config.json"
}
bundle mem "$GATE"'dd if=/dev/zero of=/dev/null bs=8M count=1 2>/dev/null; echo small=$?
	dd if=/dev/zero of=/dev/null bs=32M count=1 2>/dev/null; echo big=$?; sleep 1000' \
	'.linux.resources = {"memory": {"limit": 16777216, "swap": 16777216}}'
bundle run16 'dd if=/dev/zero of=/dev/null bs=8M count=1 2>/dev/null && echo fits
	dd if=/dev/zero of=/dev/null bs=32M count=1 2>/dev/null; echo big=$?' \
	'.linux.resources = {"memory": {"limit": 16777216}}'
bundle pids "$GATE"'sh -c "while :; do sleep 1000 & done" 2>/dev/null; echo stopped-at-limit; exec sleep 1000' \
	'.linux.resources = {"pids": {"limit": 10}}'
bundle cpu 'while :; do :; done' \
	'.linux.resources = {"cpu": {"quota": 20000, "period": 100000, "shares": 512}}'
KMSG='.mounts += [{"destination": "/dev/kmsg", "type": "bind", "source": "/dev/kmsg", "options": ["bind"]}]'
bundle devdeny 'true </dev/null && echo null-ok; true >/dev/kmsg && echo kmsg-ok; echo done; sleep 1000' \
	"$KMSG"' | .linux.resources = {"devices": [{"allow": false, "access": "rwm"}]}'
bundle devallow 'true >/dev/kmsg && echo kmsg-ok; echo done; sleep 1000' \
	"$KMSG"' | .linux.resources = {"devices": [{"allow": false, "access": "rwm"},
		{"allow": true, "type": "c", "major": 1, "minor": 11, "access": "w"}]}'
bundle counter 'i=0; while :; do i=$((i+1)); echo $i >/dev/shm/count; sleep 0.1; done' '.'
bundle sleep 'sleep 1000' \
	'.linux.resources = {"memory": {"limit": 67108864}, "pids": {"limit": 50}, "cpu": {"quota": 50000, "period": 100000}}'
bundle escape '(setsid sleep 1003 </dev/null >/dev/null 2>&1 &); sleep 1004 & echo started; wait' \
	'del(.linux.namespaces[] | select(.type == "pid"))'

# rootless: `clasp spec --rootless` run as the test user's uid (a single-id
# user namespace mapping of it), then the same kind of cases on top
tmp=$(mktemp -d "$OUT/.spec.XXXXXX")
chown $TUID:$TUID "$tmp"
(cd "$tmp" && setpriv --reuid=$TUID --regid=$TUID --clear-groups "$CLASP" spec --rootless) ||
	{ rm -rf "$tmp"; die "clasp spec --rootless as uid $TUID failed"; }
mv "$tmp/config.json" "$OUT/rootless.json"
rm -rf "$tmp"
rbundle() { # rbundle NAME 'shell command' 'jq filter on the spec --rootless config'
	mkdir -p "$R/payload/r-$1"
	jq --arg cmd "$2" '.root.path = "/payload/rootfs" | .process.args = ["sh", "-c", $cmd] |
		.process.terminal = false | '"$3" "$OUT/rootless.json" >"$R/payload/r-$1/config.json"
	chown -R $TUID:$TUID "$R/payload/r-$1"
}
rbundle hello 'echo hello-rootless' '.'
rbundle nodeleg 'echo should-not-run' '.linux.resources = {"memory": {"limit": 33554432}}'
rbundle limits "$GATE"'sh -c "while :; do sleep 1000 & done" 2>/dev/null; echo stopped-at-limit; exec sleep 1000' \
	'.linux.cgroupsPath = "/tester/rl" | .linux.resources = {"memory": {"limit": 33554432}, "pids": {"limit": 10}}'
rbundle run16 'dd if=/dev/zero of=/dev/null bs=8M count=1 2>/dev/null && echo fits
	dd if=/dev/zero of=/dev/null bs=32M count=1 2>/dev/null; echo big=$?' \
	'.linux.cgroupsPath = "run16" | .linux.resources = {"memory": {"limit": 16777216}}'

(cd "$R" && find . -mindepth 1 | sed 's,^\./,,' | "$BUSYBOX" cpio -o -H newc 2>/dev/null) >"$OUT/initrd"

# ---- boot
CMDLINE="console=ttyS0 panic=-1 oops=panic cgroup_no_v1=all systemd.unified_cgroup_hierarchy=1 rdinit=/init"
CMDLINE+=" quiet loglevel=1 edd=off tsc=reliable no_timer_check cryptomgr.notests"
# skip the delay-loop calibration (~0.5 s per CPU under TCG): the guest TSC runs at the host's rate
hz=$(sed -n 's/^CONFIG_HZ=//p' "$KDIR/config")
bogo=$(awk '/^bogomips/ { print $3; exit }' /proc/cpuinfo)
[ -z "$hz" ] || [ -z "$bogo" ] || CMDLINE+=" lpj=$(awk -v b="$bogo" -v h="$hz" 'BEGIN { printf "%d", b * 500000 / h }')"
SERIAL=${VM_LOG:-$OUT/serial.log}
log "booting $KVER ($(basename "$KERNEL")) under qemu (TCG), timeout ${TIMEOUT}s"
T0=$SECONDS
set +e
# KVM does not boot Debian's kernel on this project's hosts (PVM); TCG always works.
timeout -k 5 "$TIMEOUT" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -nographic -no-reboot \
	-nodefaults -serial stdio -m "$MEM" -smp 2 -nic none \
	-kernel "$KERNEL" -initrd "$OUT/initrd" -append "$CMDLINE" </dev/null 2>&1 |
	tr -d '\r' | tee "$SERIAL" |
	sed -u -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' -e 's/^Booting from ROM\.*//' \
		-e '/^SeaBIOS /d' -e '/^VM-EXIT-CODE=/d' -e '/reboot: Power down$/d' -e '/^$/d'
qrc=${PIPESTATUS[0]}
set -e
log "VM ran $((SECONDS - T0)) s"
code=$(sed -n 's/^.*VM-EXIT-CODE=\([0-9][0-9]*\)$/\1/p' "$SERIAL" | tail -1)
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$SERIAL" | tail -1 || true)
if [ -z "$code" ]; then
	[ "$qrc" -eq 124 ] && log "TIMEOUT after ${TIMEOUT}s" || log "the VM stopped without a result (qemu status $qrc)"
	echo "${summary:-0 passed, 1 failed}"
	exit 1
fi
[ -n "$summary" ] || summary="0 passed, 1 failed"
log "result: $summary"
[ "$code" -eq 0 ] && exit 0
exit 1
