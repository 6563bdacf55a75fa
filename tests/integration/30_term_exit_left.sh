#!/usr/bin/env bash
# The command exits while its children live on: by default they are
# journaled as left and ended (corral exits with the command's status);
# with --wait-all corral waits for them, and ending them works all three ways.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture forktree

cmd='for i in 1 2 3; do sleep 1000 & done; (trap "" TERM; exec sleep 1000) & echo READY; exit 7'

RUN_LABEL="default"
j=$T/j
start -- "$CORRAL" run -q -j "$j" -k 1 -- sh -c "$cmd"
await '^READY$'
finish 30
expect_rc 7 "command exits 7 leaving 4 sleeps"
expect_within 7 "ending the left (one ignores SIGTERM: -k 1)"
if j_valid "$j"; then
	j_expect_end "$j" reason exited
	j_expect_end "$j" left 4
	j_expect_end "$j" exit_code 7
	j_expect_end "$j" survivors 0
	j_expect "$j" '.event == "left"' 4 "left events"
	j_expect "$j" '.event == "ending" and .reason == "exited"' 1 "ending event"
fi
end_run

TERM_OPTS=(--wait-all)
TERM_CASE=--wait-all term_three '^READY$' -- sh -c "$cmd"
TERM_OPTS=()

# many left: a tree of 40 members whose root exits at once
RUN_LABEL="forktree left"
j=$T/j.tree
run -- "$CORRAL" run -q -j "$j" -k 1 -- sh -c "\"$FIX/forktree\" -p 3 3 & exit 0"
expect_rc 0 "sh leaving a tree behind"
if j_valid "$j"; then
	j_expect_end "$j" survivors 0
	j_check "$j" '[.[] | select(.event == "end")][0].left >= 1' "some members left"
fi

done_test
