#!/usr/bin/env bash
# sandbox_policy.sh - the sandbox's policy holds under corral (bwrap seized
# and traced, not bare bwrap): from inside, with /usr/bin/python3 (not the
# python3 of PATH, which may be a shim that spawns processes):
#   - a TCP connect and a UDP socket fail (EAFNOSUPPORT); with --share-net
#     they are allowed;
#   - AF_UNIX works (socketpair and a named socket in the workspace);
#   - writes outside the workspace fail or stay in the sandbox (/usr, /etc,
#     / fail; a host path outside the workspace never reaches the host);
#     the workspace is writable and the write is seen outside;
#   - ptrace fails (EPERM);
#   - /proc shows only the sandbox's processes (bwrap's PID 1 and the
#     command).
# After each run the witness shows that nothing survived.
. "$(dirname "$0")/lib.sh"
need_corral

PY=/usr/bin/python3
[ -x "$PY" ] || skip_test "$PY is missing"
if ! "$CORRAL" probe >"$T/probe" 2>&1; then
	skip_test "the sandbox is not usable here: $(tr '\n' ' ' <"$T/probe")"
fi

WS=$T/ws
OUTSIDE=$T/outside # a host directory, not in the workspace
mkdir -p "$WS" "$OUTSIDE"
chmod 777 "$WS" "$OUTSIDE" # (as root the sandbox's root maps to root anyway)

# One python program, one "name: result" line per check; result is "ok" or
# the errno name of the failure.
cat >"$WS/checks.py" <<'EOF'
import ctypes, errno, os, socket, sys

ws, outside, me = sys.argv[1], sys.argv[2], os.getpid()

def res(name, f):
    try:
        f()
        r = "ok"
    except OSError as e:
        r = errno.errorcode.get(e.errno, str(e.errno))
    print(f"{name}: {r}", flush=True)

def tcp():
    # a listener and a connect on the sandbox's loopback: without the
    # network the first socket() already fails
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0)); srv.listen(1)
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.settimeout(5)
    c.connect(srv.getsockname())
    for x in (c, srv): x.close()

def tcp6():
    socket.socket(socket.AF_INET6, socket.SOCK_STREAM).close()

def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"x", ("127.0.0.1", 9))
    s.close()

def unix_pair():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    a.sendall(b"ping")
    assert b.recv(4) == b"ping"
    a.close(); b.close()

def unix_named():
    path = os.path.join(ws, "sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path); srv.listen(1)
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect(path)
    a, _ = srv.accept()
    c.sendall(b"pong")
    assert a.recv(4) == b"pong"
    for s in (a, c, srv): s.close()
    os.unlink(path)

def write(path):
    def f():
        with open(path, "w") as fh:
            fh.write("written from the sandbox\n")
    return f

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]

def ptrace(req, pid):
    def f():
        if libc.ptrace(req, pid, None, None) == -1:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
    return f

res("tcp_connect", tcp)
res("tcp6_socket", tcp6)
res("udp_socket", udp)
res("unix_socketpair", unix_pair)
res("unix_named", unix_named)
res("write_usr", write("/usr/corral-sandbox-test"))
res("write_etc", write("/etc/corral-sandbox-test"))
res("write_root", write("/corral-sandbox-test"))
res("write_outside", write(os.path.join(outside, "escaped")))
res("write_workspace", write(os.path.join(ws, "inside")))
res("ptrace_traceme", ptrace(0, 0))        # PTRACE_TRACEME
res("ptrace_attach_pid1", ptrace(16, 1))   # PTRACE_ATTACH
pids = sorted(int(d) for d in os.listdir("/proc") if d.isdigit())
print("proc_pids: " + " ".join(map(str, pids)), flush=True)
print(f"my_pid: {me}", flush=True)
print("sandbox_env: " + os.environ.get("CORRAL_SANDBOX", "unset"), flush=True)
EOF
chmod 644 "$WS/checks.py"
CHECKS=("$PY" "$WS/checks.py" "$WS" "$OUTSIDE")

# expect_line NAME WANT: the line "NAME: WANT" is in the last run's output
expect_line() {
	local got
	got=$(sed -n "s/^$1: //p" "$OUTF" | head -n 1)
	expect_eq "${got:-<no line>}" "$2" "$1"
}

# --- the default profile: no network --------------------------------------
RUN_LABEL=default
j=$T/j.default
run -- "$CORRAL" run -q -j "$j" --sandbox --workspace "$WS" -- "${CHECKS[@]}"
expect_rc 0 "the checks under corral --sandbox"
expect_line tcp_connect EAFNOSUPPORT
expect_line tcp6_socket EAFNOSUPPORT
expect_line udp_socket EAFNOSUPPORT
expect_line unix_socketpair ok
expect_line unix_named ok
expect_line write_usr EROFS
expect_line write_etc EROFS
expect_line write_root EROFS
expect_line ptrace_traceme EPERM
expect_line ptrace_attach_pid1 EPERM
expect_line write_workspace ok
expect_line sandbox_env 1
# the sandbox's /tmp is its own tmpfs: a host directory under /tmp outside
# the workspace is not there
expect_line write_outside ENOENT
[ -e "$OUTSIDE/escaped" ] && fail "a write outside the workspace reached the host: $OUTSIDE/escaped"
[ -s "$WS/inside" ] || fail "the write to the workspace is not seen outside ($WS/inside)"
# /proc: bwrap's PID 1 and the command (PID 2), nothing else
mypid=$(sed -n 's/^my_pid: //p' "$OUTF")
expect_line proc_pids "1 $mypid"
expect_eq "$mypid" 2 "the command's pid inside the sandbox"
if j_valid "$j"; then
	j_expect_end "$j" exit_code 0
	j_expect_end "$j" survivors 0
	j_expect "$j" '.event == "exec" and (.setup | not) and .argv[0] == "'"$PY"'"' 1 "the command's exec (no setup)"
fi
rm -f "$WS/inside"

# --- --share-net: the network calls are allowed ----------------------------
RUN_LABEL=share-net
j=$T/j.net
run -- "$CORRAL" run -q -j "$j" --sandbox --share-net --workspace "$WS" -- "${CHECKS[@]}"
expect_rc 0 "the checks under corral --sandbox --share-net"
expect_line tcp6_socket ok
expect_line udp_socket ok
expect_line tcp_connect ok
expect_line ptrace_traceme EPERM
expect_line write_usr EROFS
rm -f "$WS/inside"

# --- the policy holds in a child of a child too (inherited filter) ---------
RUN_LABEL=grandchild
# ("; true": no shell execs its last command in place)
run -- "$CORRAL" run -q --sandbox --workspace "$WS" -- /bin/sh -c "/bin/sh -c '${CHECKS[*]}; true'; true"
expect_rc 0 "the checks in a grandchild"
expect_line tcp_connect EAFNOSUPPORT
expect_line udp_socket EAFNOSUPPORT
# its parent is a member (sh): corral emulates PTRACE_TRACEME, as the
# kernel would allow it (the policy leaves ptrace to corral: eptrace.c);
# above, the parent is bubblewrap's PID 1, not a member: EPERM
expect_line ptrace_traceme ok
expect_line write_etc EROFS
[ -e "$OUTSIDE/escaped" ] && fail "a write outside the workspace reached the host: $OUTSIDE/escaped"
n=$(sed -n 's/^proc_pids: //p' "$OUTF" | wc -w)
expect_eq "$n" 4 "processes in /proc (PID 1, sh, sh, python)"

done_test
