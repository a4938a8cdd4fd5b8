#!/usr/bin/env bats
# clasp-egress on the host loopback (serve mode) and in hook mode against a
# network namespace we create. Ports 39500-39599. Every command is bounded.

ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
EGRESS="$ROOT/build/clasp-egress"
ORIGIN="$ROOT/build/helpers/origin"
TUNNELS="$ROOT/build/helpers/tunnels"
PROXY=39500
ORIGIN_PORT=39501
TPROXY=39502
HOOK_PORT=39503
SMALL=39504
DENY_403=$'HTTP/1.1 403 Forbidden\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 119\r\nConnection: close\r\n\r\n{"error":{"code":"network_target_denied","message":"The network target is not allowed by the sandbox egress policy."}}\n'

setup_file() {
	if [ ! -x "$EGRESS" ] || [ ! -x "$ORIGIN" ] || [ ! -x "$TUNNELS" ]; then
		(cd "$ROOT" && timeout 300 make -s build/clasp-egress build/helpers/origin build/helpers/tunnels) >&3 2>&1 || true
	fi
	[ -x "$EGRESS" ] && [ -x "$ORIGIN" ] && [ -x "$TUNNELS" ]
	command -v curl >/dev/null || (timeout 300 apt-get install -y curl >/dev/null 2>&1)
	export WORK="$(mktemp -d /tmp/egress-bats.XXXXXX)"
	cat >"$WORK/policy" <<-P
	clasp-egress-policy 1
	port 31337
	audit-log $WORK/audit.log
	header-timeout-ms 2000
	allow 127.0.0.1 $ORIGIN_PORT
	allow localhost *
	allow no-such-host.invalid *
	allow 127.0.0.1 39599
	P
	cat >"$WORK/trusted-policy" <<-P
	clasp-egress-policy 1
	trusted http 127.0.0.1 $ORIGIN_PORT
	P
	"$ORIGIN" $ORIGIN_PORT 2>/dev/null &
	echo $! >"$WORK/origin.pid"
	"$EGRESS" serve --listen 127.0.0.1:$PROXY --policy "$WORK/policy" 2>"$WORK/proxy.err" &
	echo $! >"$WORK/proxy.pid"
	"$EGRESS" serve --listen 127.0.0.1:$TPROXY --policy "$WORK/trusted-policy" 2>/dev/null &
	echo $! >"$WORK/tproxy.pid"
	# All listeners are bound before any traffic: the ports are inside the
	# ephemeral range, and a client's TIME_WAIT on one would block a late bind.
	cat >"$WORK/small-policy" <<-P
	clasp-egress-policy 1
	max-connections 3
	allow 127.0.0.1 $ORIGIN_PORT
	P
	"$EGRESS" serve --listen 127.0.0.1:$SMALL --policy "$WORK/small-policy" 2>"$WORK/small.err" &
	echo $! >"$WORK/small.pid"
	for _ in $(seq 50); do
		timeout 1 bash -c "echo >/dev/tcp/127.0.0.1/$PROXY && echo >/dev/tcp/127.0.0.1/$ORIGIN_PORT && echo >/dev/tcp/127.0.0.1/$TPROXY && echo >/dev/tcp/127.0.0.1/$SMALL" 2>/dev/null && break
		sleep 0.1
	done
}

teardown_file() {
	for f in proxy tproxy origin small; do
		[ -f "$WORK/$f.pid" ] && kill "$(cat "$WORK/$f.pid")" 2>/dev/null || true
	done
	sleep 0.2
	rm -rf "$WORK"
}

# A failed assertion must not leave a namespace holder or a blocker behind.
teardown() {
	for f in ns blocker; do
		if [ -f "$WORK/$f.pid" ]; then
			kill "$(cat "$WORK/$f.pid")" 2>/dev/null || true
			rm -f "$WORK/$f.pid"
		fi
	done
}

# raw REQUEST [PORT]: send bytes to the proxy and print the whole answer.
raw() {
	timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$2; printf "%s" "$1" >&3; cat <&3' _ "$1" "${2:-$PROXY}"
}

@test "allowed GET is forwarded" {
	run timeout 10 curl -sS -x http://127.0.0.1:$PROXY http://127.0.0.1:$ORIGIN_PORT/
	[ "$status" -eq 0 ]
	[ "$output" = "hello from origin" ]
}

@test "hop-by-hop headers are removed and Host is set from the URL" {
	run timeout 10 curl -sS -x http://127.0.0.1:$PROXY -H 'Proxy-Authorization: Basic eDp5' \
		-H 'Connection: X-Private' -H 'X-Private: 1' -H 'Host: evil.example' \
		http://127.0.0.1:$ORIGIN_PORT/headers
	[ "$status" -eq 0 ]
	[[ "$output" == "GET /headers HTTP/1.1"* ]]
	[[ "$output" == *"Host: 127.0.0.1:$ORIGIN_PORT"* ]]
	[[ "$output" != *"Proxy-Authorization"* ]]
	[[ "$output" != *"X-Private"* ]]
	[[ "$output" != *"evil.example"* ]]
}

@test "keep-alive, pipelining, chunked and close-delimited responses" {
	out="$(raw $'GET http://127.0.0.1:'$ORIGIN_PORT$'/ HTTP/1.1\r\nHost: a\r\n\r\nGET http://127.0.0.1:'$ORIGIN_PORT$'/chunked HTTP/1.1\r\nHost: a\r\n\r\nGET http://127.0.0.1:'$ORIGIN_PORT$'/close HTTP/1.1\r\nHost: a\r\n\r\n')"
	[ "$(grep -c '^HTTP/1.1 200 OK' <<<"$out")" -eq 3 ]
	[[ "$out" == *"hello from origin"*"hello "*"from origin"*"close-delimited body"* ]]
	run timeout 10 curl -sS -x http://127.0.0.1:$PROXY -d 'abcdef' http://127.0.0.1:$ORIGIN_PORT/post
	[ "$output" = "got 6 bytes" ]
	run timeout 10 curl -sS -x http://127.0.0.1:$PROXY -H 'Transfer-Encoding: chunked' -d 'abcdef' http://127.0.0.1:$ORIGIN_PORT/post
	[ "$status" -eq 0 ]
	[[ "$output" == "got "*" bytes" ]]
}

@test "denied GET gets the exact JSON 403" {
	out="$(raw $'GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n'; echo x)"
	[ "${out%x}" = "$DENY_403" ]
	# a port the rule does not name
	out="$(raw $'GET http://127.0.0.1:39598/ HTTP/1.1\r\n\r\n'; echo x)"
	[ "${out%x}" = "$DENY_403" ]
	run timeout 10 curl -sS -o /dev/null -w '%{http_code} %{content_type}' -x http://127.0.0.1:$PROXY http://example.com/
	[ "$output" = "403 application/json; charset=utf-8" ]
}

@test "other denials: origin-form, https, smuggling" {
	out="$(raw $'GET / HTTP/1.1\r\nHost: x\r\n\r\n')"
	[[ "$out" == "HTTP/1.1 400 Bad Request"*'"code":"invalid_request_url"'* ]]
	out="$(raw $'GET https://example.com/ HTTP/1.1\r\n\r\n')"
	[[ "$out" == "HTTP/1.1 400 Bad Request"*'"code":"https_requires_connect"'* ]]
	out="$(raw $'POST http://127.0.0.1:'$ORIGIN_PORT$'/ HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')"
	[[ "$out" == "HTTP/1.1 400 Bad Request"* ]]
	out="$(raw $'POST http://127.0.0.1:'$ORIGIN_PORT$'/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc')"
	[[ "$out" == "HTTP/1.1 400 Bad Request"* ]]
	out="$(raw $'POST http://127.0.0.1:'$ORIGIN_PORT$'/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')"
	[[ "$out" == "HTTP/1.1 400 Bad Request"* ]]
	# the proxy survived all of it
	run timeout 10 curl -sS -x http://127.0.0.1:$PROXY http://127.0.0.1:$ORIGIN_PORT/
	[ "$output" = "hello from origin" ]
}

@test "allowed CONNECT tunnels, denied CONNECT gets the 403" {
	run timeout 10 curl -sS -p -x http://127.0.0.1:$PROXY http://127.0.0.1:$ORIGIN_PORT/
	[ "$status" -eq 0 ]
	[ "$output" = "hello from origin" ]
	out="$(raw $'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'; echo x)"
	[ "${out%x}" = "$DENY_403" ]
	# early bytes sent before the 200 are forwarded
	out="$(timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/'$PROXY'; printf "CONNECT 127.0.0.1:'$ORIGIN_PORT' HTTP/1.1\r\n\r\nearly bytes\n" >&3; timeout 1 cat <&3' || true)"
	[[ "$out" == $'HTTP/1.1 200 Connection Established\r\n\r\nearly bytes'* ]]
}

@test "malformed CONNECT targets get exactly the policy-denial bytes" {
	for t in "0x7f.1:$ORIGIN_PORT" "2130706433:$ORIGIN_PORT" "127.1:$ORIGIN_PORT" \
		"0177.0.0.1:$ORIGIN_PORT" "127.0.0.1:0" "127.0.0.1:65536" "127.0.0.1:8o" \
		"127.0.0.1" "[::1%lo]:$ORIGIN_PORT" "[0:0::1]:$ORIGIN_PORT" "user@127.0.0.1:$ORIGIN_PORT" \
		"*.example.com:443" "::1:$ORIGIN_PORT"; do
		out="$(raw "CONNECT $t HTTP/1.1"$'\r\n\r\n'; echo x)"
		[ "${out%x}" = "$DENY_403" ] || { echo "target $t: $out"; false; }
	done
	grep -q '"reason":"invalid_connect_target","hostname":"0x7f.1"' "$WORK/audit.log"
}

@test "IP-literal tricks in absolute URLs are denied" {
	for h in 0x7f.1 2130706433 127.1 0177.0.0.1 0x7f000001 127.0.0.01 "[::ffff:127.0.0.1]"; do
		out="$(raw "GET http://$h:$ORIGIN_PORT/ HTTP/1.1"$'\r\n\r\n'; echo x)"
		[ "${out%x}" = "$DENY_403" ] || { echo "host $h: $out"; false; }
	done
}

@test "a hostname rule resolving to loopback is refused (forbidden range)" {
	out="$(raw $'GET http://localhost:'$ORIGIN_PORT$'/ HTTP/1.1\r\n\r\n'; echo x)"
	[ "${out%x}" = "$DENY_403" ]
	grep -q '"hostname":"localhost".*"detail":"forbidden_address"' "$WORK/audit.log"
}

@test "DNS failure or a refused connect to an allowed target is a 502 upstream_error" {
	out="$(raw $'GET http://no-such-host.invalid/ HTTP/1.1\r\n\r\n')"
	[[ "$out" == "HTTP/1.1 502 Bad Gateway"*'{"error":{"code":"upstream_error",'* ]]
	out="$(raw $'CONNECT 127.0.0.1:39599 HTTP/1.1\r\n\r\n')"
	[[ "$out" == "HTTP/1.1 502 Bad Gateway"* ]]
	grep -q '"decision":"allow","reason":"allowlist_match","hostname":"no-such-host.invalid"' "$WORK/audit.log"
}

@test "trusted URL is allowed with an empty allowlist" {
	run timeout 10 curl -sS -x http://127.0.0.1:$TPROXY http://127.0.0.1:$ORIGIN_PORT/
	echo "$output"
	[ "$output" = "hello from origin" ]
	run timeout 10 curl -sS -p -x http://127.0.0.1:$TPROXY http://127.0.0.1:$ORIGIN_PORT/
	[ "$output" = "hello from origin" ]
	run timeout 10 curl -sS -o /dev/null -w '%{http_code}' -x http://127.0.0.1:$TPROXY http://127.0.0.1:39599/
	[ "$output" = "403" ]
}

@test "header flood is answered 431" {
	big="$(head -c 20000 /dev/zero | tr '\0' a)"
	run timeout 10 curl -sS -o /dev/null -w '%{http_code}' -x http://127.0.0.1:$PROXY -H "X-Big: $big" http://127.0.0.1:$ORIGIN_PORT/
	[ "$output" = "431" ]
	lots=()
	for i in $(seq 200); do lots+=(-H "X-H$i: v"); done
	run timeout 10 curl -sS -o /dev/null -w '%{http_code}' -x http://127.0.0.1:$PROXY "${lots[@]}" http://127.0.0.1:$ORIGIN_PORT/
	[ "$output" = "431" ]
}

@test "slowloris is answered 408 while other clients are served" {
	start=$(date +%s%N)
	timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/'$PROXY'; printf "GET http://127.0.0.1:'$ORIGIN_PORT'/ HTTP/1.1\r\nX-A: 1\r\n" >&3; cat <&3' >"$WORK/slow.out" &
	slow=$!
	for i in 1 2 3; do
		run timeout 5 curl -sS -x http://127.0.0.1:$PROXY http://127.0.0.1:$ORIGIN_PORT/
		[ "$output" = "hello from origin" ]
	done
	wait $slow
	elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
	grep -q '^HTTP/1.1 408 Request Timeout' "$WORK/slow.out"
	grep -q '"code":"request_timeout"' "$WORK/slow.out"
	[ "$elapsed" -ge 1500 ] && [ "$elapsed" -lt 6000 ]
}

@test "websocket upgrade to an allowed target becomes a tunnel" {
	out="$(timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/'$PROXY'; printf "GET http://127.0.0.1:'$ORIGIN_PORT'/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n" >&3; sleep 0.3; printf "frame-bytes\n" >&3; timeout 1 cat <&3' || true)"
	[[ "$out" == "HTTP/1.1 101 Switching Protocols"* ]]
	[[ "$out" == *$'\r\n\r\nframe-bytes'* ]]
	# without Connection: Upgrade the Upgrade header is hop-by-hop and dropped
	run timeout 10 curl -sS -x http://127.0.0.1:$PROXY -H 'Upgrade: websocket' http://127.0.0.1:$ORIGIN_PORT/headers
	[[ "$output" != *"Upgrade"* ]]
}

@test "connections over max-connections get the 503 JSON" {
	sp=$(cat "$WORK/small.pid")
	kill -0 $sp || { cat "$WORK/small.err"; false; }
	holders=()
	for i in 1 2 3; do
		timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/'$SMALL'; sleep 3' & holders+=($!)
	done
	sleep 0.5
	run timeout 5 curl -sS -w ' %{http_code}' -x http://127.0.0.1:$SMALL http://127.0.0.1:$ORIGIN_PORT/
	kill "${holders[@]}" 2>/dev/null || true
	sleep 0.3
	echo "$output"
	[[ "$output" == *'"code":"too_many_connections"'*" 503" ]]
	run timeout 5 curl -sS -x http://127.0.0.1:$SMALL http://127.0.0.1:$ORIGIN_PORT/
	[ "$output" = "hello from origin" ]
}

@test "1000 concurrent tunnels" {
	run timeout 30 "$TUNNELS" $PROXY 127.0.0.1:$ORIGIN_PORT 1000
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ok 1000" ]
	run timeout 10 curl -sS -x http://127.0.0.1:$PROXY http://127.0.0.1:$ORIGIN_PORT/
	[ "$output" = "hello from origin" ]
}

@test "audit log lines" {
	log="$WORK/audit.log"
	head -1 "$log" | grep -q '^{"ts":"[0-9T:.-]*Z","schemaVersion":2,"event":"sandbox.network.proxy.started","allowRuleCount":4,"trustedUrlCount":0,"rulesetDigest":"[0-9a-f]\{16\}"'
	grep -q '"event":"sandbox.network.decision","decision":"allow","reason":"allowlist_match","hostname":"127.0.0.1","port":'$ORIGIN_PORT',"method":"GET","scheme":"http"}' "$log"
	grep -q '"decision":"allow","reason":"allowlist_match","hostname":"127.0.0.1","port":'$ORIGIN_PORT',"method":"CONNECT","scheme":"connect","tunnelId":"t[0-9]*"}' "$log"
	grep -q '"decision":"deny","reason":"network_target_denied","hostname":"example.com","port":80,"method":"GET"' "$log"
	grep -q '"reason":"https_requires_connect"' "$log"
	grep -q '"reason":"invalid_request_url"' "$log"
	grep -q '"event":"sandbox.network.tunnel.closed","tunnelId":"t[0-9]*","hostname":"127.0.0.1","port":'$ORIGIN_PORT',"bytesIn":[0-9]*,"bytesOut":[0-9]*,"durationMs":[0-9]*,"closedAtTeardown":false}' "$log"
	# every line is JSON with ts and schemaVersion 2, and no path ever appears
	run python3 -c 'import json,sys
for l in open(sys.argv[1]):
    e=json.loads(l); assert e["schemaVersion"]==2 and "ts" in e, l' "$log"
	[ "$status" -eq 0 ]
	! grep -q '/headers\|/chunked\|X-Private' "$log"
}

@test "SIGTERM stops the proxy cleanly with proxy.stopped" {
	# an open tunnel is reported closedAtTeardown
	timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/'$PROXY'; printf "CONNECT 127.0.0.1:'$ORIGIN_PORT' HTTP/1.1\r\n\r\n" >&3; sleep 5' &
	holder=$!
	sleep 0.5
	pid=$(cat "$WORK/proxy.pid")
	kill -TERM "$pid"
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	! kill -0 "$pid" 2>/dev/null
	kill $holder 2>/dev/null || true
	tail -1 "$WORK/audit.log" | grep -q '"event":"sandbox.network.proxy.stopped","allowCount":[1-9][0-9]*,"denyCount":[1-9][0-9]*}'
	grep -q '"closedAtTeardown":true' "$WORK/audit.log"
	rm -f "$WORK/proxy.pid"
}

# --- hook mode, against a network namespace made with unshare -----------

start_netns() {
	unshare --net sh -c 'ip link set lo up; exec sleep 60' &
	NSPID=$!
	for _ in $(seq 50); do
		[ "$(readlink /proc/$NSPID/ns/net)" != "$(readlink /proc/self/ns/net)" ] && \
			nsenter --net=/proc/$NSPID/ns/net ip -o addr show lo 2>/dev/null | grep -q 127.0.0.1 && break
		sleep 0.05
	done
	echo $NSPID >"$WORK/ns.pid"
}

hook_policy() {
	mkdir -p "$WORK/state"
	cat >"$WORK/hook-policy" <<-P
	clasp-egress-policy 1
	port $HOOK_PORT
	audit-log $WORK/hook-audit.log
	state-dir $WORK/state
	allow 127.0.0.1 $ORIGIN_PORT
	trusted http 127.0.0.1 $ORIGIN_PORT
	P
}

state_json() {
	printf '{"ociVersion":"1.0.2","id":"x","status":"created","pid":%d,"bundle":"/tmp"}' "$1"
}

@test "hook mode: listens inside the netns, dials from the host, exits with the container" {
	[ -x "$(command -v unshare)" ] || skip "unshare missing"
	hook_policy
	start_netns
	state_json $NSPID | timeout 10 "$EGRESS" hook --policy "$WORK/hook-policy"
	# pid file: "PID STARTTIME"
	read -r ppid pstart <"$WORK/state/egress.pid"
	[ "$pstart" = "$(awk '{print $22}' /proc/$ppid/stat | tr -d '\n')" ] || \
		[ "$pstart" = "$(sed 's/.*) //' /proc/$ppid/stat | awk '{print $20}')" ]
	# not listening on the host
	! timeout 2 bash -c "echo >/dev/tcp/127.0.0.1/$HOOK_PORT" 2>/dev/null
	run timeout 10 nsenter --net=/proc/$NSPID/ns/net curl -sS -x http://127.0.0.1:$HOOK_PORT http://127.0.0.1:$ORIGIN_PORT/
	[ "$output" = "hello from origin" ]
	run timeout 10 nsenter --net=/proc/$NSPID/ns/net curl -sS -p -x http://[::1]:$HOOK_PORT http://127.0.0.1:$ORIGIN_PORT/
	[ "$output" = "hello from origin" ] || [[ "$output" == *"Failed to connect"* ]]
	run timeout 10 nsenter --net=/proc/$NSPID/ns/net curl -sS -o /dev/null -w '%{http_code}' -x http://127.0.0.1:$HOOK_PORT http://example.com/
	[ "$output" = "403" ]
	# the trusted loopback URL answers inside the netns without any proxy
	run timeout 10 nsenter --net=/proc/$NSPID/ns/net curl -sS --noproxy '*' http://127.0.0.1:$ORIGIN_PORT/
	[ "$output" = "hello from origin" ]
	grep -q '"reason":"trusted_url_match".*"scheme":"tcp"' "$WORK/hook-audit.log"
	# the container's init exits: the proxy follows
	kill $NSPID
	wait $NSPID 2>/dev/null || true
	for _ in $(seq 50); do kill -0 "$ppid" 2>/dev/null || break; sleep 0.1; done
	! kill -0 "$ppid" 2>/dev/null
	[ ! -e "$WORK/state/egress.pid" ]
	tail -1 "$WORK/hook-audit.log" | grep -q proxy.stopped
}

@test "hook mode: SIGTERM stops the proxy" {
	hook_policy
	start_netns
	state_json $NSPID | timeout 10 "$EGRESS" hook --policy "$WORK/hook-policy"
	read -r ppid _ <"$WORK/state/egress.pid"
	kill -TERM "$ppid"
	for _ in $(seq 50); do kill -0 "$ppid" 2>/dev/null || break; sleep 0.1; done
	! kill -0 "$ppid" 2>/dev/null
	kill $NSPID; wait $NSPID 2>/dev/null || true
}

@test "hook mode: fails cleanly when the port is taken or the state is bad" {
	hook_policy
	start_netns
	nsenter --net=/proc/$NSPID/ns/net "$ORIGIN" $HOOK_PORT 2>/dev/null &
	blocker=$!
	echo $blocker >"$WORK/blocker.pid"
	sleep 0.3
	run bash -c "$(declare -f state_json); state_json $NSPID | timeout 10 '$EGRESS' hook --policy '$WORK/hook-policy'"
	[ "$status" -ne 0 ]
	[[ "$output" == *"bind 127.0.0.1:$HOOK_PORT in the container: address already in use"* ]]
	[ ! -e "$WORK/state/egress.pid" ]
	kill $blocker; kill $NSPID; wait $NSPID 2>/dev/null || true
	run bash -c "echo '{\"pid\":0}' | timeout 10 '$EGRESS' hook --policy '$WORK/hook-policy'"
	[ "$status" -ne 0 ]
	[[ "$output" == *'no valid "pid"'* ]]
	run bash -c "echo 'nope' | timeout 10 '$EGRESS' hook --policy '$WORK/hook-policy'"
	[ "$status" -ne 0 ]
	run bash -c "$(declare -f state_json); state_json 999999 | timeout 10 '$EGRESS' hook --policy '$WORK/hook-policy'"
	[ "$status" -ne 0 ]
	[[ "$output" == *"pidfd_open 999999"* ]]
	run bash -c "$(declare -f state_json); state_json $$ | timeout 10 '$EGRESS' hook --policy /nonexistent"
	[ "$status" -ne 0 ]
	[[ "$output" == *"/nonexistent"* ]]
}

@test "hook mode: rootless, the netns owned by a user namespace of an unprivileged user" {
	command -v setpriv >/dev/null || skip "setpriv missing"
	as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	timeout 5 "${as_nobody[@]}" unshare --user --map-root-user true 2>/dev/null || skip "no unprivileged user namespaces"
	chmod 755 "$WORK"
	mkdir -p "$WORK/rl/state"
	chown -R 65534:65534 "$WORK/rl"
	cat >"$WORK/rl/policy" <<-P
	clasp-egress-policy 1
	port $HOOK_PORT
	audit-log $WORK/rl/audit.log
	state-dir $WORK/rl/state
	allow 127.0.0.1 $ORIGIN_PORT
	P
	"${as_nobody[@]}" unshare --user --map-root-user --net sh -c 'ip link set lo up; exec sleep 60' &
	NSPID=$!
	echo $NSPID >"$WORK/ns.pid"
	for _ in $(seq 50); do
		[ "$(readlink /proc/$NSPID/ns/net)" != "$(readlink /proc/self/ns/net)" ] && \
			timeout 2 nsenter --net=/proc/$NSPID/ns/net ip -o addr show lo 2>/dev/null | grep -q 127.0.0.1 && break
		sleep 0.05
	done
	state_json $NSPID | timeout 10 "${as_nobody[@]}" "$EGRESS" hook --policy "$WORK/rl/policy"
	read -r ppid _ <"$WORK/rl/state/egress.pid"
	[ "$(stat -c %u /proc/$ppid)" = 65534 ]
	run timeout 10 nsenter --net=/proc/$NSPID/ns/net curl -sS -x http://127.0.0.1:$HOOK_PORT http://127.0.0.1:$ORIGIN_PORT/
	[ "$output" = "hello from origin" ]
	kill $NSPID
	wait $NSPID 2>/dev/null || true
	for _ in $(seq 50); do kill -0 "$ppid" 2>/dev/null || break; sleep 0.1; done
	! kill -0 "$ppid" 2>/dev/null
}
