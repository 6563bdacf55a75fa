#!/usr/bin/env bash
# --pty: the command runs on a new pseudo-terminal.
#  1. It sees a terminal on stdin and stdout; a line written to corral's
#     stdin (a pipe here) reaches it and it echoes it back; exit 0.
#  2. --timeout ends a tree on a pty (a shell and two sleepers): exit 124,
#     nothing left behind.
#  3. Window size: corral itself runs on a pty (a /usr/bin/python3 pty
#     harness, corral's controlling terminal) of 37x101; the command's
#     `stty size` says 37 101; after the outer terminal is resized to 41x117
#     (the kernel sends SIGWINCH to corral), the command sees 41 117.
. "$(dirname "$0")/lib.sh"
need_corral
PY=/usr/bin/python3

# ------------------------------------------------ 1. a terminal, input relayed
RUN_LABEL="terminal and input"
j=$T/j.tty
mkfifo "$T/in"
start -i "$T/in" -- "$CORRAL" run -q -j "$j" --pty -- sh -c '
	if [ -t 0 ] && [ -t 1 ]; then echo "TTY yes"; else echo "TTY no"; fi
	echo READY
	read -r line
	echo "got:$line:"'
exec {IN}>"$T/in"
if await '^TTY '; then
	[[ $MATCH == "TTY yes"* ]] || fail "the command does not see a terminal: $MATCH"
fi
if await '^READY'; then
	echo "hello fxt" >&"$IN"
	await '^got:hello fxt:'
fi
exec {IN}>&-
finish 20
expect_rc 0 "--pty sh"
j_valid "$j" && j_expect_end "$j" survivors 0
end_run

# ------------------------------------------------ 2. --timeout on a pty
RUN_LABEL="timeout"
j=$T/j.timeout
start -- "$CORRAL" run -q -j "$j" --pty -t 2 -k 1 -- sh -c 'sleep 60 & sleep 60 & echo READY; wait'
await '^READY' 2
finish 20
expect_rc 124 "--pty -t 2"
expect_within 8 "--pty -t 2 -k 1"
if j_valid "$j"; then
	j_expect_end "$j" reason timeout
	j_expect_end "$j" survivors 0
	j_expect_end "$j" processes 3
fi
end_run

# ------------------------------------------------ 3. window size
RUN_LABEL="window size"
if [ ! -x "$PY" ]; then
	skip_part "no $PY: window size not checked"
else
	cat >"$T/ptyrun.py" <<'PY'
# ptyrun.py CORRAL JOURNAL: corral --pty on a pty of our own, sizes checked.
import fcntl, os, select, signal, struct, subprocess, sys, termios, time

corral, journal = sys.argv[1], sys.argv[2]

def setsize(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

master, slave = os.openpty()
setsize(slave, 37, 101)

def ctty():
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)

script = 'echo "SIZE1 $(stty size)"; echo READY; read -r l; echo "SIZE2 $(stty size)"; echo END'
p = subprocess.Popen([corral, "run", "-q", "-j", journal, "--pty", "--", "sh", "-c", script],
                     stdin=slave, stdout=slave, stderr=slave,
                     start_new_session=True, preexec_fn=ctty)
os.close(slave)
buf = b""
def until(word, secs=20):
    global buf
    end = time.monotonic() + secs
    while word not in buf:
        left = end - time.monotonic()
        if left <= 0:
            return False
        r, _, _ = select.select([master], [], [], left)
        if r:
            try:
                data = os.read(master, 4096)
            except OSError:
                return False
            if not data:
                return False
            buf += data
    return True

ok = until(b"READY")
if ok:
    setsize(master, 41, 117)   # the kernel sends SIGWINCH to corral's group
    os.write(master, b"go\r")
    ok = until(b"END")
if not ok:
    p.kill()
rc = p.wait(timeout=30)
for line in buf.decode(errors="replace").replace("\r", "").split("\n"):
    if line.startswith("SIZE") or line.startswith("END"):
        print(line)
print("RC %d" % rc)
sys.stdout.flush()
PY
	j=$T/j.winsize
	run -- "$PY" "$T/ptyrun.py" "$CORRAL" "$j"
	expect_rc 0 "pty harness"
	expect_grep '^SIZE1 37 101$' "$OUTF" "initial window size seen by the command"
	expect_grep '^SIZE2 41 117$' "$OUTF" "window size after a resize"
	expect_grep '^RC 0$' "$OUTF" "corral's exit status on a pty"
	j_valid "$j" && j_expect_end "$j" survivors 0
fi

done_test
