#!/usr/bin/env bash
# Deadlines under bursts (issue 16.1): a member with thousands of sleeping
# threads that ignores SIGTERM and sends itself SIGCONT every 20 ms, so that
# every thread reports a PTRACE_EVENT_STOP to corral at once, over and over.
# Before the waiter took statuses by tid, each status of a burst cost a walk
# of every tracee (O(n^2)) and deadlines were checked only between bursts:
# the timeout came seconds late and the grace ran several times its length.
#
# Assertions are on corral's own deadlines, in the journal's clock, with a
# whole grace as the margin: the ending comes before the grace could have
# started twice over; the grace lasts less than twice its length; corral is
# done within two graces of the ending. Timing figures: bench (slack).
# test: serial (fills the machine with thousands of threads; asserts on corral's deadlines)
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture threads

N=6000
K=1
TMO=6

# 1. the timeout, while the bursts run (or while the threads are still being
#    created, on a slow machine: the deadline must be kept then too)
RUN_LABEL="timeout, $N threads bursting"
j=$T/j.timeout
start -- "$CORRAL" run -q -j "$j" -t $TMO -k $K --stacks never -- \
	"$FIX/threads" -p -i -c 20 $N
AWAIT_SOFT=1 await "^READY $N\$" 60
finish 120
expect_rc 124 "--timeout $TMO"
if j_valid "$j"; then
	j_expect_end "$j" reason timeout
	j_expect_end "$j" survivors 0
	j_check "$j" "(map(select(.event==\"ending\"))[0].t) < $TMO + $K" ||
		fail "ending came more than a grace ($K s) after the timeout ($TMO s)"
	j_check "$j" "(map(select(.event==\"end\"))[0].phases.grace) < 2 * $K" ||
		fail "the grace of $K s lasted twice over"
	j_check "$j" "(map(select(.event==\"end\"))[0].t) - (map(select(.event==\"ending\"))[0].t) < 2 * $K + 1" ||
		fail "corral took more than two graces + 1 s to end the tree"
fi
end_run

# 2. SIGTERM to corral once every thread exists and the bursts run
RUN_LABEL="SIGTERM, $N threads bursting"
j=$T/j.term
start -- "$CORRAL" run -q -j "$j" -k $K --stacks never -- \
	"$FIX/threads" -p -i -c 20 $N
if await "^READY $N\$" 60; then
	kill -TERM "$PID"
fi
finish 120
expect_rc 143 "SIGTERM to corral"
if j_valid "$j"; then
	j_expect_end "$j" reason signal
	j_expect_end "$j" threads $N
	j_expect_end "$j" survivors 0
	j_check "$j" "(map(select(.event==\"end\"))[0].phases.grace) < 2 * $K" ||
		fail "the grace of $K s lasted twice over"
fi
end_run

done_test
