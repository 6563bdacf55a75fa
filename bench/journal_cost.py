#!/usr/bin/env python3
"""journal_cost.py - the journal's cost on the exec loop, side by side.

    python3 bench/journal_cost.py [--build build] [--rounds 21] [--iters 1000]
                                  [--cpus LIST] [--before CORRAL]

Contenders: the event-only floor, the journal floor (`floor -j`: the same
loop plus only the kernel calls a journal keeping corral's promises cannot
do without, bench/floor.c), corral without a journal, corral -j, and (with
--before) another corral binary with -j (an older commit's build). Each
round runs every contender once on `forkexec ITERS`, the order rotated each
round; prints, per contender, the median wall time, the median and the
quartiles of the per-round ratios to the floor, the median ratio to the
journal floor and to corral without a journal (the journal's own cost), and
the tracer's own CPU time (perf stat --no-inherit -e task-clock: corral
itself, not the tree), as a Markdown table (docs/bench.md, "The journal").
Needs perf (Debian linux-perf).

--cpus 0 runs everything on one CPU (sched_setaffinity, inherited): the
tracer and the tree then take turns, so the ratios measure the work done,
and the per-round spread shrinks from about +-10 points to +-3 on this
2-core machine (where a wake-up on the other, idle, core costs more than
the work). Without it the spread is wide: a few percent between
contenders needs many rounds (40 or more) before the medians settle.
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
    ap.add_argument('--iters', type=int, default=1000)
    ap.add_argument('--cpus', help='run on these CPUs only (taskset list: 0 or 0,1)')
    ap.add_argument('--before', help='another corral binary, run with -j')
    a = ap.parse_args()
    b = a.build
    if a.cpus:
        cpus = set()
        for part in a.cpus.split(','):
            lo, _, hi = part.partition('-')
            cpus.update(range(int(lo), int(hi or lo) + 1))
        os.sched_setaffinity(0, cpus)  # inherited by every contender
    fe = [os.path.join(b, 'bench/forkexec'), str(a.iters)]
    d = tempfile.mkdtemp(prefix='corral-jcost.')
    cons = [('floor', [os.path.join(b, 'bench/floor')] + fe),
            ('journal floor', [os.path.join(b, 'bench/floor'), '-j',
                               os.path.join(d, 'f.jsonl')] + fe),
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
    vsj = {n: [] for n, _ in cons}
    k = len(cons)
    for r in range(a.rounds):
        got = {n: one(c) for n, c in cons[r % k:] + cons[:r % k]}
        for n in got:
            cpu[n].append(got[n][0])
            wall[n].append(got[n][1])
            ratio[n].append(got[n][1] / got['floor'][1])
            vsc[n].append(got[n][1] / got['corral'][1])
            vsj[n].append(got[n][1] / got['journal floor'][1])
    def pct(v):
        return 100 * (v - 1)

    print('%d rounds, forkexec %d, CPUs %s' % (
        a.rounds, a.iters, ','.join(map(str, sorted(os.sched_getaffinity(0))))))
    print('| contender | wall s (median) | spread s | vs floor (per-round median) '
          '| its quartiles | vs journal floor | vs corral | tracer CPU ms | spread ms |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for n, _ in cons:
        q = statistics.quantiles(ratio[n], n=4) if len(ratio[n]) > 1 else [ratio[n][0]] * 3
        print('| %s | %.3f | %.3f..%.3f | %+.1f%% | %+.1f..%+.1f | %+.1f%% | %+.1f%% '
              '| %.1f | %.1f..%.1f |' % (
                  n, statistics.median(wall[n]), min(wall[n]), max(wall[n]),
                  pct(statistics.median(ratio[n])), pct(q[0]), pct(q[2]),
                  pct(statistics.median(vsj[n])), pct(statistics.median(vsc[n])),
                  statistics.median(cpu[n]), min(cpu[n]), max(cpu[n])))
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    os.rmdir(d)
    print('commands: ' + '; '.join(n + ': ' + ' '.join(map(shlex.quote, c))
                                   for n, c in cons))


if __name__ == '__main__':
    main()
