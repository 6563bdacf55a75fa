#!/usr/bin/env bash
# A member connects to an abstract unix socket bound by a process outside
# the tree (a session bus, an agent's control socket, X11's @/tmp/.X11-unix):
# abstract names have no file permissions, so the only gate is the peer's
# own check. Landlock's ABSTRACT_UNIX_SOCKET scope refuses the connection.
# Witness: the outside listener accepts exactly one connection, the test's
# own goodbye, never the member's.
#
# Below ABI 6 (run against build/tests/corral-testkernel, docs/testing.md)
# the threat model says this door is open: there the test checks that it
# is, so the table in docs/threat-model.md stays true (a change that closes
# it fails here until the table says so). Witness: the listener got the
# member's "hello" before the test's goodbye.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture adv_attack

boundary_probe

name="corral-adv-$MARK"
for mode in off log deny kill; do
	RUN_LABEL="escape $mode"
	exec {L}< <(env -u CORRAL_TEST_MARK python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0" + sys.argv[1]); s.listen(8)
print("READY", flush=True)
while True:
    c, _ = s.accept()
    line = c.makefile().readline().strip()
    print("got", line, flush=True)
    if line == "bye":
        break
' "$name.$mode")
	read -r -t 10 -u "$L" line || { fail "listener: no READY"; continue; }
	j=$T/j.$mode
	run -- "$CORRAL" run -q -j "$j" --escape "$mode" -- "$FIX/adv_attack" abstract "$name.$mode"
	expect_rc 0 "attack run"
	if [ "$HOST_ABI" -ge 6 ]; then
		expect_grep '^abstract: EPERM$' "$OUTF" "connect to an outside abstract socket refused"
		want="got bye"
	else
		expect_grep '^abstract: ok$' "$OUTF" "ABI $HOST_ABI: the connect is open (docs/threat-model.md)"
		want=$'got hello\ngot bye'
	fi
	j_valid "$j" && j_expect_end "$j" survivors 0
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("\0" + sys.argv[1]); s.sendall(b"bye\n")' "$name.$mode"
	got=$(timeout 10 cat <&"$L")
	exec {L}<&-
	expect_eq "$got" "$want" "what the outside listener accepted (the witness)"
done
RUN_LABEL=
done_test
