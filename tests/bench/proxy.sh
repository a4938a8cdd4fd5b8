#!/bin/bash
# proxy.sh: clasp-egress against tinyproxy and a direct connection, on loopback, in one run.
#
# Paths: direct; tiny-fwd / tiny-conn (tinyproxy, host filter, default deny:
# absolute-form GET, or a CONNECT tunnel with a GET inside); clasp-fwd /
# clasp-conn (`clasp-egress serve` with a policy allowing the origins' host:port).
# Scenarios, interleaved round by round with the path order rotated:
#   lat1k  GET /1k, new connection each, one at a time   -> p50 latency (added = path - direct)
#   rps1k  GET /1k, new connection each, CONC at a time  -> requests/s
#   ka1k   GET /1k, keep-alive (one tunnel reused)       -> p50/p99 latency, requests/s (stalls show in p99)
#   big1m  GET /1m, new connection each                  -> MiB/s
#   ka1m   GET /1m, keep-alive                           -> MiB/s, p99
#   bulk1g 1 GiB in one tunnel (pxbulk)                  -> MiB/s and the longest gap between reads
# The load clients are ../shared/bench/pxload.c and origin.c (built into build/bench) and
# tests/bench/pxbulk.c. These are reports, not tests: nothing here passes or fails.
#
# Env: ROUNDS (5), N_LAT (1000), N_RPS (2000), N_KA (2000), N_BIG (50), BULK (1073741824 bytes),
#      CONC (2 x cores), EGRESS (default build/clasp-egress), BENCH (../shared/bench), KEEP=1.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
BENCH=${BENCH:-$top/../shared/bench}
EGRESS=$(readlink -f "${EGRESS:-$top/build/clasp-egress}")
ROUNDS=${ROUNDS:-5} N_LAT=${N_LAT:-1000} N_RPS=${N_RPS:-2000} N_KA=${N_KA:-2000} N_BIG=${N_BIG:-50}
BULK=${BULK:-1073741824} CONC=${CONC:-$((2 * $(nproc)))}
die() { echo "proxy.sh: $*" >&2; exit 1; }
command -v tinyproxy >/dev/null || die "tinyproxy not installed (apt-get install tinyproxy)"
[ -x "$EGRESS" ] || die "no $EGRESS (run make)"

B=$top/build/bench
mkdir -p "$B"
CC="cc -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter -pthread"
$CC -o "$B/origin" "$BENCH/origin.c"   # these two define _GNU_SOURCE themselves
$CC -o "$B/pxload" "$BENCH/pxload.c"
$CC -D_GNU_SOURCE -o "$B/pxbulk" "$top/tests/bench/pxbulk.c"

W=$(mktemp -d /tmp/clasp-proxybench.XXXXXX)
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $W" >&2; else rm -rf "$W"; fi
}
trap cleanup EXIT

free_port() { # a port below the ephemeral range nobody listens on
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 12000))
    [ -z "$(ss -Hltn "sport = :$p")" ] && { echo "$p"; return; }
  done
  die "no free port"
}
start() { # NAME PORT CMD... : start in the background, wait until it listens
  local name=$1 port=$2; shift 2
  "$@" >"$W/$name.log" 2>&1 &
  PIDS+=($!)
  eval "${name}_PID=$!"
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    kill -0 "$!" 2>/dev/null || die "$name exited (see $W/$name.log)"
    sleep 0.05
  done
  die "$name does not listen on $port"
}

OPORT=$(free_port); BPORT=$(free_port); TPORT=$(free_port); CPORT=$(free_port)
start origin "$OPORT" "$B/origin" -p "$OPORT"
start bulk "$BPORT" "$B/pxbulk" serve -p "$BPORT"
ORIGIN=127.0.0.1:$OPORT BULKO=127.0.0.1:$BPORT DENIED=127.0.0.2:$OPORT

# tinyproxy can only filter hosts, not ports.
echo 127.0.0.1 >"$W/tiny.filter"
cat >"$W/tiny.conf" <<EOF
Port $TPORT
Listen 127.0.0.1
Timeout 60
MaxClients 256
LogLevel Critical
LogFile "$W/tiny.log"
Allow 127.0.0.1
DisableViaHeader Yes
Filter "$W/tiny.filter"
FilterType fnmatch
FilterDefaultDeny Yes
EOF
start tiny "$TPORT" tinyproxy -d -c "$W/tiny.conf"

cat >"$W/egress.policy" <<EOF
clasp-egress-policy 1
allow 127.0.0.1 $OPORT
allow 127.0.0.1 $BPORT
EOF
start clasp "$CPORT" "$EGRESS" serve --listen "127.0.0.1:$CPORT" --policy "$W/egress.policy"

# name proxy(-: none) connect(0/1) pid(0: none)
PATHS=("direct - 0 0" "tiny-fwd 127.0.0.1:$TPORT 0 $tiny_PID" "tiny-conn 127.0.0.1:$TPORT 1 $tiny_PID"
       "clasp-fwd 127.0.0.1:$CPORT 0 $clasp_PID" "clasp-conn 127.0.0.1:$CPORT 1 $clasp_PID")
xargs_for() { [ "$1" = - ] || { printf -- '-x\n%s\n' "$1"; [ "$2" = 0 ] || printf -- '-C\n'; }; }

for p in "${PATHS[@]}"; do
  read -r name proxy conn _ <<<"$p"
  mapfile -t xa < <(xargs_for "$proxy" "$conn")
  "$B/pxload" -t "$ORIGIN" "${xa[@]}" -n 3 -l "$name" >/dev/null || die "$name: allowed request failed"
  [ "$proxy" = - ] || "$B/pxload" -t "$DENIED" "${xa[@]}" -n 3 -e 403 -l "$name" >/dev/null ||
    die "$name: $DENIED was not refused with 403"
done

# results.tsv: round scen path, then pxload's columns (label conc requests ok errors wall_s
# req/s MiB/s p50 p90 p99 mean conns) or pxbulk's (label bytes count MiB/s max_gap_us connect_us)
R=$W/results.tsv
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
declare -A CPU NREQ
SCEN=("lat1k /1k 1 $N_LAT new" "rps1k /1k $CONC $N_RPS new" "ka1k /1k 1 $N_KA ka"
      "big1m /1m 1 $N_BIG new" "ka1m /1m 1 $N_BIG ka" "bulk1g - 1 1 bulk")
load0=$(cut -d' ' -f1 /proc/loadavg); t0=$(date +%s)
for r in $(seq 0 "$ROUNDS"); do # round 0 warms up and is discarded
  for sc in "${SCEN[@]}"; do
    read -r s path conc n kind <<<"$sc"
    [ "$r" = 0 ] && n=$((n / 10 + 1))
    for j in "${!PATHS[@]}"; do
      read -r name proxy conn pid <<<"${PATHS[$(((j + r) % ${#PATHS[@]}))]}"
      [ "$kind" = bulk ] && [ "$proxy" != - ] && [ "$conn" = 0 ] && continue # bulk: tunnels and direct
      mapfile -t xa < <(xargs_for "$proxy" "$conn")
      c0=0; [ "$pid" = 0 ] || c0=$(cpu_ticks "$pid")
      if [ "$kind" = bulk ]; then
        b=$BULK; [ "$r" = 0 ] && b=$((BULK / 16))
        out=$(timeout 300 "$B/pxbulk" get -t "$BULKO" "${xa[@]}" -b "$b" -l "$name" 2>>"$W/err.log") || continue
      else
        [ "$kind" = ka ] && xa+=(-k)
        out=$(timeout 300 "$B/pxload" -t "$ORIGIN" "${xa[@]}" -p "$path" -c "$conc" -n "$n" -T 120 -l "$name" 2>>"$W/err.log") || true
        [ -n "$out" ] || continue
      fi
      if [ "$pid" != 0 ] && [ "$r" -gt 0 ]; then
        CPU[$s/$name]=$(( ${CPU[$s/$name]:-0} + $(cpu_ticks "$pid") - c0 ))
        NREQ[$s/$name]=$(( ${NREQ[$s/$name]:-0} + $(cut -f3 <<<"$out") ))
      fi
      printf '%s\t%s\t%s\n' "$r" "$s" "$out" >>"$R"
    done
  done
done

# ---- report: medians over the measured rounds ----
med() { # SCEN PATH COLUMN (of results.tsv)
  awk -F'\t' -v s="$1" -v p="$2" -v c="$3" '$1 > 0 && $2 == s && $3 == p { print $c }' "$R" | sort -g |
    awk '{ a[NR] = $1 } END { if (!NR) print "nan"; else print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'
}
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan") print "-"; else printf "%.0f", a - b }'; }
errs() { awk -F'\t' -v s="$1" -v p="$2" '$1 > 0 && $2 == s && $3 == p { e += $7 } END { print e + 0 }' "$R"; }

echo "proxy.sh: $ROUNDS rounds, $(nproc) cpus, $(($(date +%s) - t0))s, load1 $load0 -> $(cut -d' ' -f1 /proc/loadavg), $(date -u +%FT%TZ)"
echo "egress: $EGRESS; tinyproxy $(tinyproxy -v 2>&1 | awk '{print $2}'); rps1k conc $CONC"
echo
echo "== latency, 1 KiB GET (us; added = p50 - direct p50)"
printf '%-11s %9s %9s %9s %9s   %9s %9s %9s %9s %6s\n' path lat1k_p50 added lat1k_p99 '' ka1k_p50 added ka1k_p99 ka_req/s errors
for p in "${PATHS[@]}"; do
  read -r name _ <<<"$p"
  printf '%-11s %9s %9s %9s %9s   %9s %9s %9s %9s %6s\n' "$name" \
    "$(med lat1k "$name" 11)" "$(sub "$(med lat1k "$name" 11)" "$(med lat1k direct 11)")" "$(med lat1k "$name" 13)" '' \
    "$(med ka1k "$name" 11)" "$(sub "$(med ka1k "$name" 11)" "$(med ka1k direct 11)")" "$(med ka1k "$name" 13)" \
    "$(med ka1k "$name" 9)" "$(( $(errs lat1k "$name") + $(errs ka1k "$name") ))"
done
echo
echo "== request rate, 1 KiB GET (req/s; /tiny = this path over the same kind of tinyproxy path)"
printf '%-11s %10s %8s %8s   %10s %8s %8s\n' path rps1k /direct /tiny ka1k /direct /tiny
for p in "${PATHS[@]}"; do
  read -r name _ <<<"$p"
  tiny=${name/clasp/tiny}
  printf '%-11s %10s %8s %8s   %10s %8s %8s\n' "$name" \
    "$(med rps1k "$name" 9)" "$(div "$(med rps1k "$name" 9)" "$(med rps1k direct 9)")" "$(div "$(med rps1k "$name" 9)" "$(med rps1k "$tiny" 9)")" \
    "$(med ka1k "$name" 9)" "$(div "$(med ka1k "$name" 9)" "$(med ka1k direct 9)")" "$(div "$(med ka1k "$name" 9)" "$(med ka1k "$tiny" 9)")"
done
echo
echo "== throughput (MiB/s, /direct ratio); ka1m p99 in us; bulk1g = $BULK bytes in one tunnel, longest gap between reads in us"
printf '%-11s %8s %7s   %8s %7s %8s   %8s %7s %9s\n' path big1m /dir ka1m /dir p99 bulk1g /dir max_gap
for p in "${PATHS[@]}"; do
  read -r name _ <<<"$p"
  printf '%-11s %8s %7s   %8s %7s %8s   %8s %7s %9s\n' "$name" \
    "$(med big1m "$name" 10)" "$(div "$(med big1m "$name" 10)" "$(med big1m direct 10)")" \
    "$(med ka1m "$name" 10)" "$(div "$(med ka1m "$name" 10)" "$(med ka1m direct 10)")" "$(med ka1m "$name" 13)" \
    "$(med bulk1g "$name" 6)" "$(div "$(med bulk1g "$name" 6)" "$(med bulk1g direct 6)")" "$(med bulk1g "$name" 7)"
done
echo
echo "== proxy CPU per request (us, from /proc/PID/stat ticks over the measured rounds) and peak RSS"
for p in "${PATHS[@]}"; do
  read -r name _ _ pid <<<"$p"
  [ "$pid" = 0 ] && continue
  line=""
  for sc in "${SCEN[@]}"; do
    read -r s _ <<<"$sc"
    [ "${NREQ[$s/$name]:-0}" -gt 0 ] || continue
    line+=" $s=$(awk -v t="${CPU[$s/$name]}" -v n="${NREQ[$s/$name]}" 'BEGIN { printf "%.0f", t * 10000 / n }')"
  done
  echo "$name:$line  VmHWM $(awk '/VmHWM/ { print $2 $3 }' "/proc/$pid/status")"
done
[ ! -s "$W/err.log" ] || { echo; echo "client errors (last 3):"; tail -3 "$W/err.log"; }
exit 0
