#!/usr/bin/env bash
# A member writes the memory of a same-uid process *outside* the tree
# (issue 9, attack 1): /proc/<pid>/mem, process_vm_writev, and stealing a
# descriptor with pidfd_getfd, in every --escape mode. None of these is a
# call corral can judge by its arguments; the tree's Landlock domain (any
# ABI) confines ptrace-mode access to the domain.
# Witness: the victim, a process this test starts outside corral, reports
# its flag unchanged; its file holds nothing the member wrote; the run
# leaves nothing behind (cgroup + marker).
#
# Without Landlock (a kernel without it, or build/tests/corral-testkernel
# pretending so, docs/testing.md) the threat model lists all three as open
# to a same-uid member in every mode: there the test checks that they are
# (the victim's flag and file hold what the member wrote), so that table
# stays true.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture adv_attack adv_victim

boundary_probe
want_boundary=seccomp
[ "$HOST_ABI" -ge 1 ] && want_boundary=landlock-ptrace
[ "$HOST_ABI" -ge 6 ] && want_boundary=landlock
expect_eq "$BOUNDARY" "$want_boundary" "the boundary of a default run (journal start line)"

for mode in off log deny kill; do
	RUN_LABEL="escape $mode"
	: >"$T/vfile"
	victim_start "$T/vfile" || continue
	j=$T/j.$mode
	run -- "$CORRAL" run -q -j "$j" --escape "$mode" -- \
		"$FIX/adv_attack" mem "$VPID" "$VADDR" vmwrite "$VPID" "$VADDR" \
		getfd "$VPID" "$VFD" PWNED
	expect_rc 0 "attack run"
	if [ "$HOST_ABI" = 0 ]; then
		for step in mem vmwrite getfd; do
			expect_grep "^$step: ok$" "$OUTF" "no Landlock: $step into an outside process is open (docs/threat-model.md)"
		done
		j_valid "$j" && j_expect_end "$j" survivors 0
		victim_end
		expect_eq "$VREPORT" "flag=badbad usr1=0" "victim's memory, written by the member (open)"
		expect_eq "$(cat "$T/vfile")" "PWNED" "victim's file, written through its stolen descriptor (open)"
		continue
	fi
	expect_grep '^mem: (EACCES|EPERM)$' "$OUTF" "open /proc/<outside>/mem for writing refused"
	expect_grep '^vmwrite: EPERM$' "$OUTF" "process_vm_writev to an outside pid refused"
	expect_grep '^getfd: EPERM$' "$OUTF" "pidfd_getfd from an outside pid refused"
	j_valid "$j" && j_expect_end "$j" survivors 0
	[ -z "$(victim_state)" ] && fail "the victim died"
	victim_end
	expect_eq "$VREPORT" "flag=5afe5afe usr1=0" "victim's memory (the witness)"
	expect_eq "$(cat "$T/vfile")" "" "victim's file (the witness)"
done
RUN_LABEL=
done_test
