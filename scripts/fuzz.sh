#!/bin/bash
# scripts/fuzz.sh [SECONDS] [TARGET...]: build every libFuzzer harness in tests/fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined) into build/fuzz/, then run each for SECONDS (default 60)
# on its checked-in seed corpus (tests/fuzz/corpus/<target>/) plus a working corpus kept in
# build/fuzz/corpus/<target>/. Fails when any target finds a crash, a leak, a timeout or an
# abort(); the reproducer is left in build/fuzz/crashes/<target>/ and the command to replay it
# is printed. The per-target executions are appended to build/fuzz/summary.txt.
#   make fuzz:  scripts/fuzz.sh 60        make check: scripts/fuzz.sh 30
set -euo pipefail

cd "$(dirname "$0")/.."
SECS=${1:-60}
shift || true
TARGETS=("$@")
CC=${FUZZ_CC:-clang-14}
OUT=build/fuzz
PKGS="yajl libseccomp libcap"

command -v "$CC" >/dev/null || {
	echo "fuzz: $CC not found (apt-get install clang-14)" >&2
	exit 1
}
CFLAGS=(-std=gnu11 -g -O1 -fno-omit-frame-pointer -D_GNU_SOURCE -Isrc -Ihooks/egress
	$(pkg-config --cflags $PKGS) -DCLASP_VERSION='"fuzz"' -DCLASP_COMMIT='"fuzz"'
	-DCLASP_LIBEXECDIR='"/usr/local/libexec/clasp"' -fsanitize=address,undefined
	-fno-sanitize-recover=undefined)
LIBS=($(pkg-config --libs $PKGS))

# 1. The library: every src/ and hooks/egress/ file but the mains, instrumented for coverage.
mkdir -p "$OUT/obj"
srcs=$(find src hooks/egress -name '*.c' ! -path src/main.c ! -path hooks/egress/main.c | sort)
build_obj() {
	local src=$1 obj=$OUT/obj/${1%.c}.o
	mkdir -p "$(dirname "$obj")"
	if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find src hooks -name '*.h' -newer "$obj" -print -quit)" ]; then
		"$CC" "${CFLAGS[@]}" -fsanitize=fuzzer-no-link -c -o "$obj" "$src" 2>"$obj.log" || {
			# Someone else's file that does not compile only matters if a harness needs it.
			echo "fuzz: warning: $src does not compile (see $obj.log); left out" >&2
			rm -f "$obj"
			return 0
		}
	fi
}
export -f build_obj
export CC OUT
export CFLAGS_STR="${CFLAGS[*]}"
for s in $srcs; do echo "$s"; done | xargs -P "$(nproc)" -I{} bash -c 'CFLAGS=($CFLAGS_STR); build_obj {}'
objs=$(for s in $srcs; do o=$OUT/obj/${s%.c}.o; [ -e "$o" ] && echo "$o"; done)
rm -f "$OUT/libclasp-fuzz.a"
ar rcs "$OUT/libclasp-fuzz.a" $objs

# 2. The harnesses. A harness whose subject does not exist yet is skipped, not failed.
needs() {
	case $1 in
	annotations) echo src/sandbox/sandbox.h ;;
	userspec) echo src/util/userspec.h ;;
	http) echo hooks/egress/http.h ;;
	netrule) echo src/sandbox/netrule.h ;;
	*) echo src/oci/config.h ;;
	esac
}
if [ ${#TARGETS[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do
		t=${f#tests/fuzz/fuzz_}
		TARGETS+=("${t%.c}")
	done
fi
built=()
for t in "${TARGETS[@]}"; do
	if [ ! -e "$(needs "$t")" ]; then
		echo "fuzz: $t: skipped, $(needs "$t") does not exist yet"
		continue
	fi
	"$CC" "${CFLAGS[@]}" -fsanitize=fuzzer -o "$OUT/fuzz_$t" "tests/fuzz/fuzz_$t.c" \
		"$OUT/libclasp-fuzz.a" "${LIBS[@]}"
	built+=("$t")
done

# 3. Run each for SECS seconds.
failed=()
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
for t in "${built[@]}"; do
	seeds=tests/fuzz/corpus/$t
	work=$OUT/corpus/$t
	crashes=$OUT/crashes/$t
	mkdir -p "$work" "$crashes" "$seeds"
	log=$OUT/fuzz_$t.log
	echo "== fuzz_$t: $SECS s"
	rc=0
	# -timeout: one input may not take 10 s; the outer timeout bounds the whole run.
	timeout --kill-after=30 $((SECS + 120)) "$OUT/fuzz_$t" -max_total_time="$SECS" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" \
		"$work" "$seeds" >"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1 || true)
	echo "$stamp fuzz_$t seconds=$SECS execs=${execs:-?} ${cov:-} rc=$rc" | tee -a "$OUT/summary.txt"
	if [ "$rc" -ne 0 ]; then
		failed+=("$t")
		grep -E 'ERROR|SUMMARY|abort|Test unit written' "$log" | head -n 20 >&2 || true
		for c in "$crashes"/*; do
			[ -e "$c" ] && echo "  replay: $OUT/fuzz_$t $c" >&2
		done
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: FAILED: ${failed[*]} (logs in $OUT/fuzz_<target>.log)" >&2
	exit 1
fi
echo "fuzz: ${#built[@]} targets, no crash"
