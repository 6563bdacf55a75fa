#!/usr/bin/env bash
# debuggers.sh - a debugger run as a member on another member works
# (tracer/audit/eptrace.c, the emulated ptrace, docs/design.md):
#   - gdb: tests/fixtures/dbg_target.c (two threads, parked in
#     corral_dbg_thread_park and corral_dbg_main_park) forks
#     `gdb -p ITSELF -batch -ex 'thread apply all bt'`; gdb prints both
#     stacks and detaches, and the target goes on: it wakes its thread,
#     joins it and exits 0. gdb's startup probes fork PTRACE_TRACEME
#     children and wait for them with plain waitpid(), which the wait trap
#     (installed at gdb's first attach) brings to corral; without the
#     emulation gdb's attach fails, or its probe hangs.
#   - gdb run: `gdb -batch -ex 'break corral_dbg_bp_here' -ex run -ex bt
#     -ex continue dbg_bp` (tests/fixtures/dbg_bp.c): gdb starts the
#     program (a PTRACE_TRACEME child: gdb installs its wait trap at its
#     next system call), stops at the breakpoint after a thread came and
#     went, prints the stack, and continues (a single step off the
#     breakpoint) to the program's exit code 5.
#   - strace: `strace -f -o FILE sh -c '/bin/true & wait; /bin/echo hi;
#     exit 3'` traces the whole tree (both execs, both exits; strace exits
#     3 as its command did), `strace -f` of tests/fixtures/threads.c sees
#     its four threads' clones, of tests/fixtures/selfstop.c (children
#     that stop themselves, continued by their parent) their group-stops,
#     and a --timeout while strace holds a
#     paused tree ends everything (strace's startup probes fork a TRACEME
#     child and SEIZE a child; PTRACE_SYSCALL makes corral resume the real
#     task with the real request and report its syscall stops).
# Plain and, where the sandbox works, --sandbox; root and the test user
# (tests/run.sh). The witness checks that nothing is left after each run.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture dbg_target dbg_bp threads selfstop

# The programs live in the sandbox's workspace.
sandbox_workspace "$FIX/dbg_target" "$FIX/dbg_bp" "$FIX/threads" "$FIX/selfstop"
# Each tool must work here untraced first (a kernel or an outer tracer
# that refuses ptrace breaks it with or without corral).
GDB=$(command -v gdb) || GDB=
if [ -n "$GDB" ]; then
	timeout 60 "$WS/dbg_target" "$GDB" -nx -p %PID% -batch -ex 'thread apply all bt' \
		>"$T/untraced" 2>&1 </dev/null
	if ! grep -q 'corral_dbg_thread_park' "$T/untraced"; then
		note "gdb -p does not work untraced here: $(tail -c 300 "$T/untraced")"
		GDB=
	fi
fi
STRACE=$(command -v strace) || STRACE=
if [ -n "$STRACE" ] && ! timeout 60 "$STRACE" -f -o /dev/null true >"$T/untraced" 2>&1; then
	note "strace -f does not work untraced here: $(tail -c 300 "$T/untraced")"
	STRACE=
fi
[ -n "$GDB$STRACE" ] || skip_test "neither gdb nor strace (working untraced) here"

sandbox_modes
for mode in $MODES; do
	opts=()
	[ "$mode" = sandbox ] && opts=(--sandbox --workspace "$WS")

	RUN_LABEL="$mode gdb"
	if [ -z "$GDB" ]; then
		skip_part "no gdb (working untraced) here"
	else
	j=$T/j.$mode.gdb
	run -- "$CORRAL" run -q -j "$j" --timeout 60 "${opts[@]}" -- \
		"$WS/dbg_target" "$GDB" -nx -p %PID% -batch -ex 'thread apply all bt'
	expect_rc 0 "dbg_target + gdb"
	expect_grep 'in corral_dbg_thread_park \(\)' "$OUTF" "gdb: the second thread's stack"
	expect_grep 'in corral_dbg_main_park \(' "$OUTF" "gdb: the main thread's stack"
	expect_grep '^Thread 2 ' "$OUTF" "gdb: both threads"
	expect_grep 'Inferior 1 \(process [0-9]+\) detached' "$OUTF" "gdb detached"
	expect_grep '^tool=exit:0$' "$OUTF" "gdb exits 0"
	expect_grep '^target=done$' "$OUTF" "the target went on after the detach"
	if j_valid "$j"; then
		j_expect "$j" '.event == "ptrace" and .action == "attach"' 2 "attach: both threads"
		j_expect "$j" '.event == "ptrace" and .action == "detach"' 2 "detach: both threads"
		j_expect "$j" '.event == "ptrace" and .action == "traceme"' 2 "gdb's two TRACEME probes"
		j_expect_end "$j" survivors 0
	fi

	RUN_LABEL="$mode gdb run"
	j=$T/j.$mode.gdbrun
	run -- "$CORRAL" run -q -j "$j" --timeout 60 "${opts[@]}" -- \
		"$GDB" -nx -batch -ex 'break corral_dbg_bp_here' -ex run -ex bt -ex continue "$WS/dbg_bp"
	expect_rc 0 "gdb run"
	expect_grep 'hit Breakpoint 1, corral_dbg_bp_here \(' "$OUTF" "gdb: the breakpoint"
	expect_grep '^#1 .* in main \(\)' "$OUTF" "gdb: the stack at the breakpoint"
	expect_grep '^r=42$' "$OUTF" "the program went on after the breakpoint"
	expect_grep 'Inferior 1 \(process [0-9]+\) exited with code 05' "$OUTF" "gdb: the program's exit code"
	if j_valid "$j"; then
		j_expect "$j" '.event == "ptrace" and .action == "unsupported"' 0 "nothing unsupported"
		j_expect_end "$j" survivors 0
	fi
	fi

	if [ -z "$STRACE" ]; then
		RUN_LABEL="$mode strace"
		skip_part "no strace (working untraced) here"
		continue
	fi
	RUN_LABEL="$mode strace sh"
	j=$T/j.$mode.strace
	st=$WS/strace.$mode.sh
	run -- "$CORRAL" run -q -j "$j" --timeout 60 "${opts[@]}" -- \
		"$STRACE" -f -o "$st" sh -c '/bin/true & wait; /bin/echo hi; exit 3'
	expect_rc 3 "strace -f sh: the command's exit status"
	expect_grep '^hi$' "$OUTF" "the traced command's output"
	expect_grep '^[0-9]+ +execve\("/bin/true"' "$st" "strace: the background child's exec"
	expect_grep '^[0-9]+ +execve\("/bin/echo"' "$st" "strace: the second child's exec"
	expect_grep '^[0-9]+ +write\(1, "hi\\n", 3\) += 3' "$st" "strace: echo's write"
	expect_grep '^[0-9]+ +\+\+\+ exited with 0 \+\+\+' "$st" "strace: the children's exits"
	expect_grep '^[0-9]+ +\+\+\+ exited with 3 \+\+\+' "$st" "strace: the shell's exit"
	if [ "$(grep -c '+++ exited with' "$st")" != 3 ]; then
		fail "strace: $(grep -c '+++ exited with' "$st") exits, expected 3"
	fi
	if j_valid "$j"; then
		j_expect "$j" '.event == "ptrace" and .action == "attach" and .detail == "auto-attached"' 2 "the two children auto-attached"
		j_expect "$j" '.event == "ptrace" and .action == "unsupported"' 0 "nothing unsupported"
		j_expect_end "$j" survivors 0
	fi

	RUN_LABEL="$mode strace threads"
	j=$T/j.$mode.threads
	st=$WS/strace.$mode.threads
	run -- "$CORRAL" run -q -j "$j" --timeout 60 "${opts[@]}" -- \
		"$STRACE" -f -o "$st" "$WS/threads" 4
	expect_rc 0 "strace -f threads 4"
	expect_grep '^JOINED 4$' "$OUTF" "the threads joined"
	if [ "$(grep -c 'clone(.*CLONE_THREAD' "$st")" != 4 ]; then
		fail "strace: $(grep -c 'clone(.*CLONE_THREAD' "$st") thread clones, expected 4"
	fi
	expect_grep '^[0-9]+ +\+\+\+ exited with 0 \+\+\+' "$st" "strace: the exit"

	RUN_LABEL="$mode strace stop/cont"
	j=$T/j.$mode.stop
	st=$WS/strace.$mode.stop
	run -- "$CORRAL" run -q -j "$j" --timeout 60 "${opts[@]}" -- \
		"$STRACE" -f -o "$st" "$WS/selfstop" -c 2
	expect_rc 0 "strace -f selfstop -c 2"
	expect_grep '^DONE$' "$OUTF" "the stopped children were continued"
	if [ "$(grep -c -- '--- stopped by SIGSTOP ---' "$st")" != 2 ]; then
		fail "strace: $(grep -c -- '--- stopped by SIGSTOP ---' "$st") group-stops seen, expected 2"
	fi
	if [ "$(grep -c '+++ exited with 0 +++' "$st")" != 3 ]; then
		fail "strace: $(grep -c '+++ exited with 0 +++' "$st") exits, expected 3"
	fi

	RUN_LABEL="$mode strace timeout"
	j=$T/j.$mode.timeout
	start -- "$CORRAL" run -q -j "$j" --timeout 3 --kill-after 1 "${opts[@]}" -- \
		"$STRACE" -f -o "$WS/strace.$mode.timeout" "$WS/threads" -p 4
	await '^READY 4' 30
	finish 60
	end_run
	expect_rc 124 "strace -f of a paused tree under --timeout"
	if j_valid "$j"; then
		j_expect_end "$j" reason timeout
		j_expect_end "$j" survivors 0
	fi
done

done_test
