#!/usr/bin/env bash
# The live socket is answered only for a peer that is not a member
# (docs/threat-model.md "Job control and the live view"). SO_PEERCRED names
# the process that connected, which may exit while another member keeps the
# connected socket: once corral has recorded that exit, the pid is no longer
# in its table. A member must not get an answer that way.
#
# Deterministic order (no timing): the test stops corral; a member M holds a
# child G; G connects to corral's socket and exits (a zombie: M blocks
# SIGCHLD and does not reap it); before it, M itself connected once, so that
# corral's first accept after SIGCONT takes M's connection (refused) and the
# drain that follows records G's exit before corral accepts G's connection.
# M then asks for the tree through the socket G connected.
# --boundary seccomp: with Landlock's scoping the connect is refused anyway.
. "$(dirname "$0")/lib.sh"
need_corral

cat >"$T/m.py" <<'PY'
import os, signal, socket, sys, time
go = open(sys.argv[1], "r")
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
name = "\0corral/live/%d" % os.getppid()
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
r, w = os.pipe()
g = os.fork()
if g == 0:                     # G: connect when told, then exit
    os.close(w)
    os.read(r, 1)
    try:
        s.connect(name)
    except OSError as e:
        print("G-connect-failed %s" % e, flush=True)
    os._exit(0)
os.close(r)
print("READY %d" % g, flush=True)
assert go.readline().strip() == "stopped"   # corral is stopped now
first = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
first.connect(name)            # accepted (and refused) first after SIGCONT
os.write(w, b"x")
while True:                    # G is a zombie: its exit is queued for corral
    with open("/proc/%d/stat" % g) as f:
        if f.read().rsplit(")", 1)[1].split()[0] == "Z":
            break
    time.sleep(0.01)           # polling the kernel's state of G (bounded by the test)
print("CONNECTED", flush=True)
assert go.readline().strip() == "continued"
try:
    s.sendall(b"tree\n")
    s.settimeout(20)
    got = b""
    while True:
        x = s.recv(65536)
        if not x:
            break
        got += x
except OSError as e:
    got = b""
print("ANSWER %d bytes" % len(got), flush=True)
for line in got.decode(errors="replace").splitlines()[:3]:
    print("ANSWER: " + line, flush=True)
os.waitpid(g, 0)
PY

RUN_LABEL="a member keeps the socket of a member that exited"
rm -f "$T/go"
mkfifo "$T/go"
start -- "$CORRAL" run -q --boundary seccomp -- python3 "$T/m.py" "$T/go" || exit 1
exec {GO}<>"$T/go"
if await '^READY '; then
	kill -STOP "$PID"
	# wait (bounded) until corral is really stopped
	for i in $(seq 1 200); do
		[ "$(awk '{print $3}' "/proc/$PID/stat" 2>/dev/null)" = T ] && break
		sleep 0.05 # polling the kernel's state of corral (bounded)
	done
	echo stopped >&"$GO"
	await '^CONNECTED$'
	kill -CONT "$PID"
	echo continued >&"$GO"
	await '^ANSWER [0-9]+ bytes$'
	expect_eq "$MATCH" "ANSWER 0 bytes" "what the member got through the exited member's connection"
fi
kill -CONT "$PID" 2>/dev/null
finish
expect_rc 0 "the member's script"
end_run
exec {GO}>&-
grep -q 'live process' "$OUTF" && { fail "a member read the live view"; show_run; }

done_test
