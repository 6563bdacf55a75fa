#!/usr/bin/env bash
# debuggers.sh - a debugger run as a member on another member works
# (tracer/eptrace.c, the emulated ptrace, docs/design.md):
#   - gdb: tests/fixtures/dbg_target.c (two threads, parked in
#     corral_dbg_thread_park and corral_dbg_main_park) forks
#     `gdb -p ITSELF -batch -ex 'thread apply all bt'`; gdb prints both
#     stacks and detaches, and the target goes on: it wakes its thread,
#     joins it and exits 0. gdb's startup probes fork PTRACE_TRACEME
#     children and wait for them with plain waitpid(), which the wait trap
#     (installed at gdb's first attach) brings to corral; without the
#     emulation gdb's attach fails, or its probe hangs.
# Plain and, where the sandbox works, --sandbox; root and the CI user
# (tests/run.sh). The witness checks that nothing is left after each run.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture dbg_target

GDB=$(command -v gdb) || skip_test "no gdb"
# gdb must work here untraced first (a kernel or an outer tracer that
# refuses ptrace breaks it with or without corral).
WS=$T/ws
mkdir -p "$WS"
chmod 755 "$WS"
cp "$FIX/dbg_target" "$WS/dbg_target"
if [ "$(id -u)" = 0 ] && id -u corral-ci >/dev/null 2>&1; then
	chown -R corral-ci "$WS"
fi
timeout 60 "$WS/dbg_target" "$GDB" -nx -p %PID% -batch -ex 'thread apply all bt' \
	>"$T/untraced" 2>&1 </dev/null
grep -q 'corral_dbg_thread_park' "$T/untraced" ||
	skip_test "gdb -p does not work untraced here: $(tail -c 300 "$T/untraced")"

modes=plain
if "$CORRAL" probe >"$T/probe" 2>&1; then
	modes="plain sandbox"
else
	note "no sandbox here: plain runs only"
fi

for mode in $modes; do
	opts=()
	[ "$mode" = sandbox ] && opts=(--sandbox --workspace "$WS")

	RUN_LABEL="$mode gdb"
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
done

done_test
