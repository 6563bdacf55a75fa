#!/usr/bin/env bash
# Death by a signal (docs/cli.md): when the command dies of signal N and
# corral is not ending the tree, corral dies of N too, so a parent sees
# WIFSIGNALED/WTERMSIG (checked here by a python parent, not by a shell's
# 128+N which cannot tell the two apart); corral leaves no core file of its
# own. When corral is told to stop by SIGINT/SIGTERM it ends the tree and
# dies of that signal. After a timeout corral exits 124 (no re-raise), or
# the command's status with --preserve-status.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture killself
command -v python3 >/dev/null || skip_test "python3 not installed"

# status CMD...: how a python parent sees CMD end: "signal N" or "exit N".
cat >"$T/status.py" <<'PY'
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, st = os.waitpid(pid, 0)
if os.WIFSIGNALED(st):
    print("signal %d%s" % (os.WTERMSIG(st), " core" if os.WCOREDUMP(st) else ""))
else:
    print("exit %d" % os.WEXITSTATUS(st))
PY

for sig in SEGV:11 INT:2 TERM:15 ABRT:6 KILL:9; do
	name=${sig%:*} n=${sig#*:}
	RUN_LABEL="killself $name"
	mkdir -p "$T/cwd.$name"
	# core files enabled for corral: it must still leave none of its own
	run -- bash -c "cd '$T/cwd.$name' && ulimit -c unlimited 2>/dev/null; exec python3 '$T/status.py' '$CORRAL' run -q -- '$FIX/killself' $name"
	expect_rc 0 "python parent"
	expect_eq "$(cat "$OUTF")" "signal $n" "corral's wait status when the command died of SIG$name"
	[ -z "$(ls -A "$T/cwd.$name")" ] || fail "files left in the cwd: $(ls -A "$T/cwd.$name")"
done

RUN_LABEL="exit status is not a signal"
run -- python3 "$T/status.py" "$CORRAL" run -q -- sh -c 'exit 130'
expect_eq "$(cat "$OUTF")" "exit 130" "a command exiting 130 is an exit, not a death"

RUN_LABEL="SIGTERM to corral"
cat >"$T/sig.py" <<'PY'
import os, signal, sys
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.dup2(w, 1)
    os.execv(sys.argv[2], sys.argv[2:])
os.close(w)
f = os.fdopen(r)
f.readline()  # READY: the tree is in place
os.kill(pid, getattr(signal, sys.argv[1]))
_, st = os.waitpid(pid, 0)
print("signal %d" % os.WTERMSIG(st) if os.WIFSIGNALED(st) else "exit %d" % os.WEXITSTATUS(st))
PY
for s in SIGTERM:15 SIGINT:2 SIGHUP:1; do
	RUN_LABEL="$s to corral"
	run -- python3 "$T/sig.py" "${s%:*}" "$CORRAL" run -q -k 1 -- sh -c 'sleep 100 & echo READY; wait'
	expect_eq "$(tail -n 1 "$OUTF")" "signal ${s#*:}" "corral's status after $s"
done

RUN_LABEL="timeout: 124, not a re-raise"
run -- python3 "$T/status.py" "$CORRAL" run -q -t 0.2 -- sleep 100
expect_eq "$(cat "$OUTF")" "exit 124" "after a timeout"

RUN_LABEL="--preserve-status"
run -- "$CORRAL" run -q -t 0.2 --preserve-status -- sleep 100
expect_rc 143 "--preserve-status: the command died of SIGTERM"
# (-t 3: the shell's trap must be set before the timeout, even on a
# loaded machine)
run -- "$CORRAL" run -q -t 3 --preserve-status -- sh -c 'trap "exit 3" TERM; echo READY; while :; do sleep 0.05; done'
expect_rc 3 "--preserve-status: the command's own exit after SIGTERM"
# SIGTERM ignored from the start (corral passes an ignored signal on, as
# exec does), not by a shell trap a loaded machine may not have run when
# the 0.2 s timeout fires
run -- env --ignore-signal=TERM "$CORRAL" run -q -t 0.2 -k 0.2 --preserve-status -- sleep 100
expect_rc 137 "--preserve-status: SIGKILLed after the grace"
run -- env --ignore-signal=TERM "$CORRAL" run -q -t 0.2 -k 0.2 -- sleep 100
expect_rc 124 "without --preserve-status a forced kill is still 124"

done_test
