#!/usr/bin/env python3
"""cli_pty.py - drive an interactive bash on a pseudo-terminal, as a user
at a terminal would (tests/integration/cli_jobcontrol.sh).

    cli_pty.py SCENARIO CORRAL DIR

Each scenario types commands, presses ^Z/^C, and waits for what the
terminal shows (a regex) with a deadline that is only a safety net: no
sleep is used to synchronise. Exit 0 when every expectation was met;
otherwise 1 with the reason and the terminal's last output on stderr.
"""
import os
import pty
import re
import select
import signal
import sys
import time

DEADLINE = float(os.environ.get("PTY_DEADLINE", "20"))  # seconds for one expectation (safety net against hangs)
PROMPT = "PROMPT$ "


class Term:
    def __init__(self, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe("bash", ["bash", "--norc", "--noprofile", "-i"], env)
        self.buf = ""  # output not yet consumed by expect()
        self.log = ""  # everything, for a failure report

    def send(self, text):
        os.write(self.fd, text.encode())

    def ctrl(self, letter):
        os.write(self.fd, bytes([ord(letter.upper()) - 64]))

    def _read(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return
        try:
            data = os.read(self.fd, 65536).decode("utf-8", "replace")
        except OSError:
            raise Failure("the terminal closed")
        self.buf += data
        self.log += data

    def expect(self, regex, what):
        """Consume output up to the first match of regex; return it."""
        until = time.monotonic() + DEADLINE
        pat = re.compile(regex)
        while True:
            m = pat.search(self.buf)
            if m:
                skipped = self.buf[: m.start()]
                self.buf = self.buf[m.end():]
                return m, skipped
            rest = until - time.monotonic()
            if rest <= 0:
                raise Failure("%s: no /%s/ within %ss" % (what, regex, DEADLINE))
            self._read(rest)

    def prompt(self, what):
        return self.expect(re.escape(PROMPT), what)

    def run(self, cmd, what):
        """Type cmd and Enter."""
        self.send(cmd + "\r")

    def close(self):
        try:
            self.send("exit\r")
            end = time.monotonic() + 5
            while time.monotonic() < end:
                pid, _ = os.waitpid(self.pid, os.WNOHANG)
                if pid:
                    return
                self._read(0.1)
        except (OSError, Failure):
            pass  # the terminal closed: bash is exiting
        try:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
            if not pid:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
        except OSError:
            pass


class Failure(Exception):
    pass


def proc_state(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def suspend_fg(t, corral, d):
    """^Z stops the job (bash says Stopped), the tree stays stopped,
    fg resumes it and the command completes with its status."""
    go = os.path.join(d, "go")
    t.run("%s run -- sh -c 'echo STAR''TED; while [ ! -e %s ]; do sleep 0.05; "
          "done; echo DO''NE; exit 7'" % (corral, go), "run")
    t.expect(r"STARTED", "the command started")
    t.ctrl("z")
    t.expect(r"Stopped", "bash reports the job stopped after ^Z")
    t.prompt("prompt after ^Z")
    t.run("jobs -l", "jobs")
    m, _ = t.expect(r"\[1\]\+\s+(\d+) Stopped", "jobs -l shows corral stopped")
    cpid = int(m.group(1))
    if proc_state(cpid) != "T":
        raise Failure("corral %d is not stopped: %s" % (cpid, proc_state(cpid)))
    # The command's members stay stopped: its loop cannot see the file.
    t.prompt("prompt after jobs")
    open(go, "w").close()
    t.run("echo CHECK1", "echo")
    _, skipped = t.expect(r"\nCHECK1", "the shell answers while the job is stopped")
    if "DONE" in skipped:
        raise Failure("the command ran on while its job was stopped")
    t.prompt("prompt")
    t.run("fg", "fg")
    t.expect(r"DONE", "fg resumes the command and it completes")
    t.prompt("prompt after the command")
    t.run("echo rc=$?", "status")
    t.expect(r"rc=7", "the command's status is corral's")
    t.prompt("prompt")


def ctrl_c(t, corral, d):
    """^C ends the tree, corral dies of SIGINT, a loop stops."""
    # STARTED comes once sh has nothing left to fork: ^C in the middle of
    # dash's vfork is a race of dash's own (its vfork child can take the
    # SIGINT meant for the shell), with or without corral.
    t.run("for i in 1 2 3; do %s run -- sh -c 'sleep 100 & echo STAR''TED$0; "
          "exec sleep 100' $i; echo AFT''ER$i; done; echo LOOP''END" % corral,
          "loop")
    t.expect(r"STARTED1", "the first run started")
    t.ctrl("c")
    t.prompt("prompt after ^C")
    t.run("echo rc=$?", "status")
    _, skipped = t.expect(r"rc=130", "status 130 after ^C")
    for word in ("STARTED2", "AFTER1", "LOOPEND"):
        if word in skipped:
            raise Failure("the loop went on after ^C (%s)" % word)
    t.prompt("prompt")


def fg_after_stop_interrupt(t, corral, d):
    """^Z, fg, then ^C: the resumed command is in the foreground."""
    t.run("%s run -- sh -c 'trap \"echo CONTIN\"\"UED\" CONT; echo STAR''TED; "
          "while :; do sleep 0.05; done'" % corral, "run")
    t.expect(r"STARTED", "started")
    t.ctrl("z")
    t.expect(r"Stopped", "stopped")
    t.prompt("prompt")
    t.run("fg", "fg")
    # corral gives the terminal back before it continues the command:
    # once the command says it was continued, ^C must reach it.
    t.expect(r"CONTINUED", "fg continues the command")
    t.ctrl("c")
    t.prompt("prompt after ^C")
    t.run("echo rc=$?", "status")
    t.expect(r"rc=130", "the command died of SIGINT")
    t.prompt("prompt")


def bg_tty_input(t, corral, d):
    """bg: a command reading the terminal from the background stops the
    job again (SIGTTIN); fg gives it the terminal, it reads a line."""
    t.run("%s run -- sh -c 'echo STAR''TED; read x; echo GOT:$x'" % corral, "run")
    t.expect(r"STARTED", "started")
    t.ctrl("z")
    t.expect(r"Stopped", "stopped by ^Z")
    t.prompt("prompt")
    t.run("bg", "bg")
    t.prompt("prompt after bg")
    # The read makes it stop again; poll `jobs` (bounded) until it shows.
    for _ in range(100):
        t.run("jobs", "jobs")
        m, _ = t.expect(r"\[1\]\+\s+(Stopped|Running)", "jobs")
        t.prompt("prompt after jobs")
        if m.group(1) == "Stopped":
            break
        time.sleep(0.05)  # polling interval of a bounded retry, not a sync
    else:
        raise Failure("the backgrounded reader never stopped (SIGTTIN)")
    t.run("fg", "fg")
    t.expect(r"read x; echo GOT:\$x'?\r?\n", "fg")
    t.send("hello\r")
    t.expect(r"GOT:hello", "the command read the terminal after fg")
    t.prompt("prompt")
    t.run("echo rc=$?", "status")
    t.expect(r"rc=0", "status 0")
    t.prompt("prompt")


def started_in_background(t, corral, d):
    """`corral run ... &`: the command reading the terminal stops the job;
    fg hands it the terminal; ^C then reaches it."""
    t.run("%s run -- sh -c 'echo STAR''TED; read x; echo GOT:$x; "
          "exec sleep 100' &" % corral, "run &")
    t.expect(r"STARTED", "started")  # (bash's prompt may come before)
    for _ in range(100):
        t.run("jobs", "jobs")
        m, _ = t.expect(r"\[1\]\+\s+(Stopped|Running)", "jobs")
        t.prompt("prompt after jobs")
        if m.group(1) == "Stopped":
            break
        time.sleep(0.05)  # polling interval of a bounded retry, not a sync
    else:
        raise Failure("the background reader never stopped (SIGTTIN)")
    t.run("fg", "fg")
    t.expect(r"exec sleep 100'?\r?\n", "fg")
    t.send("bg-hello\r")
    t.expect(r"GOT:bg-hello", "the command read the terminal after fg")
    t.ctrl("c")
    t.prompt("prompt after ^C")
    t.run("echo rc=$?", "status")
    t.expect(r"rc=130", "^C ended it")
    t.prompt("prompt")


def newline_before_report(t, corral, d):
    """corral's report starts on a line of its own after a partial line."""
    t.run("%s run -t 0.5 -- sh -c 'printf PART''IAL; sleep 100'" % corral, "run")
    t.expect(r"PARTIAL\r?\ncorral: timeout after 0.5s", "report on its own line")
    t.prompt("prompt")


SCENARIOS = {
    "suspend_fg": suspend_fg,
    "ctrl_c": ctrl_c,
    "fg_after_stop_interrupt": fg_after_stop_interrupt,
    "bg_tty_input": bg_tty_input,
    "started_in_background": started_in_background,
    "newline_before_report": newline_before_report,
}


def main():
    name, corral, d = sys.argv[1:4]
    env = dict(os.environ)
    env.update({"PS1": PROMPT, "TERM": "dumb", "HISTFILE": "/dev/null",
                "PROMPT_COMMAND": ""})
    t = Term(env)
    try:
        t.prompt("the first prompt")
        SCENARIOS[name](t, corral, d)
    except Failure as e:
        sys.stderr.write("FAIL %s: %s\n---- terminal (last 2000 chars)\n%s\n"
                         % (name, e, t.log[-2000:]))
        sys.stderr.write("---- the terminal's session\n")
        sys.stderr.flush()
        os.system("ps -o pid,ppid,pgid,tpgid,stat,wchan:24,args -s %d >&2" % t.pid)
        t.close()
        return 1
    t.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
