#!/usr/bin/env bash
# corral run --result FILE (issue 25): one JSON object a machine reads
# after the run, written atomically, valid after a timeout and after a
# member was SIGKILLed; it agrees with the journal's end line and with
# corral's exit status; a symlink at FILE is replaced, not followed.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture exit_with

RUN_LABEL="timeout"
run -- "$CORRAL" run -q -t 1 --result "$T/r1.json" -j "$T/j1" -- sh -c 'sleep 30 & sleep 30'
expect_rc 124 "a timeout"
if jq -e . "$T/r1.json" >/dev/null 2>&1; then
	expect_eq "$(jq -c '[.exit_code, .reason, .journal.intact]' "$T/r1.json")" '[124,"timeout",true]' "exit code, reason, journal intact"
	expect_eq "$(jq -r .journal.head "$T/r1.json")" "$(jq -r 'select(.event == "end") | .h' "$T/j1")" "the journal's head"
	for k in processes execs left killed survivors; do
		expect_eq "$(jq -r ".$k" "$T/r1.json")" "$(j_end "$T/j1" "$k")" "$k vs the end line"
	done
	expect_eq "$(jq -c '[.failed[] | .argv[0]] | sort' "$T/r1.json")" '["sh","sleep","sleep"]' "the processes ended by the timeout"
	expect_eq "$(jq -c '[.failed[] | .ended_by_corral] | unique' "$T/r1.json")" '[true]' "each marked ended by corral"
else
	fail "the result after a timeout is not JSON: $(head -c 300 "$T/r1.json" 2>&1)"
fi

RUN_LABEL="SIGKILLed member"
ln -s "$T/elsewhere" "$T/r2.json"
run -- "$CORRAL" run -q --result "$T/r2.json" -- sh -c '$0/exit_with 3; sh -c "kill -KILL \$\$"; exit 5' "$FIX"
expect_rc 5 "the command's status"
[ -L "$T/r2.json" ] && fail "the symlink at FILE is still there"
[ -e "$T/elsewhere" ] && fail "the symlink was followed"
if jq -e . "$T/r2.json" >/dev/null 2>&1; then
	expect_eq "$(jq -c '[.exit_code, .status, .journal]' "$T/r2.json")" '[5,5,null]' "exit code, status, no journal"
	expect_eq "$(jq -c '[.failed[] | [.argv[0], .status, .signal]]' "$T/r2.json")" \
		"[[\"sh\",5,null],[\"$FIX/exit_with\",3,null],[\"sh\",null,\"SIGKILL\"]]" "the failed processes"
	expect_eq "$(jq -r .failed_more "$T/r2.json")" 0 "none more"
else
	fail "the result after a SIGKILLed member is not JSON: $(head -c 300 "$T/r2.json" 2>&1)"
fi
ls "$T"/.corral-result.* >/dev/null 2>&1 && fail "a temporary file was left"
done_test
