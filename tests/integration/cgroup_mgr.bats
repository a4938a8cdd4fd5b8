#!/usr/bin/env bats
# The cgroup manager (src/linux/cgroup) driven directly through its live
# unit program, on this machine's layout: limits land in the right files,
# freeze/thaw, stats, OOM count, pids limit, device rules (v1 files and the
# eBPF program), kill of escaped processes, and nothing left behind.
# Runs without the runtime binary; cgroups are made only under "clasp/".

REPO_DIR=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
BUILD=${BUILD:-$REPO_DIR/build}

setup_file() {
	for t in test_cgroup_live test_cgroup_convert; do
		if [ ! -x "$BUILD/unit/$t" ]; then
			timeout 300 make -C "$REPO_DIR" "$BUILD/unit/$t" >/dev/null
		fi
	done
}

leftovers() {
	# every directory the live test makes is named cgtest-<pid>[-suffix]
	timeout 30 find /sys/fs/cgroup -maxdepth 6 -type d -name 'cgtest-*' 2>/dev/null
}

expected_layout() {
	local t
	t=$(stat -f -c %T /sys/fs/cgroup)
	if [ "$t" = cgroup2fs ]; then
		echo v2
	elif [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
		echo hybrid
	else
		echo v1
	fi
}

@test "cgroup conversions (runc formulas, device eBPF semantics)" {
	run timeout 60 "$BUILD/unit/test_cgroup_convert"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 failed"* ]]
}

@test "cgroup manager on this host: limits, freeze, stats, OOM, pids, devices, kill, destroy" {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	[ -d /sys/fs/cgroup ] || skip "no /sys/fs/cgroup"
	run timeout 120 "$BUILD/unit/test_cgroup_live"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 failed"* ]]
	[[ "$output" != *skipped* ]]
	[[ "$output" == *"layout: $(expected_layout)"* ]]
}

@test "no cgroup directory is left behind" {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	run timeout 120 "$BUILD/unit/test_cgroup_live"
	[ "$status" -eq 0 ]
	run leftovers
	echo "$output"
	[ -z "$output" ]
}
