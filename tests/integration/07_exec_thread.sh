#!/usr/bin/env bash
# Exec from a non-leader thread: the journal's exec event carries the pid of
# the thread group (the leader's) and `former`, the tid that called execve.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture threads

j=$T/j
run -- "$CORRAL" run -q -j "$j" -- "$FIX/threads" -x 4 /bin/echo from-thread
expect_rc 0 "threads -x 4 /bin/echo"
expect_grep '^from-thread$' "$OUTF" "the exec'd program ran"
tid=$(sed -n 's/^EXEC \([0-9]*\)$/\1/p' "$OUTF")
[ -n "$tid" ] || fail "no EXEC line"
if j_valid "$j" && [ -n "$tid" ]; then
	leader=$(jq -r 'select(.event == "exec") | .pid' "$j" | head -n 1)
	[ "$tid" != "$leader" ] || fail "the exec'ing thread is the leader?"
	j_expect "$j" ".event == \"exec\" and .former == $tid and .pid == $leader and .tgid == $leader and .argv == [\"/bin/echo\", \"from-thread\"]" 1 "exec event with former=$tid, pid=$leader"
	echo_path=$(readlink -f /bin/echo)
	j_expect "$j" ".event == \"exec\" and .path == \"$echo_path\"" 1 "exec path $echo_path"
	j_expect "$j" '.event == "exec" and (has("former") | not)' 1 "the first exec has no former"
	j_expect_end "$j" threads 4
	j_expect_end "$j" processes 1
	j_expect_end "$j" survivors 0
fi

done_test
