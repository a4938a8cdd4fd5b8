#!/usr/bin/env bats
# The documentation stays in sync with the binary, and `make install` /
# `make uninstall` put in place and remove everything a user needs:
# - every long flag of `clasp --help` and `clasp COMMAND --help` is documented
#   in docs/clasp.8.md and docs/cmd/COMMAND.md, and every flag those pages
#   document exists;
# - docs/man/*.8 are what scripts/gen-man.sh makes of the pages, and render;
# - the bash completion offers every command and flag;
# - make install DESTDIR=... installs the binaries, the hook, the man pages,
#   the completion and the contrib examples, and make uninstall removes them.
# Nothing here needs a container or root.

REPO_DIR=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
RUNTIME=${CLASP:-$REPO_DIR/build/clasp}

setup() {
	[ -x "$RUNTIME" ] || skip "runtime $RUNTIME not built"
	timeout 5 "$RUNTIME" --version 2>/dev/null | grep -q '^clasp version' ||
		skip "documentation checks are for clasp (runtime is $(basename "$RUNTIME"))"
}

# The commands listed by `clasp --help`.
commands() {
	timeout 5 "$RUNTIME" --help | awk '/^Commands:/ { on = 1; next } on && NF { print $1 }'
}

# Every long flag anywhere in a help text (descriptions included).
all_flags() {
	grep -oE -- '(^|[^a-z0-9-])--[a-z][a-z0-9-]*' | sed 's/^[^-]*//' | sort -u
}

# The flag each option line defines ("  -b, --bundle DIR  ...").
option_flags() {
	sed -nE 's/^ +(-[a-zA-Z], *)?(--[a-z][a-z0-9-]*).*/\2/p' | sort -u
}

# The body of one "## SECTION" of a page.
section() {
	awk -v s="## $2" '$0 == s { on = 1; next } /^## / { on = 0 } on' "$1"
}

# Is the flag written in TEXT as a whole word (so --memory does not count
# for --memory-swap)?
mentions() {
	grep -qE -- "(^|[^a-z0-9-])$2([^a-z0-9-]|\$)" <<<"$1"
}

check_page() { # PAGE SECTION HELP-TEXT
	local page=$1 sect=$2 help=$3 body whole f missing=() stale=()
	[ -f "$page" ] || { echo "missing page $page"; return 1; }
	body=$(section "$page" "$sect")
	whole=$(cat "$page")
	[ -n "$body" ] || { echo "$page has no \"## $sect\" section"; return 1; }
	# Options of the help's option table are documented in the options section.
	for f in $(option_flags <<<"$help"); do
		mentions "$body" "$f" || missing+=("$f")
	done
	# Flags mentioned anywhere in the help text appear somewhere in the page.
	for f in $(all_flags <<<"$help"); do
		mentions "$whole" "$f" || missing+=("$f")
	done
	# Every flag the options section defines (its `term` lines) exists.
	for f in $(grep -E '^`' <<<"$body" | all_flags); do
		mentions "$help" "$f" || stale+=("$f")
	done
	if ((${#missing[@]})); then
		echo "$page does not document: ${missing[*]}"
		return 1
	fi
	if ((${#stale[@]})); then
		echo "$page documents flags that --help does not have: ${stale[*]}"
		return 1
	fi
}

@test "docs: every command has a page with the required sections" {
	local c p s fail=0
	for c in $(commands); do
		p=$REPO_DIR/docs/cmd/$c.md
		[ -f "$p" ] || { echo "missing docs/cmd/$c.md"; fail=1; continue; }
		[ "$(head -n 1 "$p")" = "# clasp-$c(8)" ] || { echo "$p: first line must be '# clasp-$c(8)'"; fail=1; }
		for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES; do
			grep -qx "## $s" "$p" || { echo "$p: no \"## $s\" section"; fail=1; }
		done
		# clasp(8) lists the command.
		grep -q "^\`$c\`\$" "$REPO_DIR/docs/clasp.8.md" || { echo "docs/clasp.8.md does not list $c"; fail=1; }
	done
	[ "$fail" -eq 0 ]
}

@test "docs: every global option of clasp --help is in clasp.8.md" {
	run check_page "$REPO_DIR/docs/clasp.8.md" "GLOBAL OPTIONS" "$(timeout 5 "$RUNTIME" --help)"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "docs: every flag of each command's --help is in its page" {
	local c help fail=0
	for c in $(commands); do
		help=$(timeout 5 "$RUNTIME" "$c" --help) || { echo "clasp $c --help failed"; fail=1; continue; }
		check_page "$REPO_DIR/docs/cmd/$c.md" OPTIONS "$help" || fail=1
	done
	[ "$fail" -eq 0 ]
}

@test "docs: docs/man is generated from the current pages" {
	run timeout 60 "$REPO_DIR/scripts/gen-man.sh" --check
	echo "$output"
	[ "$status" -eq 0 ]
	local c
	[ -f "$REPO_DIR/docs/man/clasp.8" ]
	for c in $(commands); do
		[ -f "$REPO_DIR/docs/man/clasp-$c.8" ] || { echo "missing docs/man/clasp-$c.8"; return 1; }
	done
}

@test "docs: the man pages render without warnings" {
	command -v groff >/dev/null || skip "groff not installed"
	local m out
	for m in "$REPO_DIR"/docs/man/*.8; do
		out=$(LC_ALL=C.UTF-8 timeout 30 groff -t -man -Tutf8 -ww -z "$m" 2>&1)
		[ -z "$out" ] || { echo "$m: $out"; return 1; }
		out=$(LC_ALL=C.UTF-8 timeout 30 groff -t -man -Tutf8 "$m" 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g; s/.\x08//g')
		grep -q '^NAME' <<<"$out" || { echo "$m: no NAME section when rendered"; return 1; }
		grep -q '^OPTIONS\|^GLOBAL OPTIONS' <<<"$out" || { echo "$m: no OPTIONS section when rendered"; return 1; }
	done
}

# complete WORDS...: what the completion offers for the last word.
complete_words() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _clasp; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$REPO_DIR/contrib/completion/clasp.bash" "$@"
}

@test "completion: commands, every flag of every command, global options" {
	local c f got fail=0
	got=$(complete_words clasp "")
	for c in $(commands); do
		grep -qx "$c" <<<"$got" || { echo "command $c not completed"; fail=1; }
	done
	got=$(complete_words clasp --)
	for f in $(timeout 5 "$RUNTIME" --help | option_flags); do
		grep -qx -- "$f" <<<"$got" || { echo "global $f not completed"; fail=1; }
	done
	for c in $(commands); do
		got=$(complete_words clasp "$c" --)
		for f in $(timeout 5 "$RUNTIME" "$c" --help | option_flags); do
			grep -qx -- "$f" <<<"$got" || { echo "$c $f not completed"; fail=1; }
		done
	done
	[ "$fail" -eq 0 ]
}

@test "completion: container ids come from clasp list -q under the given --root" {
	local root=$BATS_TEST_TMPDIR/root got
	mkdir -p "$root"
	# A stopped container's state is enough for list -q; no process needed.
	mkdir -p "$root/ct-one"
	jq -n --arg b "$BATS_TEST_TMPDIR" '{id:"ct-one",pid:999999999,startTime:1,bundle:$b,rootfs:($b+"/rootfs"),status:"stopped",created:"2026-01-01T00:00:00Z",owner:0}' \
		>"$root/ct-one/state.json"
	timeout 5 "$RUNTIME" --root "$root" list -q | grep -qx ct-one || skip "could not fake a container state for list -q"
	got=$(complete_words "$RUNTIME" --root "$root" state "")
	grep -qx ct-one <<<"$got"
	got=$(complete_words "$RUNTIME" --root "$root" kill ct-one S)
	grep -qx SIGKILL <<<"$got"
}

# CLASP_TEST_MAKEFILE=FILE runs the install test against another makefile
# (a candidate change to the Makefile), from the repository directory.
mk() {
	timeout 600 make -C "$REPO_DIR" --no-print-directory ${CLASP_TEST_MAKEFILE:+-f "$CLASP_TEST_MAKEFILE"} "$@"
}

# The files `make install` must put under DESTDIR (PREFIX=/usr/local).
installed_files() {
	local c
	echo usr/local/bin/clasp
	echo usr/local/libexec/clasp/clasp-egress
	echo usr/local/share/man/man8/clasp.8
	for c in $(commands); do
		echo "usr/local/share/man/man8/clasp-$c.8"
	done
	echo usr/local/share/bash-completion/completions/clasp
	echo usr/local/share/clasp/podman/containers.conf.d/clasp.conf
	echo usr/local/share/clasp/containerd/config.toml.d/clasp.toml
	echo usr/local/share/clasp/kubernetes/runtimeclass.yaml
	echo usr/local/share/clasp/kubernetes/example-pod.yaml
}

@test "make install DESTDIR and make uninstall" {
	local dest=$BATS_TEST_TMPDIR/dest f fail=0
	mkdir -p "$dest"
	run mk install DESTDIR="$dest" PREFIX=/usr/local
	echo "$output"
	[ "$status" -eq 0 ]
	for f in $(installed_files); do
		[ -f "$dest/$f" ] || { echo "not installed: $f"; fail=1; }
	done
	[ "$fail" -eq 0 ]
	[ -x "$dest/usr/local/bin/clasp" ]
	[ -x "$dest/usr/local/libexec/clasp/clasp-egress" ]
	"$dest/usr/local/bin/clasp" --version | grep -q '^clasp version'
	cmp "$REPO_DIR/contrib/completion/clasp.bash" "$dest/usr/local/share/bash-completion/completions/clasp"
	# The installed man pages are the generated ones and man(1) can read them.
	cmp "$REPO_DIR/docs/man/clasp.8" "$dest/usr/local/share/man/man8/clasp.8"
	if command -v man >/dev/null; then
		MANWIDTH=80 timeout 30 man -l "$dest/usr/local/share/man/man8/clasp-run.8" 2>/dev/null | grep -q 'clasp run'
	fi

	run mk uninstall DESTDIR="$dest" PREFIX=/usr/local
	echo "$output"
	[ "$status" -eq 0 ]
	for f in $(installed_files); do
		[ ! -e "$dest/$f" ] || { echo "not removed: $f"; fail=1; }
	done
	[ "$fail" -eq 0 ]
	# Nothing else was left behind, and clasp's own directories are gone.
	run find "$dest" -type f
	[ -z "$output" ] || { echo "left behind: $output"; return 1; }
	[ ! -e "$dest/usr/local/share/clasp" ]
	[ ! -e "$dest/usr/local/libexec/clasp" ]
}
