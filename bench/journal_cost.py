#!/usr/bin/env python3
"""journal_cost.py - the journal's cost on the exec loop, side by side.

    python3 bench/journal_cost.py [--build build] [--rounds 21] [--before CORRAL]

Contenders: the event-only floor, corral without a journal, corral -j, and
(with --before) another corral binary with -j (an older commit's build).
Each round runs every contender once on `forkexec 1000`, the order rotated
each round; prints, per contender, the median wall time, the median of the
per-round ratios to the floor and to corral without a journal (the
journal's own cost), and the tracer's own CPU time (perf stat --no-inherit
-e task-clock: corral itself, not the tree), as a Markdown table
(docs/bench.md, "The journal"). Needs perf (Debian linux-perf).

On a shared machine the spread is wide: a few percent between contenders
needs many rounds (40 or more) before the medians settle.
"""
import argparse
import os
import shlex
import statistics
import subprocess
import tempfile
import time


def one(cmd):
    t = time.monotonic()
    p = subprocess.run(['perf', 'stat', '--no-inherit', '-x,', '-e',
                        'task-clock', '--'] + cmd,
                       capture_output=True, text=True, check=True)
    wall = time.monotonic() - t
    for line in p.stderr.splitlines():
        if 'task-clock' in line:
            return float(line.split(',')[0]), wall
    raise SystemExit('perf stat gave no task-clock: ' + p.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default='build')
    ap.add_argument('--rounds', type=int, default=21)
    ap.add_argument('--before', help='another corral binary, run with -j')
    a = ap.parse_args()
    b = a.build
    fe = [os.path.join(b, 'bench/forkexec'), '1000']
    d = tempfile.mkdtemp(prefix='corral-jcost.')
    cons = [('floor', [os.path.join(b, 'bench/floor')] + fe),
            ('corral', [os.path.join(b, 'corral'), 'run', '-q', '--'] + fe)]
    if a.before:
        cons.append(('corral -j (before)', [a.before, 'run', '-q', '-j',
                                            os.path.join(d, 'b.jsonl'), '--'] + fe))
    cons.append(('corral -j', [os.path.join(b, 'corral'), 'run', '-q', '-j',
                               os.path.join(d, 'a.jsonl'), '--'] + fe))
    for _, c in cons:  # warm-up
        one(c)
    cpu = {n: [] for n, _ in cons}
    wall = {n: [] for n, _ in cons}
    ratio = {n: [] for n, _ in cons}
    vsc = {n: [] for n, _ in cons}
    k = len(cons)
    for r in range(a.rounds):
        got = {n: one(c) for n, c in cons[r % k:] + cons[:r % k]}
        for n in got:
            cpu[n].append(got[n][0])
            wall[n].append(got[n][1])
            ratio[n].append(got[n][1] / got['floor'][1])
            vsc[n].append(got[n][1] / got['corral'][1])
    print('| contender | wall s (median) | spread s | vs floor (per-round median) '
          '| vs corral | tracer CPU ms | spread ms |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
    for n, _ in cons:
        print('| %s | %.3f | %.3f..%.3f | %+.1f%% | %+.1f%% | %.1f | %.1f..%.1f |' % (
            n, statistics.median(wall[n]), min(wall[n]), max(wall[n]),
            100 * (statistics.median(ratio[n]) - 1),
            100 * (statistics.median(vsc[n]) - 1), statistics.median(cpu[n]),
            min(cpu[n]), max(cpu[n])))
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    os.rmdir(d)
    print('commands: ' + '; '.join(n + ': ' + ' '.join(map(shlex.quote, c))
                                   for n, c in cons))


if __name__ == '__main__':
    main()
