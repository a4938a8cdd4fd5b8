#!/bin/sh
# make demo: a busybox bundle under build/demo, confined by clasp, printing
# what the container shows about itself. Runs as root.
set -eu
clasp=${1:?usage: demo.sh CLASP DIR}
dir=${2:?usage: demo.sh CLASP DIR}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)

if [ "$(id -u)" != 0 ]; then
	echo "make demo: run as root (sudo make demo)" >&2
	exit 1
fi
rm -rf "$dir"
mkdir -p "$dir"
"$here/tests/fixtures/make-rootfs.sh" "$dir/rootfs"
"$clasp" spec --bundle "$dir"
# The default spec runs an interactive shell on a terminal; the demo runs a
# script without one instead.
cat >"$dir/rootfs/demo.sh" <<'SCRIPT'
echo "== inside a clasp container"
echo "hostname:      $(hostname)"
echo "id:            $(id)"
echo "pid of init:   $$"
echo "processes:     $(ps -o pid= | wc -l) visible"
grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status
echo "root mount:    $(awk '$5 == "/" {print $6}' /proc/self/mountinfo)"
echo "network:       $(ls /sys/class/net | tr '\n' ' ')"
if touch /probe 2>/dev/null; then echo "rootfs:        writable"; else echo "rootfs:        read-only"; fi
SCRIPT
sed -i -e 's/"terminal": true/"terminal": false/' \
	-e 's|"sh"$|"sh", "/demo.sh"|' \
	-e 's/"readonly": false/"readonly": true/' "$dir/config.json"
id="clasp-demo-$$"
echo "== clasp run -b $dir $id"
"$clasp" run -b "$dir" "$id"

# The same bundle as an agent sandbox: only the workspace is writable, host
# files are out of sight, and the network reaches exactly one allowed host
# through clasp's egress proxy.
ws="$dir/workspace"
www="$dir/www"
mkdir -p "$ws" "$www"
echo "hello from an allowed host" >"$www/index.html"
port=18080
busybox httpd -f -p "127.0.0.1:$port" -h "$www" &
httpd=$!
trap 'kill $httpd 2>/dev/null' EXIT
cat >"$dir/rootfs/agent.sh" <<'SCRIPT'
echo "== inside the agent sandbox"
echo "agent was here" >/workspace/note.txt && echo "workspace:     writable (/workspace/note.txt)"
if cat /etc/shadow >/dev/null 2>&1 || ls /root/.ssh >/dev/null 2>&1; then echo "host files:    VISIBLE"; else echo "host files:    hidden"; fi
if touch /usr-probe 2>/dev/null; then echo "rootfs:        writable"; else echo "rootfs:        read-only"; fi
echo "proxy:         $HTTP_PROXY"
printf 'allowed fetch: '; wget -qO- "http://127.0.0.1:$DEMO_PORT/" 2>&1
printf 'GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n' |
	nc 127.0.0.1 31337 >/tmp/denied 2>&1
echo "denied fetch:  $(head -n1 /tmp/denied | tr -d '\r')"
echo "               $(tail -n1 /tmp/denied)"
SCRIPT
jq --arg ws "$ws" --arg port "$port" '
  .process.args = ["sh", "/agent.sh"]
  | .process.env += ["DEMO_PORT=" + $port]
  | .annotations = {
      "ing.paperclip.fs.scope": "workspace",
      "ing.paperclip.fs.workspace": $ws,
      "ing.paperclip.fs.workspace-target": "/workspace",
      "ing.paperclip.net.scope": "allowlist",
      "ing.paperclip.net.allowlist": ("[\"127.0.0.1:" + $port + "\"]")
    }' "$dir/config.json" >"$dir/config.agent.json"
mkdir -p "$dir/agent"
cp "$dir/config.agent.json" "$dir/agent/config.json"
jq --arg r "$dir/rootfs" '.root.path = $r' "$dir/agent/config.json" >"$dir/agent/c" && mv "$dir/agent/c" "$dir/agent/config.json"
echo
echo "== clasp run -b $dir/agent agent-$$   (annotations: fs.scope=workspace, net.scope=allowlist)"
"$clasp" run -b "$dir/agent" "agent-$$"
echo "== on the host: $(cat "$ws/note.txt")"
