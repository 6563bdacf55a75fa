#!/usr/bin/env bash
# Members that use ptrace: PTRACE_TRACEME makes the child its parent's
# emulated tracee (the kernel would allow it; its parent installs the wait
# trap); attaching to corral itself fails; attaching to a sibling is emulated by
# corral (tracer/audit/eptrace.c: the kernel would allow it, same user, dumpable,
# no Yama on the test hosts or a descendant's attach), journaled as `ptrace`
# events, and supervision goes on to a clean end.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture traceme

j=$T/j
start -- "$CORRAL" run -q -j "$j" -- "$FIX/traceme" -T
finish 15
end_run
expect_rc 0 "traceme -T"
expect_grep '^traceme=OK' "$OUTF" "PTRACE_TRACEME emulated"
expect_grep '^attach_sibling=OK' "$OUTF" "PTRACE_ATTACH to a sibling emulated"
expect_grep '^seize_sibling=OK' "$OUTF" "PTRACE_SEIZE of a sibling emulated"
expect_grep '^attach_tracer=E' "$OUTF" "PTRACE_ATTACH to corral refused"
if j_valid "$j"; then
	j_expect_end "$j" survivors 0
	j_expect_end "$j" processes 5
	for a in attach detach seize tracer-exit; do
		expect_grep "\"event\":\"ptrace\".*\"action\":\"$a\"" "$j" \
			"journal: ptrace $a"
	done
	expect_grep '"event":"ptrace".*"action":"traceme"' "$j" \
		"journal: PTRACE_TRACEME"
	# corral report says who traced whom
	"$CORRAL" report "$j" >"$T/report" 2>&1
	expect_grep '^emulated ptrace \(who traced whom\)' "$T/report" "report: the ptrace list"
	expect_grep ': attach [0-9]+$' "$T/report" "report: an attach"
fi

done_test
