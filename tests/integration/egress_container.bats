#!/usr/bin/env bats
# The egress allowlist through a real clasp container (issue 6): clasp injects clasp-egress as a
# prestart hook that listens inside the container's network namespace and dials out from the host.
# A host-side origin (build/helpers/origin) listens on 127.0.0.1; requests are made from inside the
# container with busybox wget/nc, and from the host with curl through nsenter.

load helpers

setup() {
	common_setup
	requires_clasp "ing.paperclip.net annotations"
	make_bundle
	ORIGIN_PORT=$((39600 + RANDOM % 300))
	"${CLASP_HELPERS:-$REPO_DIR/build/helpers}/origin" "$ORIGIN_PORT" 127.0.0.1 >/dev/null 2>&1 </dev/null &
	ORIGIN_PID=$!
	for _ in $(seq 50); do busybox nc -w 1 127.0.0.1 "$ORIGIN_PORT" </dev/null >/dev/null 2>&1 && break; sleep 0.1; done
	PROXY_PORT=$((38000 + RANDOM % 1000))
	update_config '.linux.namespaces |= map(select(.type != "network"))'
	annotate ing.paperclip.net.scope allowlist
	annotate ing.paperclip.net.proxy-port "$PROXY_PORT"
	AUDIT=$BATS_TEST_TMPDIR/audit.jsonl
	annotate ing.paperclip.net.audit-log "$AUDIT"
}

teardown() {
	[ -z "${ORIGIN_PID:-}" ] || kill "$ORIGIN_PID" 2>/dev/null || true
	[ -z "${BLOCKER_PID:-}" ] || kill "$BLOCKER_PID" 2>/dev/null || true
	common_teardown
}

annotate() {
	update_config "$(printf '.annotations[%s] = %s' "$(jq -Rn --arg v "$1" '$v')" "$(jq -Rn --arg v "$2" '$v')")"
}

# start_sleeper: a detached container whose proxy we talk to from the host through nsenter.
start_sleeper() {
	set_cmd 'echo ready; sleep 1000'
	ID=$(new_id)
	run_d "$ID"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	PID=$(ct_pid "$ID")
}

proxy_pid() {
	cut -d' ' -f1 "$CT_ROOT/$ID/egress.pid"
}

@test "allowed GET succeeds and a denied GET gets the exact JSON 403, from inside the container" {
	annotate ing.paperclip.net.allowlist "[\"127.0.0.1:$ORIGIN_PORT\"]"
	in_container "wget -qO- http://127.0.0.1:$ORIGIN_PORT/hello; echo; printf 'GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n' | nc 127.0.0.1 $PROXY_PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"HTTP/1.1 403 Forbidden"* ]]
	[[ "$output" == *'Content-Type: application/json; charset=utf-8'* ]]
	[[ "$output" == *'{"error":{"code":"network_target_denied","message":'* ]]
	# the allowed fetch printed the origin's body before the denial
	[ "$(grep -c 'network_target_denied' <<<"$output")" -eq 1 ]
	[ -n "$(head -n1 <<<"$output")" ]
}

@test "CONNECT: allowed is tunnelled, denied gets the 403 (curl through nsenter)" {
	annotate ing.paperclip.net.allowlist "[\"127.0.0.1:$ORIGIN_PORT\"]"
	start_sleeper
	run timeout 10 nsenter --net=/proc/$PID/ns/net curl -s -o /dev/null -w '%{http_code}' -p -x "http://127.0.0.1:$PROXY_PORT" "http://127.0.0.1:$ORIGIN_PORT/"
	[ "$output" = 200 ]
	run timeout 10 nsenter --net=/proc/$PID/ns/net curl -s -o /dev/null -w '%{http_code}' -p -x "http://127.0.0.1:$PROXY_PORT" "http://127.0.0.1:1/"
	[ "$output" = 403 ] || [ "$output" = 000 ]
	run timeout 10 nsenter --net=/proc/$PID/ns/net curl -s -i -p -x "http://127.0.0.1:$PROXY_PORT" "http://127.0.0.1:1/"
	[[ "$output" == *"403"* ]]
}

@test "a trusted URL is reachable with an empty allowlist" {
	annotate ing.paperclip.net.trusted-urls "[\"http://127.0.0.1:$ORIGIN_PORT\"]"
	in_container "wget -qO- http://127.0.0.1:$ORIGIN_PORT/ >/dev/null && echo via-proxy=ok; env -u http_proxy -u HTTP_PROXY wget -qO- http://127.0.0.1:$ORIGIN_PORT/ >/dev/null && echo direct=ok"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"via-proxy=ok"* ]]
	# loopback trusted URLs are also forwarded for clients that bypass the proxy
	[[ "$output" == *"direct=ok"* ]]
}

@test "IP-literal tricks are denied" {
	annotate ing.paperclip.net.allowlist "[\"127.0.0.1:$ORIGIN_PORT\"]"
	in_container "for h in 0x7f.1 2130706433 127.1 0177.0.0.1; do printf 'GET http://%s:$ORIGIN_PORT/ HTTP/1.1\r\nHost: x\r\n\r\n' \$h | nc 127.0.0.1 $PROXY_PORT | head -n1; done"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '403 Forbidden' <<<"$output")" -eq 4 ]
}

@test "the proxy is gone after the container exits, and the audit log has its lines" {
	annotate ing.paperclip.net.allowlist "[\"127.0.0.1:$ORIGIN_PORT\"]"
	start_sleeper
	pp=$(proxy_pid)
	kill -0 "$pp"
	timeout 10 nsenter --net=/proc/$PID/ns/net curl -s -o /dev/null -x "http://127.0.0.1:$PROXY_PORT" "http://127.0.0.1:$ORIGIN_PORT/"
	rt kill "$ID" KILL
	wait_for_state "$ID" stopped
	for _ in $(seq 100); do kill -0 "$pp" 2>/dev/null || break; sleep 0.05; done
	! kill -0 "$pp" 2>/dev/null
	grep -q '"sandbox.network.proxy.started"' "$AUDIT"
	grep -q '"sandbox.network.decision"' "$AUDIT"
	grep -q '"sandbox.network.proxy.stopped"' "$AUDIT"
	while read -r line; do jq -e '.schemaVersion == 2 and (.ts | type == "string" or type == "number")' <<<"$line" >/dev/null; done <"$AUDIT"
}

@test "delete stops the proxy of a running container" {
	annotate ing.paperclip.net.allowlist "[\"127.0.0.1:$ORIGIN_PORT\"]"
	start_sleeper
	pp=$(proxy_pid)
	kill -0 "$pp"
	rt delete --force "$ID"
	for _ in $(seq 100); do kill -0 "$pp" 2>/dev/null || break; sleep 0.05; done
	! kill -0 "$pp" 2>/dev/null
}

@test "create fails cleanly when the proxy port is taken inside the container's namespace" {
	# A trusted loopback URL is also forwarded inside the container on its own port; one on the
	# proxy's port collides with the proxy's listener.
	annotate ing.paperclip.net.trusted-urls "[\"http://127.0.0.1:$PROXY_PORT\"]"
	set_cmd true
	id=$(new_id)
	create "$id"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"$PROXY_PORT"* ]]
	assert_no_trace "$id"
	# no proxy left listening anywhere for this container
	[ ! -e "$CT_ROOT/$id" ]
}

@test "create fails cleanly when the hook binary is missing" {
	annotate ing.paperclip.net.allowlist "[\"127.0.0.1:$ORIGIN_PORT\"]"
	# Run a copy of clasp from a directory without clasp-egress beside it, and no installed one.
	[ ! -e /usr/local/libexec/clasp/clasp-egress ] || skip "an installed clasp-egress would be found"
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cp "$RUNTIME" "$BATS_TEST_TMPDIR/bin/clasp"
	set_cmd true
	id=$(new_id)
	run timeout 20 "$BATS_TEST_TMPDIR/bin/clasp" --root "$CT_ROOT" create --bundle "$BUNDLE" "$id"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"clasp-egress"* ]]
	assert_no_trace "$id"
}
