#!/usr/bin/env bash
# corral's parent dies (SIGKILL): the tree is ended (reason parent), unless
# --no-parent-watch.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture forktree daemonize

# The parent is a shell that runs corral and would print its status after.
RUN_LABEL="parent killed"
j=$T/j
start -- sh -c '"$@"; echo "corral returned $?"' sh "$CORRAL" run -q -j "$j" -k 1 -- "$FIX/daemonize" -w
if await '^READY [0-9]+$'; then
	mark
	kill -KILL "$PID"
fi
finish 10
expect_rc 137 "the parent shell, SIGKILLed"
# corral and the tree are no longer children of the test: the witness waits
# for them (bounded) and must find nothing.
witness_check 10
ELAPSED_US=$(($(now_us) - TM))
ELAPSED=$(secs $ELAPSED_US)
expect_within $((1 + 5)) "ending after the parent's death"
drain
if j_valid "$j"; then
	j_expect_end "$j" reason parent
	j_expect_end "$j" survivors 0
fi

RUN_LABEL="--no-parent-watch"
j=$T/j.nowatch
start -- sh -c '"$@"; echo "corral returned $?"' sh "$CORRAL" run -q -j "$j" -k 1 --no-parent-watch -- "$FIX/daemonize" -w
if await '^READY [0-9]+$'; then
	kill -KILL "$PID"
fi
finish 10
cpid=$(j_start "$j" pid)
# A window in which nothing may happen (a negative observation, not
# synchronisation): the tree must still be there after 1 s.
sleep 1
if [ -n "$cpid" ] && kill -0 "$cpid" 2>/dev/null; then
	grep -q '"event":"ending"' "$j" && fail "--no-parent-watch: the tree is being ended"
	mark
	kill -TERM "$cpid"
	# corral is not our child: wait for the witness to empty (bounded)
	witness_check 10
	if j_valid "$j"; then
		j_expect_end "$j" reason signal
		j_expect_end "$j" survivors 0
	fi
else
	fail "--no-parent-watch: corral (pid ${cpid:-?}) ended with its parent"
	end_run
fi
drain

done_test
