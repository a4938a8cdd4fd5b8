#!/usr/bin/env bats
# linux.seccomp through the real runtime: each test runs busybox (or a static probe) in a
# container under a profile and checks what the kernel did to the syscall.

load helpers

# ---- helpers of this file ----------------------------------------------------------------------
HELPERS=${CLASP_HELPERS:-$REPO_DIR/build/helpers}

# probe OP [ARGS]: one syscall per argument, its result on stdout; static, so it runs in the
# busybox rootfs. Bind-mounted read-only at /mnt in every container of these suites.
probe_source() {
	cat <<'EOF'
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void report(const char *op, long r)
{
	if (r < 0)
		printf("%s: errno %d (%s)\n", op, errno, strerror(errno));
	else
		printf("%s: ok %ld\n", op, r);
	fflush(stdout);
}

static void *thread_mkdir(void *path)
{
	report("thread-mkdir", syscall(SYS_mkdir, (char *)path, 0755));
	return NULL;
}

static volatile sig_atomic_t got_code = -1, got_nr = -1;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	got_code = si->si_code;
	got_nr = si->si_syscall;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : "/tmp/probe-dir";

	if (!strcmp(op, "mkdir")) {
		report(op, syscall(SYS_mkdir, arg, 0755));
	} else if (!strcmp(op, "personality")) {
		for (int i = 2; i < argc; i++) {
			char label[64];
			snprintf(label, sizeof(label), "personality(%s)", argv[i]);
			report(label, syscall(SYS_personality, strtoul(argv[i], NULL, 0)));
		}
	} else if (!strcmp(op, "socket")) {
		for (int i = 2; i + 1 < argc; i += 2) {
			char label[64];
			snprintf(label, sizeof(label), "socket(%s,%s)", argv[i], argv[i + 1]);
			report(label, syscall(SYS_socket, atoi(argv[i]), atoi(argv[i + 1]), 0));
		}
	} else if (!strcmp(op, "reboot")) {
		/* Invalid magic: never reboots. EINVAL if let through, EPERM without CAP_SYS_BOOT. */
		report(op, syscall(SYS_reboot, 0, 0, 0, 0));
	} else if (!strcmp(op, "kexec_load")) {
		/* An undefined flag bit and too many segments: EINVAL if let through (ENOSYS without kexec). */
		report(op, syscall(SYS_kexec_load, 0, 1000, NULL, 0x8000));
	} else if (!strcmp(op, "swapoff")) {
		report(op, syscall(SYS_swapoff, "/nonexistent-swap"));
	} else if (!strcmp(op, "thread-mkdir")) {
		pthread_t t;
		pthread_create(&t, NULL, thread_mkdir, (void *)arg);
		pthread_join(t, NULL);
		printf("main thread survived\n");
	} else if (!strcmp(op, "trap-mkdir")) {
		struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
		sigaction(SIGSYS, &sa, NULL);
		syscall(SYS_mkdir, arg, 0755);
		printf("sigsys: code=%d syscall=%d\n", (int)got_code, (int)got_nr);
	} else if (!strcmp(op, "mkdir32")) {
		/* mkdir through the i386 entry (int $0x80, nr 39): seccomp sees AUDIT_ARCH_I386. */
		long r;
		static const char path[] = "/tmp/probe32";
		__asm__ volatile("int $0x80" : "=a"(r) : "0"(39L), "b"(path), "c"(0755L) : "memory");
		if (r < 0) {
			errno = (int)-r;
			r = -1;
		}
		report(op, r);
	} else {
		fprintf(stderr, "usage: probe mkdir|personality|socket|reboot|kexec_load|swapoff|thread-mkdir|trap-mkdir|mkdir32 [ARG]\n");
		return 2;
	}
	return 0;
}
EOF
}

seccomp_setup_file() {
	common_setup_file
	export PROBE_DIR=$BATS_FILE_TMPDIR/probe
	mkdir -p "$PROBE_DIR"
	probe_source >"$PROBE_DIR/probe.c"
	# -static: the rootfs has no libc. Non-PIE, so string literals sit below 4 GiB (mkdir32).
	timeout 120 gcc -static -O2 -pthread -o "$PROBE_DIR/probe" "$PROBE_DIR/probe.c"
	chmod 755 "$PROBE_DIR" "$PROBE_DIR/probe"
	MKDIR_NR=$(printf '#include <sys/syscall.h>\nSYS_mkdir\n' | gcc -E -P - | tail -n1)
	export MKDIR_NR
}

seccomp_setup() {
	common_setup
	traversable "$PROBE_DIR"
	LISTENER_PID=
	# A writable /tmp, so that an allowed mkdir succeeds, and the probe at /mnt/probe.
	update_config ".mounts += [
		{destination: \"/tmp\", type: \"tmpfs\", source: \"tmpfs\", options: [\"nosuid\", \"nodev\", \"mode=1777\"]},
		{destination: \"/mnt\", type: \"bind\", source: $(jq -Rn --arg p "$PROBE_DIR" '$p'), options: [\"bind\", \"ro\"]}]"
}

seccomp_teardown() {
	if [ -n "${LISTENER_PID:-}" ] && kill -0 "$LISTENER_PID" 2>/dev/null; then
		kill "$LISTENER_PID" 2>/dev/null || true
		wait "$LISTENER_PID" 2>/dev/null || true
	fi
	# The compiled-filter cache lives under the runtime root; it is not container state.
	rm -rf "${CT_ROOT:?}/.seccomp-cache"
	common_teardown
}

mkdir_nr() { echo "$MKDIR_NR"; }

# profile 'jq object': sets linux.seccomp.
profile() {
	update_config ".linux.seccomp = $1"
}

# probe_run OP [ARGS...]: run the probe as the container process; sets $status and $output.
probe_run() {
	local args
	args=$(printf '%s\n' /mnt/probe "$@" | jq -R . | jq -sc .)
	update_config ".process.args = $args"
	run_fg "$(new_id)"
}

# allow_basics: JSON array of what busybox, the static probe and the runtime's last steps use,
# minus mkdir/mkdirat/personality/swapoff. For clasp it is the short list below, which includes
# the syscalls docs/seccomp.md says run after the load; other runtimes need more (runc's Go
# init), so they get every x86_64 syscall but those four.
allow_basics() {
	if ! is_clasp && [ -r /usr/include/x86_64-linux-gnu/asm/unistd_64.h ]; then
		awk '$1 == "#define" && $2 ~ /^__NR_/ {sub("__NR_", "", $2); print $2}' \
			/usr/include/x86_64-linux-gnu/asm/unistd_64.h |
			grep -vxE 'mkdir|mkdirat|personality|swapoff' | jq -R . | jq -sc .
		return
	fi
	printf '%s\n' access arch_prctl brk capget capset chdir clock_gettime clone clone3 close dup dup2 dup3 \
		execve execveat exit exit_group fcntl fstat futex getcwd getdents64 getegid geteuid getgid \
		getpgrp getpid getppid getrandom getrlimit gettid getuid ioctl lseek lstat madvise mmap \
		mprotect munmap newfstatat open openat pipe pipe2 poll prctl pread64 prlimit64 read readlink \
		readlinkat rseq rt_sigaction rt_sigprocmask rt_sigreturn sched_getaffinity sendmsg \
		set_robust_list set_tid_address setpgid setresuid sigaltstack stat statx tgkill umask uname \
		wait4 write writev | jq -R . | jq -sc .
}

# start_listener SOCKET [seccomp-listener options]: the seccomp agent in the background.
start_listener() {
	local sock=$1 i
	shift
	LISTENER_OUT=$BATS_TEST_TMPDIR/listener.out
	"$HELPERS/seccomp-listener" -t 30 "$@" "$sock" >"$LISTENER_OUT" 2>"$BATS_TEST_TMPDIR/listener.err" 3>&- </dev/null &
	LISTENER_PID=$!
	for ((i = 0; i < 200; i++)); do
		[ -S "$sock" ] && return 0
		sleep 0.05
	done
	echo "listener did not create $sock: $(cat "$BATS_TEST_TMPDIR/listener.err")" >&2
	return 1
}

# wait_listener: until the listener exits (it does when the filtered tasks are gone); fails
# unless it exited 0.
wait_listener() {
	local i rc=0
	for ((i = 0; i < 300; i++)); do
		kill -0 "$LISTENER_PID" 2>/dev/null || break
		sleep 0.05
	done
	wait "$LISTENER_PID" || rc=$?
	LISTENER_PID=
	echo "listener: rc=$rc"
	cat "$LISTENER_OUT" "$BATS_TEST_TMPDIR/listener.err"
	[ "$rc" -eq 0 ]
}
# ---- end of the helpers ------------------------------------------------------------------------

setup_file() { seccomp_setup_file; }
setup() { seccomp_setup; }
teardown() { seccomp_teardown; }

@test "SCMP_ACT_ERRNO without errnoRet: mkdir fails with EPERM" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO"}]}'
	in_container 'mkdir /tmp/d; echo rc=$?; touch /tmp/f && echo touched'
	[ "$status" -eq 0 ]
	[[ "$output" == *"can't create directory '/tmp/d': Operation not permitted"* ]]
	[[ "$output" == *"rc=1"* ]]
	[[ "$output" == *touched* ]]
}

@test "SCMP_ACT_ERRNO with errnoRet 38: mkdir fails with ENOSYS" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO", errnoRet: 38}]}'
	in_container 'mkdir /tmp/d'
	[ "$status" -eq 1 ]
	[[ "$output" == *"Function not implemented"* ]]
	probe_run mkdir /tmp/d
	[ "$status" -eq 0 ]
	[ "$output" = "mkdir: errno 38 (Function not implemented)" ]
}

@test "defaultAction SCMP_ACT_ERRNO with defaultErrnoRet: unlisted syscalls get that errno" {
	# Everything busybox needs to start and print is allowed; mkdir is not listed.
	profile "{defaultAction: \"SCMP_ACT_ERRNO\", defaultErrnoRet: 13, syscalls: [{names: $(allow_basics), action: \"SCMP_ACT_ALLOW\"}]}"
	probe_run mkdir /tmp/d
	[ "$status" -eq 0 ]
	[ "$output" = "mkdir: errno 13 (Permission denied)" ]
}

@test "defaultAction SCMP_ACT_ERRNO without defaultErrnoRet: EPERM" {
	profile "{defaultAction: \"SCMP_ACT_ERRNO\", syscalls: [{names: $(allow_basics), action: \"SCMP_ACT_ALLOW\"}]}"
	probe_run mkdir /tmp/d
	[ "$status" -eq 0 ]
	[ "$output" = "mkdir: errno 1 (Operation not permitted)" ]
}

@test "argument filter: personality allowed only for the query value 0xffffffff" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [
		{names: ["personality"], action: "SCMP_ACT_ALLOW", args: [{index: 0, value: 4294967295, op: "SCMP_CMP_EQ"}]},
		{names: ["personality"], action: "SCMP_ACT_ERRNO", errnoRet: 22, args: [{index: 0, value: 4294967295, op: "SCMP_CMP_NE"}]}]}'
	probe_run personality 0xffffffff 0x0008 0
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "personality(0xffffffff): ok 0" ]
	[ "${lines[1]}" = "personality(0x0008): errno 22 (Invalid argument)" ]
	[ "${lines[2]}" = "personality(0): errno 22 (Invalid argument)" ]
	# busybox linux32 calls personality(PER_LINUX32) too, and fails.
	in_container 'linux32 uname -m'
	[ "$status" -ne 0 ]
	[[ "$output" != *i686* ]]
}

@test "argument filter: every operator (NE LT LE EQ GE GT MASKED_EQ), on personality" {
	# One container per operator, one rule denying with errno 13; the probe tries values around
	# 100 (0x64). Values other than 0xffffffff set the probe's persona, harmless as it exits.
	local cases=(
		'SCMP_CMP_NE:100:0|99 101|100'
		'SCMP_CMP_LT:100:0|0 99|100 101'
		'SCMP_CMP_LE:100:0|99 100|101 4096'
		'SCMP_CMP_EQ:100:0|100|99 101'
		'SCMP_CMP_GE:100:0|100 101 4096|0 99'
		'SCMP_CMP_GT:100:0|101 4096|99 100'
		'SCMP_CMP_MASKED_EQ:240:96|0x60 0x64 0x6f 0x160|0x70 0x50 0'
	)
	local c rule denied allowed op value two v
	for c in "${cases[@]}"; do
		IFS='|' read -r rule denied allowed <<<"$c"
		IFS=: read -r op value two <<<"$rule"
		profile "{defaultAction: \"SCMP_ACT_ALLOW\", syscalls: [{names: [\"personality\"], action: \"SCMP_ACT_ERRNO\",
			errnoRet: 13, args: [{index: 0, value: $value, valueTwo: $two, op: \"$op\"}]}]}"
		probe_run personality $denied $allowed
		[ "$status" -eq 0 ] || { echo "$op: $output"; return 1; }
		for v in $denied; do
			[[ "$output" == *"personality($v): errno 13 "* ]] || { echo "$op $value: $v not denied: $output"; return 1; }
		done
		for v in $allowed; do
			[[ "$output" == *"personality($v): ok"* ]] || { echo "$op $value: $v not allowed: $output"; return 1; }
		done
	done
}

@test "argument filter: comparisons on two different arguments are ANDed" {
	# socket(AF_INET=2, SOCK_DGRAM=2) denied; AF_INET stream and AF_UNIX datagram allowed.
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["socket"], action: "SCMP_ACT_ERRNO", errnoRet: 97,
		args: [{index: 0, value: 2, op: "SCMP_CMP_EQ"}, {index: 1, value: 2, op: "SCMP_CMP_EQ"}]}]}'
	probe_run socket 2 2 2 1 1 2
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "socket(2,2): errno 97 (Address family not supported by protocol)" ]
	[[ "${lines[1]}" == "socket(2,1): ok"* ]]
	[[ "${lines[2]}" == "socket(1,2): ok"* ]]
}

@test "SCMP_ACT_KILL kills the process with SIGSYS (exit 159)" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_KILL"}]}'
	update_config '.process.args = ["mkdir", "/tmp/d"]'
	run_fg "$(new_id)"
	[ "$status" -eq 159 ]
	# From a shell: the child is killed by signal 31.
	in_container 'mkdir /tmp/d; echo rc=$?'
	[ "$status" -eq 0 ]
	[[ "$output" == *rc=159* ]]
}

@test "SCMP_ACT_KILL_THREAD kills only the calling thread; SCMP_ACT_KILL_PROCESS the whole process" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_KILL_THREAD"}]}'
	probe_run thread-mkdir /tmp/d
	[ "$status" -eq 0 ]
	[ "$output" = "main thread survived" ]
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_KILL_PROCESS"}]}'
	probe_run thread-mkdir /tmp/d
	[ "$status" -eq 159 ]
	[[ "$output" != *survived* ]]
	update_config '.process.args = ["mkdir", "/tmp/d"]'
	run_fg "$(new_id)"
	[ "$status" -eq 159 ]
}

@test "SCMP_ACT_TRAP raises SIGSYS (code SYS_SECCOMP, the syscall number); unhandled it kills" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_TRAP"}]}'
	probe_run trap-mkdir /tmp/d
	[ "$status" -eq 0 ]
	# SYS_SECCOMP = 1; mkdir is 83 on x86_64.
	[ "$output" = "sigsys: code=1 syscall=$(mkdir_nr)" ]
	update_config '.process.args = ["mkdir", "/tmp/d"]'
	run_fg "$(new_id)"
	[ "$status" -eq 159 ]
}

@test "SCMP_ACT_LOG allows the syscall and logs it" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_LOG"}]}'
	local comm=sclog$$$BATS_TEST_NUMBER
	comm=${comm:0:15}
	ln -s probe "$PROBE_DIR/$comm"
	update_config ".process.args = [\"/mnt/$comm\", \"mkdir\", \"/tmp/d\"]"
	run_fg "$(new_id)"
	rm -f "$PROBE_DIR/$comm"
	[ "$status" -eq 0 ]
	[ "$output" = "mkdir: ok 0" ]
	# The kernel logs it (audit type 1326, SECCOMP_RET_LOG = 0x7ffc0000) when "log" is logged.
	if grep -qw log /proc/sys/kernel/seccomp/actions_logged && dmesg >/dev/null 2>&1; then
		local i
		for ((i = 0; i < 40; i++)); do
			dmesg | grep -F "comm=\"$comm\"" | grep -q "syscall=$(mkdir_nr) .*code=0x7ffc0000" && return 0
			sleep 0.05
		done
		echo "no seccomp log record for comm=$comm in dmesg"
		return 1
	fi
}

@test "SCMP_ACT_TRACE without a tracer: the syscall fails with ENOSYS" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_TRACE", errnoRet: 5}]}'
	probe_run mkdir /tmp/d
	[ "$status" -eq 0 ]
	[ "$output" = "mkdir: errno 38 (Function not implemented)" ]
}

@test "SCMP_ACT_ALLOW rules under a SCMP_ACT_KILL default: busybox runs, the rest kills" {
	profile "{defaultAction: \"SCMP_ACT_KILL_PROCESS\", syscalls: [{names: $(allow_basics), action: \"SCMP_ACT_ALLOW\"}]}"
	in_container 'echo hello; ls /mnt'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = hello ]
	probe_run mkdir /tmp/d
	[ "$status" -eq 159 ]
}

@test "architectures: listed SCMP_ARCH_X86 filters int 0x80 syscalls; unlisted, they are killed" {
	[ "$(uname -m)" = x86_64 ] || skip "x86_64 only"
	# Without a filter the i386 entry works (ia32 emulation enabled).
	probe_run mkdir32
	[ "$output" = "mkdir32: ok 0" ] || skip "no ia32 emulation: $output"
	profile '{defaultAction: "SCMP_ACT_ALLOW", architectures: ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86"],
		syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO", errnoRet: 30}]}'
	probe_run mkdir32
	[ "$status" -eq 0 ]
	[ "$output" = "mkdir32: errno 30 (Read-only file system)" ]
	profile '{defaultAction: "SCMP_ACT_ALLOW", architectures: ["SCMP_ARCH_X86_64"],
		syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO", errnoRet: 30}]}'
	probe_run mkdir32
	[ "$status" -eq 159 ]
	probe_run mkdir /tmp/d
	[ "$output" = "mkdir: errno 30 (Read-only file system)" ]
}

@test "NOTIFY: the listener gets the container process state and a working notify fd" {
	local sock=$BATS_TEST_TMPDIR/l.sock id
	start_listener "$sock" -n 0 -e 38
	id=$(new_id)
	update_config '.annotations = {"org.test.key": "v1"}'
	profile "{defaultAction: \"SCMP_ACT_ALLOW\", listenerPath: \"$sock\", listenerMetadata: \"meta-$id\",
		syscalls: [{names: [\"mkdir\", \"mkdirat\"], action: \"SCMP_ACT_NOTIFY\"}]}"
	set_cmd 'mkdir /tmp/d; echo rc=$?; touch /tmp/f && echo touched'
	run_fg "$id"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"/tmp/d': Function not implemented"* ]]
	[[ "$output" == *touched* ]]
	wait_listener
	local state
	state=$(sed -n 's/^state: //p' "$LISTENER_OUT")
	grep -qx 'fds: 1' "$LISTENER_OUT"
	grep -q "^notify: pid=[0-9]* nr=$(mkdir_nr) name=mkdir .*-> errno 38$" "$LISTENER_OUT"
	[ "$(jq -r .ociVersion <<<"$state")" != null ]
	[ "$(jq -c .fds <<<"$state")" = '["seccompFd"]' ]
	[ "$(jq -r .metadata <<<"$state")" = "meta-$id" ]
	[ "$(jq -r '.pid | type' <<<"$state")" = number ]
	[ "$(jq -r .pid <<<"$state")" -gt 0 ]
	[ "$(jq -r .state.id <<<"$state")" = "$id" ]
	[ "$(jq -r .state.pid <<<"$state")" = "$(jq -r .pid <<<"$state")" ]
	[ "$(jq -r .state.bundle <<<"$state")" = "$BUNDLE" ]
	[ "$(jq -r .state.status <<<"$state")" = creating ]
	[ "$(jq -r '.state.annotations["org.test.key"]' <<<"$state")" = v1 ]
}

@test "NOTIFY: the agent can let the syscall continue; no metadata field without listenerMetadata" {
	local sock=$BATS_TEST_TMPDIR/l.sock
	start_listener "$sock" -n 0 -c
	profile "{defaultAction: \"SCMP_ACT_ALLOW\", listenerPath: \"$sock\",
		syscalls: [{names: [\"mkdir\", \"mkdirat\"], action: \"SCMP_ACT_NOTIFY\"}]}"
	in_container 'mkdir /tmp/d && test -d /tmp/d && echo made'
	[ "$status" -eq 0 ]
	[[ "$output" == *made* ]]
	wait_listener
	grep -q "name=mkdir .*-> continue" "$LISTENER_OUT"
	[ "$(sed -n 's/^state: //p' "$LISTENER_OUT" | jq 'has("metadata")')" = false ]
}

@test "NOTIFY with SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV works" {
	local sock=$BATS_TEST_TMPDIR/l.sock
	start_listener "$sock" -n 0 -e 5
	profile "{defaultAction: \"SCMP_ACT_ALLOW\", listenerPath: \"$sock\",
		flags: [\"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV\", \"SECCOMP_FILTER_FLAG_TSYNC\"],
		syscalls: [{names: [\"mkdir\", \"mkdirat\"], action: \"SCMP_ACT_NOTIFY\"}]}"
	in_container 'mkdir /tmp/d'
	[ "$status" -eq 1 ]
	[[ "$output" == *"Input/output error"* ]]
	wait_listener
	grep -q "name=mkdir .*-> errno 5$" "$LISTENER_OUT"
}

@test "NOTIFY: the notify fd is not left open in the container" {
	local sock=$BATS_TEST_TMPDIR/l.sock
	start_listener "$sock" -n 0 -c
	profile "{defaultAction: \"SCMP_ACT_ALLOW\", listenerPath: \"$sock\",
		syscalls: [{names: [\"mkdir\", \"mkdirat\"], action: \"SCMP_ACT_NOTIFY\"}]}"
	in_container 'mkdir /tmp/d; for f in /proc/self/fd/*; do echo "$f -> $(readlink $f)"; done'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *seccomp* ]]
	[[ "$output" != *socket* ]]
	wait_listener
}

@test "NOTIFY: a listener that is not there fails create and leaves nothing behind" {
	profile "{defaultAction: \"SCMP_ACT_ALLOW\", listenerPath: \"$BATS_TEST_TMPDIR/nobody.sock\",
		syscalls: [{names: [\"mkdir\"], action: \"SCMP_ACT_NOTIFY\"}]}"
	local id
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *nobody.sock* ]]
	assert_no_trace "$id"
}

@test "NOTIFY on a syscall the runtime needs after the load is refused at create" {
	requires_clasp "clasp refuses more names than runc (docs/seccomp.md)"
	profile "{defaultAction: \"SCMP_ACT_ALLOW\", listenerPath: \"$BATS_TEST_TMPDIR/l.sock\",
		syscalls: [{names: [\"mkdir\"], action: \"SCMP_ACT_ERRNO\"}, {names: [\"getpid\", \"write\"], action: \"SCMP_ACT_NOTIFY\"}]}"
	local id
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *'linux.seccomp.syscalls[1].names[1]'*write* ]]
	assert_no_trace "$id"
}

@test "unknown syscall names are skipped; the real rules still apply" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [
		{names: ["no_such_syscall", "mkdir", "another_bogus_one"], action: "SCMP_ACT_ERRNO", errnoRet: 38},
		{names: ["no_such_syscall_at_all"], action: "SCMP_ACT_ERRNO"}]}'
	probe_run mkdir /tmp/d
	[ "$status" -eq 0 ]
	[ "$output" = "mkdir: errno 38 (Function not implemented)" ]
}

@test "/proc/self/status shows Seccomp 2 and at least one filter; none without a profile" {
	in_container 'grep -E "^(Seccomp|Seccomp_filters|NoNewPrivs):" /proc/self/status'
	[ "$status" -eq 0 ]
	[[ "$output" == *"Seccomp:"*0* ]]
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO"}]}'
	in_container 'grep -E "^(Seccomp|Seccomp_filters):" /proc/self/status'
	[ "$status" -eq 0 ]
	[ "$(awk '$1 == "Seccomp:" {print $2}' <<<"$output")" = 2 ]
	[ "$(awk '$1 == "Seccomp_filters:" {print $2}' <<<"$output")" -ge 1 ]
}

@test "flags SECCOMP_FILTER_FLAG_LOG, SPEC_ALLOW and TSYNC are accepted and the filter works" {
	local f
	for f in SECCOMP_FILTER_FLAG_LOG SECCOMP_FILTER_FLAG_SPEC_ALLOW SECCOMP_FILTER_FLAG_TSYNC all; do
		if [ $f = all ]; then
			flags='["SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW", "SECCOMP_FILTER_FLAG_TSYNC"]'
		else
			flags="[\"$f\"]"
		fi
		profile "{defaultAction: \"SCMP_ACT_ALLOW\", flags: $flags, syscalls: [{names: [\"mkdir\"], action: \"SCMP_ACT_ERRNO\", errnoRet: 38}]}"
		probe_run mkdir /tmp/d
		[ "$status" -eq 0 ] || { echo "$f: $output"; return 1; }
		[ "$output" = "mkdir: errno 38 (Function not implemented)" ] || { echo "$f: $output"; return 1; }
	done
}

@test "SPEC_ALLOW leaves speculation mitigations off; without it seccomp forces them" {
	grep -q '^Speculation_Store_Bypass:' /proc/self/status || skip "kernel does not report it"
	grep -q '^Speculation_Store_Bypass:.*vulnerable' /proc/self/status && skip "host is not affected / no mitigation"
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO"}]}'
	in_container 'grep ^Speculation_Store_Bypass: /proc/self/status'
	local without=$output
	profile '{defaultAction: "SCMP_ACT_ALLOW", flags: ["SECCOMP_FILTER_FLAG_SPEC_ALLOW"], syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO"}]}'
	in_container 'grep ^Speculation_Store_Bypass: /proc/self/status'
	echo "without: $without / with: $output"
	[ "$status" -eq 0 ]
	# Only meaningful where the seccomp default is to force-disable (spec_store_bypass_disable=seccomp).
	[[ "$without" == *"thread force mitigated"* ]] || skip "seccomp does not change speculation here: $without"
	[[ "$output" != *"force mitigated"* ]]
}

@test "malformed profiles are rejected at create with their JSON path, leaving no state" {
	local bad=(
		'{defaultAction: "SCMP_ACT_BOGUS"}|linux.seccomp.defaultAction|SCMP_ACT_BOGUS'
		'{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_NOPE"}]}|linux.seccomp.syscalls[0].action|SCMP_ACT_NOPE'
		'{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO", args: [{index: 0, value: 1, op: "SCMP_CMP_XX"}]}]}|linux.seccomp.syscalls[0].args[0].op|SCMP_CMP_XX'
		'{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO", args: [{index: 6, value: 1, op: "SCMP_CMP_EQ"}]}]}|linux.seccomp.syscalls[0].args[0].index|'
		'{defaultAction: "SCMP_ACT_ALLOW", flags: ["SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_BOGUS"]}|linux.seccomp.flags[1]|SECCOMP_FILTER_FLAG_BOGUS'
		'{defaultAction: "SCMP_ACT_ALLOW", architectures: ["SCMP_ARCH_X86_64", "SCMP_ARCH_VAX"]}|linux.seccomp.architectures[1]|SCMP_ARCH_VAX'
		'{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO"}, {names: [], action: "SCMP_ACT_ERRNO"}]}|linux.seccomp.syscalls[1].names|'
		'{defaultAction: "SCMP_ACT_ALLOW", defaultErrnoRet: 5}|linux.seccomp.defaultErrnoRet|'
		'{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_KILL", errnoRet: 3}]}|linux.seccomp.syscalls[0].errnoRet|'
		'{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO", errnoRet: 70000}]}|linux.seccomp.syscalls[0].errnoRet|'
		'{defaultAction: "SCMP_ACT_ALLOW", listenerMetadata: "m"}|linux.seccomp.listenerMetadata|'
		'{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_NOTIFY"}]}|listenerPath|'
		'{defaultAction: "SCMP_ACT_NOTIFY", listenerPath: "/x.sock"}|linux.seccomp.defaultAction|'
	)
	local entry p path word id
	for entry in "${bad[@]}"; do
		IFS='|' read -r p path word <<<"$entry"
		profile "$p"
		id=$(new_id)
		create "$id"
		[ "$status" -ne 0 ] || { echo "accepted: $p"; return 1; }
		if is_clasp; then
			[[ "$output" == *"$path"* ]] || { echo "no JSON path $path in: $output"; return 1; }
		fi
		[ -z "$word" ] || [[ "$output" == *"$word"* ]] || { echo "no $word in: $output"; return 1; }
		[ ! -e "$CT_ROOT/$id" ] || { echo "state dir left for $p"; return 1; }
		assert_no_trace "$id"
	done
}

@test "exec'd processes get the container's seccomp filter" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO", errnoRet: 38}]}'
	update_config '.process.args = ["sleep", "30"]'
	local id
	id=$(new_id)
	run_d "$id"
	[ "$status" -eq 0 ]
	run rt exec "$id" sh -c 'mkdir /tmp/d; grep ^Seccomp: /proc/self/status'
	[ "$status" -eq 0 ]
	[[ "$output" == *"Function not implemented"* ]]
	[[ "$output" == *"Seccomp:"*2* ]]
}

@test "without noNewPrivileges the filter still loads, for a non-root user without caps" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO", errnoRet: 38}]}'
	update_config '.process.noNewPrivileges = false | .process.user = {uid: 1000, gid: 1000} |
		.process.capabilities = {bounding: [], effective: [], permitted: [], inheritable: [], ambient: []}'
	in_container 'mkdir /tmp/d; id -u; grep -E "^(Seccomp|NoNewPrivs|CapEff):" /proc/self/status'
	[ "$status" -eq 0 ]
	[[ "$output" == *"Function not implemented"* ]]
	[[ "$output" == *1000* ]]
	[ "$(awk '$1 == "Seccomp:" {print $2}' <<<"$output")" = 2 ]
	[ "$(awk '$1 == "NoNewPrivs:" {print $2}' <<<"$output")" = 0 ]
	[ "$(awk '$1 == "CapEff:" {print $2}' <<<"$output")" = 0000000000000000 ]
}

# ---- podman's default profile (tests/fixtures/podman-seccomp-oci.json) -----------------------

podman_profile() {
	update_config ".process.noNewPrivileges = false | .linux.seccomp = $(cat "$FIXTURES/podman-seccomp-oci.json")"
}

# add_caps CAP_X...: the fixture's caps plus these, in every set it lists.
add_caps() {
	local c
	for c in "$@"; do
		update_config ".process.capabilities |= with_entries(.value += [\"$c\"])"
	done
}

@test "podman profile: busybox runs normally (sh, ls, ps, pipes, files)" {
	podman_profile
	in_container 'ls / >/dev/null && ps | grep -c sh && echo hi | tr a-z A-Z && touch /tmp/x && rm /tmp/x && mkdir /tmp/d && echo done'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *HI* ]]
	[[ "$output" == *done* ]]
	in_container 'grep -E "^Seccomp:" /proc/self/status'
	[[ "$output" == *2* ]]
	# podman's default process: no noNewPrivileges, here a non-root user; the runtime's steps
	# after the load (setresuid, capset, prctl, ...) are allowed by the profile.
	update_config '.process.user = {uid: 1000, gid: 1000}'
	in_container 'id -u; ls /home/tester >/dev/null && cat /proc/self/status | grep -E "^(Seccomp|NoNewPrivs):"'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1000 ]
	[ "$(awk '$1 == "Seccomp:" {print $2}' <<<"$output")" = 2 ]
	[ "$(awk '$1 == "NoNewPrivs:" {print $2}' <<<"$output")" = 0 ]
}

@test "podman profile: swapoff and kexec_load blocked with EPERM, even with CAP_SYS_ADMIN and CAP_SYS_BOOT" {
	add_caps CAP_SYS_ADMIN CAP_SYS_BOOT
	# Control, without a filter: the kernel lets these through to argument checks.
	probe_run swapoff
	[ "$output" = "swapoff: errno 2 (No such file or directory)" ]
	probe_run kexec_load
	[[ "$output" == "kexec_load: errno "* ]]
	[ "$output" != "kexec_load: errno 1 (Operation not permitted)" ]
	podman_profile
	probe_run swapoff
	[ "$status" -eq 0 ]
	[ "$output" = "swapoff: errno 1 (Operation not permitted)" ]
	probe_run kexec_load
	[ "$output" = "kexec_load: errno 1 (Operation not permitted)" ]
	# busybox's own swapoff as well.
	in_container 'swapoff /nonexistent'
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	# And with every capability this host has.
	local c n all=()
	for c in CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP LINUX_IMMUTABLE \
		NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE SYS_RAWIO SYS_CHROOT \
		SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE \
		AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ \
		PERFMON BPF CHECKPOINT_RESTORE; do
		n=$(cap_number "$c")
		host_has_cap "$n" && all+=("CAP_$c")
	done
	local json
	json=$(printf '%s\n' "${all[@]}" | jq -R . | jq -sc .)
	update_config ".process.capabilities = {bounding: $json, effective: $json, permitted: $json, ambient: $json}"
	probe_run swapoff
	[ "$output" = "swapoff: errno 1 (Operation not permitted)" ]
	probe_run kexec_load
	[ "$output" = "kexec_load: errno 1 (Operation not permitted)" ]
}

@test "podman profile: reboot is EPERM with podman's default caps; the profile defers it to CAP_SYS_BOOT" {
	# containers-common's seccomp.json lists reboot among the allowed syscalls (like unshare and
	# mount it relies on the capability), so the EPERM comes from the missing CAP_SYS_BOOT.
	# The probe passes invalid magic, so even an unfiltered privileged call only gets EINVAL.
	podman_profile
	probe_run reboot
	[ "$status" -eq 0 ]
	[ "$output" = "reboot: errno 1 (Operation not permitted)" ]
	add_caps CAP_SYS_BOOT
	probe_run reboot
	[ "$output" = "reboot: errno 22 (Invalid argument)" ]
}

@test "podman profile: unshare works when the caps allow it (CAP_SYS_ADMIN), not otherwise" {
	podman_profile
	in_container 'readlink /proc/self/ns/uts; unshare -u readlink /proc/self/ns/uts'
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	add_caps CAP_SYS_ADMIN
	in_container 'readlink /proc/self/ns/uts; unshare -u readlink /proc/self/ns/uts'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" == uts:* ]]
	[ "${lines[0]}" != "${lines[1]}" ]
}

@test "podman profile as podman builds it for CAP_SYS_ADMIN: unshare + sethostname work, swapoff still EPERM" {
	[ -r /usr/share/containers/seccomp.json ] || skip "no /usr/share/containers/seccomp.json (containers-common)"
	local caps=CAP_CHOWN,CAP_DAC_OVERRIDE,CAP_FOWNER,CAP_FSETID,CAP_KILL,CAP_NET_BIND_SERVICE,CAP_SETFCAP,CAP_SETGID,CAP_SETPCAP,CAP_SETUID,CAP_SYS_CHROOT,CAP_SYS_ADMIN
	"$REPO_DIR/tests/bench/seccomp-profile-to-oci.sh" /usr/share/containers/seccomp.json "$caps" >"$BATS_TEST_TMPDIR/p.json"
	update_config ".process.noNewPrivileges = false | .linux.seccomp = $(cat "$BATS_TEST_TMPDIR/p.json")"
	add_caps CAP_SYS_ADMIN
	in_container 'unshare -u sh -c "hostname inner && hostname"; hostname; swapoff /nonexistent'
	echo "$output"
	[ "${lines[0]}" = inner ]
	[ "${lines[1]}" = clasp-test ]
	[[ "${lines[2]}" == *"Operation not permitted"* ]]
}

@test "podman profile: personality only for the listed values" {
	podman_profile
	# Listed: 0, 8, 0x20000, 0x20008, 0xffffffff. PER_BSD (6) is not: the default, ERRNO 38.
	probe_run personality 0xffffffff 0x0008 0 6
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "personality(0xffffffff): ok 0" ]
	[[ "${lines[1]}" == "personality(0x0008): ok"* ]]
	[[ "${lines[2]}" == "personality(0): ok"* ]]
	[ "${lines[3]}" = "personality(6): errno 38 (Function not implemented)" ]
}

# ---- the compiled-filter cache -----------------------------------------------------------------

cache_files() { find "$CT_ROOT/.seccomp-cache" -maxdepth 1 -type f -name '*.bpf' 2>/dev/null | sort; }

@test "cache: a second container with the same profile uses the cache file and still filters" {
	requires_clasp "<root>/.seccomp-cache is clasp's"
	rm -rf "$CT_ROOT/.seccomp-cache"
	podman_profile
	probe_run swapoff
	[ "$output" = "swapoff: errno 1 (Operation not permitted)" ]
	run cache_files
	[ "${#lines[@]}" -eq 1 ]
	local f=${lines[0]} before
	[ "$(stat -c %a "$CT_ROOT/.seccomp-cache")" = 700 ]
	[ "$(stat -c %a "$f")" = 600 ]
	before=$(stat -c '%i %Y' "$f")
	probe_run swapoff
	[ "$output" = "swapoff: errno 1 (Operation not permitted)" ]
	[ "$(stat -c '%i %Y' "$f")" = "$before" ]
	run cache_files
	[ "${#lines[@]}" -eq 1 ]
	# A different profile gets its own entry.
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO", errnoRet: 38}]}'
	probe_run mkdir
	[ "$output" = "mkdir: errno 38 (Function not implemented)" ]
	run cache_files
	[ "${#lines[@]}" -eq 2 ]
}

@test "cache: a deleted, corrupted or foreign-writable entry is recompiled and still filters" {
	requires_clasp "<root>/.seccomp-cache is clasp's"
	rm -rf "$CT_ROOT/.seccomp-cache"
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO", errnoRet: 38}]}'
	probe_run mkdir
	[ "$output" = "mkdir: errno 38 (Function not implemented)" ]
	local f
	f=$(cache_files)
	[ -f "$f" ]
	local good
	good=$(sha256sum <"$f")

	# Deleted between two containers (and while one is created, not started).
	local id
	id=$(new_id)
	update_config '.process.args = ["/mnt/probe", "mkdir", "/tmp/d"]'
	create "$id"
	[ "$status" -eq 0 ]
	rm -f "$f"
	probe_run mkdir
	[ "$output" = "mkdir: errno 38 (Function not implemented)" ]
	rt start "$id"
	wait_for_output "$CT_OUT" "mkdir: errno 38"
	[ -f "$f" ]
	[ "$(sha256sum <"$f")" = "$good" ]

	# Garbage: ignored and rewritten.
	head -c 4096 /dev/urandom >"$f"
	probe_run mkdir
	[ "$output" = "mkdir: errno 38 (Function not implemented)" ]
	[ "$(sha256sum <"$f")" = "$good" ]

	# Its last instruction replaced by "ret SECCOMP_RET_ALLOW": the digests catch it.
	local size
	size=$(stat -c %s "$f")
	printf '\x06\x00\x00\x00\x00\x00\xff\x7f' | dd of="$f" bs=1 seek=$((size - 8)) conv=notrunc status=none
	[ "$(sha256sum <"$f")" != "$good" ]
	probe_run mkdir
	[ "$output" = "mkdir: errno 38 (Function not implemented)" ]
	[ "$(sha256sum <"$f")" = "$good" ]

	# Group/other-writable entries are not trusted.
	chmod 0666 "$f"
	probe_run mkdir
	[ "$output" = "mkdir: errno 38 (Function not implemented)" ]
	[ "$(stat -c %a "$f")" = 600 ]
}

@test "cache: eight concurrent creates with a cold cache all filter, leaving one valid entry" {
	requires_clasp "<root>/.seccomp-cache is clasp's"
	rm -rf "$CT_ROOT/.seccomp-cache"
	podman_profile
	update_config '.process.args = ["/mnt/probe", "swapoff"]'
	local i ids=() pids=()
	for i in 1 2 3 4 5 6 7 8; do
		ids+=("$(new_id)")
		rt run --bundle "$BUNDLE" "${ids[-1]}" >"$BATS_TEST_TMPDIR/out.$i" 2>&1 </dev/null &
		pids+=($!)
	done
	for i in 0 1 2 3 4 5 6 7; do
		wait "${pids[$i]}" || { echo "run $i failed: $(cat "$BATS_TEST_TMPDIR/out.$((i + 1))")"; return 1; }
	done
	for i in 1 2 3 4 5 6 7 8; do
		[ "$(cat "$BATS_TEST_TMPDIR/out.$i")" = "swapoff: errno 1 (Operation not permitted)" ] ||
			{ echo "run $i: $(cat "$BATS_TEST_TMPDIR/out.$i")"; return 1; }
	done
	run cache_files
	[ "${#lines[@]}" -eq 1 ]
	# No temp files left next to it.
	[ "$(find "$CT_ROOT/.seccomp-cache" -mindepth 1 | wc -l)" -eq 1 ]
	# The entry is good: a warm run filters the same.
	probe_run swapoff
	[ "$output" = "swapoff: errno 1 (Operation not permitted)" ]
}
