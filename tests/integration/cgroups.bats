#!/usr/bin/env bats
# Resource limits and the cgroup operations through the real binary, on this
# machine's layout (v1, hybrid or v2): each limit lands in its controller's
# file and is enforced; pause/resume, update, ps, events and kill --all work
# on a running container; and after every test the container's cgroup
# directories are gone. The directories are found from /proc/PID/cgroup (the
# runtime decides where they live); only the container's own are read, and
# nothing here writes to any cgroup file.

load helpers

CONTROLLERS=(memory pids cpu cpuacct freezer devices blkio cpuset)

setup() {
	common_setup
	CG_FILE=$BATS_TEST_TMPDIR/.cgdirs
	: >"$CG_FILE"
}

teardown() {
	local rc=0 d
	common_teardown || rc=1
	while read -r d; do
		[ -n "$d" ] || continue
		if [ -d "$d" ]; then
			echo "teardown: cgroup left behind: $d" >&2
			rc=1
		fi
	done <"$CG_FILE"
	return $rc
}

# cg_mount CONTROLLER: the mount point of the v1 hierarchy holding it; "" = the cgroup2 mount.
cg_mount() {
	awk -v c="$1" '{
		for (i = 7; i <= NF && $i != "-"; i++) ;
		if (c == "" && $(i+1) == "cgroup2") { print $5; exit }
		if (c != "" && $(i+1) == "cgroup") {
			n = split($(i+3), o, ","); for (j = 1; j <= n; j++) if (o[j] == c) { print $5; exit }
		}
	}' /proc/self/mountinfo
}

# cg_dir PID CONTROLLER: PID's cgroup directory for a v1 controller, or "" for the cgroup2 one.
cg_dir() {
	local pid=$1 c=$2 rel mnt
	if [ -n "$c" ]; then
		rel=$(awk -F: -v c="$c" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3 }' "/proc/$pid/cgroup")
	else
		rel=$(awk -F: '$1 == "0" && $2 == "" { print $3 }' "/proc/$pid/cgroup")
	fi
	mnt=$(cg_mount "$c")
	[ -n "$rel" ] && [ -n "$mnt" ] || return 1
	echo "$mnt${rel%/}"
}

# cg_file ID FILE: the path of a cgroup file of the container, in whichever hierarchy holds it.
cg_file() {
	local f=$2 c d
	c=${f%%.*}
	case $c in cgroup) c= ;; esac
	d=$(cg_dir "$(ct_pid "$1")" "$c" 2>/dev/null) || d=$(cg_dir "$(ct_pid "$1")" "")
	[ -e "$d/$f" ] || d=$(cg_dir "$(ct_pid "$1")" "")
	echo "$d/$f"
}

# track ID: remember every cgroup directory of the running container, so teardown can check
# they are gone; each must be the container's own (named after its ID).
track() {
	local id=$1 pid c d
	pid=$(ct_pid "$id")
	[ -n "$pid" ] && [ "$pid" != 0 ] && [ "$pid" != null ]
	for c in "${CONTROLLERS[@]}" ""; do
		d=$(cg_dir "$pid" "$c") || continue
		[ -d "$d" ] || continue
		case $d in
		*/"$id") ;;
		*)
			echo "container $id is in cgroup $d, which is not its own" >&2
			return 1
			;;
		esac
		echo "$d" >>"$CG_FILE"
	done
	[ -s "$CG_FILE" ]
}

# start ID 'shell command' [jq resources]: run -d with the given linux.resources.
start() {
	local id=$1
	set_cmd "$2"
	[ -z "${3:-}" ] || update_config ".linux.resources = $3"
	run_d "$id"
	[ "$status" -eq 0 ] || {
		echo "$output" >&2
		return 1
	}
	track "$id"
}

# shm ID: the container's /dev/shm seen from the host.
shm() {
	echo "/proc/$(ct_pid "$1")/root/dev/shm"
}

# counter ID: the value of the counter loop's file.
counter() {
	cat "$(shm "$1")/count" 2>/dev/null || echo 0
}

# GATE: the command waits for `go ID`, so the test sees the container before it acts.
GATE='while [ ! -e /dev/shm/go ]; do sleep 0.02; done; '

go() {
	touch "$(shm "$1")/go"
}

COUNTER='i=0; while :; do i=$((i+1)); echo $i >/dev/shm/count; sleep 0.02; done'

# events_bg ID ARGS...: `events` in the background, its output in $EV_OUT.
events_bg() {
	local id=$1
	shift
	EV_OUT=$BATS_TEST_TMPDIR/events.out
	timeout 60 "$RUNTIME" --root "$CT_ROOT" events "$@" "$id" >"$EV_OUT" 2>"$EV_OUT.err" </dev/null &
	EV_PID=$!
}

@test "memory limit: the limit file, an allocation past it is OOM-killed, events sees the oom" {
	id=$(new_id)
	start "$id" "$GATE"'
		dd if=/dev/zero of=/dev/null bs=32M count=1 2>/dev/null; echo small=$?
		dd if=/dev/zero of=/dev/null bs=100M count=1 2>/dev/null; echo big=$?
		sleep 1000' '{"memory": {"limit": 67108864}}'
	[ "$(cat "$(cg_file "$id" memory.limit_in_bytes 2>/dev/null)" 2>/dev/null || cat "$(cg_file "$id" memory.max)")" = 67108864 ]
	events_bg "$id" --interval 10s
	sleep 0.5
	go "$id"
	wait_for_output "$CT_OUT" big=
	grep -q 'small=0' "$CT_OUT"
	grep -q 'big=137' "$CT_OUT"
	for ((i = 0; i < 40; i++)); do
		grep -q '"type":"oom"' "$EV_OUT" && break
		sleep 0.05
	done
	run jq -c 'select(.type == "oom")' "$EV_OUT"
	[ "$output" = "{\"type\":\"oom\",\"id\":\"$id\"}" ]
	# the init survived; events ends when the container stops
	[ "$(ct_status "$id")" = running ]
	rt kill "$id" KILL
	wait "$EV_PID"
}

@test "clasp run with linux.resources.memory.limit = 64M enforces it" {
	update_config '.linux.resources = {"memory": {"limit": 67108864}}'
	in_container 'dd if=/dev/zero of=/dev/null bs=48M count=1 2>/dev/null && echo fits; dd if=/dev/zero of=/dev/null bs=80M count=1 2>/dev/null; echo big=$?'
	[ "$status" -eq 0 ]
	[[ "$output" == *fits* ]]
	[[ "$output" == *big=137* ]]
}

@test "pids limit stops a fork bomb at the limit" {
	id=$(new_id)
	# ash gives up at its first failed fork, so the bomb runs in a child shell; the init then
	# only execs (no fork) and stays to be looked at
	start "$id" "$GATE"'sh -c "while :; do sleep 1000 & done" 2>/dev/null; echo stopped-at-limit; exec sleep 1000' \
		'{"pids": {"limit": 20}}'
	[ "$(cat "$(cg_file "$id" pids.max)")" = 20 ]
	go "$id"
	wait_for_output "$CT_OUT" stopped-at-limit
	# the kernel refused forks at the limit: the bomb's shell died there, its children stay
	[ "$(awk '$1 == "max" { print $2 }' "$(cg_file "$id" pids.events)")" -gt 0 ]
	n=$(cat "$(cg_file "$id" pids.current)")
	[ "$n" -ge 18 ] && [ "$n" -le 20 ]
	run rt ps --format json "$id"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq length)" -eq "$n" ]
	rt kill --all "$id" KILL
	wait_for_state "$id" stopped
}

@test "cpu quota lands in the right file and throttles" {
	id=$(new_id)
	start "$id" 'while :; do :; done' '{"cpu": {"quota": 20000, "period": 100000, "shares": 512}}'
	local d
	if d=$(cg_dir "$(ct_pid "$id")" cpu) && [ -e "$d/cpu.cfs_quota_us" ]; then
		[ "$(cat "$d/cpu.cfs_quota_us")" = 20000 ]
		[ "$(cat "$d/cpu.cfs_period_us")" = 100000 ]
		[ "$(cat "$d/cpu.shares")" = 512 ]
	else
		d=$(cg_dir "$(ct_pid "$id")" "")
		[ "$(cat "$d/cpu.max")" = "20000 100000" ]
	fi
	sleep 1
	[ "$(awk '$1 == "nr_throttled" { print $2 }' "$d/cpu.stat")" -gt 0 ]
}

@test "a device rule denies opening a device node" {
	id=$(new_id)
	update_config '.mounts += [{"destination": "/dev/tun", "type": "bind", "source": "/dev/net/tun", "options": ["bind"]}]'
	# `true` rather than exec: a failed redirection of a special builtin would end the shell
	start "$id" 'true </dev/null && echo null-ok; true </dev/tun && echo tun-ok; echo done; sleep 1000' \
		'{"devices": [{"allow": false, "access": "rwm"}]}'
	wait_for_output "$CT_OUT" done
	grep -q null-ok "$CT_OUT"
	refute grep -q tun-ok "$CT_OUT"
	grep -q 'Operation not permitted' "$CT_ERR"
	local d
	if d=$(cg_dir "$(ct_pid "$id")" devices) && [ -e "$d/devices.list" ]; then
		grep -qx 'c 1:3 rwm' "$d/devices.list"
		refute grep -q '^c 10:200' "$d/devices.list"
		refute grep -q '^a ' "$d/devices.list"
	fi
	# the same node opens when a rule allows it
	id2=$(new_id)
	start "$id2" 'true </dev/tun && echo tun-ok; echo done; sleep 1000' \
		'{"devices": [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "major": 10, "minor": 200, "access": "r"}]}'
	wait_for_output "$CT_OUT" done
	grep -q tun-ok "$CT_OUT"
}

@test "pause freezes a counter loop and resume continues it" {
	id=$(new_id)
	start "$id" "$COUNTER"
	for ((i = 0; i < 100; i++)); do [ "$(counter "$id")" -gt 2 ] && break; sleep 0.05; done
	rt pause "$id"
	[ "$(ct_status "$id")" = paused ]
	local f
	f=$(cg_file "$id" freezer.state)
	if [ -e "$f" ]; then
		[ "$(cat "$f")" = FROZEN ]
	else
		[ "$(cat "$(cg_file "$id" cgroup.freeze)")" = 1 ]
	fi
	a=$(counter "$id")
	sleep 0.5
	[ "$(counter "$id")" -eq "$a" ]
	run rt list --format json
	[ "$(echo "$output" | jq -r --arg id "$id" '.[] | select(.id == $id) | .status')" = paused ]
	run rt pause "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"container not running"* ]]
	rt resume "$id"
	[ "$(ct_status "$id")" = running ]
	for ((i = 0; i < 100; i++)); do [ "$(counter "$id")" -gt "$a" ] && break; sleep 0.05; done
	[ "$(counter "$id")" -gt "$a" ]
	run rt resume "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"container not paused"* ]]
	# a paused container can still be killed and deleted
	rt pause "$id"
	rt delete --force "$id"
}

@test "pause of a stopped container: container not running" {
	id=$(new_id)
	start "$id" "$GATE"'true'
	go "$id"
	wait_for_state "$id" stopped
	run rt pause "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"container not running"* ]]
	run rt resume "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"container not paused"* ]]
}

@test "update changes limits of a running container (flags and --resources)" {
	id=$(new_id)
	start "$id" 'sleep 1000' '{"memory": {"limit": 67108864}, "pids": {"limit": 50}, "cpu": {"quota": 50000, "period": 100000}}'
	rt update --memory 96m --pids-limit 33 --cpu-quota 25000 --cpu-period 50000 --cpu-shares 300 "$id"
	local mem
	mem=$(cg_file "$id" memory.limit_in_bytes)
	[ -e "$mem" ] || mem=$(cg_file "$id" memory.max)
	[ "$(cat "$mem")" = $((96 << 20)) ]
	[ "$(cat "$(cg_file "$id" pids.max)")" = 33 ]
	local d
	if d=$(cg_dir "$(ct_pid "$id")" cpu) && [ -e "$d/cpu.cfs_quota_us" ]; then
		[ "$(cat "$d/cpu.cfs_quota_us")" = 25000 ]
		[ "$(cat "$d/cpu.cfs_period_us")" = 50000 ]
		[ "$(cat "$d/cpu.shares")" = 300 ]
	fi
	echo '{"memory": {"limit": 83886080}, "pids": {"limit": -1}}' | rt update --resources - "$id"
	[ "$(cat "$mem")" = 83886080 ]
	[ "$(cat "$(cg_file "$id" pids.max)")" = max ]
	# --resources FILE
	echo '{"pids": {"limit": 3}}' >"$BATS_TEST_TMPDIR/res.json"
	rt update -r "$BATS_TEST_TMPDIR/res.json" "$id"
	[ "$(cat "$(cg_file "$id" pids.max)")" = 3 ]
	# bad input names what is wrong and changes nothing
	run rt update --memory lots "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *'--memory: invalid size "lots"'* ]]
	run rt update --kernel-memory 1m "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not supported"* ]]
	run rt update --resources - "$id" <<<'{"memory": {"limit": "64m"}}'
	[ "$status" -ne 0 ]
	[[ "$output" == *".memory.limit"* ]]
	[ "$(cat "$mem")" = 83886080 ]
}

@test "update of a stopped container fails" {
	id=$(new_id)
	start "$id" "$GATE"'true'
	go "$id"
	wait_for_state "$id" stopped
	run rt update --memory 64m "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"stopped"* ]]
}

@test "ps lists the container's processes (json and table)" {
	id=$(new_id)
	start "$id" 'sleep 1001 & echo started; wait'
	wait_for_output "$CT_OUT" started
	pid=$(ct_pid "$id")
	child=$(pgrep -P "$pid" -x sleep)
	[ -n "$child" ]
	run rt ps --format json "$id"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -c 'sort')" = "$(jq -nc --argjson a "$pid" --argjson b "$child" '[$a, $b] | sort')" ]
	run rt ps "$id"
	[ "$status" -eq 0 ]
	[ "${lines[0]%% *}" = UID ]
	[ "${#lines[@]}" -eq 3 ]
	[[ "$output" == *"sleep 1001"* ]]
	run rt ps "$id" -o pid,comm
	[ "$status" -eq 0 ]
	[ "$(echo "${lines[0]}" | awk '{print $1}')" = PID ]
	echo "$output" | awk -v c="$child" '$1 == c && $2 == "sleep" { f = 1 } END { exit !f }'
	# a ps(1) format without a PID column cannot be filtered
	run rt ps "$id" -o comm
	[ "$status" -ne 0 ]
	[[ "$output" == *"PID"* ]]
}

@test "ps lists an exec'd process" {
	id=$(new_id)
	start "$id" 'sleep 1000'
	# the exec'd process inherits stdio: keep it away from bats' output pipe
	rt_bg exec -d "$id" sleep 1002
	if [[ "$output" == *"not implemented"* ]]; then
		skip "exec is not implemented yet"
	fi
	[ "$status" -eq 0 ]
	for ((i = 0; i < 100; i++)); do
		run rt ps "$id"
		[[ "$output" == *"sleep 1002"* ]] && break
		sleep 0.05
	done
	[[ "$output" == *"sleep 1002"* ]]
	run rt ps --format json "$id"
	[ "$(echo "$output" | jq length)" -eq 2 ]
}

@test "events --stats parses and its numbers move" {
	id=$(new_id)
	start "$id" 'while :; do :; done' '{"memory": {"limit": 67108864}, "pids": {"limit": 50}}'
	run rt events --stats "$id"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	echo "$output" | jq -e --arg id "$id" '.type == "stats" and .id == $id'
	echo "$output" | jq -e '.data.memory.usage.limit == 67108864 and .data.pids.limit == 50 and .data.pids.current == 1'
	echo "$output" | jq -e '.data.cpu.usage.total > 0 and (.data.memory.usage.usage > 0)'
	echo "$output" | jq -e '(.data | has("blkio")) and (.data | has("hugetlb"))'
	t1=$(echo "$output" | jq .data.cpu.usage.total)
	sleep 0.5
	t2=$(rt events --stats "$id" | jq .data.cpu.usage.total)
	[ "$t2" -gt "$t1" ]
	# the stream: one stats line per interval, until the container stops
	events_bg "$id" --interval 200ms
	sleep 1.1
	rt kill "$id" KILL
	wait "$EV_PID"
	n=$(jq -s 'map(select(.type == "stats")) | length' "$EV_OUT")
	[ "$n" -ge 3 ]
	[ "$n" -le 7 ]
	run jq -s 'map(.data.cpu.usage.total) | (. == sort) and (first < last)' "$EV_OUT"
	[ "$output" = true ]
}

@test "events: bad arguments" {
	id=$(new_id)
	start "$id" 'sleep 1000'
	run rt events --interval 5 "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"--interval"* ]]
	run rt events --interval 0s "$id"
	[ "$status" -ne 0 ]
	run rt events --stats ct-$$-nope
	[ "$status" -ne 0 ]
	[[ "$output" == *"does not exist"* ]]
}

@test "kill --all kills everything in the cgroup, including escaped processes" {
	id=$(new_id)
	# no pid namespace: a double-forked daemon is reparented out of the init's tree
	update_config 'del(.linux.namespaces[] | select(.type == "pid"))'
	start "$id" '(setsid sleep 1003 </dev/null >/dev/null 2>&1 &); sleep 1004 & echo started; wait'
	wait_for_output "$CT_OUT" started
	run rt ps --format json "$id"
	pids=$(echo "$output" | jq -r '.[]')
	[ "$(echo "$pids" | wc -l)" -eq 3 ]
	pid=$(ct_pid "$id")
	daemon=$(pgrep -f '^sleep 1003$')
	[ -n "$daemon" ]
	[ "$(awk '{print $4}' "/proc/$daemon/stat")" != "$pid" ]
	rt kill --all "$id" KILL
	for ((i = 0; i < 100; i++)); do
		alive=0
		for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ $alive = 0 ] && break
		sleep 0.05
	done
	[ $alive = 0 ]
	wait_for_state "$id" stopped
	run rt ps --format json "$id"
	[ "$output" = "[]" ]
}

@test "delete --force of a running container removes its cgroups" {
	id=$(new_id)
	start "$id" 'sleep 1005 & sleep 1000'
	rt delete --force "$id"
	while read -r d; do [ ! -d "$d" ]; done <"$CG_FILE"
}

@test "pause, resume, update, ps and events document their flags" {
	run rt pause --help
	[[ "$output" == Usage:* ]]
	run rt resume -h
	[[ "$output" == Usage:* ]]
	run rt update --help
	for f in --resources --memory --memory-swap --memory-reservation --kernel-memory --cpu-shares \
		--cpu-quota --cpu-period --cpu-rt-period --cpu-rt-runtime --cpuset-cpus --cpuset-mems \
		--pids-limit --blkio-weight --l3-cache-schema --mem-bw-schema; do
		[[ "$output" == *"$f "* ]]
	done
	run rt ps --help
	[[ "$output" == *--format* ]]
	run rt events --help
	[[ "$output" == *--stats* ]]
	[[ "$output" == *--interval* ]]
}
