#!/usr/bin/env bash
# A daemonizing child (double fork + setsid) does not survive corral: when
# the command exits, what is left is journaled as `left` and ended.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture daemonize subreaper

RUN_LABEL="daemonize"
j=$T/j
run -- "$CORRAL" run -q -j "$j" -- "$FIX/daemonize"
expect_rc 0 "daemonize (command exits 0, daemon left)"
expect_within 10 "ending the left-behind daemon"
d=$(sed -n 's/^READY \([0-9]*\)$/\1/p' "$OUTF")
[ -n "$d" ] || fail "no READY line from daemonize"
if j_valid "$j" && [ -n "$d" ]; then
	j_expect "$j" ".event == \"left\" and .pid == $d" 1 "left event for the daemon $d"
	j_expect "$j" ".event == \"exit\" and .pid == $d and has(\"signal\")" 1 "the daemon killed by a signal"
	j_expect_end "$j" left 1
	j_expect_end "$j" reason exited
	j_expect_end "$j" exit_code 0
	j_expect_end "$j" survivors 0
	j_expect_end "$j" processes 3
	j_check "$j" '[.[] | select(.event == "left")][0] | (.argv | type) == "array" and (.path | type) == "string"' "left event has argv and path"
fi

RUN_LABEL="subreaper -e"
# an orphan reparented to a subreaper that then exits
j=$T/j.sub
run -- "$CORRAL" run -q -j "$j" -- "$FIX/subreaper" -e
expect_rc 0 "subreaper -e"
o=$(sed -n 's/^READY \([0-9]*\)$/\1/p' "$OUTF")
if j_valid "$j" && [ -n "$o" ]; then
	j_expect "$j" ".event == \"left\" and .pid == $o" 1 "left event for the orphan $o"
	j_expect_end "$j" survivors 0
fi

RUN_LABEL="sh background jobs"
j=$T/j.sh
run -- "$CORRAL" run -q -j "$j" -- sh -c 'sleep 1000 & sleep 1000 & echo started'
expect_rc 0 "sh with two background sleeps"
expect_within 10 "ending two sleeps"
if j_valid "$j"; then
	# (a sleep may not have exec'd yet when sh exits: any argv)
	j_expect "$j" '.event == "left"' 2 "left events"
	j_expect_end "$j" left 2
fi

done_test
