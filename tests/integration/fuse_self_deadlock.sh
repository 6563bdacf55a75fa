#!/usr/bin/env bash
# A member that cannot die (issue 22): it serves a FUSE file system from its
# own file table and one of its threads waits for an answer the server read
# and never gives (tests/fixtures/fuse_self.c). SIGKILL does not end that
# thread, nor cgroup.kill: only an answer, or an abort of the connection.
#
# corral must tell the truth when it ends: as root it aborts the connection
# (a member holds its device) once --kill-wait runs out, journals it, and
# nothing is left; where it cannot (an unprivileged corral, no fusectl of
# its own), the task is a survivor in the end line, with its pid and state
# (D, request_wait_answer) in a survivor line, and corral exits 121.
# Then the test's keeper (outside corral, holding a copy of the device)
# answers, the thread dies, and the witness checks that nothing is left.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture fuse_self

[ -c /dev/fuse ] && [ -r /dev/fuse ] && [ -w /dev/fuse ] || skip_test "no usable /dev/fuse"
if [ "$(id -u)" != 0 ]; then
	unshare -Ur true 2>/dev/null || skip_test "no unprivileged user namespaces"
fi

MNT=$T/mnt
SOCK=$T/keep.sock
mkdir -p "$MNT"
exec {KIN}< <(env -u CORRAL_TEST_MARK "$FIX/fuse_self" keep "$SOCK" 2>"$T/keep.err")
read -r -t 10 -u "$KIN" line && [[ $line =~ ^LISTENING\ ([0-9]+)$ ]] ||
	{ fail "keeper: no LISTENING line"; done_test; }
KPID=${BASH_REMATCH[1]}
VICTIMS+=("$KPID")
release() {
	[ -n "${KPID:-}" ] || return 0
	kill -TERM "$KPID" 2>/dev/null
	KPID=
}
trap 'release; cleanup' EXIT

RUN_LABEL="thread waiting on its own FUSE server"
j=$T/j
start -- "$CORRAL" run -q -j "$j" --escape off --stacks never -k 0.2 --kill-wait 1.5 -- \
	"$FIX/fuse_self" serve "$SOCK" "$MNT"
if ! await '^(HELD|NOFUSE) ' 30; then
	finish 60
	done_test
fi
if [[ $MATCH =~ ^NOFUSE ]]; then
	finish 60
	end_run
	skip_test "cannot mount FUSE here: $MATCH"
fi
[[ $MATCH =~ ^HELD\ ([0-9]+)\  ]] && held=${BASH_REMATCH[1]}
read -r -t 10 -u "$KIN" line && [[ $line =~ ^KEPT ]] || fail "keeper: no copy of the device"
# The thread is stuck; end the run.
kill -TERM "$PID"
finish 60

aborted=$(jq -r 'select(.event == "fuse_abort") | .aborted' "$j" 2>/dev/null | head -n 1)
if [ "$(id -u)" = 0 ]; then
	expect_rc 143 "SIGTERM, and nothing left"
	expect_eq "$aborted" true "the connection a member serves, aborted (root)"
fi
if j_valid "$j"; then
	j_check "$j" '[.[] | select(.event == "fuse_abort")] | length == 1' ||
		fail "not exactly one fuse_abort line"
	j_check "$j" "[.[] | select(.event == \"fuse_abort\" and .conn > 0 and .pid > 0)] | length == 1" ||
		fail "the fuse_abort line lacks its connection or its holder"
	if [ "$aborted" = true ]; then
		# The abort let the thread die: the tree is gone, truly.
		j_expect_end "$j" survivors 0
		j_check "$j" '[.[] | select(.event == "end" and (has("dying") | not))] | length == 1' ||
			fail "tasks still dying after the abort"
		j_check "$j" '[.[] | select(.event == "survivor")] | length == 0' ||
			fail "survivor lines after the abort"
		[ "$RC" = 143 ] || fail "exit status $RC, expected 143 (SIGTERM) when nothing is left"
	else
		# Cannot abort: the stuck thread is a survivor, named.
		expect_rc 121 "members survive"
		j_check "$j" '[.[] | select(.event == "end" and .survivors >= 1 and .survivors == .dying)] | length == 1' ||
			fail "the end line does not count the dying tasks as survivors"
		j_check "$j" "[.[] | select(.event == \"survivor\" and .pid == ${held:-0} and .state == \"D\" and .wchan == \"request_wait_answer\")] | length == 1" ||
			fail "no survivor line for the stuck thread $held (state D, request_wait_answer)"
		j_check "$j" '([.[] | select(.event == "survivor")] | length) == ([.[] | select(.event == "end")][0].survivors)' ||
			fail "survivor lines and the end line's count differ"
		# and the report says so too
		"$CORRAL" report --json "$j" >"$T/rep.json" 2>"$T/rep.err" ||
			fail "report failed: $(head -c 300 "$T/rep.err")"
		jq -e ".survivors | length >= 1 and any(.[]; .pid == ${held:-0} and .state == \"D\")" "$T/rep.json" >/dev/null ||
			fail "report --json does not name the survivor"
		"$CORRAL" report "$j" >"$T/rep.txt" 2>&1
		grep -Eq "survivor.*\b${held:-0}\b.*D" "$T/rep.txt" ||
			fail "report (text) does not name the survivor: $(grep -i surviv "$T/rep.txt" | head -3)"
	fi
fi
# Let go: the keeper answers, the thread dies, nothing of the test is left.
release
end_run 10
RUN_LABEL=
done_test
