#!/usr/bin/env bash
# The check/use race on pidfd_send_signal (issue 9, attack 3): the audit
# reads which process a descriptor stands for while the caller is stopped;
# a second thread sharing the descriptor table dup2()s a /proc/<victim>
# directory over it between that check and the call. With Landlock's
# signal scoping the kernel refuses the signal when it is sent: no window.
# Victims: a process outside the tree (SIGSTOP), and corral itself
# (SIGSTOP: corral would never reach its timeout). In every escape mode.
# Witnesses: the victim is never stopped; corral exits with its member.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture adv_attack adv_victim

boundary_probe
[ "$HOST_ABI" -ge 6 ] ||
	skip_test "Landlock ABI $HOST_ABI < 6: the race is open (docs/threat-model.md)"

# N attempts a run (make test: 500; make soak: 20000). Each costs ~5 ms
# here (the audit's stop, the flipper on the other core): 500 a run is
# ~2.5 s a way, up to 4000 verdicts in all (two victims, four modes; kill
# mode ends at the first). The flipper swaps the descriptor many times in
# each stop, so about half of the calls find the other file at the call
# than at the check (the fixture prints how many reached the member): a
# few hundred check/use mismatches a run. With the signal scope the
# kernel refuses every one that names the victim; none may stop it.
N=${ADV_RACE_N:-500}
for mode in off log deny kill; do
	RUN_LABEL="escape $mode, outside victim"
	victim_start || continue
	j=$T/j.out.$mode
	run -- "$CORRAL" run -q -j "$j" --escape "$mode" -- "$FIX/adv_attack" race "$VPID" STOP "$N"
	if [ "$mode" = kill ]; then
		# the first call that names the victim ends the tree, or none did
		[ "$RC" = 123 ] || [ "$RC" = 0 ] || fail "exit status $RC, expected 123 or 0"
	else
		expect_rc 0 "attack run"
	fi
	j_valid "$j" && j_expect_end "$j" survivors 0
	st=$(victim_state)
	[ "$st" = T ] && fail "the victim was stopped through the race (the witness)"
	[ -z "$st" ] && fail "the victim died"
	victim_end
done

# Corral as the victim: the member exits after its N calls, and corral must
# exit with it. A stopped corral never would (the member's next stop waits
# for it): the run's deadline then says "hung". No timeout to wait out.
for mode in off log deny kill; do
	RUN_LABEL="escape $mode, corral"
	j=$T/j.self.$mode
	run -- "$CORRAL" run -q -j "$j" --escape "$mode" -- \
		sh -c 'exec "$0" race $PPID STOP "$1"' "$FIX/adv_attack" "$N"
	if [ "$mode" = kill ]; then
		# a descriptor whose target the audit cannot resolve (caught
		# mid-swap) is itself an escape: the tree may end early
		[ "$RC" = 0 ] || [ "$RC" = 123 ] ||
			fail "exit status $RC, expected 0 (the member's) or 123 (escape)"
	else
		expect_rc 0 "corral exited with its member (it was not stopped)"
	fi
	j_valid "$j" && j_expect_end "$j" survivors 0
done
RUN_LABEL=
done_test
