# bash completion for clasp(8): commands, global and per-command options,
# option values (files, formats, signals), and container ids from
# `clasp list -q` under the --root given on the command line.
# Installed as share/bash-completion/completions/clasp.

_clasp_global_opts="--root --log --log-format --debug --systemd-cgroup --rootless --version -v --help -h"
_clasp_commands="create start run state list kill delete exec pause resume update ps events spec features"

# Per-command options; keep in sync with `clasp COMMAND --help`
# (tests/integration/docs.bats checks the docs, not this list).
_clasp_cmd_opts() {
	case $1 in
	create) echo "--bundle -b --pid-file --console-socket --preserve-fds --no-pivot --no-new-keyring --help -h" ;;
	run) echo "--bundle -b --detach -d --pid-file --console-socket --preserve-fds --no-pivot --no-new-keyring --keep --help -h" ;;
	start | state | pause | resume | features) echo "--help -h" ;;
	list) echo "--format -f --quiet -q --help -h" ;;
	kill) echo "--all -a --help -h" ;;
	delete) echo "--force -f --help -h" ;;
	exec) echo "--process -p --tty -t --console-socket --detach -d --pid-file --cwd --env -e --user -u --additional-gids -g --cap -c --no-new-privs --preserve-fds --ignore-paused --apparmor --process-label --help -h" ;;
	update) echo "--resources -r --memory --memory-swap --memory-reservation --kernel-memory --kernel-memory-tcp --cpu-shares --cpu-quota --cpu-period --cpu-burst --cpu-rt-period --cpu-rt-runtime --cpuset-cpus --cpuset-mems --pids-limit --blkio-weight --l3-cache-schema --mem-bw-schema --help -h" ;;
	ps) echo "--format -f --help -h" ;;
	events) echo "--stats --interval --help -h" ;;
	spec) echo "--bundle -b --rootless --help -h" ;;
	esac
}

# Options that take a value, per command ("" for the global ones).
_clasp_opt_takes_arg() {
	case "$1:$2" in
	:--root | :--log | :--log-format | :--rootless) return 0 ;;
	create:-b | create:--bundle | create:--pid-file | create:--console-socket | create:--preserve-fds) return 0 ;;
	run:-b | run:--bundle | run:--pid-file | run:--console-socket | run:--preserve-fds) return 0 ;;
	list:-f | list:--format | ps:-f | ps:--format) return 0 ;;
	exec:-p | exec:--process | exec:--console-socket | exec:--pid-file | exec:--cwd | exec:-e | exec:--env) return 0 ;;
	exec:-u | exec:--user | exec:-g | exec:--additional-gids | exec:-c | exec:--cap | exec:--preserve-fds) return 0 ;;
	exec:--apparmor | exec:--process-label) return 0 ;;
	update:-r | update:--resources | update:--[a-z]*) [ "$2" != --help ] ;;
	events:--interval | spec:-b | spec:--bundle) return 0 ;;
	*) return 1 ;;
	esac
}

_clasp_ids() {
	local root=$1
	"${_clasp_bin:-clasp}" ${root:+--root "$root"} list -q 2>/dev/null
}

_clasp() {
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion -s -n = || return
	else
		COMPREPLY=()
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
	fi
	local _clasp_bin=${words[0]}
	local i w cmd="" root="" npos=0

	# Find the command and the --root before it; count the positional
	# arguments after it.
	for ((i = 1; i < cword; i++)); do
		w=${words[i]}
		if [ -z "$cmd" ]; then
			case $w in
			--root=*) root=${w#--root=} ;;
			--root) root=${words[i + 1]}; i=$((i + 1)) ;;
			--log | --log-format | --rootless) i=$((i + 1)) ;;
			-*) ;;
			*) cmd=$w ;;
			esac
		else
			case $w in
			--*=*) ;;
			-*) _clasp_opt_takes_arg "$cmd" "$w" && i=$((i + 1)) ;;
			*) npos=$((npos + 1)) ;;
			esac
		fi
	done

	# The value of an option.
	case $prev in
	--root | -b | --bundle | --cwd)
		COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--log | --pid-file | --console-socket | -p | --process | -r | --resources)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--log-format)
		COMPREPLY=($(compgen -W "text json" -- "$cur")); return ;;
	--rootless)
		COMPREPLY=($(compgen -W "auto true false" -- "$cur")); return ;;
	-f | --format)
		if [ "$cmd" = list ] || [ "$cmd" = ps ]; then
			COMPREPLY=($(compgen -W "table json" -- "$cur")); return
		fi ;;
	-c | --cap)
		if [ "$cmd" = exec ]; then
			COMPREPLY=($(compgen -W "CAP_CHOWN CAP_DAC_OVERRIDE CAP_DAC_READ_SEARCH CAP_FOWNER CAP_FSETID CAP_KILL CAP_SETGID CAP_SETUID CAP_SETPCAP CAP_NET_BIND_SERVICE CAP_NET_BROADCAST CAP_NET_ADMIN CAP_NET_RAW CAP_IPC_LOCK CAP_IPC_OWNER CAP_SYS_MODULE CAP_SYS_RAWIO CAP_SYS_CHROOT CAP_SYS_PTRACE CAP_SYS_PACCT CAP_SYS_ADMIN CAP_SYS_BOOT CAP_SYS_NICE CAP_SYS_RESOURCE CAP_SYS_TIME CAP_SYS_TTY_CONFIG CAP_MKNOD CAP_LEASE CAP_AUDIT_WRITE CAP_AUDIT_CONTROL CAP_SETFCAP CAP_MAC_OVERRIDE CAP_MAC_ADMIN CAP_SYSLOG CAP_WAKE_ALARM CAP_BLOCK_SUSPEND CAP_AUDIT_READ CAP_PERFMON CAP_BPF CAP_CHECKPOINT_RESTORE" -- "$cur"))
			return
		fi ;;
	esac
	if [ -n "$cmd" ] && _clasp_opt_takes_arg "$cmd" "$prev"; then
		return # a value we cannot guess (a number, a size, a list)
	fi

	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$_clasp_global_opts" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$_clasp_commands" -- "$cur"))
		fi
		return
	fi

	# exec and ps pass everything after the id on: complete the command
	# (exec) and stop offering clasp's own options.
	if [ "$cmd" = exec ] && [ "$npos" -ge 1 ]; then
		if [ "$npos" -eq 1 ]; then
			COMPREPLY=($(compgen -c -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return
	fi
	if [ "$cmd" = ps ] && [ "$npos" -ge 1 ]; then
		return
	fi

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_clasp_cmd_opts "$cmd")" -- "$cur"))
		return
	fi

	case $cmd in
	list | spec | features) ;;
	kill)
		if [ "$npos" -eq 0 ]; then
			COMPREPLY=($(compgen -W "$(_clasp_ids "$root")" -- "$cur"))
		elif [ "$npos" -eq 1 ]; then
			COMPREPLY=($(compgen -W "TERM KILL HUP INT QUIT USR1 USR2 STOP CONT WINCH SIGTERM SIGKILL SIGHUP SIGINT SIGQUIT SIGUSR1 SIGUSR2 SIGSTOP SIGCONT SIGWINCH" -- "$cur"))
		fi ;;
	create | run)
		# The id of a new container: nothing to offer.
		;;
	*)
		[ "$npos" -eq 0 ] && COMPREPLY=($(compgen -W "$(_clasp_ids "$root")" -- "$cur")) ;;
	esac
}

complete -F _clasp clasp
