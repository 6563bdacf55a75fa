#!/usr/bin/env bash
# --max-procs N: a tree that grows past N live processes is ended (exit 122).
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture forktree storm

RUN_LABEL="forktree over 20"
j=$T/j
run -- "$CORRAL" run -q -j "$j" -k 1 --max-procs 20 -- "$FIX/forktree" -p 2 10
expect_rc 122 "--max-procs 20, a tree of 111"
expect_within 10 "ending at --max-procs"
if j_valid "$j"; then
	j_expect_end "$j" reason max-procs
	j_expect_end "$j" exit_code 122
	j_expect_end "$j" survivors 0
	j_expect "$j" '.event == "ending" and .reason == "max-procs"' 1 "ending event"
fi

RUN_LABEL="storm over 100"
j=$T/j.storm
run -- "$CORRAL" run -q -j "$j" -k 1 --max-procs 100 -- "$FIX/storm" 200
expect_rc 122 "--max-procs 100, a storm of 200 workers"
j_valid "$j" && j_expect_end "$j" survivors 0

RUN_LABEL="under the limit"
run -- "$CORRAL" run -q --max-procs 50 -- "$FIX/forktree" 2 3 /bin/true
expect_rc 0 "--max-procs 50, a tree of 13"

done_test
