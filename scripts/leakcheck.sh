#!/bin/bash
# leakcheck.sh: a canonical, sorted listing of everything clasp could leave behind, to compare
# before and after a test (diff <(leakcheck.sh ...) <(leakcheck.sh ...)). Read-only.
#
#   scripts/leakcheck.sh [--root DIR]... [--dir DIR]... [--match STR]...
#
#   --root DIR   a clasp state root (default /run/clasp when no --root is given): its container
#                directories, and egress.pid files below it.
#   --dir DIR    a directory the tests own (bundles, workspaces, copy dirs): processes whose root
#                or cwd lies under it, mounts mentioning it, workspace copies (.clasp-copy-*) in it.
#   --match STR  restrict the machine-wide entries (cgroups under clasp/, clasp and clasp-egress
#                processes, mounts mentioning "clasp") to those whose line contains one of the
#                STRs. Without --match every such entry is listed: use it when other clasp users
#                share the machine, with the test's container-ID prefix and its --root.
#
# Lines (sorted, stable across runs when nothing changed):
#   state ROOT/ID                  a container's state directory
#   proc PID EXE in DIR            a process whose root or cwd is under DIR
#   proc PID EXE cmd ARGS          a clasp/clasp-egress process (also run from the sealed memfd)
#   mount MOUNTPOINT FSTYPE SOURCE a mount mentioning a given DIR or clasp
#   cgroup PATH                    a directory below a hierarchy's clasp/ parent
#   egress-pid FILE                an egress.pid file (a proxy clasp believes is running)
#   copy PATH                      a workspace copy
# Exit status 0, whatever is listed.

set -u
export LC_ALL=C

roots=()
dirs=()
matches=()
while (($#)); do
	case $1 in
	--root) roots+=("$(realpath -m "$2")"); shift 2 ;;
	--dir) dirs+=("$(realpath -m "$2")"); shift 2 ;;
	--match) matches+=("$2"); shift 2 ;;
	-h | --help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "leakcheck.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
((${#roots[@]})) || roots=(/run/clasp)
# Our own pipeline must not show up as a process "in" a directory.
cd /

# matched LINE: with no --match, everything; otherwise lines containing one of the strings.
matched() {
	((${#matches[@]})) || return 0
	local m
	for m in "${matches[@]}"; do
		[[ $1 == *"$m"* ]] && return 0
	done
	return 1
}

under() { # under PATH DIR
	[[ $1 == "$2" || $1 == "$2"/* ]]
}

# The caller and its ancestors are never reported (a hook or test may itself run leakcheck).
declare -A skip=()
p=$$
while [ -n "$p" ] && [ "$p" != 0 ]; do
	skip[$p]=1
	p=$(awk '/^PPid:/ {print $2}' "/proc/$p/status" 2>/dev/null)
done

{
	# State directories (dot entries are shared caches such as .seccomp-cache) and egress.pid.
	for r in "${roots[@]}"; do
		[ -d "$r" ] || continue
		for d in "$r"/*/; do
			[ -d "$d" ] && echo "state ${d%/}"
		done
		find "$r" -maxdepth 3 -name egress.pid 2>/dev/null | sed 's/^/egress-pid /'
	done

	# Processes: three finds read every link at once (a readlink per process would take seconds).
	declare -A exe=() root=() cwd=()
	while IFS=$'\t' read -r p l; do exe[${p#/proc/}]=$l; done < <(find /proc/[0-9]*/exe -maxdepth 0 -printf '%h\t%l\n' 2>/dev/null)
	if ((${#dirs[@]})); then
		while IFS=$'\t' read -r p l; do root[${p#/proc/}]=$l; done < <(find /proc/[0-9]*/root -maxdepth 0 -printf '%h\t%l\n' 2>/dev/null)
		while IFS=$'\t' read -r p l; do cwd[${p#/proc/}]=$l; done < <(find /proc/[0-9]*/cwd -maxdepth 0 -printf '%h\t%l\n' 2>/dev/null)
	fi
	for pid in "${!exe[@]}"; do
		[ -n "${skip[$pid]:-}" ] && continue
		e=${exe[$pid]}
		[ -n "$e" ] || continue # kernel threads, or gone
		for d in "${dirs[@]}"; do
			if under "${root[$pid]:-}" "$d" || under "${cwd[$pid]:-}" "$d"; then
				echo "proc $pid $e in $d"
				break
			fi
		done
		case ${e##*/} in
		clasp | clasp-egress | "memfd:clasp (deleted)" | "clasp (deleted)" | "clasp-egress (deleted)") ;;
		*) continue ;;
		esac
		cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || continue
		line="proc $pid $e cmd ${cmd% }"
		matched "$line" && echo "$line"
	done

	# Mounts, in this mount namespace.
	while read -r _ _ _ _ mp _ rest; do
		fstype=" $rest"
		fstype=${fstype#* - }
		src=${fstype#* }
		fstype=${fstype%% *}
		src=${src%% *}
		mp=$(printf '%b' "$mp")
		line="mount $mp $fstype $src"
		hit=
		for d in "${dirs[@]}"; do
			[[ $line == *"$d"* ]] && hit=1
		done
		if [ -z "$hit" ] && [[ $line == *clasp* ]] && matched "$line"; then
			hit=1
		fi
		[ -n "$hit" ] && echo "$line"
	done </proc/self/mountinfo

	# cgroups: every hierarchy's clasp/ parent, at its root and under our own cgroup there
	# (the v1 memory hierarchy nests clasp/ under the cgroup the caller runs in).
	while IFS=: read -r _ ctrls path; do
		mnts=()
		if [ -z "$ctrls" ]; then
			while read -r _ _ _ _ mp _ rest; do
				[[ " $rest" == *" - cgroup2 "* ]] && mnts+=("$mp")
			done </proc/self/mountinfo
		else
			while read -r _ _ _ _ mp _ rest; do
				[[ " $rest" == *" - cgroup "* ]] || continue
				opts=",${rest##* },"
				ok=1
				IFS=, read -ra want <<<"$ctrls"
				for w in "${want[@]}"; do
					[[ $opts == *",$w,"* ]] || ok=
				done
				[ -n "$ok" ] && mnts+=("$mp")
			done </proc/self/mountinfo
		fi
		for mp in "${mnts[@]}"; do
			for base in "$mp/clasp" "$mp${path%/}/clasp"; do
				[ -d "$base" ] || continue
				find "$base" -mindepth 1 -type d 2>/dev/null | while read -r cg; do
					line="cgroup $cg"
					matched "$line" && echo "$line"
				done
			done
		done
	done </proc/self/cgroup

	# Workspace copies.
	for d in "${dirs[@]}"; do
		[ -d "$d" ] || continue
		find "$d" -xdev -name '.clasp-copy-*' -prune 2>/dev/null | sed 's/^/copy /'
	done
} | sort -u
