#!/usr/bin/env bash
# `corral ps` without PID lists your running corrals from the abstract
# names in /proc/net/unix. Any process may bind such a name for another pid
# of yours (a squatter); `corral ps PID` already refuses to talk to it (the
# listener must be PID). The list must not show that pid as a corral either
# (before: it listed it, with its argv, as a running corral). A real corral
# is still listed.
. "$(dirname "$0")/lib.sh"
need_corral
command -v python3 >/dev/null || skip_test "python3 not installed"

RUN_LABEL="a squatted live socket name"
start -- "$CORRAL" run -q -- sh -c 'echo READY; exec sleep 1000' || exit 1
if await '^READY$'; then
	# the squatter: takes the name for another process of ours (its
	# child, a sleep), says which, waits for SIGTERM (then ends the sleep)
	exec {SQ}< <(exec python3 -c '
import os, signal, socket, subprocess, sys
v = subprocess.Popen(["sleep", "1000"])
def bye(*a):
    v.kill()
    v.wait()
    sys.exit(0)
signal.signal(signal.SIGTERM, bye)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0corral/live/%d" % v.pid)
s.listen(1)
print(os.getpid(), v.pid, flush=True)
while True:
    signal.pause()
')
	read -r -t 20 -u "$SQ" SQPID VPID || fail "the squatter did not start"
	"$CORRAL" ps >"$T/list.out" 2>"$T/list.err"
	grep -q "^$PID " "$T/list.out" || fail "the real corral $PID is not listed"
	[ -n "$VPID" ] && grep -q "^$VPID " "$T/list.out" &&
		fail "the process $VPID whose name was squatted is listed as a corral"
	[ -n "$SQPID" ] && kill "$SQPID"
	exec {SQ}<&-
fi
kill -TERM "$PID"
finish
end_run
[ "$FAILS" = 0 ] || cat "$T/list.out" >&2

done_test
