#!/usr/bin/env bats
# features: JSON per features.md.

load helpers

@test "features prints JSON with the features.md fields" {
	run rt features
	[ "$status" -eq 0 ]
	jq -e '
		(.ociVersionMin | type == "string") and (.ociVersionMax | type == "string") and
		(.hooks | index("prestart") != null) and (.hooks | index("poststop") != null) and
		(.mountOptions | index("ro") != null) and
		(.linux.namespaces | index("pid") != null) and (.linux.namespaces | index("mount") != null) and
		(.linux.capabilities | index("CAP_SYS_ADMIN") != null)' <<<"$output"
}

@test "clasp features: all six hooks, eight namespaces, spec 1.3.0, annotation prefix" {
	requires_clasp
	run rt features
	[ "$status" -eq 0 ]
	jq -e '
		.ociVersionMax == "1.3.0" and
		(.hooks | sort) == (["createContainer","createRuntime","poststart","poststop","prestart","startContainer"]) and
		(.linux.namespaces | sort) == (["cgroup","ipc","mount","network","pid","time","user","uts"]) and
		(.mountOptions | index("rro") != null) and
		(.potentiallyUnsafeConfigAnnotations | map(startswith("ing.paperclip.")) | any)' <<<"$output"
}
