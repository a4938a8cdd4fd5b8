#!/bin/sh
# The cgroup tests on PURE cgroup v2, run inside the VM (busybox ash) by
# tests/vm/init against the static clasp in /payload. The bundles were made
# on the host by tests/vm/check-cgroup2.sh (there is no jq in here), one per
# case, all on the busybox rootfs /payload/rootfs. The same limits as
# tests/integration/cgroups.bats: memory + OOM events, pids, cpu, devices
# (eBPF), freeze, update, stats, ps, kill --all; and after each container is
# deleted its cgroup directory must be gone. Then rootless limits: a test user
# without and with a delegated subtree (issue 8).
# Prints PASS/FAIL lines and "N passed, M failed"; exit status 0 only if all passed.
set -u
PATH=/usr/sbin:/usr/bin:/sbin:/bin
P=/payload
CLASP=$P/clasp
ROOT=/run/clasp
pass=0 fail=0

ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
check() { # check DESCRIPTION COMMAND...
	_d=$1
	shift
	if "$@"; then ok "$_d"; else bad "$_d"; fi
}
c() { timeout 60 "$CLASP" --root "$ROOT" "$@"; }
field() { # field ID NAME: a scalar of `state ID`
	c state "$1" 2>/dev/null | sed -n "s/^[[:space:]]*\"$2\": *\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}\$/\1/p"
}
cgdir() { # cgdir ID: the container's cgroup directory
	echo "/sys/fs/cgroup$(sed -n 's/^0:://p' "/proc/$(field "$1" pid)/cgroup")"
}
start() { # start ID BUNDLE: run -d; output in /tmp/ID.out
	c run -d -b "$P/$2" "$1" >"/tmp/$1.out" 2>&1 </dev/null
	_rc=$?
	CG=$(cgdir "$1")
	[ $_rc -eq 0 ] || { bad "$1: run -d failed: $(cat "/tmp/$1.out")"; return 1; }
}
go() { : >"/proc/$(field "$1" pid)/root/dev/shm/go"; }
wait_for() { # wait_for FILE TEXT [TENTHS]
	_i=0
	while [ $_i -lt "${3:-300}" ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}
finish() { # finish ID: delete --force, and the cgroup directory must be gone
	c delete --force "$1" >/dev/null 2>&1
	check "$1: cgroup directory removed by delete" [ -n "$CG" ] && [ ! -d "$CG" ]
}
num() { # num FILE KEY: value of "KEY N" in a flat-keyed cgroup file
	awk -v k="$2" '$1 == k { print $2 }' "$1"
}
json_num() { # json_num TEXT PATH...: the first number after the keys, in order (no jq here)
	_t=$1
	shift
	for _k; do _t=${_t#*\"$_k\":}; done
	echo "$_t" | sed -n 's/^\([0-9]*\).*/\1/p'
}

echo "== clasp $($CLASP --version | head -1); kernel $(uname -r)"
check "cgroup2 is the only hierarchy" sh -c '[ "$(awk "\$2==\"/sys/fs/cgroup\"{print \$3}" /proc/mounts)" = cgroup2 ] && ! grep -q " cgroup " /proc/mounts'

# ---- memory: limit, OOM kill, oom event from `events`, `run` enforces 16M
id=mem
if start $id b-mem; then
	check "$id: memory.max = 16M" [ "$(cat "$CG/memory.max")" = 16777216 ]
	check "$id: memory.swap.max = 0 (swap = limit)" [ "$(cat "$CG/memory.swap.max")" = 0 ]
	c events --interval 30s $id >/tmp/events.out 2>&1 &
	ev=$!
	sleep 1
	go $id
	wait_for /tmp/$id.out big=
	check "$id: 8M allocation fits" grep -q small=0 /tmp/$id.out
	check "$id: 32M allocation is OOM-killed" grep -q big=137 /tmp/$id.out
	check "$id: memory.events counts the oom_kill" [ "$(num "$CG/memory.events" oom_kill)" -ge 1 ]
	wait_for /tmp/events.out '"type":"oom"' 50
	check "$id: events reports the oom" grep -qx '{"type":"oom","id":"mem"}' /tmp/events.out
	c kill $id KILL
	wait $ev
	check "$id: events exits when the container stops" [ $? -eq 0 ]
	finish $id
fi
c run -b $P/b-run16 run16 >/tmp/run16.out 2>&1 </dev/null
check "run with memory.limit 16M enforces it" sh -c 'grep -q fits /tmp/run16.out && grep -q big=137 /tmp/run16.out'
c delete --force run16 >/dev/null 2>&1

# ---- pids: a fork bomb stops at the limit
id=pids
if start $id b-pids; then
	check "$id: pids.max = 10" [ "$(cat "$CG/pids.max")" = 10 ]
	go $id
	wait_for /tmp/$id.out stopped-at-limit
	check "$id: the bomb hit the limit (pids.events max > 0)" [ "$(num "$CG/pids.events" max)" -gt 0 ]
	n=$(cat "$CG/pids.current")
	check "$id: pids.current $n <= 10" [ "$n" -le 10 ] && [ "$n" -ge 8 ]
	out=$(c ps --format json $id)
	check "$id: ps --format json lists $n pids" [ "$(echo "$out" | tr ',' '\n' | grep -c '[0-9]')" -eq "$n" ]
	c kill --all $id KILL
	finish $id
fi

# ---- cpu: quota/period in cpu.max, shares converted to cpu.weight
id=cpu
if start $id b-cpu; then
	check "$id: cpu.max = 20000 100000" [ "$(cat "$CG/cpu.max")" = "20000 100000" ]
	check "$id: shares 512 -> cpu.weight 20" [ "$(cat "$CG/cpu.weight")" = 20 ]
	sleep 1
	check "$id: the busy loop is throttled" [ "$(num "$CG/cpu.stat" nr_throttled)" -gt 0 ]
	s1=$(c events --stats $id)
	sleep 0.5
	s2=$(c events --stats $id)
	case "$s1" in '{"type":"stats","id":"cpu","data":{'*) ok "$id: events --stats prints a stats object" ;;
	*) bad "$id: events --stats: $s1" ;; esac
	u1=$(json_num "$s1" cpu usage total)
	u2=$(json_num "$s2" cpu usage total)
	check "$id: stats cpu usage moves ($u1 -> $u2)" [ -n "$u1" ] && [ "${u2:-0}" -gt "$u1" ]
	check "$id: stats pids.current = 1" [ "$(json_num "$s1" pids current)" = 1 ]
	check "$id: stats memory usage > 0" [ "$(json_num "$s1" memory usage usage)" -gt 0 ]
	finish $id
fi

# ---- devices: the BPF_CGROUP_DEVICE program denies /dev/kmsg unless a rule allows it
for id in devdeny devallow; do
	if start $id b-$id; then
		wait_for /tmp/$id.out done
		if [ $id = devdeny ]; then
			check "$id: /dev/null opens" grep -q null-ok /tmp/$id.out
			check "$id: /dev/kmsg is denied" sh -c '! grep -q kmsg-ok /tmp/devdeny.out && grep -q "Operation not permitted" /tmp/devdeny.out'
		else
			check "$id: /dev/kmsg opens when allowed" grep -q kmsg-ok /tmp/$id.out
		fi
		finish $id
	fi
done

# ---- freeze: pause stops a counter loop, resume continues it
id=freeze
if start $id b-counter; then
	cnt=/proc/$(field $id pid)/root/dev/shm/count
	sleep 1
	c pause $id
	check "$id: state says paused" [ "$(field $id status)" = paused ]
	check "$id: cgroup.freeze = 1 and cgroup.events frozen 1" [ "$(cat "$CG/cgroup.freeze")" = 1 ] && [ "$(num "$CG/cgroup.events" frozen)" = 1 ]
	a=$(cat $cnt)
	sleep 1
	check "$id: the counter stands still while paused" [ "$(cat $cnt)" = "$a" ]
	check "$id: pause of a paused container fails" sh -c "$CLASP --root $ROOT pause $id 2>&1 | grep -q 'not running'"
	c resume $id
	sleep 1
	check "$id: resume continues the counter ($a -> $(cat $cnt))" [ "$(cat $cnt)" -gt "$a" ]
	check "$id: state says running" [ "$(field $id status)" = running ]
	check "$id: resume of a running container fails" sh -c "$CLASP --root $ROOT resume $id 2>&1 | grep -q 'not paused'"
	finish $id
fi

# ---- update: flags and --resources on a running container
id=update
if start $id b-sleep; then
	c update --memory 32m --pids-limit 7 --cpu-quota 30000 --cpu-period 60000 $id
	check "$id: memory.max = 32M" [ "$(cat "$CG/memory.max")" = 33554432 ]
	check "$id: pids.max = 7" [ "$(cat "$CG/pids.max")" = 7 ]
	check "$id: cpu.max = 30000 60000" [ "$(cat "$CG/cpu.max")" = "30000 60000" ]
	echo '{"memory": {"limit": 25165824}, "pids": {"limit": -1}, "cpu": {"shares": 1024}}' | c update -r - $id
	check "$id: --resources -: memory.max = 24M" [ "$(cat "$CG/memory.max")" = 25165824 ]
	check "$id: --resources -: pids.max = max" [ "$(cat "$CG/pids.max")" = max ]
	check "$id: --resources -: shares 1024 -> cpu.weight 39" [ "$(cat "$CG/cpu.weight")" = 39 ]
	check "$id: --cpu-period alone keeps the quota" sh -c "$CLASP --root $ROOT update --cpu-period 100000 $id && [ \"\$(cat $CG/cpu.max)\" = '30000 100000' ]"
	check "$id: realtime limits are refused on v2" sh -c "! $CLASP --root $ROOT update --cpu-rt-runtime 1000 $id 2>/dev/null"
	finish $id
fi

# ---- ps and kill --all, with a process that escaped the init's tree
id=escape
if start $id b-escape; then
	wait_for /tmp/$id.out started
	pids=$(c ps --format json $id | tr -d '[]' | tr ',' ' ')
	check "$id: ps lists init, child and escaped daemon ($pids)" [ "$(echo $pids | wc -w)" -eq 3 ]
	check "$id: ps table shows the daemon" sh -c "$CLASP --root $ROOT ps $id | grep -q 'sleep 1003'"
	c kill --all $id KILL
	sleep 0.5
	alive=0
	for p in $pids; do kill -0 $p 2>/dev/null && alive=$((alive + 1)); done
	check "$id: kill --all killed all of them" [ $alive -eq 0 ]
	check "$id: ps is empty afterwards" [ "$(c ps --format json $id)" = "[]" ]
	finish $id
fi

# ---- rootless: a test user, first with no cgroup of its own, then with a
# delegated subtree (the systemd Delegate=yes model: a directory chown'ed to
# the user with cgroup.procs, cgroup.subtree_control and cgroup.threads; the
# controllers are enabled in the parent's subtree_control). clasp runs as the
# user with --root under the user's home, on spec --rootless bundles (a
# single-id mapping of the user's uid); this root shell checks the result.
TU=tester
RROOT=/home/$TU/clasp
DG=/sys/fs/cgroup/$TU
u() { # u COMMAND...: as the test user, in the caller's cgroup
	timeout 60 su -s /bin/sh $TU -c "cd /home/$TU && $*"
}
uc() { u "$CLASP --root $RROOT $*"; }
ud() { # ud CLASP-ARGS...: clasp as the test user, started in the delegated leaf $DG/shell
	timeout 60 sh -c 'echo $$ >"$0/shell/cgroup.procs" && exec su -s /bin/sh "$1" -c "$2"' \
		"$DG" $TU "cd /home/$TU && $CLASP --root $RROOT $*"
}
ufield() { # ufield ID NAME: a scalar of the user's `state ID`
	uc state "$1" 2>/dev/null | sed -n "s/^[[:space:]]*\"$2\": *\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}\$/\1/p"
}

check "rootless: the test user owns no cgroup yet" [ -z "$(find /sys/fs/cgroup -user $TU 2>/dev/null)" ]
out=$(uc run -b $P/r-hello rl-hello 2>&1 </dev/null)
check "rootless: no limits and no delegation runs without a cgroup ($out)" [ "$out" = hello-rootless ]
uc delete --force rl-hello >/dev/null 2>&1
out=$(uc run -b $P/r-nodeleg rl-nodeleg 2>&1 </dev/null)
rc=$?
check "rootless: a memory limit without delegation fails (status $rc)" sh -c '[ $1 -ne 0 ] && ! echo "$2" | grep -q should-not-run' sh $rc "$out"
check "rootless: ... with the error that explains delegation" sh -c 'echo "$1" | grep -q "^clasp: linux.resources.memory.limit: running without root, clasp can set resource limits only in a cgroup v2 subtree delegated to your user" && echo "$1" | grep -q "delegate a cgroup and name it in linux.cgroupsPath"' sh "$out"
echo "   $out"
uc delete --force rl-nodeleg >/dev/null 2>&1
check "rootless: ... and leaves no cgroup behind" sh -c '[ -z "$(find /sys/fs/cgroup -user $1)" ] && [ ! -e /sys/fs/cgroup/clasp/rl-nodeleg ]' sh $TU

# delegate (what systemd does for Delegate=yes); the user makes its own leaf
# for its shells and enables the controllers for its children
mkdir $DG
chown $TU:$TU $DG $DG/cgroup.procs $DG/cgroup.subtree_control $DG/cgroup.threads
u "mkdir $DG/shell && echo '+memory +pids' >$DG/cgroup.subtree_control"
check "rootless: the user enabled memory and pids in its subtree" [ "$(cat $DG/cgroup.subtree_control)" = "memory pids" ]

id=rl
ud run -d -b $P/r-limits $id >/tmp/$id.out 2>&1 </dev/null
rc=$?
if [ $rc -ne 0 ]; then
	bad "rootless $id: run -d in the delegated subtree failed: $(cat /tmp/$id.out)"
else
	rpid=$(ufield $id pid)
	CG=/sys/fs/cgroup$(sed -n 's/^0:://p' "/proc/$rpid/cgroup")
	check "rootless $id: the container's cgroup is $DG/rl ($CG)" [ "$CG" = $DG/rl ]
	check "rootless $id: it belongs to the user" [ "$(stat -c %U "$CG")" = $TU ]
	check "rootless $id: the init runs as the user's uid" [ "$(awk '/^Uid:/ { print $2 }' /proc/$rpid/status)" = "$(id -u $TU)" ]
	check "rootless $id: memory.max = 32M" [ "$(cat "$CG/memory.max")" = 33554432 ]
	check "rootless $id: pids.max = 10" [ "$(cat "$CG/pids.max")" = 10 ]
	# the user opens the gate: root's uid is not mapped in the container's user
	# namespace, so the container's tmpfs refuses a file root would own
	u ": >/proc/$rpid/root/dev/shm/go"
	wait_for /tmp/$id.out stopped-at-limit
	check "rootless $id: the fork bomb hit the limit (pids.events max > 0)" [ "$(num "$CG/pids.events" max)" -gt 0 ]
	n=$(cat "$CG/pids.current")
	check "rootless $id: pids.current $n <= 10" sh -c '[ "$1" -le 10 ] && [ "$1" -ge 8 ]' sh "$n"
	uc update --pids-limit 20 $id
	check "rootless $id: update by the user sets pids.max = 20" [ "$(cat "$CG/pids.max")" = 20 ]
	uc kill --all $id KILL
	uc delete --force $id >/dev/null 2>&1
	check "rootless $id: cgroup directory removed by the user's delete" [ ! -d "$CG" ]
fi
ud run -b $P/r-run16 rl-run16 >/tmp/rl-run16.out 2>&1 </dev/null
check "rootless: run with memory.limit 16M enforces it" sh -c 'grep -q fits /tmp/rl-run16.out && grep -q big=137 /tmp/rl-run16.out'
check "rootless: ... and its cgroup $DG/run16 is gone after run" [ ! -d $DG/run16 ]
uc delete --force rl-run16 >/dev/null 2>&1
rmdir $DG/shell $DG

check "no container cgroup is left under /sys/fs/cgroup" sh -c '[ -z "$(find /sys/fs/cgroup -mindepth 2 -maxdepth 2 -type d 2>/dev/null)" ]'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
