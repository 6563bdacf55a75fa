#!/usr/bin/env bash
# A member that cannot finish dying (issue 16.3): the ending is bounded in
# time and tells the truth. The member looks up a file on a FUSE filesystem
# whose daemon (tests/fixtures/fuse_hang.c, outside corral) read the request
# and never answers: the kernel then waits for the answer uninterruptibly,
# SIGKILL or not, and no ptrace-stop can be made either. This is what a
# process exiting through a slow uninterruptible path looks like to corral.
#
# corral must: say who is still dying and for how long (`dying` events);
# give up after --kill-wait and exit 121 with `dying` in the end line, the
# task counted as a survivor and named (`survivor`: pid, state D), its
# connection left alone (its server is not a member); spend
# the stop-all budget on that member once, not at every stop-all (the
# stacks at the timeout stop the tree once, the ending again). Then the
# daemon lets go and the member dies: the witness checks nothing is left.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture fuse_hang

[ "$(id -u)" = 0 ] || skip_test "mounting a FUSE filesystem needs root"
[ -c /dev/fuse ] || skip_test "no /dev/fuse"

MNT=$T/mnt
mkdir -p "$MNT"
mkfifo "$T/fh.out"
"$FIX/fuse_hang" "$MNT" </dev/null >"$T/fh.out" 2>"$T/fh.err" &
DAEMON=$!
exec {FR}<"$T/fh.out"
release() {
	[ -n "${DAEMON:-}" ] || return 0
	kill -TERM "$DAEMON" 2>/dev/null
	wait "$DAEMON" 2>/dev/null
	DAEMON=
	umount -l "$MNT" 2>/dev/null
}
trap 'release; cleanup' EXIT
if ! read -r -t 10 -u "$FR" line || [ "$line" != READY ]; then
	cat "$T/fh.err" >&2
	release
	skip_test "cannot mount a FUSE filesystem here"
fi

RUN_LABEL="member stuck in an unanswered FUSE lookup"
j=$T/j
start -- "$CORRAL" run -q -j "$j" -t 1 -k 0.2 --kill-wait 1.5 -- \
	stat "$MNT/hang"
if read -r -t 10 -u "$FR" line && [[ $line =~ ^HELD\ ([0-9]+)$ ]]; then
	held=${BASH_REMATCH[1]}
else
	fail "the member's lookup never reached the FUSE daemon"
	held=0
fi
finish 60
expect_rc 121 "members still dying at --kill-wait"
if j_valid "$j"; then
	j_expect_end "$j" exit_code 121
	j_expect_end "$j" reason timeout
	j_expect_end "$j" dying 1
	# Still dying when corral ends: a survivor (issue 22), named with its
	# state. Its FUSE server is outside the tree: nothing to abort.
	j_expect_end "$j" survivors 1
	j_check "$j" "[.[] | select(.event == \"survivor\" and .pid == $held and .state == \"D\")] | length == 1" ||
		fail "no survivor line names the stuck member $held in state D"
	j_check "$j" '[.[] | select(.event == "fuse_abort")] | length == 0' ||
		fail "a connection served outside the tree was aborted"
	# who and how long, as corral waits, then at the end of the wait
	j_check "$j" "[.[] | select(.event == \"dying\" and (.pids | index($held)) and .tasks == 1)] | length >= 1" ||
		fail "no dying event names the stuck member $held"
	j_check "$j" "[.[] | select(.event == \"dying\")] | last | .waited >= 1.5" ||
		fail "the last dying event is not at the end of --kill-wait"
	# the stop-all before kill-all did not spend the 2 s budget again
	j_check "$j" "(map(select(.event == \"end\"))[0].phases.stop) < 1" ||
		fail "the unstoppable member cost the stop budget twice"
fi
# Let go: the member finishes dying, nothing of the test is left.
release
end_run 10

done_test
