#!/usr/bin/env bats
# Failure injection (issue 9): clasp is killed, its hooks fail, the disk fills, fds run out, the
# same ID is created concurrently, many containers run in parallel. After each, the leak checker
# (scripts/leakcheck.sh: state dirs, processes, mounts, cgroups, egress proxies, workspace
# copies) must print exactly what it printed before.
#
# Short forms by default (`bats -r tests/stress`, part of make check); STRESS=1 runs the long forms
# (`make stress`). Counts: SIGKILLs $KILLS, containers $CONTAINERS.

load ../integration/helpers

LEAKCHECK=$REPO_DIR/scripts/leakcheck.sh
if [ "${STRESS:-0}" = 1 ]; then
	KILLS=100
	CONTAINERS=200
else
	KILLS=10
	CONTAINERS=20
fi

setup_file() {
	common_setup_file
	# Every container ID of this file starts with it, so the machine-wide entries (cgroups,
	# clasp processes) of other clasp users on the machine are not counted.
	export IDPFX="st$$x"
}

setup() {
	common_setup
	make_bundle --copy
	WS=$BATS_TEST_TMPDIR/ws
	mkdir -p "$WS/sub"
	for i in $(seq 50); do echo "file $i" >"$WS/sub/f$i"; done
	echo original >"$WS/file"
	SEQ=0
	MOUNTED=()
}

teardown() {
	local m
	for m in "${MOUNTED[@]}"; do
		# Only the tmpfs this test mounted (the containers' mounts live in their namespaces).
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
	common_teardown
}

# id: a fresh container ID of this file, remembered for teardown.
id() {
	local id="$IDPFX-$BATS_TEST_NUMBER-$((++SEQ))"
	echo "$id" >>"$IDS_FILE"
	ID=$id
}

leaks() {
	(cd / && timeout 60 "$LEAKCHECK" --root "$CT_ROOT" --dir "$BATS_TEST_TMPDIR" --match "$IDPFX" --match "$CT_ROOT")
}

baseline() {
	BASELINE=$(leaks)
}

# assert_no_leaks [WHAT]: the leak checker prints the baseline again.
assert_no_leaks() {
	local now i
	# A killed init's cgroup can take a moment to empty after delete returned (about 2.5 s).
	for i in $(seq 10); do
		now=$(leaks)
		[ "$now" = "$BASELINE" ] && return 0
		sleep 0.1
	done
	echo "leaks after ${1:-the test}:" >&2
	diff <(echo "$BASELINE") <(echo "$now") >&2
	return 1
}

annotate() {
	update_config "$(printf '.annotations[%s] = %s' "$(jq -Rn --arg v "$1" '$v')" "$(jq -Rn --arg v "$2" '$v')")"
}

# sandboxed: workspace scope, copy realization, an egress allowlist: create then makes a state dir,
# a workspace copy, cgroups, an init and an egress proxy, all of which a kill can strand.
sandboxed() {
	annotate ing.paperclip.fs.scope workspace
	annotate ing.paperclip.fs.workspace "$WS"
	annotate ing.paperclip.fs.workspace-target /w
	annotate ing.paperclip.workspace.realization copy
	annotate ing.paperclip.net.scope allowlist
	annotate ing.paperclip.net.allowlist '["127.0.0.1:39799"]'
}

ws_sum() {
	(cd "$1" && find . -path './.clasp-*' -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
}

# ms_now: milliseconds since the epoch.
ms_now() { echo $(($(date +%s%N) / 1000000)); }

@test "SIGKILL at random points during create, then delete --force: nothing left ($KILLS times)" {
	sandboxed
	set_cmd 'sleep 100'
	baseline
	local before_ws
	before_ws=$(ws_sum "$WS")
	# How long an undisturbed create takes here (the fastest of three: the first one is cold) sets
	# the range of the kill points.
	local t0 t1 took=999999 i
	for i in 1 2 3; do
		id
		t0=$(ms_now)
		create "$ID"
		[ "$status" -eq 0 ]
		t1=$(ms_now)
		rt delete --force "$ID"
		((t1 - t0 < took)) && took=$((t1 - t0))
	done
	local span=$((took * 12 / 10 + 5)) n killed=0 finished=0 at pid bad=()
	echo "an undisturbed create takes $took ms; kill points in 0..$span ms" >&3
	for ((n = 0; n < KILLS; n++)); do
		id
		at=$((RANDOM % span))
		# clasp itself, not a wrapper: fexecve keeps the pid, so $! is the process to kill.
		"$RUNTIME" --root "$CT_ROOT" create --bundle "$BUNDLE" "$ID" \
			</dev/null >"$BATS_TEST_TMPDIR/k.out" 2>&1 &
		pid=$!
		sleep "$(printf '0.%03d' "$at")"
		if kill -KILL "$pid" 2>/dev/null; then
			killed=$((killed + 1))
		else
			finished=$((finished + 1))
		fi
		wait "$pid" 2>/dev/null || true
		run rt delete --force "$ID"
		if [ "$status" -ne 0 ]; then
			echo "kill $n at ${at}ms: delete --force failed: $output" >&2
			bad+=("kill $n at ${at}ms: delete --force failed")
			continue
		fi
		if ! assert_no_leaks "kill $n at ${at}ms" 2>"$BATS_TEST_TMPDIR/leak"; then
			# Every kill point is tried: note what was left, clear it, go on.
			bad+=("kill $n at ${at}ms left: $(grep '^> ' "$BATS_TEST_TMPDIR/leak" | cut -d' ' -f2 | sort | uniq -c | xargs)")
			cat "$BATS_TEST_TMPDIR/leak" >&2
			clear_leaks "$BATS_TEST_TMPDIR/leak"
		fi
	done
	echo "killed $killed creates, $finished finished before the kill; ${#bad[@]} of $KILLS left something" >&3
	local b
	for b in "${bad[@]}"; do echo "  $b" >&3; done
	[ "$(ws_sum "$WS")" = "$before_ws" ]
	[ "${#bad[@]}" -eq 0 ]
}

# clear_leaks DIFF: remove what a failed kill left (every line names this test's own container,
# root or directory, as leaks() filters them), so that the next kill starts from the baseline.
clear_leaks() {
	local kind a rest
	while read -r _ kind a rest; do
		case $kind in
		proc) kill -KILL "$a" 2>/dev/null || true ;;
		state | copy) rm -rf "$a" ;;
		esac
	done < <(grep '^> ' "$1")
	sleep 0.2
	while read -r _ kind a rest; do
		[ "$kind" = cgroup ] && rmdir "$a" 2>/dev/null || true
	done < <(grep '^> ' "$1" | sort -r -k3)
	BASELINE=$(leaks)
}

@test "a failing hook at each of the six points: nothing left" {
	local hookdir=$BATS_TEST_TMPDIR/hooks kind
	mkdir -p "$hookdir"
	printf '#!/bin/sh\ncat >/dev/null\necho "hook $1 fails" >&2\nexit 3\n' >"$hookdir/fail.sh"
	chmod 755 "$hookdir/fail.sh"
	# createContainer and startContainer hooks resolve inside the container.
	update_config ".mounts += [{\"destination\": \"$hookdir\", \"type\": \"bind\", \"source\": \"$hookdir\", \"options\": [\"bind\"]}]"
	set_cmd 'sleep 100'
	cp "$BUNDLE/config.json" "$BATS_TEST_TMPDIR/config.base"
	baseline
	for kind in prestart createRuntime createContainer startContainer poststart poststop; do
		jq --arg k "$kind" --arg p "$hookdir/fail.sh" '.hooks[$k] = [{"path": $p, "args": ["fail.sh", $k]}]' \
			"$BATS_TEST_TMPDIR/config.base" >"$BUNDLE/config.json"
		id
		create "$ID"
		case $kind in
		prestart | createRuntime | createContainer)
			echo "$kind: create: $status $output"
			[ "$status" -ne 0 ]
			[[ "$output" == *"hook $kind fails"* || "$output" == *"$kind"* ]]
			# A failed create leaves nothing, even before any delete.
			assert_no_leaks "a failing $kind hook (no delete)"
			;;
		startContainer | poststart)
			[ "$status" -eq 0 ]
			run rt start "$ID"
			echo "$kind: start: $status $output"
			[ "$status" -ne 0 ]
			run rt delete --force "$ID"
			[ "$status" -eq 0 ]
			assert_no_leaks "a failing $kind hook"
			;;
		poststop)
			[ "$status" -eq 0 ]
			rt start "$ID"
			run rt delete --force "$ID"
			echo "$kind: delete: $status $output"
			# runtime.md: a failing poststop hook is logged, and the delete goes on.
			assert_no_leaks "a failing $kind hook"
			;;
		esac
	done
}

# small_tmpfs DIR SIZE: a tmpfs this test owns (removed in teardown).
small_tmpfs() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2,mode=0755" clasp-stress "$1"
	MOUNTED+=("$1")
}

@test "ENOSPC during copy realization: create fails cleanly, the workspace is intact" {
	small_tmpfs "$BATS_TEST_TMPDIR/copydir" 1m
	head -c 3000000 /dev/urandom >"$WS/big"
	local before
	before=$(ws_sum "$WS")
	sandboxed
	annotate ing.paperclip.workspace.copy-dir "$BATS_TEST_TMPDIR/copydir"
	baseline
	id
	create "$ID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "${output,,}" == *"no space left on device"* ]]
	assert_no_leaks "ENOSPC during the copy"
	[ "$(ws_sum "$WS")" = "$before" ]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/copydir")" ]
}

@test "ENOSPC during write-back: the workspace is intact, a second delete completes it" {
	# Workspace and copy share a 4 MiB tmpfs; the agent writes 1.5 MiB into its copy, then the
	# host fills the disk so the write-back cannot place the new file.
	local t=$BATS_TEST_TMPDIR/small
	small_tmpfs "$t" 4m
	WS=$t/ws
	mkdir -p "$WS"
	echo original >"$WS/file"
	echo keep >"$WS/keep"
	sandboxed
	annotate ing.paperclip.fs.workspace "$WS"
	annotate ing.paperclip.workspace.copy-dir "$t"
	set_cmd 'head -c 1500000 /dev/zero >/w/big && echo agent >/w/file && echo new >/w/new && echo done'
	local before
	before=$(ws_sum "$WS")
	baseline
	id
	create "$ID"
	[ "$status" -eq 0 ]
	rt start "$ID"
	wait_for_state "$ID" stopped 20
	wait_for_output "$CT_OUT" done
	# Fill what is left, save 100 KiB.
	local avail
	avail=$(df -k --output=avail "$t" | tail -n1)
	head -c $(((avail - 100) * 1024)) /dev/zero >"$t/filler" || true
	run rt delete "$ID"
	echo "first delete: $status $output"
	[ "$status" -ne 0 ]
	[[ "${output,,}" == *"no space left on device"* ]]
	# Nothing half-written reached the workspace: a write-back applies file by file, so each file is
	# either the host's original or the agent's version, whole.
	ws_sum "$WS"
	[ ! -e "$WS/big" ] || [ "$(stat -c %s "$WS/big")" = 1500000 ]
	[ "$(cat "$WS/keep")" = keep ]
	[ "$(cat "$WS/file")" = original ] || [ "$(cat "$WS/file")" = agent ]
	[ ! -e "$WS/new" ] || [ "$(cat "$WS/new")" = new ]
	[ -z "$(find "$WS" -name '*.clasp-conflict')" ]
	# No temporary file of the write-back is left in the workspace.
	[ -z "$(find "$WS" -name '.clasp-wb-*')" ]
	[ -d "$CT_ROOT/$ID" ]
	ls -d "$t"/.clasp-copy-* >/dev/null
	rm -f "$t/filler"
	run rt delete "$ID"
	echo "second delete: $status $output"
	[ "$status" -eq 0 ]
	[ "$(cat "$WS/file")" = agent ]
	[ "$(cat "$WS/new")" = new ]
	[ "$(cat "$WS/keep")" = keep ]
	[ "$(stat -c %s "$WS/big")" = 1500000 ]
	[ -z "$(ls -d "$t"/.clasp-copy-* 2>/dev/null)" ]
	assert_no_leaks "ENOSPC during write-back"
}

@test "EMFILE under a low fd limit: a clean error or success, nothing left" {
	# A deep tree: undoing a half-made copy must not itself need an fd per level.
	local deep=$WS/$(printf 'd/%.0s' $(seq 40))
	mkdir -p "$deep"
	echo bottom >"$deep/f"
	sandboxed
	set_cmd 'true'
	baseline
	local n failed=0 ok=0
	for n in 256 64 20 16 12 8 6 5 4; do
		id
		status=0
		# Only stdio is inherited (bats' fd 3 closed), so the limit is what clasp really has. The soft
		# limit only: the fixture's RLIMIT_NOFILE 1024 for the container stays possible.
		bash -c 'ulimit -S -n "$1"; shift; exec "$@"' _ "$n" timeout -k 5 20 "$RUNTIME" --root "$CT_ROOT" \
			create --bundle "$BUNDLE" "$ID" </dev/null >"$BATS_TEST_TMPDIR/e.out" 2>&1 3>&- || status=$?
		output=$(cat "$BATS_TEST_TMPDIR/e.out")
		echo "ulimit -n $n: status $status: $output"
		if [ "$status" -eq 0 ]; then
			ok=$((ok + 1))
			rt delete --force "$ID"
		else
			failed=$((failed + 1))
			# A clean error: an exit status (not a signal, not the timeout) and one message.
			[ "$status" -lt 124 ]
			[[ "$output" == *"clasp"* ]]
			[[ "$output" != *"Sanitizer"* && "$output" != *"core dumped"* ]]
			# Nothing left even before a delete.
			assert_no_leaks "create under ulimit -n $n"
			rt delete --force "$ID"
		fi
		assert_no_leaks "ulimit -n $n"
	done
	echo "low fd limit: $ok creates succeeded, $failed failed cleanly" >&3
	[ "$failed" -gt 0 ]
}

@test "10 concurrent creates of the same ID: exactly one succeeds" {
	sandboxed
	set_cmd 'sleep 100'
	baseline
	id
	local i pids=() ok=0
	for i in $(seq 10); do
		timeout -k 5 30 "$RUNTIME" --root "$CT_ROOT" create --bundle "$BUNDLE" "$ID" \
			</dev/null >"$BATS_TEST_TMPDIR/c$i.out" 2>&1 &
		pids+=($!)
	done
	for i in $(seq 10); do
		if wait "${pids[$((i - 1))]}"; then
			ok=$((ok + 1))
		else
			cat "$BATS_TEST_TMPDIR/c$i.out"
		fi
	done
	echo "successes: $ok"
	[ "$ok" -eq 1 ]
	[ "$(ct_status "$ID")" = created ]
	# The losers did not touch the winner: it starts and runs.
	rt start "$ID"
	[ "$(ct_status "$ID")" = running ]
	rt delete --force "$ID"
	assert_no_leaks "concurrent creates"
}

@test "$CONTAINERS containers through create, start, delete on 4 parallel streams: zero leaks" {
	set_cmd 'echo hello'
	baseline
	local s pids=() per=$((CONTAINERS / 4)) t0
	t0=$(date +%s)
	for s in 1 2 3 4; do
		(
			set -e
			for ((i = 1; i <= per; i++)); do
				cid="$IDPFX-$BATS_TEST_NUMBER-s$s-$i"
				echo "$cid" >>"$IDS_FILE"
				rt create --bundle "$BUNDLE" "$cid" </dev/null >"$BATS_TEST_TMPDIR/s$s.out" 2>>"$BATS_TEST_TMPDIR/s$s.err"
				rt start "$cid" 2>>"$BATS_TEST_TMPDIR/s$s.err"
				for ((w = 0; w < 200; w++)); do
					st=$(rt state "$cid" | jq -r .status)
					[ "$st" = stopped ] && break
					sleep 0.05
				done
				[ "$st" = stopped ]
				rt delete "$cid" 2>>"$BATS_TEST_TMPDIR/s$s.err"
			done
			echo ok >"$BATS_TEST_TMPDIR/s$s.done"
		) &
		pids+=($!)
	done
	for s in 1 2 3 4; do wait "${pids[$((s - 1))]}" || true; done
	for s in 1 2 3 4; do
		[ -e "$BATS_TEST_TMPDIR/s$s.done" ] || {
			echo "stream $s failed: $(cat "$BATS_TEST_TMPDIR/s$s.err")" >&2
			return 1
		}
	done
	echo "$CONTAINERS containers in $(($(date +%s) - t0)) s" >&3
	assert_no_leaks "$CONTAINERS containers"
}
