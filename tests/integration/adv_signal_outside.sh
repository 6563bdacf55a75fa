#!/usr/bin/env bash
# A member signals processes outside the tree (issue 9): kill, SIGSTOP,
# pidfd_send_signal through pidfd_open and through an open /proc/<pid>,
# aimed at a same-uid process outside the tree and at corral itself, in
# every --escape mode. Landlock's signal scoping (ABI 6) refuses them in the
# kernel, by whatever path; the filter and the audit are the fallback.
# Witnesses: the outside victim counted no SIGUSR1 and was never stopped;
# corral, asked to SIGSTOP itself, still ends the tree at its timeout (a
# stopped corral would hang); nothing is left (cgroup + marker).
#
# Below ABI 6 (build/tests/corral-testkernel, docs/testing.md) only the
# filter (corral by pid) and the audit (--escape deny and kill) refuse;
# the threat model's table lists what is open there, and the test checks
# exactly that: in --escape off and log an outside process is signalled
# (the victim counts the SIGUSR1s), and in --escape off a pidfd through
# /proc/<corral> stops corral (the wrapper's waitpid(WUNTRACED) sees it;
# it then continues corral, which still ends the tree at its timeout).
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture adv_attack adv_victim

boundary_probe
if [ "$HOST_ABI" -ge 6 ]; then
	expect_eq "$BOUNDARY" landlock "the boundary of a default run (journal start line)"
fi
# open_below_6 MODE: whether the table says signals out are open there.
open_below_6() { [ "$HOST_ABI" -lt 6 ] && { [ "$1" = off ] || [ "$1" = log ]; }; }

for mode in off log deny kill; do
	RUN_LABEL="escape $mode, outside victim"
	victim_start || continue
	j=$T/j.out.$mode
	run -- "$CORRAL" run -q -j "$j" --escape "$mode" -- \
		"$FIX/adv_attack" kill "$VPID" USR1 kill "$VPID" STOP \
		pidfd "$VPID" USR1 procfd "$VPID" USR1
	if open_below_6 "$mode"; then
		expect_rc 0 "attack run"
		for step in kill pidfd procfd; do
			expect_grep "^$step: ok$" "$OUTF" "ABI $HOST_ABI: $step to an outside process is open (docs/threat-model.md)"
		done
		j_valid "$j" && j_expect_end "$j" survivors 0
		victim_end
		case $VREPORT in
		"flag=5afe5afe usr1="[1-9]*) ;;
		*) fail "ABI $HOST_ABI: the victim's report '$VREPORT': expected SIGUSR1s counted (open)" ;;
		esac
		continue
	elif [ "$mode" = kill ]; then
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
# needed), then the member ends. If either landed, corral would never
# exit (the run's deadline says "hung").
for mode in off log deny kill; do
	RUN_LABEL="escape $mode, corral"
	j=$T/j.self.$mode
	if [ "$HOST_ABI" -lt 6 ] && [ "$mode" = off ]; then
		# Open there: the pidfd through /proc/<corral> stops it. The
		# wrapper (corral's parent) waits for that stop, says so and
		# continues corral, which then sees the member's end and exits.
		run -- python3 -c '
import os, signal, subprocess, sys
p = subprocess.Popen(sys.argv[1:])
_, st = os.waitpid(p.pid, os.WUNTRACED)
if os.WIFSTOPPED(st):
    print("corral: stopped by", signal.Signals(os.WSTOPSIG(st)).name, flush=True)
    os.kill(p.pid, signal.SIGCONT)
    _, st = os.waitpid(p.pid, 0)
sys.exit(os.waitstatus_to_exitcode(st) & 255)' \
			"$CORRAL" run -q -j "$j" --escape "$mode" -- \
			sh -c 'exec "$0" kill $PPID STOP procfd $PPID STOP' "$FIX/adv_attack"
		expect_rc 0 "corral, continued, exited with the member"
		expect_grep '^kill: EPERM$' "$OUTF" "kill(corral, SIGSTOP) refused (the filter, any ABI)"
		expect_grep '^procfd: ok$' "$OUTF" "ABI $HOST_ABI: pidfd_send_signal(/proc/corral) is open in --escape off (docs/threat-model.md)"
		expect_grep '^corral: stopped by SIGSTOP$' "$OUTF" "corral was stopped (the witness of the open door)"
		j_valid "$j" && j_expect_end "$j" survivors 0
		continue
	fi
	run -- "$CORRAL" run -q -j "$j" --escape "$mode" -- \
		sh -c 'exec "$0" kill $PPID STOP procfd $PPID STOP' "$FIX/adv_attack"
	expect_rc 0 "corral exited with the member (it was not stopped)"
	expect_grep '^kill: EPERM$' "$OUTF" "kill(corral, SIGSTOP) refused"
	expect_grep '^procfd: EPERM$' "$OUTF" "pidfd_send_signal(/proc/corral, SIGSTOP) refused"
	j_valid "$j" && j_expect_end "$j" survivors 0
done
RUN_LABEL=
done_test
