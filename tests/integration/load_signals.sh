#!/usr/bin/env bash
# Exit status equals the journal (issue 16.4): signals that arrive after the
# end is decided are consumed or ignored, never fatal, and a flood of
# SIGUSR1 is coalesced into a few snapshots instead of one per signal.
#
# A loop sends corral signals as fast as bash can while the command runs,
# is ended, and corral exits: corral's exit status must be the end line's
# exit_code every time, and the snapshots at most one per second (plus the
# first).
# Not serial: nothing here is timed against a clock (the snapshots' rate
# can only fall under load), and the loop is one core's worth, as any
# CPU-bound test beside it.
. "$(dirname "$0")/lib.sh"
need_corral

# flood SIG: signal corral until it is gone (kill fails once it is reaped).
flood() {
	(while kill -"$1" "$PID" 2>/dev/null; do :; done) &
	FLOOD=$!
}
unflood() {
	kill "$FLOOD" 2>/dev/null
	wait "$FLOOD" 2>/dev/null
}

# check_end J RC: the exit status is the journal's.
check_end() {
	local code
	j_valid "$1" || return
	code=$(j_end "$1" exit_code)
	[ "$code" = "$RC" ] ||
		fail "exit status $RC, but the journal's end line says $code"
}

# 1. the command exits by itself (3) under a SIGUSR1 flood; three times, as
#    a late signal lands in the window before exit only most of the time
for round in 1 2 3; do
	RUN_LABEL="SIGUSR1 flood, command exits 3, round $round"
	j=$T/j.exit.$round
	start -- "$CORRAL" run -q -j "$j" -- sh -c 'echo READY; sleep 1; exit 3'
	await '^READY$' && flood USR1
	finish 60
	unflood
	expect_rc 3 "command exit 3 under a SIGUSR1 flood"
	check_end "$j"
	n=$(j_count "$j" '.event == "snapshot"')
	max=$(((ELAPSED_US + 999999) / 1000000 + 1))
	[ "$n" -ge 1 ] || fail "no snapshot at all under a SIGUSR1 flood"
	[ "$n" -le "$max" ] ||
		fail "$n snapshots in ${ELAPSED}s: not coalesced (at most $max)"
	note "$n snapshots in ${ELAPSED}s"
	end_run
done

# 2. the timeout ends a command that ignores SIGTERM, under the flood
RUN_LABEL="SIGUSR1 flood, timeout"
j=$T/j.timeout
start -- "$CORRAL" run -q -j "$j" -t 1 -k 0.5 -- \
	sh -c 'trap "" TERM; echo READY; while :; do sleep 0.1; done'
await '^READY$' && flood USR1
finish 60
unflood
expect_rc 124 "timeout under a SIGUSR1 flood"
check_end "$j"
end_run

# 3. a SIGTERM flood: the first ends the tree (143), the rest change nothing
RUN_LABEL="SIGTERM flood"
j=$T/j.term
start -- "$CORRAL" run -q -j "$j" -k 0.5 -- \
	sh -c 'trap "" TERM; echo READY; while :; do sleep 0.1; done'
await '^READY$' && flood TERM
finish 60
unflood
expect_rc 143 "SIGTERM flood"
check_end "$j"
j_expect_end "$j" reason signal
end_run

done_test
