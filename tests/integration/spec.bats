#!/usr/bin/env bats
# spec [--bundle DIR] [--rootless]: a default config.json like `runc spec`.

load helpers

@test "spec writes a valid default config.json in the current directory" {
	cd "$BATS_TEST_TMPDIR"
	mkdir s && cd s
	run rt spec
	[ "$status" -eq 0 ]
	jq -e '
		(.ociVersion | type == "string") and .root.path == "rootfs" and
		(.process.args | length > 0) and (.process.cwd == "/") and
		([.linux.namespaces[].type] | index("mount") != null) and
		([.mounts[].destination] | index("/proc") != null)' config.json
}

@test "spec --bundle DIR writes there" {
	mkdir "$BATS_TEST_TMPDIR/s"
	run rt spec --bundle "$BATS_TEST_TMPDIR/s"
	[ "$status" -eq 0 ]
	jq -e . "$BATS_TEST_TMPDIR/s/config.json" >/dev/null
}

@test "spec refuses to overwrite an existing config.json" {
	mkdir "$BATS_TEST_TMPDIR/s"
	echo '{"mine": 1}' >"$BATS_TEST_TMPDIR/s/config.json"
	run rt spec --bundle "$BATS_TEST_TMPDIR/s"
	[ "$status" -ne 0 ]
	[ "$(jq .mine "$BATS_TEST_TMPDIR/s/config.json")" = 1 ]
}

@test "spec --rootless adds a user namespace with mappings" {
	mkdir "$BATS_TEST_TMPDIR/s"
	run rt spec --rootless --bundle "$BATS_TEST_TMPDIR/s"
	[ "$status" -eq 0 ]
	jq -e '([.linux.namespaces[].type] | index("user") != null) and
		(.linux.uidMappings | length > 0) and (.linux.gidMappings | length > 0)' "$BATS_TEST_TMPDIR/s/config.json"
}

@test "the config from spec runs (with a terminal turned off)" {
	mkdir "$BATS_TEST_TMPDIR/s"
	rt spec --bundle "$BATS_TEST_TMPDIR/s"
	BUNDLE=$BATS_TEST_TMPDIR/s
	jq --arg r "$SHARED_ROOTFS" '.root.path = $r | .process.terminal = false | .process.args = ["sh", "-c", "echo from-spec"]' \
		"$BUNDLE/config.json" >"$BUNDLE/c.json" && mv "$BUNDLE/c.json" "$BUNDLE/config.json"
	id=$(new_id)
	run_fg "$id"
	[ "$status" -eq 0 ]
	[ "$output" = from-spec ]
}

@test "clasp spec writes ociVersion 1.3.0" {
	requires_clasp
	mkdir "$BATS_TEST_TMPDIR/s"
	rt spec --bundle "$BATS_TEST_TMPDIR/s"
	[ "$(jq -r .ociVersion "$BATS_TEST_TMPDIR/s/config.json")" = 1.3.0 ]
}
