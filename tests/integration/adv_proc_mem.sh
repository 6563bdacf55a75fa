#!/usr/bin/env bash
# A member writes the memory of a same-uid process *outside* the tree
# (issue 9, attack 1): /proc/<pid>/mem, process_vm_writev, and stealing a
# descriptor with pidfd_getfd, in every --escape mode. None of these is a
# call corral can judge by its arguments; the tree's Landlock domain (any
# ABI) confines ptrace-mode access to the domain.
# Witness: the victim, a process this test starts outside corral, reports
# its flag unchanged; its file holds nothing the member wrote; the run
# leaves nothing behind (cgroup + marker).
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture adv_attack adv_victim

boundary_probe
[ "$HOST_ABI" -ge 1 ] ||
	skip_test "no Landlock on this kernel: /proc/PID/mem outside the tree stays open (docs/threat-model.md)"
expect_eq "$BOUNDARY" "$([ "$HOST_ABI" -ge 6 ] && echo landlock || echo landlock-ptrace)" \
	"the boundary of a default run (journal start line)"

for mode in off log deny kill; do
	RUN_LABEL="escape $mode"
	: >"$T/vfile"
	victim_start "$T/vfile" || continue
	j=$T/j.$mode
	run -- "$CORRAL" run -q -j "$j" --escape "$mode" -- \
		"$FIX/adv_attack" mem "$VPID" "$VADDR" vmwrite "$VPID" "$VADDR" \
		getfd "$VPID" "$VFD" PWNED
	expect_rc 0 "attack run"
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
