#!/usr/bin/env bash
# The live view (docs/cli.md "Live view"): `corral ps PID` from another
# process shows the live tree (what each runs, its state), with stacks when
# asked; SIGUSR1 without a journal prints the same to stderr; a member of
# the tree, another user, and a squatter of the socket name get nothing;
# a flood of SIGUSR1 is coalesced; a stderr nobody reads never blocks the
# loop (the run still ends normally).
. "$(dirname "$0")/lib.sh"
need_corral

# wait_err REGEX: poll (bounded) until the run's stderr has a matching line.
wait_err() {
	poll_until 60 grep -Eq -- "$1" "$ERRF" && return 0
	fail "no line matching /$1/ on corral's stderr"
	show_run
	return 1
}

RUN_LABEL="corral ps"
start -- "$CORRAL" run -- sh -c 'sleep 1000 & echo READY; exec sleep 1001' || exit 1
await '^READY'
# the execs of `sleep 1001` and of the child's `sleep 1000` may still be
# under way: poll ps (bounded) until both show
for i in $(seq 1 100); do
	"$CORRAL" ps "$PID" >"$T/ps.out" 2>"$T/ps.err" || break
	grep -q 'sleep 1001' "$T/ps.out" && grep -q 'sleep 1000' "$T/ps.out" && break
	sleep 0.05 # polling a live view for an expected line (bounded)
done
expect_grep "^corral $PID: 2 live processes, running [0-9.]+s$" "$T/ps.out" "ps header"
expect_grep '^[0-9]+ sleep 1001 \[running, [0-9.]+s\]$' "$T/ps.out" "the command, running"
expect_grep '^`- [0-9]+ sleep 1000 \[running, [0-9.]+s\]$' "$T/ps.out" "its child"

RUN_LABEL="corral ps lists the running corrals"
"$CORRAL" ps >"$T/list.out" 2>"$T/list.err"
expect_eq "$?" 0 "corral ps without a PID"
expect_grep "^$PID [^ ]*corral run -- sh -c 'sleep 1000 & echo READY; exec sleep 1001'\$" "$T/list.out" "this corral listed with its argv"

RUN_LABEL="corral ps --stacks"
"$CORRAL" ps --stacks "$PID" >"$T/ps.stacks" 2>"$T/ps.err"
expect_eq "$?" 0 "corral ps --stacks status"
expect_grep '^stack of [0-9]+ \(process [0-9]+\):$' "$T/ps.stacks" "a stack"
expect_grep 'nanosleep' "$T/ps.stacks" "the sleeper's frame"

RUN_LABEL="SIGUSR1 prints to stderr"
kill -USR1 "$PID"
wait_err "^corral $PID: 2 live processes"
expect_grep '^[0-9]+ sleep 1001 \[running' "$ERRF" "SIGUSR1 tree"

RUN_LABEL="a squatter cannot answer in corral's name"
squat=$(python3 -c 'import os; print(os.getpid() + 1000000)' 2>/dev/null || echo 4000000)
python3 - "$squat" <<'PY' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(b"\0corral/live/" + sys.argv[1].encode())
s.listen(1)
c, _ = s.accept()
try:
    c.sendall(b"corral 1: fake\n")
except OSError:
    pass  # the client hung up on us: good
c.close()
PY
sq=$!
for i in $(seq 1 100); do
	grep -q "corral/live/$squat" /proc/net/unix && break
	sleep 0.05 # waiting for the squatter's bind (bounded)
done
"$CORRAL" ps "$squat" >"$T/sq.out" 2>"$T/sq.err"
expect_eq "$?" 1 "corral ps against a squatter"
expect_grep 'belongs to another process' "$T/sq.err" "squatter refused"
[ -s "$T/sq.out" ] && fail "corral ps printed the squatter's answer"
kill "$sq" 2>/dev/null
wait "$sq" 2>/dev/null

if [ "$(id -u)" = 0 ] && as_test_user test -x "$CORRAL"; then
	RUN_LABEL="another user gets nothing"
	as_test_user "$CORRAL" ps "$PID" >"$T/u.out" 2>"$T/u.err"
	expect_eq "$?" 1 "corral ps as another user"
	[ -s "$T/u.out" ] && fail "another user read the live view"
fi

kill -TERM "$PID"
finish
end_run

RUN_LABEL="SIGUSR1 with --stacks snapshot"
start -- "$CORRAL" run -q --stacks snapshot -- sh -c 'echo READY; exec sleep 1000' || exit 1
await '^READY'
# the member is sleep once it exec'd (its comm; cmdline's words are NUL-separated,
# which the grep for 'sleep 100' here never matched: every run waited out its bound)
execed() { [ "$(cat /proc/"$(pgrep -P "$PID" | head -n 1)"/comm 2>/dev/null)" = sleep ]; }
poll_until 60 execed || note "the member's exec of sleep not seen in 60 s"  # its stack is asked anyway
kill -USR1 "$PID"
wait_err '^stack of [0-9]+ \(process [0-9]+\):$'
expect_grep 'nanosleep' "$ERRF" "the stack in the SIGUSR1 print"
kill -TERM "$PID"
finish
end_run

RUN_LABEL="a member cannot ask"
start -- "$CORRAL" run -q -- sh -c '"$0" ps $PPID; echo "member-rc=$?"; echo READY; sleep 1000' "$CORRAL" || exit 1
await '^READY'
expect_grep '^member-rc=1$' "$OUTF" "corral ps from inside the tree"
grep -q 'live process' "$OUTF" && fail "a member read the live view"
kill -TERM "$PID"
finish
end_run

RUN_LABEL="a SIGUSR1 flood is coalesced"
start -- "$CORRAL" run -q -- sh -c 'echo READY; sleep 1000' || exit 1
await '^READY'
for i in $(seq 1 50); do kill -USR1 "$PID"; done
wait_err "^corral $PID: "
# Ask again until a print says how many requests were coalesced.
for i in $(seq 1 100); do
	grep -q 'coalesced' "$ERRF" && break
	kill -USR1 "$PID"
	sleep 0.1 # a request every 0.1 s until the next print (bounded)
done
expect_grep '^\([0-9]+ more request\(s\) coalesced\)$' "$ERRF" "coalesced requests"
prints=$(grep -c "^corral $PID: " "$ERRF")
[ "$prints" -lt 50 ] || fail "$prints prints for a flood of 50 signals"
kill -TERM "$PID"
finish
end_run

RUN_LABEL="a client that does not read does not block corral"
# 400 members whose argv (~1000 bytes each, under the 1024 corral keeps)
# makes the answer (~400 KB) about twice a socket's buffer (212 KB here).
# Bytes, not members, fill the buffer: 1500 members of 200 bytes did the
# same with four times the forks.
M=400
zeros=$(printf ' 0%.0s' $(seq 1 490))
start -- "$CORRAL" run -q -- sh -c "for i in \$(seq $M); do sleep 1000$zeros & done; echo READY; wait" || exit 1
await '^READY' 300 # the forks: over 60 s once beside two CPU hogs and a busy machine (1500 then)
python3 - "$PID" "$T/slow.ready" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(b"\0corral/live/" + sys.argv[1].encode())
s.sendall(b"tree\n")
open(sys.argv[2], "w").close()
time.sleep(600)  # never reads; killed by the test
PY
slow=$!
for i in $(seq 1 200); do
	[ -e "$T/slow.ready" ] && break
	sleep 0.05 # waiting for the slow client to connect (bounded)
done
# Wait until corral has answered as much as the socket takes (bounded).
for i in $(seq 1 200); do
	q=$(ss -x -p 2>/dev/null | awk -v p="pid=$slow," 'index($0, p) { print $3 }' | head -n 1)
	[ -n "$q" ] && [ "$q" -gt 0 ] && break
	sleep 0.05 # polling the socket's queue (bounded)
done
note "the slow client's socket holds ${q:-?} unread bytes"
timeout 30 "$CORRAL" ps "$PID" >"$T/ps2.out" 2>"$T/ps2.err"
expect_eq "$?" 0 "corral ps while another client does not read"
expect_eq "$(grep -cE '^[|`]- [0-9]+ sleep 1000 0 0' "$T/ps2.out")" $M "members in the answer"
[ "$(wc -c <"$T/ps2.out")" -gt 300000 ] || fail "the answer is $(wc -c <"$T/ps2.out") bytes: not past a socket buffer"
mark
kill -TERM "$PID"
finish 60
expect_rc 143 "corral ended while a client does not read"
kill "$slow" 2>/dev/null
wait "$slow" 2>/dev/null
end_run

RUN_LABEL="a stderr nobody reads does not block corral"
# The command fills the stderr pipe (non-blocking writes until EAGAIN),
# then corral is asked to print there; it must go on and end normally.
mkfifo "$T/errpipe"
exec {hold}<>"$T/errpipe" # keeps the pipe open, never read
start -- bash -c 'exec "$@" 2>"$0"' "$T/errpipe" "$CORRAL" run -q -- python3 -c '
import os, sys, time
fd = os.open("/proc/self/fd/2", os.O_WRONLY | os.O_NONBLOCK)
try:
    while True:
        os.write(fd, b"x" * 4096)
except BlockingIOError:
    pass
print("READY", flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.05)
' "$T/go" || exit 1
await '^READY'
kill -USR1 "$PID"
kill -USR1 "$PID"
# corral must still handle events: a new member's exec, then the end.
touch "$T/go"
finish 20
expect_rc 0 "the run ends while stderr is full"
exec {hold}<&-
end_run

done_test
