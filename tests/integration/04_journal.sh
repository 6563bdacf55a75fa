#!/usr/bin/env bash
# The journal: one that cannot be written is corral's failure (125) and the
# command is NOT started; an inherited descriptor (/dev/fd/N) works.
. "$(dirname "$0")/lib.sh"
need_corral

RUN_LABEL="unwritable journal"
run -- "$CORRAL" run -j /nonexistent/dir/j -- sh -c "touch '$T/marker'"
expect_rc 125 "-j /nonexistent/dir/j"
[ ! -e "$T/marker" ] || fail "-j /nonexistent/dir/j: the command was started"
[ -s "$ERRF" ] || fail "-j /nonexistent/dir/j: nothing on stderr"

RUN_LABEL="journal is a directory"
run -- "$CORRAL" run -j "$T" -- sh -c "touch '$T/marker2'"
expect_rc 125 "-j DIRECTORY"
[ ! -e "$T/marker2" ] || fail "-j DIRECTORY: the command was started"

RUN_LABEL="closed descriptor"
run -- "$CORRAL" run -j /dev/fd/9 -- sh -c "touch '$T/marker3'"
expect_rc 125 "-j /dev/fd/9 (not open)"
[ ! -e "$T/marker3" ] || fail "-j /dev/fd/9: the command was started"

RUN_LABEL="inherited descriptor"
run -- bash -c "exec 3>'$T/j.fd'; exec \"\$@\"" _ "$CORRAL" run -q -j /dev/fd/3 -- sh -c 'echo out; exit 3'
expect_rc 3 "-j /dev/fd/3"
expect_eq "$(cat "$OUTF")" out "stdout with -j /dev/fd/3"
if j_valid "$T/j.fd"; then
	j_expect_end "$T/j.fd" exit_code 3
fi

RUN_LABEL="start line"
j=$T/j.start
run -- "$CORRAL" run -q -j "$j" -- /bin/true a 'b c'
expect_rc 0 "true"
if j_valid "$j"; then
	j_check "$j" '.[0] | .schema == 6 and (.version | type) == "string" and (.pid | type) == "number" and .command == ["/bin/true", "a", "b c"] and (.argv | index(["--"]) != null)' "start event"
	j_check "$j" 'map(.t) | . == sort' "t is non-decreasing"
	j_check "$j" 'map(select(.event == "end"))[0] | .processes == 1 and .execs == 1 and .left == 0 and .killed == 0 and .survivors == 0 and (.phases | type) == "object" and (.duration | type) == "number"' "end event"
fi

done_test
