#!/usr/bin/env bash
# eptrace.sh - a member tracing another member gets an emulated tracer
# (tracer/audit/eptrace.c), never looser than the kernel, and ends cleanly
# (tests/fixtures/ept.c):
#   - die: the tracer exits without detaching: its tracee runs again (the
#     kernel detaches it) and the journal says tracer-exit;
#   - exitkill: the same with PTRACE_O_EXITKILL: the tracee is killed;
#   - refuse: attaches the kernel would refuse are refused (another uid as
#     root; a non-dumpable process without CAP_SYS_PTRACE, i.e. as the CI
#     user), as are pid 1 (outside the tree) and corral itself; the
#     command's own child is attached, stopped and detached;
#   - park: the tracer parks in a wait that nothing answers, its tracee
#     held: --timeout ends everything, nothing survives (the witness too).
# Plain and, where the sandbox works, --sandbox (its pid namespace: the
# tracer names its tracee by the sandbox's pids). Root and the test user.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture ept

sandbox_workspace "$FIX/ept"
EPT=$WS/ept
sandbox_modes
for mode in $MODES; do
	opts=()
	[ "$mode" = sandbox ] && opts=(--sandbox --workspace "$WS")

	RUN_LABEL="$mode die"
	j=$T/j.$mode.die
	run -- "$CORRAL" run -q -j "$j" "${opts[@]}" -- "$EPT" die
	expect_rc 0 "ept die"
	expect_grep '^attach_stop=19$' "$OUTF" "the attach's stop is SIGSTOP's"
	expect_grep '^sibling=ran$' "$OUTF" "the tracee runs again after its tracer died"
	expect_grep '^sibling=exit:0$' "$OUTF" "the tracee exits 0"
	if j_valid "$j"; then
		j_expect "$j" '.event == "ptrace" and .action == "attach"' 1 "attach"
		j_expect "$j" '.event == "ptrace" and .action == "tracer-exit"' 1 "tracer-exit"
		j_expect_end "$j" survivors 0
	fi

	RUN_LABEL="$mode exitkill"
	j=$T/j.$mode.exitkill
	run -- "$CORRAL" run -q -j "$j" "${opts[@]}" -- "$EPT" exitkill
	expect_rc 0 "ept exitkill"
	expect_grep '^seize=OK$' "$OUTF" "seize"
	expect_grep '^interrupt_stop=0x8005$' "$OUTF" "PTRACE_INTERRUPT's stop (PTRACE_EVENT_STOP, SIGTRAP)"
	expect_grep '^sibling=killed:9$' "$OUTF" "EXITKILL: the tracee killed when its tracer ended"
	if j_valid "$j"; then
		j_expect "$j" '.event == "ptrace" and .action == "exitkill"' 1 "exitkill"
	fi

	RUN_LABEL="$mode refuse"
	j=$T/j.$mode.refuse
	run -- "$CORRAL" run -q -j "$j" "${opts[@]}" -- "$EPT" refuse
	expect_rc 0 "ept refuse"
	if [ "$(id -u)" = 0 ] && [ "$mode" = plain ]; then
		# root keeps CAP_SYS_PTRACE: the kernel lets it attach a
		# non-dumpable process; another uid is refused
		expect_grep '^nodump=OK$' "$OUTF" "root attaches a non-dumpable member"
		expect_grep '^otheruid=EPERM$' "$OUTF" "another uid refused"
	else
		expect_grep '^nodump=EPERM$' "$OUTF" "a non-dumpable member refused"
	fi
	expect_grep '^outside=(EPERM|ESRCH)$' "$OUTF" "pid 1 (outside the tree) refused"
	expect_grep '^corral=(EPERM|none)$' "$OUTF" "corral refused"
	expect_grep '^child=OK$' "$OUTF" "its own child attached"
	expect_grep '^sibling=ran$' "$OUTF" "the child runs on after the detach"
	if j_valid "$j"; then
		expect_grep '"action":"refused".*(not dumpable|other credentials)' "$j" "journal: refused, and why"
		j_expect_end "$j" survivors 0
	fi

	RUN_LABEL="$mode park"
	j=$T/j.$mode.park
	start -- "$CORRAL" run -q -j "$j" --timeout 2 --kill-after 1 "${opts[@]}" -- "$EPT" park
	await '^READY' 30
	finish 60
	end_run
	expect_rc 124 "ept park under --timeout"
	if grep -q '^park=returned' "$OUTF"; then
		fail "the parked wait returned"
	fi
	if j_valid "$j"; then
		j_expect_end "$j" reason timeout
		j_expect_end "$j" survivors 0
	fi
done

done_test
