#!/usr/bin/env bash
# Starvation: 300 members forking and signalling one another as fast as they
# can while the timeout fires; corral must still end the tree in time.
# test: serial (a 300-worker fork storm fills the machine)
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture storm

for n in 300; do
	RUN_LABEL="storm -s $n"
	j=$T/j.$n
	start -- "$CORRAL" run -q -j "$j" --timeout 3 -k 1 -- "$FIX/storm" -s "$n"
	# the timeout may fire before all workers are up: the storm is raging
	# either way, so not being READY is not a failure here
	AWAIT_SOFT=1 await "^READY $n\$" 3
	finish 60
	expect_rc 124 "--timeout 3 on storm -s $n"
	# timeout + the stacks at the ending (before SIGTERM: at most the
	# default stack budget, 5 s, all of it on a loaded machine) + grace +
	# slack
	expect_within $((3 + 5 + 1 + 5)) "--timeout 3, stacks, -k 1 (from start)"
	if j_parse "$j"; then
		j_expect_end "$j" reason timeout
		j_expect_end "$j" survivors 0
	fi
	end_run
	note "storm -s $n ended in ${ELAPSED}s, journal $(wc -l <"$j") lines"
done

# The same storm ended by SIGTERM. All 300 workers up is not needed (the
# storm rages either way) and can take more than 20 s on a loaded machine
# (each fork of the command waits for its turn in corral's fair batches,
# among every member's; untraced, on 2 cores, more than 5 s: each worker
# storms as soon as it is forked, beside the loop that forks the next): the
# signal is sent after 3 s anyway (TERM_READY_SOFT), as the timeout above
# fires after 3 s.
# Acted on within TERM_SLACK of the signal (j_acted_within: a SIGTERM once
# stayed unread while the storm kept corral's queue full, tracer/core/loop.c);
# done within the stacks taken at the ending (before SIGTERM to the
# members: up to the 5 s budget under load) + the grace + the slack.
TERM_CASE="storm -s 300" TERM_WAYS=sigterm TERM_READY=3 TERM_READY_SOFT=1 \
	term_three '^READY 300$' -- "$FIX/storm" -s 300

done_test
