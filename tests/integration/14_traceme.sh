#!/usr/bin/env bash
# Members that use ptrace: PTRACE_TRACEME, attaching to a sibling (both
# already traced by corral: EPERM) and attaching to corral itself must all
# fail, and supervision goes on to a clean end.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture traceme

j=$T/j
start -- "$CORRAL" run -q -j "$j" -- "$FIX/traceme" -T
finish 15
end_run
expect_rc 0 "traceme -T"
expect_grep '^traceme=E' "$OUTF" "PTRACE_TRACEME refused"
expect_grep '^attach_sibling=E' "$OUTF" "PTRACE_ATTACH to a sibling refused"
expect_grep '^seize_sibling=E' "$OUTF" "PTRACE_SEIZE of a sibling refused"
expect_grep '^attach_tracer=E' "$OUTF" "PTRACE_ATTACH to corral refused"
if j_valid "$j"; then
	j_expect_end "$j" survivors 0
	j_expect_end "$j" processes 5
fi

done_test
