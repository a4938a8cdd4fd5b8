#!/usr/bin/env bats
# The egress proxy (clasp-egress serve, on the host's loopback) under a long mix of allowed,
# denied and malformed requests and CONNECT tunnels (issue 9): it serves every round, answers
# every bad request with a 4xx, and its resident memory and open fds stay flat.
#
# Requests: 1000 by default, 10,000 with STRESS=1 (`make stress`), in rounds of 100:
#   40 allowed GETs (one keep-alive client connection to the proxy per round),
#   15 denied GETs (a host outside the allowlist; 403, connection closed),
#   15 malformed requests (bad framing, bad versions, binary, relative URLs, bad lengths; 400),
#    5 denied CONNECTs (403) and
#   20 allowed CONNECT tunnels, held open concurrently, each echoing a line,
#    5 requests cut off midway by the client.
# Ports 23700-23701 on 127.0.0.1: below the ephemeral range (32768-60999), so no client socket
# of another test can hold them.

REPO_DIR=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
EGRESS=$REPO_DIR/build/clasp-egress
ORIGIN=$REPO_DIR/build/helpers/origin
TUNNELS=$REPO_DIR/build/helpers/tunnels
PROXY=23700
ORIGIN_PORT=23701
if [ "${STRESS:-0}" = 1 ]; then
	ROUNDS=100
else
	ROUNDS=10
fi
# Resident memory may grow by at most this much between the end of the warm-up and the end.
RSS_SLACK_KB=${RSS_SLACK_KB:-512}

setup_file() {
	local i
	if [ ! -x "$EGRESS" ] || [ ! -x "$ORIGIN" ] || [ ! -x "$TUNNELS" ]; then
		(cd "$REPO_DIR" && timeout 300 make -s build/clasp-egress build/helpers/origin build/helpers/tunnels) >&3 2>&1 || true
	fi
	command -v curl >/dev/null || (DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y curl >/dev/null 2>&1)
	export WORK=$BATS_FILE_TMPDIR
	cat >"$WORK/policy" <<-P
	clasp-egress-policy 1
	header-timeout-ms 1000
	audit-log $WORK/audit.log
	allow 127.0.0.1 $ORIGIN_PORT
	P
	"$ORIGIN" $ORIGIN_PORT 2>/dev/null &
	echo $! >"$WORK/origin.pid"
	# The proxy's exit status is kept, to tell a crash from a kill if it ever stops serving.
	(
		"$EGRESS" serve --listen 127.0.0.1:$PROXY --policy "$WORK/policy" 2>"$WORK/proxy.err" &
		echo $! >"$WORK/proxy.pid"
		wait $!
		echo $? >"$WORK/proxy.exit"
	) &
	for i in $(seq 50); do [ -s "$WORK/proxy.pid" ] && break; sleep 0.05; done
	for i in $(seq 50); do
		timeout 1 bash -c "echo >/dev/tcp/127.0.0.1/$PROXY && echo >/dev/tcp/127.0.0.1/$ORIGIN_PORT" 2>/dev/null && break
		sleep 0.1
	done
}

teardown_file() {
	local f
	for f in proxy origin; do
		[ -f "$WORK/$f.pid" ] && kill "$(cat "$WORK/$f.pid")" 2>/dev/null || true
	done
	sleep 0.2
}

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
fds() { ls "/proc/$1/fd" | wc -l; }

# allowed N / denied N: GETs through the proxy in one curl process; prints the status codes.
gets() {
	local host=$1 n=$2 args=() i
	for ((i = 0; i < n; i++)); do args+=(-o /dev/null "http://$host:$ORIGIN_PORT/"); done
	timeout 60 curl -sS --max-time 30 -x "http://127.0.0.1:$PROXY" -w '%{http_code}\n' "${args[@]}"
}

# raw_batch: the malformed, denied-CONNECT and cut-off requests of one round, in one bash process
# (no fork per request); prints one line per request: its status line, or "closed".
raw_batch() {
	timeout 60 bash -c '
		port=$1
		bad=(
			"GARBAGE\r\n\r\n"
			"GET / HTTP/9.9\r\n\r\n"
			"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
			"GET http://127.0.0.1:23701/ HTTP/1.1\r\nHost: 127.0.0.1:23701\r\nContent-Length: -1\r\n\r\n"
			"\x00\x01\x02\xff\r\n\r\n"
			"GET http://127.0.0.1:23701/ HTTP/1.1\r\nHost: 127.0.0.1:23701\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"
			"GET http://127.0.0.1:23701/ HTTP/1.1\r\nHost: 127.0.0.1:23701\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"
			"GET http://127.0.0.1:23701/ HTTP/1.1\r\n Folded: x\r\n\r\n"
			"CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n"
			"GET http://[::1 HTTP/1.1\r\n\r\n"
			"GET http://127.0.0.1:99999/ HTTP/1.1\r\nHost: 127.0.0.1:99999\r\n\r\n"
			"GET http://user@127.0.0.1:23701/ HTTP/1.1\r\nHost: 127.0.0.1:23701\r\n\r\n"
			"GET http://127.0.0.1:23701/ HTTP/1.1\r\nHost: 127.0.0.1:23701\r\nBad Header\r\n\r\n"
			"POST http://127.0.0.1:23701/ HTTP/1.1\r\nHost: 127.0.0.1:23701\r\nContent-Length: 99999999999999999999\r\n\r\n"
			"GET  http://127.0.0.1:23701/  HTTP/1.1\r\n\r\n"
		)
		denied_connect="CONNECT 127.0.0.2:443 HTTP/1.1\r\nHost: 127.0.0.2:443\r\n\r\n"
		ask() {
			exec 3<>/dev/tcp/127.0.0.1/$port || { echo refused; return; }
			printf "%b" "$1" >&3
			if IFS= read -r -t 5 line <&3; then echo "${line%$'"'"'\r'"'"'}"; else echo closed; fi
			exec 3<&-
		}
		for r in "${bad[@]}"; do ask "$r"; done
		for i in 1 2 3 4 5; do ask "$denied_connect"; done
		# Cut off by the client mid-request: the proxy must just drop them.
		for i in 1 2 3 4 5; do
			exec 3<>/dev/tcp/127.0.0.1/$port && printf "GET http://127.0.0.1:23701/ HTTP/1.1\r\nHo" >&3
			exec 3<&-
			echo cut
		done
	' _ "$PROXY"
}

# round: one round of 100 requests; fails on any wrong answer.
round() {
	local out n
	out=$(gets 127.0.0.1 40)
	n=$(grep -c '^200$' <<<"$out")
	[ "$n" -eq 40 ] || {
		echo "round $1: $n of 40 allowed GETs answered 200: $(sort <<<"$out" | uniq -c)" >&2
		return 1
	}
	out=$(gets 127.0.0.2 15 || true)
	n=$(grep -c '^403$' <<<"$out")
	[ "$n" -eq 15 ] || {
		echo "round $1: $n of 15 denied GETs answered 403: $(sort <<<"$out" | uniq -c)" >&2
		return 1
	}
	out=$(raw_batch)
	n=$(grep -c '^HTTP/1.1 4[0-9][0-9] ' <<<"$out")
	[ "$n" -eq 20 ] && [ "$(grep -c '^HTTP/1.1 403 ' <<<"$out")" -ge 5 ] && [ "$(grep -c '^cut$' <<<"$out")" -eq 5 ] || {
		echo "round $1: malformed/denied CONNECT answers: $(sort <<<"$out" | uniq -c)" >&2
		return 1
	}
	out=$(timeout 60 "$TUNNELS" $PROXY 127.0.0.1:$ORIGIN_PORT 20 2>&1)
	[ "$out" = "ok 20" ] || {
		echo "round $1: tunnels: $out" >&2
		return 1
	}
}

@test "egress proxy under $((ROUNDS * 100)) mixed requests: serves throughout, RSS and fds flat" {
	local pid r warm_rss warm_fds rss max_rss=0 t0
	pid=$(cat "$WORK/proxy.pid")
	kill -0 "$pid"
	t0=$(date +%s)
	# Warm-up: the first two rounds (allocator arenas, resolver threads, audit log buffers).
	round 1
	round 2
	sleep 0.3
	warm_rss=$(rss_kb "$pid")
	warm_fds=$(fds "$pid")
	for ((r = 3; r <= ROUNDS; r++)); do
		round "$r"
		kill -0 "$pid" 2>/dev/null || {
			sleep 0.2
			echo "the proxy stopped after round $r: exit status $(cat "$WORK/proxy.exit" 2>/dev/null), stderr: $(cat "$WORK/proxy.err")" >&2
			return 1
		}
		rss=$(rss_kb "$pid")
		((rss > max_rss)) && max_rss=$rss
	done
	# Closed connections are reaped asynchronously; give the loop a moment.
	sleep 0.5
	rss=$(rss_kb "$pid")
	local end_fds
	end_fds=$(fds "$pid")
	echo "$((ROUNDS * 100)) requests in $(($(date +%s) - t0)) s; VmRSS after warm-up ${warm_rss} kB, max ${max_rss} kB, end ${rss} kB; fds ${warm_fds} -> ${end_fds}" >&3
	((rss - warm_rss <= RSS_SLACK_KB)) || {
		echo "VmRSS grew from $warm_rss kB to $rss kB" >&2
		return 1
	}
	[ "$end_fds" -le "$warm_fds" ]
	# Still serving at the end, and it logged no crash.
	[ "$(gets 127.0.0.1 1)" = 200 ]
	! grep -qi 'sanitizer\|abort\|assert' "$WORK/proxy.err"
}
