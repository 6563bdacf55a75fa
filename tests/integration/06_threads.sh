#!/usr/bin/env bash
# Threads: each is journaled as a thread of the process; hundreds work.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture threads

for n in 8 500; do
	RUN_LABEL="threads $n"
	j=$T/j.$n
	run -- "$CORRAL" run -q -j "$j" -- "$FIX/threads" "$n"
	expect_rc 0 "threads $n"
	expect_grep "^JOINED $n\$" "$OUTF" "threads output"
	if j_valid "$j"; then
		p=$(jq -r 'select(.event == "exec") | .pid' "$j" | head -n 1)
		j_expect "$j" ".event == \"thread\" and .tgid == $p and .pid != $p" "$n" "thread events of pid $p"
		j_expect "$j" '.event == "fork" or .event == "clone" or .event == "vfork"' 0 "process creations"
		j_expect_end "$j" threads "$n"
		j_expect_end "$j" processes 1
		j_expect "$j" ".event == \"exit\" and .pid == $p and .status == 0" 1 "exit of the leader"
	fi
done

done_test
