#!/usr/bin/env bats
# process.capabilities: all five sets, read back from /proc/self/status as hex masks.

load helpers

caps_inside() {
	in_container 'grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb):" /proc/self/status'
}

# cap_field NAME: the hex value of NAME from $output.
cap_field() {
	awk -v f="$1:" '$1 == f {print $2}' <<<"$output"
}

set_caps() {
	# set_caps SET 'CAP_A CAP_B' ...: sets process.capabilities.SET to those names.
	local set=$1 names json
	shift
	names=$1
	json=$(printf '%s\n' $names | jq -R . | jq -s .)
	[ -n "$names" ] || json='[]'
	update_config ".process.capabilities.$set = $json"
}

mask_of() {
	local n nums=()
	for n in $1; do nums+=("$(cap_number "$n")"); done
	hex_mask "${nums[@]}"
}

@test "default config: bounding, effective, permitted, ambient are the three default caps" {
	want=$(mask_of "CAP_AUDIT_WRITE CAP_KILL CAP_NET_BIND_SERVICE")
	[ "$want" = 0000000020000420 ]
	caps_inside
	[ "$status" -eq 0 ]
	[ "$(cap_field CapBnd)" = "$want" ]
	[ "$(cap_field CapEff)" = "$want" ]
	[ "$(cap_field CapPrm)" = "$want" ]
}

@test "inheritable and ambient sets" {
	for s in bounding effective permitted inheritable ambient; do
		set_caps $s "CAP_CHOWN CAP_KILL"
	done
	want=$(mask_of "CAP_CHOWN CAP_KILL")
	caps_inside
	[ "$status" -eq 0 ]
	for f in CapBnd CapEff CapPrm CapInh CapAmb; do
		[ "$(cap_field $f)" = "$want" ] || {
			echo "$f is $(cap_field $f), wanted $want"
			return 1
		}
	done
}

@test "each set is applied independently" {
	# For uid 0, execve makes the effective set equal the permitted one, so those two agree here.
	set_caps bounding "CAP_CHOWN CAP_KILL CAP_SETUID CAP_SETGID"
	set_caps permitted "CAP_CHOWN CAP_KILL CAP_SETUID"
	set_caps effective "CAP_CHOWN CAP_KILL CAP_SETUID"
	set_caps inheritable "CAP_KILL"
	set_caps ambient ""
	caps_inside
	[ "$status" -eq 0 ]
	[ "$(cap_field CapBnd)" = "$(mask_of "CAP_CHOWN CAP_KILL CAP_SETUID CAP_SETGID")" ]
	[ "$(cap_field CapPrm)" = "$(mask_of "CAP_CHOWN CAP_KILL CAP_SETUID")" ]
	[ "$(cap_field CapEff)" = "$(mask_of "CAP_CHOWN CAP_KILL CAP_SETUID")" ]
	[ "$(cap_field CapInh)" = "$(mask_of "CAP_KILL")" ]
	[ "$(cap_field CapAmb)" = 0000000000000000 ]
}

@test "a non-root process keeps exactly its ambient capabilities across exec" {
	update_config '.process.user = {"uid": 1000, "gid": 1000}'
	for s in bounding effective permitted inheritable; do set_caps $s "CAP_KILL CAP_CHOWN"; done
	set_caps ambient "CAP_KILL"
	caps_inside
	[ "$status" -eq 0 ]
	[ "$(cap_field CapBnd)" = "$(mask_of "CAP_KILL CAP_CHOWN")" ]
	[ "$(cap_field CapInh)" = "$(mask_of "CAP_KILL CAP_CHOWN")" ]
	[ "$(cap_field CapAmb)" = "$(mask_of "CAP_KILL")" ]
	[ "$(cap_field CapEff)" = "$(mask_of "CAP_KILL")" ]
	[ "$(cap_field CapPrm)" = "$(mask_of "CAP_KILL")" ]
}

@test "no capabilities at all" {
	update_config '.process.capabilities = {}'
	caps_inside
	[ "$status" -eq 0 ]
	for f in CapBnd CapEff CapPrm CapInh CapAmb; do
		[ "$(cap_field $f)" = 0000000000000000 ]
	done
}

@test "capabilities survive the switch to a non-root user" {
	update_config '.process.user = {"uid": 1000, "gid": 1000}'
	for s in bounding effective permitted inheritable ambient; do
		set_caps $s "CAP_NET_BIND_SERVICE CAP_KILL"
	done
	caps_inside
	[ "$status" -eq 0 ]
	want=$(mask_of "CAP_NET_BIND_SERVICE CAP_KILL")
	[ "$(cap_field CapEff)" = "$want" ]
	[ "$(cap_field CapPrm)" = "$want" ]
	[ "$(cap_field CapAmb)" = "$want" ]
}

@test "a dropped capability is really gone (CAP_CHOWN)" {
	make_bundle --copy
	caps_inside
	in_container 'touch /tmp/f; chown 1000 /tmp/f 2>&1; true'
	[ "$status" -eq 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
}

@test "a granted capability works (CAP_CHOWN)" {
	make_bundle --copy
	for s in bounding effective permitted; do set_caps $s "CAP_CHOWN"; done
	in_container 'touch /tmp/f; chown 1000 /tmp/f && stat -c %u /tmp/f'
	[ "$status" -eq 0 ]
	[ "$output" = 1000 ]
}

@test "every capability the host has can be granted" {
	local all=() c
	for c in CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP \
		LINUX_IMMUTABLE NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE \
		SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME \
		SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE MAC_ADMIN SYSLOG \
		WAKE_ALARM BLOCK_SUSPEND AUDIT_READ PERFMON BPF CHECKPOINT_RESTORE; do
		host_has_cap "$(cap_number $c)" && all+=("CAP_$c")
	done
	for s in bounding effective permitted; do set_caps $s "${all[*]}"; done
	caps_inside
	[ "$status" -eq 0 ]
	[ "$(cap_field CapEff)" = "$(awk '/^CapBnd:/ {print $2}' /proc/self/status)" ]
}

@test "an unknown capability is a warning, not fatal" {
	for s in bounding effective permitted; do set_caps $s "CAP_KILL CAP_NO_SUCH_THING"; done
	id=$(new_id)
	set_cmd 'grep ^CapEff: /proc/self/status'
	create "$id"
	[ "$status" -eq 0 ]
	rt start "$id"
	wait_for_state "$id" stopped
	grep -q "$(mask_of CAP_KILL)" "$CT_OUT"
	grep -qi 'CAP_NO_SUCH_THING' "$CT_ERR"
}

@test "a capability the host cannot grant is a warning, not fatal" {
	# runc 1.1.5 fails this: it fails create when a capability is not in its own bounding set.
	requires_clasp "runc 1.1.5 refuses ungrantable capabilities"
	host_has_cap 24 && skip "this host can grant CAP_SYS_RESOURCE"
	for s in bounding effective permitted; do set_caps $s "CAP_KILL CAP_SYS_RESOURCE"; done
	in_container 'grep ^CapBnd: /proc/self/status'
	[ "$status" -eq 0 ]
	grep -q "$(mask_of CAP_KILL)" <<<"$output"
}
