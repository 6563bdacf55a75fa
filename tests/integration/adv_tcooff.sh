#!/usr/bin/env bash
# A member stops output on the terminal it shares with corral
# (tcflow(TCOOFF), as ^S would): every blocking write() to that terminal
# then waits until TCOON (issue 9, attack 5). corral's own messages go
# through a non-blocking description of its own, so its timeout fires and
# it exits on time; so does the journal's own queue (issue 10) when the
# journal is that terminal (-j /dev/stderr). Run on a real pseudo-terminal (a small python driver
# that gives up after 40 s). Witness: the driver sees corral exit with 124
# before its deadline; nothing is left.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture adv_attack

cat >"$T/drive.py" <<'PY'
import os, pty, select, signal, sys, time
deadline = float(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
t0 = time.monotonic()
while True:
    r, st = os.waitpid(pid, os.WNOHANG)
    if r:
        print("EXIT", os.waitstatus_to_exitcode(st))
        break
    if time.monotonic() - t0 > deadline:
        print("HUNG")
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        break
    if select.select([fd], [], [], 0.2)[0]:
        try:
            os.read(fd, 65536)
        except OSError:
            pass
PY

for how in plain journal escape stderr-journal; do
	RUN_LABEL=$how
	opts=()
	case $how in
	journal) opts=(-j "$T/j.$how") ;;
	escape) opts=(-j "$T/j.$how" --escape=log --tree) ;;
	stderr-journal) opts=(-j /dev/stderr) ;; # the journal on the stopped terminal
	esac
	run -- python3 "$T/drive.py" 40 "$CORRAL" run -t 2 -k 1 "${opts[@]}" -- \
		"$FIX/adv_attack" ready tcooff pause
	expect_rc 0 "the driver"
	expect_grep '^EXIT 124$' "$OUTF" "corral ended the tree at its timeout and exited"
	[ "$how" = journal ] || [ "$how" = escape ] && j_valid "$T/j.$how" && j_expect_end "$T/j.$how" survivors 0
done
RUN_LABEL=
done_test
