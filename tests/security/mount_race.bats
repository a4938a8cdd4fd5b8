#!/usr/bin/env bats
# CVE-2021-30465 class: mount destinations cannot be raced.
# runc checked a mount destination inside the rootfs and then mounted on the path string; a
# container sharing a volume swapped a directory on that path with a symlink to / in between, and
# the mount landed on the host's tree. Here a background loop swaps, in a shared volume, the
# directory d with a symlink to / (renameat2 RENAME_EXCHANGE, as fast as it can) while containers
# whose mounts go through /mnt/d start. 20 containers; STRESS=1: 200.
# The host / is never mounted over, nothing is created at the host's root, the host's mount
# table is unchanged, and inside each container (seen by a createContainer hook before
# pivot_root) every new mount lies inside the rootfs.

load ../integration/helpers

setup_file() {
	common_setup_file
	cat >"$BATS_FILE_TMPDIR/swapper.c" <<'EOF'
/* swapper A B STOPFILE: exchange A and B until STOPFILE exists (at most 600 s). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE 2
#endif
int main(int argc, char **argv)
{
	time_t end = time(NULL) + 600;
	unsigned long n = 0;
	if (argc < 4)
		return 2;
	while (time(NULL) < end) {
		for (int i = 0; i < 1000; i++, n++)
			if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) < 0) {
				perror("renameat2");
				return 1;
			}
		if (access(argv[3], F_OK) == 0)
			break;
	}
	printf("%lu swaps\n", n);
	return 0;
}
EOF
	gcc -O2 -o "$BATS_FILE_TMPDIR/swapper" "$BATS_FILE_TMPDIR/swapper.c"
}

teardown() {
	touch "$BATS_TEST_TMPDIR/stop" 2>/dev/null || true
	[ -z "${SWAPPER_PID:-}" ] || {
		kill "$SWAPPER_PID" 2>/dev/null || true
		wait "$SWAPPER_PID" 2>/dev/null || true
	}
	common_teardown
}

# Mount points of a mountinfo file, one per line (field 5).
mount_points() {
	awk '{print $5}' "$1" | sort
}

@test "CVE-2021-30465: a directory swapped with a symlink to / cannot redirect mounts" {
	local n=20
	[ "${STRESS:-}" = 1 ] && n=200
	TAG=clasp-race-$$-$BATS_TEST_NUMBER
	V=$BATS_TEST_TMPDIR/vol
	SRC=$BATS_TEST_TMPDIR/src
	MI=$BATS_TEST_TMPDIR/mi
	# A private rootfs: the symlink resolved inside it creates mount points there.
	make_bundle --copy
	ROOTFS=$BUNDLE/rootfs
	mkdir -p "$V/d/$TAG-m" "$V/d/$TAG-b" "$SRC" "$MI"
	echo from-src >"$SRC/marker"
	ln -s / "$V/l"
	chmod -R a+rX "$V" "$SRC"
	traversable "$V" "$SRC"
	# The hook records the container's mount table before pivot_root.
	cat >"$BATS_TEST_TMPDIR/hook.sh" <<EOF
#!/bin/sh
cat >/dev/null
cat /proc/self/mountinfo >"$MI/\$(date +%s%N)"
EOF
	chmod 755 "$BATS_TEST_TMPDIR/hook.sh"
	update_config ".mounts += [
		{\"destination\": \"/mnt\", \"type\": \"bind\", \"source\": \"$V\", \"options\": [\"rbind\"]},
		{\"destination\": \"/mnt/d/$TAG-m\", \"type\": \"tmpfs\", \"source\": \"tmpfs\", \"options\": [\"size=64k\"]},
		{\"destination\": \"/mnt/d/$TAG-b\", \"type\": \"bind\", \"source\": \"$SRC\", \"options\": [\"bind\"]}]
		| .hooks.createContainer = [{\"path\": \"$BATS_TEST_TMPDIR/hook.sh\", \"timeout\": 10}]"
	set_cmd "ls /mnt/d/$TAG-b/ 2>&1; true"

	host_before=$BATS_TEST_TMPDIR/host-before
	cp /proc/self/mountinfo "$host_before"
	mount_points "$host_before" >"$BATS_TEST_TMPDIR/host-points"
	roots_before=$(awk '$5 == "/"' /proc/self/mountinfo | wc -l)

	"$BATS_FILE_TMPDIR/swapper" "$V/d" "$V/l" "$BATS_TEST_TMPDIR/stop" >"$BATS_TEST_TMPDIR/swaps" 2>&1 &
	SWAPPER_PID=$!
	ok=0 refused=0
	for ((i = 0; i < n; i++)); do
		id=$(new_id)
		if rt run --bundle "$BUNDLE" "$id" </dev/null >"$BATS_TEST_TMPDIR/out" 2>&1; then
			ok=$((ok + 1))
		else
			refused=$((refused + 1))
		fi
		rt delete --force "$id" >/dev/null 2>&1 || true
		# Nothing may appear at the host's root, at any point.
		[ ! -e "/$TAG-m" ] && [ ! -e "/$TAG-b" ] || {
			echo "container $i created /$TAG-* on the host"
			return 1
		}
	done
	touch "$BATS_TEST_TMPDIR/stop"
	wait "$SWAPPER_PID"
	SWAPPER_PID=
	echo "$n containers: $ok ran, $refused refused; swapper: $(cat "$BATS_TEST_TMPDIR/swaps")"

	# The host's mount table: nothing over /, nothing of ours.
	[ "$(awk '$5 == "/"' /proc/self/mountinfo | wc -l)" -eq "$roots_before" ]
	refute grep -qF "$TAG" /proc/self/mountinfo
	refute grep -qF "$SRC" /proc/self/mountinfo

	# Each container's own table before pivot_root: every mount point that the host does not have
	# lies inside the rootfs (clasp may bind the rootfs itself somewhere first: allow its path).
	local files bad=0 f
	files=$(ls "$MI" | wc -l)
	echo "$files mount tables recorded; new mount points in the first:"
	mount_points "$(ls -d "$MI"/* | head -n1)" | grep -vxF -f "$BATS_TEST_TMPDIR/host-points" | head -n 20
	for f in "$MI"/*; do
		while read -r p; do
			case "$p" in
			"$ROOTFS" | "$ROOTFS"/*) ;;
			*)
				if ! grep -qxF -- "$p" "$BATS_TEST_TMPDIR/host-points"; then
					echo "$(basename "$f"): mount outside the rootfs: $p"
					bad=1
				fi
				;;
			esac
		done < <(mount_points "$f" | uniq)
		# A second mount on / (or on any host mount point) is what the attack aims at.
		if [ "$(awk '$5 == "/"' "$f" | wc -l)" -gt "$roots_before" ]; then
			echo "$(basename "$f"): / mounted over"
			bad=1
		fi
		if awk -v t="$TAG" '$5 ~ "^/" t' "$f" | grep -q .; then
			echo "$(basename "$f"): a mount at the host's /$TAG-*"
			bad=1
		fi
	done
	[ "$bad" -eq 0 ]
	[ "$files" -ge 1 ]
}
