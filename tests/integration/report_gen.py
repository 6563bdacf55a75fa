#!/usr/bin/env python3
"""report_gen.py EVENTS [SEED] - a synthetic, schema-valid corral journal on stdout.

Used by the report tests and by the report benchmark (docs/bench.md): a
fork/exec storm of processes under a shell, some with threads, signals,
group stops, stacks and escapes, a few left behind and killed, argv with
bytes that are not UTF-8 (written as \\udcXX like corral does), then the
ending and the end line. Times increase monotonically. The number of
lines written is about EVENTS (at least 50).
"""
import json
import random
import sys


def main():
    total = max(50, int(sys.argv[1]))
    rnd = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    out = sys.stdout
    t = 0.0
    lines = 0

    def emit(ev):
        nonlocal t, lines
        t += rnd.random() * 0.0002
        # corral writes "event" then "t" first
        ev = dict([("event", ev["event"]), ("t", round(t, 6))] + list(ev.items())[1:])
        # json.dumps keeps lone surrogates as \udcXX escapes (ensure_ascii)
        out.write(json.dumps(ev, separators=(",", ":"), ensure_ascii=True) + "\n")
        lines += 1

    root = 1000
    emit({"event": "start", "schema": 1, "version": "0.1.0", "pid": 999,
          "argv": ["corral", "run", "-j", "j.jsonl", "--", "sh", "-c", "storm"],
          "command": ["sh", "-c", "storm"]})
    emit({"event": "exec", "pid": root, "tgid": root, "path": "/usr/bin/dash",
          "argv": ["sh", "-c", "storm"]})
    live = [root]
    nextpid = root + 1
    reserve = 12  # ending + left + exits + end
    procs = 1
    execs = 1
    threads = 0
    while lines < total - reserve - len(live) - 45:
        r = rnd.random()
        # a storm that stays around a few hundred live processes
        if (r < 0.5 and len(live) < 400) or len(live) < 3:
            parent = rnd.choice(live)
            pid = nextpid
            nextpid += 1
            emit({"event": "fork", "pid": pid, "tgid": pid, "ppid": parent})
            procs += 1
            live.append(pid)
            if rnd.random() < 0.9:
                name = rnd.choice(["cc", "ld", "make", "sh", "sed", "as"])
                arg = "file%d.c" % pid
                if rnd.random() < 0.02:
                    arg = "bad\udcff\udcc3name"  # bytes 0xff 0xc3
                emit({"event": "exec", "pid": pid, "tgid": pid,
                      "path": "/usr/bin/" + name, "argv": [name, "-O2", arg]})
                execs += 1
        elif r < 0.55:
            p = rnd.choice(live)
            tid = nextpid
            nextpid += 1
            threads += 1
            emit({"event": "thread", "pid": tid, "tgid": p, "ppid": p})
            emit({"event": "exit", "pid": tid, "tgid": p, "status": 0})
        elif r < 0.57:
            p = rnd.choice(live)
            emit({"event": "signal", "pid": p, "tgid": p, "signal": "SIGCHLD", "signo": 17})
        elif r < 0.575:
            p = rnd.choice(live)
            emit({"event": "stop", "pid": p, "tgid": p, "signal": "SIGSTOP", "signo": 19})
            emit({"event": "cont", "pid": p, "tgid": p})
        else:
            if len(live) < 2:
                continue
            i = rnd.randrange(1, len(live))
            p = live[i]
            live[i] = live[-1]
            live.pop()
            ev = {"event": "exit", "pid": p, "tgid": p, "status": rnd.choice([0, 0, 0, 1])}
            if rnd.random() < 0.01:
                ev = {"event": "exit", "pid": p, "tgid": p, "signal": "SIGSEGV", "signo": 11, "core": False}
            emit(ev)
    # the command exits; what is left is ended
    live.remove(root)
    for p in live[20:]:
        emit({"event": "exit", "pid": p, "tgid": p, "status": 0})
    live = live[:20]
    emit({"event": "exit", "pid": root, "tgid": root, "status": 0})
    for p in live:
        emit({"event": "left", "pid": p, "tgid": p, "ppid": root, "path": "/usr/bin/sleep",
              "argv": ["sleep", "1000"]})
    emit({"event": "ending", "reason": "exited"})
    for p in live[:3]:
        emit({"event": "stack", "pid": p, "tgid": p, "why": "exit-left",
              "frames": [{"ip": "0x7f00001000", "func": "clock_nanosleep", "off": 20, "module": "/usr/lib/libc.so.6"},
                         {"ip": "0x55000100", "func": "main", "off": 8, "module": "/usr/bin/sleep"}]})
    for p in live:
        emit({"event": "exit", "pid": p, "tgid": p, "signal": "SIGTERM", "signo": 15, "core": False})
    emit({"event": "end", "exit_code": 0, "reason": "exited", "status": 0, "processes": procs,
          "threads": threads, "execs": execs, "left": len(live), "killed": 0, "survivors": 0,
          "phases": {"grace": 0.001, "stop": 0, "kill": 0}, "duration": round(t + 0.001, 6),
          "stacks": min(3, len(live))})


if __name__ == "__main__":
    main()
