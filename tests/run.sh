#!/usr/bin/env bash
# tests/run.sh [unit|integration|all] - run corral's tests.
#
# unit:        every $BUILD/tests/test_* binary (cmocka)
# integration: every tests/integration/*.sh except lib.sh
# all:         both (default)
#
# Each binary or script counts as passed (exit 0), skipped (exit 77) or
# failed (anything else); the output of a failed one is shown. The closing
# line is exactly "N passed, M failed, K skipped", followed by the skips,
# one a line with its reason:
#   - a script that calls skip_test (lib.sh) exits 77 after printing
#     "SKIP [name]: reason"; it counts as skipped;
#   - a script that skips a part only (skip_part) passes, and its
#     "SKIP [name / part]: reason" lines are listed too;
#   - a cmocka binary's skipped cases (skip()) are read from its
#     "[  SKIPPED ] case" lines, each with the reason the case printed as
#     "SKIP [case]: reason" (tests/unit/skip.h: skip_because); a binary
#     whose every case skipped counts as skipped, otherwise as passed with
#     its skipped cases listed. A binary may also exit 77 itself.
# The skips are also written to $TEST_SKIPS (default $BUILD/test-skips.txt),
# "name: reason" a line, which .ci/run checks against .ci/must-not-skip.
#
# As root, when a user corral-ci exists, the sandbox tests ($BUILD/tests/
# test_sandbox and tests/integration/sandbox*.sh) and the adversarial tests
# (tests/integration/adv_*.sh), journal_argv.sh (an execute-only binary
# is not readable by an unprivileged tracer) and journal_sink.sh (a stalled
# reader, a lost exit line) run a second time as that user
# (runuser), for the unprivileged path. The build tree and tests must be
# readable by it.
#
# Environment: BUILD (default build), TEST_FILTER (a regex: run only the
# tests whose name matches), TEST_TIMEOUT (seconds per unit binary/script,
# default 600; a safety net against hangs), TEST_SKIPS (see above).

set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
mode=${1:-all}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
export BUILD
FILTER=${TEST_FILTER:-}
LIMIT=${TEST_TIMEOUT:-600}
SKIPS_FILE=${TEST_SKIPS:-$BUILD/test-skips.txt}
CI_USER=corral-ci

case $mode in
unit | integration | all) ;;
*)
	echo "usage: tests/run.sh [unit|integration|all]" >&2
	exit 2
	;;
esac

passed=0
failed=0
skipped=0
failed_names=()
skip_lines=()
log=$(mktemp "${TMPDIR:-/tmp}/corral-run.XXXXXX")
trap 'rm -f "$log"' EXIT

# skips_of NAME LOG: the skip lines of a run ("name[ / part]: reason").
skips_of() {
	local name=$1 f=$2 base inner reason c
	base=${name##*/}
	base=${base%% *}
	base=${base%.sh}
	case $name in
	unit/*)
		# skip.h: "SKIP [case]: reason" (skip_because) and "SKIP [case /
		# part]: reason" (skip_part_because); a "[  SKIPPED ] case" line
		# with no reason is listed too.
		sed -n 's/^SKIP \[\([^]]*\)\]: \(.*\)$/\1\t\2/p' "$f" | sort -u |
			while IFS=$'\t' read -r c reason; do
				printf '%s / %s: %s\n' "$name" "$c" "$reason"
			done
		for c in $(sed -n 's/^\[  SKIPPED \] \([A-Za-z_][A-Za-z0-9_]*\)$/\1/p' "$f" | sort -u); do
			grep -q "^SKIP \[$c\]: " "$f" ||
				printf '%s / %s: no reason given (skip.h: skip_because)\n' "$name" "$c"
		done
		;;
	*)
		# lib.sh: skip_test's line (exit 77) and skip_part's lines
		sed -n 's/^SKIP \[\([^]]*\)\]: \(.*\)$/\1\t\2/p' "$f" |
			while IFS=$'\t' read -r inner reason; do
				if [ "$inner" = "$base" ]; then
					printf '%s: %s\n' "$name" "$reason"
				else
					printf '%s / %s: %s\n' "$name" "${inner#"$base / "}" "$reason"
				fi
			done
		;;
	esac
}

# one NAME CMD...: run CMD, count it, show its output when it fails.
one() {
	local name=$1 rc t0 t1
	shift
	if [ -n "$FILTER" ] && ! [[ $name =~ $FILTER ]]; then
		return
	fi
	t0=$EPOCHREALTIME
	timeout -k 10 "$LIMIT" "$@" >"$log" 2>&1 </dev/null
	rc=$?
	t1=$EPOCHREALTIME
	local dt
	dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	local s=()
	mapfile -t s < <(skips_of "$name" "$log")
	if [ "$rc" = 0 ] && [[ $name == unit/* ]] && grep -q '^\[  SKIPPED \] ' "$log" &&
		grep -q '^\[  PASSED  \] 0 test(s)\.$' "$log"; then
		rc=77 # every case of the binary skipped
	fi
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1))
		echo "PASS  $name (${dt}s)${s[0]:+, ${#s[@]} part(s) skipped}"
		skip_lines+=("${s[@]}")
	elif [ "$rc" = 77 ]; then
		skipped=$((skipped + 1))
		if [ "${#s[@]}" = 0 ]; then
			s=("$name: no reason given (exit 77 without a SKIP line)")
		fi
		echo "SKIP  $name (${dt}s): ${s[0]#"$name: "}"
		skip_lines+=("${s[@]}")
	else
		failed=$((failed + 1))
		failed_names+=("$name")
		local why="exit $rc"
		[ "$rc" = 124 ] && why="timed out after ${LIMIT}s"
		echo "FAIL  $name ($why, ${dt}s)"
		local n
		n=$(wc -l <"$log")
		if [ "$n" -gt 150 ]; then
			echo "  ... ($((n - 150)) lines cut)"
		fi
		tail -n 150 "$log" | sed 's/^/  | /'
	fi
}

unit_bins() {
	local f
	for f in "$BUILD"/tests/test_*; do
		[ -f "$f" ] && [ -x "$f" ] && echo "$f"
	done
}

integration_scripts() {
	local f
	for f in "$ROOT"/tests/integration/*.sh; do
		[ -f "$f" ] || continue
		[ "${f##*/}" = lib.sh ] && continue
		echo "$f"
	done
}

if [ "$mode" != integration ]; then
	bins=$(unit_bins)
	[ -n "$bins" ] || echo "note: no unit test binaries in $BUILD/tests (make $BUILD/tests/...)"
	for b in $bins; do
		one "unit/${b##*/}" "$b"
	done
fi

if [ "$mode" != unit ]; then
	if [ ! -x "$BUILD/corral" ]; then
		echo "note: $BUILD/corral is not built: integration tests will fail"
	fi
	for s in $(integration_scripts); do
		one "integration/${s##*/}" bash "$s"
	done
fi

# The sandbox tests again, unprivileged.
if [ "$(id -u)" = 0 ] && id -u "$CI_USER" >/dev/null 2>&1; then
	as_user=()
	if [ "$mode" != integration ] && [ -x "$BUILD/tests/test_sandbox" ]; then
		as_user+=("$BUILD/tests/test_sandbox")
	fi
	if [ "$mode" != unit ]; then
		for s in "$ROOT"/tests/integration/sandbox*.sh "$ROOT"/tests/integration/adv_*.sh \
			"$ROOT"/tests/integration/journal_argv.sh \
			"$ROOT"/tests/integration/journal_sink.sh; do
			[ -f "$s" ] && as_user+=("$s")
		done
	fi
	if [ "${#as_user[@]}" -gt 0 ]; then
		if ! runuser -u "$CI_USER" -- test -r "$BUILD/corral" -a -x "$BUILD" -a -r "$ROOT/tests/integration/lib.sh"; then
			echo "note: user $CI_USER cannot read $BUILD or $ROOT/tests: unprivileged runs will fail"
			echo "      (make the tree readable: chmod -R a+rX, and o+x on its parent directories)"
		fi
		for x in "${as_user[@]}"; do
			case $x in
			*.sh) one "integration/${x##*/} (as $CI_USER)" runuser -u "$CI_USER" -- env BUILD="$BUILD" TMPDIR=/tmp bash "$x" ;;
			*) one "unit/${x##*/} (as $CI_USER)" runuser -u "$CI_USER" -- env BUILD="$BUILD" TMPDIR=/tmp "$x" ;;
			esac
		done
	fi
fi

if [ "$failed" -gt 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failed_names[@]}"
fi
printf '%s\n' "${skip_lines[@]}" | sed '/^$/d' >"$SKIPS_FILE" 2>/dev/null ||
	echo "note: cannot write $SKIPS_FILE"
echo "$passed passed, $failed failed, $skipped skipped"
if [ "${#skip_lines[@]}" -gt 0 ]; then
	echo "skipped:"
	printf '  %s\n' "${skip_lines[@]}"
fi
[ "$failed" = 0 ]
