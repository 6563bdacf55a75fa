#!/usr/bin/env bash
# Signals out of the tree through SIGIO (issue 9, attack 4): a member makes
# an outside process the owner of a pipe (F_SETOWN), asks for SIGKILL
# instead of SIGIO (F_SETSIG) and writes to the pipe: the kernel, not the
# member, sends the signal, so no signal call is made that the filter or
# the audit could see. Landlock's signal scoping covers it (the owner is
# checked against the domain of the task that set it).
# Witness: the outside victim is alive afterwards; nothing is left.
#
# Below ABI 6 (build/tests/corral-testkernel, docs/testing.md) the threat
# model lists SIGIO owners outside the tree as open: there the test checks
# that the victim does die, so that table stays true.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture adv_attack adv_victim

boundary_probe

for mode in off log deny kill; do
	RUN_LABEL="escape $mode"
	victim_start || continue
	j=$T/j.$mode
	run -- "$CORRAL" run -q -j "$j" --escape "$mode" -- "$FIX/adv_attack" sigio "$VPID"
	expect_rc 0 "attack run"
	j_valid "$j" && j_expect_end "$j" survivors 0
	if [ "$HOST_ABI" -lt 6 ]; then
		# open below ABI 6: the kernel queued SIGKILL for the outside
		# owner during the write. A victim that lived would answer
		# victim_end's SIGTERM with its report; a killed one says nothing.
		victim_end
		expect_eq "$VREPORT" "" "ABI $HOST_ABI: the victim was killed through SIGIO (open, docs/threat-model.md)"
		continue
	fi
	[ -n "$(victim_state)" ] || fail "the victim was killed through SIGIO (the witness)"
	victim_end
	expect_eq "$VREPORT" "flag=5afe5afe usr1=0" "the victim's report"
done
RUN_LABEL=
done_test
