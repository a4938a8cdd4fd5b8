#!/usr/bin/env bats
# No /dev symlink reaches the host. An image whose /dev is a symlink to a host directory must get
# nothing created, mounted, chmod'ed or chowned in that directory, whether /dev is a tmpfs from the
# config or the image's own, with or without a user namespace, and for linux.devices entries.
# (The class of runc's and crun's device-creation symlink bugs; see also CVE-2025-31133.)

load ../integration/helpers

setup() {
	common_setup
	make_bundle --copy
	ROOTFS=$BUNDLE/rootfs
	H=$BATS_TEST_TMPDIR/hostdev
	mkdir "$H"
	chmod 0750 "$H"
	touch -d '2001-01-01' "$H"
	traversable "$H"
	H_BEFORE=$(stat -c '%u:%g %a %Y' "$H")
	rm -rf "$ROOTFS/dev"
}

# Whatever the runtime did with the container, the host directory is untouched.
assert_host_dir_untouched() {
	echo "status $status: $output"
	echo "host dir: $(ls -la "$H")"
	[ -z "$(ls -A "$H")" ]
	[ "$(stat -c '%u:%g %a %Y' "$H")" = "$H_BEFORE" ]
	refute grep -qF "$H" /proc/self/mountinfo
}

userns() {
	update_config '.linux.namespaces += [{"type": "user"}] |
		.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] |
		.linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
	chown -R 100000:100000 "$ROOTFS"
}

@test "/dev -> host dir, with a tmpfs /dev from the config" {
	ln -s "$H" "$ROOTFS/dev"
	in_container 'ls /dev; echo x >/dev/written'
	assert_host_dir_untouched
}

@test "/dev -> host dir, the image's /dev used as is (default devices created)" {
	ln -s "$H" "$ROOTFS/dev"
	update_config '.mounts |= map(select(.destination | startswith("/dev") | not))'
	in_container 'ls -l /dev'
	assert_host_dir_untouched
}

@test "/dev -> relative path climbing to the host dir" {
	ln -s "../../../../../../../../../../..$H" "$ROOTFS/dev"
	update_config '.mounts |= map(select(.destination | startswith("/dev") | not))'
	in_container 'ls -l /dev'
	assert_host_dir_untouched
}

@test "/dev -> host dir, with linux.devices entries" {
	ln -s "$H" "$ROOTFS/dev"
	update_config '.mounts |= map(select(.destination | startswith("/dev") | not)) |
		.linux.devices = [{"path": "/dev/evil", "type": "c", "major": 1, "minor": 3, "fileMode": 438, "uid": 1000, "gid": 1000},
			{"path": "/dev/sub/evil2", "type": "c", "major": 1, "minor": 5}]'
	in_container 'ls -l /dev'
	assert_host_dir_untouched
}

@test "/dev -> host dir, in a user namespace (devices bound and chowned)" {
	ln -s "$H" "$ROOTFS/dev"
	userns
	update_config '.mounts |= map(select(.destination | startswith("/dev") | not))'
	in_container 'ls -l /dev'
	assert_host_dir_untouched
}

@test "/dev -> host dir, in a user namespace with a tmpfs /dev" {
	ln -s "$H" "$ROOTFS/dev"
	userns
	in_container 'ls -l /dev'
	assert_host_dir_untouched
}
