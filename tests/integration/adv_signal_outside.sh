#!/usr/bin/env bash
# A member signals processes outside the tree (issue 9): kill, SIGSTOP,
# pidfd_send_signal through pidfd_open and through an open /proc/<pid>,
# aimed at a same-uid process outside the tree and at corral itself, in
# every --escape mode. Landlock's signal scoping (ABI 6) refuses them in the
# kernel, by whatever path; the filter and the audit are the fallback.
# Witnesses: the outside victim counted no SIGUSR1 and was never stopped;
# corral, asked to SIGSTOP itself, still ends the tree at its timeout (a
# stopped corral would hang); nothing is left (cgroup + marker).
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture adv_attack adv_victim

boundary_probe
[ "$HOST_ABI" -ge 6 ] ||
	skip_test "Landlock ABI $HOST_ABI < 6: signals out of the tree are refused only by the filter and the audit (docs/threat-model.md)"
expect_eq "$BOUNDARY" landlock "the boundary of a default run (journal start line)"

for mode in off log deny kill; do
	RUN_LABEL="escape $mode, outside victim"
	victim_start || continue
	j=$T/j.out.$mode
	run -- "$CORRAL" run -q -j "$j" --escape "$mode" -- \
		"$FIX/adv_attack" kill "$VPID" USR1 kill "$VPID" STOP \
		pidfd "$VPID" USR1 procfd "$VPID" USR1
	if [ "$mode" = kill ]; then
		expect_rc 123 "--escape kill ends the tree at the first signal out"
	else
		expect_rc 0 "attack run"
		for step in kill pidfd procfd; do
			expect_grep "^$step: EPERM$" "$OUTF" "$step to an outside process refused"
		done
	fi
	j_valid "$j" && j_expect_end "$j" survivors 0
	st=$(victim_state)
	[ "$st" = T ] && fail "the victim was stopped (state $st)"
	[ -z "$st" ] && fail "the victim died"
	victim_end
	expect_eq "$VREPORT" "flag=5afe5afe usr1=0" "the victim's signal count (the witness)"
done

# corral itself: SIGSTOP by pid and through /proc/<corral> (no pidfd_open
# needed). If either landed, corral would never reach its timeout.
for mode in off log deny kill; do
	RUN_LABEL="escape $mode, corral"
	j=$T/j.self.$mode
	run -- "$CORRAL" run -q -j "$j" -t 2 -k 1 --escape "$mode" -- \
		sh -c 'exec "$0" kill $PPID STOP procfd $PPID STOP pause' "$FIX/adv_attack"
	expect_rc 124 "corral reached its timeout (it was not stopped)"
	expect_grep '^kill: EPERM$' "$OUTF" "kill(corral, SIGSTOP) refused"
	expect_grep '^procfd: EPERM$' "$OUTF" "pidfd_send_signal(/proc/corral, SIGSTOP) refused"
	j_valid "$j" && j_expect_end "$j" survivors 0
done
RUN_LABEL=
done_test
