#!/usr/bin/python3
"""bench.py - the driver behind `make bench` and `make bench-quick`.

Every figure is taken side by side in this one invocation: for each
workload, each round runs every contender once, in an order rotated from
round to round, so slow drifts of a shared machine hit all contenders
alike. Reported: the median, the spread (min..max) and, for overhead, the
median of the per-round ratios to the untraced run of the same round.
Absolute times are context only; nothing here passes or fails.

The timing itself is done by build/bench/runner (C, CLOCK_MONOTONIC);
this script only chooses what to run, in which order, and does the
statistics, the table and the chart. Python standard library only.

Method and figures: docs/bench.md.
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

QUICK = dict(rounds=3, exec_n=1000, build_files=24, threads=5000,
             tree_sizes=[100, 1000, 10000], tree_rounds={10000: 2},
             storm_tree=1000, big_threads=100000, scale_rounds=1,
             storm_ms=1000, storm_rounds=2,
             slack_sizes=[1000, 5000], slack_rounds=1,
             argv_execs=[300], argv_rounds=1)
FULL = dict(rounds=7, exec_n=1000, build_files=40, threads=20000,
            tree_sizes=[100, 1000, 10000], tree_rounds={10000: 5},
            storm_tree=1000, big_threads=100000, scale_rounds=3,
            storm_ms=3000, storm_rounds=5,
            slack_sizes=[1000, 5000, 10000, 20000], slack_rounds=2,
            argv_execs=[100, 1000, 10000], argv_rounds=3)

SLACK_GRACE = 0.5       # -k of the slack runs (issue 16's -k 0.5)
SLACK_CONT_MS = 100     # the member's own SIGCONT period

STORM_WORKERS = 4       # fork-storm workers, in the storm tree and `storm`
TREE_FANOUT = 2         # binary trees (bench/tree.c)
FUNCS = 12              # functions per generated C file: ~0.1 s of cc1


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Bench:
    def __init__(self, args):
        self.args = args
        self.cfg = QUICK if args.quick else FULL
        if args.rounds:
            self.cfg = dict(self.cfg, rounds=args.rounds)
        self.build = os.path.abspath(os.path.join(ROOT, args.build))
        self.bin = os.path.join(self.build, 'bench')
        self.out = os.path.abspath(args.out or os.path.join(self.bin, 'out'))
        os.makedirs(self.out, exist_ok=True)
        self.journal = os.path.join(self.out, 'journal.jsonl')
        self.results = {'overhead': {}, 'ending': {}, 'scale': {}, 'slack': {},
                        'argv': {},
                        'skipped': [], 'failures': 0}
        self.find_contenders()

    # -- contenders ---------------------------------------------------------

    def find_contenders(self):
        """Which contenders exist here; the missing ones are skipped, and
        said so, never failed."""
        skipped = self.results['skipped']
        corral = os.path.join(self.build, 'corral')
        self.corral = None
        try:
            r = subprocess.run([corral, '--version'], capture_output=True,
                               timeout=10)
            if r.returncode == 0:
                self.corral = corral
                self.corral_version = r.stdout.decode().strip()
        except (OSError, subprocess.TimeoutExpired):
            pass
        if not self.corral:
            skipped.append('corral: %s does not run (not built yet?)' % corral)

        self.sandbox = False
        if self.corral:
            try:
                r = subprocess.run([self.corral, 'probe', '--json'],
                                   capture_output=True, timeout=60)
                probe = json.loads(r.stdout.decode() or '{}')
                self.sandbox = r.returncode == 0 and bool(
                    probe.get('sandbox_ok'))
                why = probe.get('reason') or 'exit %d' % r.returncode
            except (OSError, ValueError, subprocess.TimeoutExpired) as e:
                why = str(e)
            if not self.sandbox:
                skipped.append('corral --sandbox: `corral probe` says no (%s)'
                               % why)

        self.strace = shutil.which('strace')
        if not self.strace:
            skipped.append('strace: not installed (Debian package strace)')
        self.cgroup_ok = self.check_cgroup()

    def check_cgroup(self):
        r = self.runner(['-e', 'cgroup'], [self.prog('tree'), '-n', '1'])
        if r is None or not r.get('ok'):
            self.results['skipped'].append(
                'cgroup.kill: cannot create a cgroup v2 child here')
            return False
        return True

    def prog(self, name):
        return os.path.join(self.bin, name)

    def overhead_contenders(self, sandbox_ok):
        """(name, command prefix) pairs for the overhead workloads."""
        c = [('untraced', [])]
        c.append(('floor', [self.prog('floor')]))
        if self.corral:
            c.append(('corral', [self.corral, 'run', '-q', '--']))
            c.append(('corral -j', [self.corral, 'run', '-q', '-j',
                                    self.journal, '--']))
            if self.sandbox and sandbox_ok:
                # The workspace (default: cwd) is writable in the sandbox;
                # bench programs are outside it, so bind them read-only.
                # As root the sandbox runs as the workspace's owner and
                # refuses a root-owned workspace (docs/sandbox.md): give it
                # one owned by nobody, the user it would pick anyway. It
                # must not lie under the read-only bind of the programs.
                ws = []
                if os.geteuid() == 0:
                    ws = ['--workspace', self.sandbox_workspace()]
                c.append(('corral --sandbox',
                          [self.corral, 'run', '-q', '--sandbox',
                           '--ro-bind', self.bin] + ws + ['--']))
        if self.strace:
            c.append(('strace', [self.strace, '-f', '-qq', '-e', 'trace=none',
                                 '-o', '/dev/null']))
            c.append(('strace seccomp', [self.strace, '-f', '--seccomp-bpf',
                                         '-e', 'trace=execve',
                                         '-o', '/dev/null']))
        return c

    # -- running one trial --------------------------------------------------

    def runner(self, ropts, cmd, cwd=None):
        """One trial through build/bench/runner; its JSON line, or None."""
        if os.path.exists(self.journal):
            os.unlink(self.journal)
        argv = [self.prog('runner')] + ropts + ['--'] + cmd
        try:
            r = subprocess.run(argv, capture_output=True, cwd=cwd,
                               timeout=400)
        except subprocess.TimeoutExpired:
            log('  runner timed out: %s' % ' '.join(argv))
            return None
        except OSError as e:
            # EAGAIN from fork: the machine is out of pids (a shared
            # machine running someone's fork bomb). Count it, let it
            # breathe, go on.
            log('  cannot run a trial: %s' % e)
            time.sleep(2)
            return None
        try:
            res = json.loads(r.stdout.decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            log('  runner failed: %s\n%s' % (' '.join(argv),
                                             r.stderr.decode()[-500:]))
            return None
        if not res.get('ok') or res.get('left'):
            log('  trial not clean (ok=%s left=%s): %s\n%s'
                % (res.get('ok'), res.get('left'), ' '.join(cmd),
                   r.stderr.decode()[-300:]))
        return res

    def journal_end(self):
        """The `end` line of the last corral journal, or None."""
        end = None
        try:
            with open(self.journal, 'rb') as f:
                for line in f:
                    if b'"event":"end"' in line:
                        end = json.loads(line)
        except (OSError, ValueError):
            pass
        return end

    def rotate(self, items, r):
        k = r % len(items)
        return items[k:] + items[:k]

    # -- 1. overhead --------------------------------------------------------

    def give_to_nobody(self, d):
        """As root, hand a workspace to nobody (see overhead_contenders)."""
        if os.geteuid() != 0:
            return
        import pwd
        pw = pwd.getpwnam('nobody')
        for top, dirs, files in os.walk(d):
            for n in [top] + [os.path.join(top, x) for x in dirs + files]:
                os.chown(n, pw.pw_uid, pw.pw_gid)

    def sandbox_workspace(self):
        if not getattr(self, 'sbwork', None):
            import tempfile
            import atexit
            self.sbwork = tempfile.mkdtemp(prefix='corral-bench-ws-')
            atexit.register(shutil.rmtree, self.sbwork, True)
            self.give_to_nobody(self.sbwork)
        return self.sbwork

    def make_build_tree(self):
        """A few dozen small C files and a Makefile: the parallel build.
        Each file has enough code that cc1 really works (tens of ms)."""
        d = os.path.join(self.out, 'buildwork')
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        n = self.cfg['build_files']
        for i in range(n):
            funcs = []
            for k in range(FUNCS):
                funcs.append('''
static unsigned long f%(k)d(unsigned long x)
{
	unsigned long a[32];
	for (int i = 0; i < 32; i++)
		a[i] = x * %(m)d + i;
	for (int r = 0; r < 8; r++)
		for (int i = 1; i < 32; i++)
			a[i] ^= (a[i - 1] >> 3) + (unsigned long)r * %(k)d;
	return a[31];
}''' % {'k': k, 'm': i * 7 + k + 1})
            body = ' + '.join('f%d(x)' % k for k in range(FUNCS))
            with open(os.path.join(d, 'm%02d.c' % i), 'w') as f:
                f.write('#include <stdio.h>\n%s\n\nunsigned long m%02d(unsigned long x)\n'
                        '{\n\treturn %s;\n}\n' % (''.join(funcs), i, body))
        with open(os.path.join(d, 'main.c'), 'w') as f:
            decls = ''.join('unsigned long m%02d(unsigned long);\n' % i
                            for i in range(n))
            calls = ' + '.join('m%02d(1)' % i for i in range(n))
            f.write('#include <stdio.h>\n%sint main(void)\n{\n'
                    '\tprintf("%%lu\\n", %s);\n\treturn 0;\n}\n'
                    % (decls, calls))
        with open(os.path.join(d, 'Makefile'), 'w') as f:
            f.write('OBJS := $(patsubst %.c,%.o,$(wildcard *.c))\n'
                    'prog: $(OBJS)\n\tcc -o $@ $^\n'
                    '%.o: %.c\n\tcc -O2 -c -o $@ $<\n')
        self.give_to_nobody(d)
        return d

    def overhead(self):
        cfg = self.cfg
        build_dir = self.make_build_tree()
        make = shutil.which('make') or 'make'
        workloads = [
            ('exec loop', '%d x fork+exec /bin/true' % cfg['exec_n'],
             [self.prog('forkexec'), str(cfg['exec_n'])], None, True),
            ('build', 'make -j2, %d C files' % (cfg['build_files'] + 1),
             [make, '-s', '-B', '-j2', '-C', build_dir], build_dir, True),
            ('threads', '%d threads, 200 at a time' % cfg['threads'],
             [self.prog('threads'), '-t', str(cfg['threads']), '-w', '200'],
             None, True),
        ]
        for name, desc, cmd, workspace, sandbox_ok in workloads:
            contenders = self.overhead_contenders(sandbox_ok)
            log('overhead: %s (%s), %d rounds x %d contenders'
                % (name, desc, cfg['rounds'], len(contenders)))
            # Warm-up, not counted: page cache, first compile of headers.
            self.runner([], cmd)
            walls = {c: [] for c, _ in contenders}
            ratios = {c: [] for c, _ in contenders}
            vs_floor = {c: [] for c, _ in contenders}
            for r in range(cfg['rounds']):
                this_round = {}
                for cname, prefix in self.rotate(contenders, r):
                    pre = list(prefix)
                    if cname == 'corral --sandbox' and workspace:
                        # Other contenders (root) left objects behind that
                        # the sandbox's user could not overwrite.
                        self.give_to_nobody(workspace)
                        # The build needs no bench program, and a read-only
                        # bind of build/bench would cover its workspace.
                        pre = pre[:pre.index('--ro-bind')] + [
                            '--workspace', workspace, '--']
                    res = self.runner([], pre + cmd, cwd=workspace)
                    if res and res['ok'] and res['status'] == 0:
                        this_round[cname] = res['wall']
                        walls[cname].append(res['wall'])
                    else:
                        self.results['failures'] += 1
                # Ratios within a round: the machine's drift cancels.
                base = this_round.get('untraced')
                floor = this_round.get('floor')
                for cname, w in this_round.items():
                    if base:
                        ratios[cname].append(w / base)
                    if floor:
                        vs_floor[cname].append(w / floor)
            self.results['overhead'][name] = {
                'desc': desc,
                'contenders': {c: {'wall': walls[c], 'ratio': ratios[c],
                                   'vs_floor': vs_floor[c]}
                               for c, _ in contenders}}

    # -- 2. ending a tree ---------------------------------------------------

    def ending(self):
        cfg = self.cfg
        cases = [(n, 0) for n in cfg['tree_sizes']]
        cases.append((cfg['storm_tree'], STORM_WORKERS))
        for n, storm in cases:
            tree = [self.prog('tree'), '-n', str(n), '-f', str(TREE_FANOUT)]
            if storm:
                tree += ['-s', str(storm)]
            label = '%d' % n + (' + storm' if storm else '')
            contenders = []
            if self.corral:
                contenders.append(('corral', ['-e', 'term', '-m'],
                                   [self.corral, 'run', '-q', '-k', '0',
                                    '--stacks', 'never',
                                    '-j', self.journal, '--']))
            contenders.append(('/proc walk', ['-e', 'walk'], []))
            if self.cgroup_ok:
                contenders.append(('cgroup.kill', ['-e', 'cgroup'], []))
            rounds = cfg['tree_rounds'].get(n, cfg['rounds'])
            log('ending: tree of %s, %d rounds x %d contenders'
                % (label, rounds, len(contenders)))
            data = {c: {'end': [], 'stop': [], 'external': [], 'hwm_kb': [],
                        'killed': []} for c, _, _ in contenders}
            for r in range(rounds):
                for cname, ropts, prefix in self.rotate(contenders, r):
                    res = self.runner(ropts, prefix + tree)
                    if not res or not res['ok'] or res['left']:
                        self.results['failures'] += 1
                        continue
                    d = data[cname]
                    if cname == 'corral':
                        end = self.journal_end()
                        if not end:
                            self.results['failures'] += 1
                            continue
                        ph = end.get('phases', {})
                        d['end'].append(ph.get('stop', 0) + ph.get('kill', 0))
                        d['stop'].append(ph.get('stop', 0))
                        d['external'].append(res['end'])
                        d['hwm_kb'].append(res['hwm_kb'])
                        d['killed'].append(end.get('killed', 0))
                    else:
                        d['end'].append(res['end'])
                        d['stop'].append(res['stop'])
            self.results['ending'][label] = {'n': n, 'storm': storm,
                                             'contenders': data}

    # -- 3. scale -----------------------------------------------------------

    def scale(self):
        cfg = self.cfg
        sc = self.results['scale']
        if self.corral:
            t = cfg['big_threads']
            log('scale: corral memory, %d threads over a run (%d runs)'
                % (t, cfg['scale_rounds']))
            hwm = []
            for _ in range(cfg['scale_rounds']):
                res = self.runner(
                    ['-e', 'term', '-m'],
                    [self.corral, 'run', '-q', '-k', '0', '--stacks', 'never',
                     '--',
                     self.prog('threads'), '-t', str(t), '-w', '500', '-r'])
                if res and res['ok'] and res['hwm_kb'] > 0:
                    hwm.append(res['hwm_kb'])
                else:
                    self.results['failures'] += 1
            sc['threads'] = {'n': t, 'hwm_kb': hwm}

        contenders = [c for c in self.overhead_contenders(False)
                      if c[0] != 'strace seccomp']
        ms = cfg['storm_ms']
        log('scale: fork storm, %d workers for %d ms, %d rounds x %d contenders'
            % (STORM_WORKERS, ms, cfg['storm_rounds'], len(contenders)))
        rates = {c: [] for c, _ in contenders}
        events = []
        for r in range(cfg['storm_rounds']):
            for cname, prefix in self.rotate(contenders, r):
                res = self.runner([], prefix + [
                    self.prog('storm'), '-w', str(STORM_WORKERS), '-d', str(ms)])
                try:
                    rate = float(res['out'].split()[3])
                except (TypeError, ValueError, IndexError, KeyError):
                    self.results['failures'] += 1
                    continue
                rates[cname].append(rate)
                if cname == 'corral -j':
                    # Events corral handled: every journal line but
                    # start/end, per second of the run.
                    end = self.journal_end()
                    try:
                        with open(self.journal, 'rb') as f:
                            lines = sum(1 for _ in f)
                        events.append((lines - 2) / end['duration'])
                    except (OSError, TypeError, KeyError, ZeroDivisionError):
                        pass
        sc['storm'] = {'ms': ms, 'workers': STORM_WORKERS, 'rates': rates,
                       'journal_events_per_s': events}

    # -- 4. deadlines under a burst of statuses ----------------------------

    def slack(self):
        """The timeout against a member whose every thread reports at once:
        sleepers -n N -i -c 100 (SIGTERM ignored, a SIGCONT to itself every
        100 ms, which makes every thread report a PTRACE_EVENT_STOP). The
        timeout is set past the time the N threads take to exist under
        corral; a trial whose timeout came before all threads existed is
        done again with a longer one. From the journal: slack = the
        `ending` line's t minus the timeout; tail = the `end` line's t
        minus the `ending` line's t minus the grace."""
        if not self.corral:
            return
        cfg = self.cfg
        for n in cfg['slack_sizes']:
            t = 3.0 + 8e-8 * n * n  # creation is superlinear (docs/bench.md)
            data = {'slack': [], 'tail': [], 'timeout': [], 'ready': [],
                    'threads': []}
            log('slack: %d threads, %d rounds' % (n, cfg['slack_rounds']))
            r = 0
            tries = 0
            while r < cfg['slack_rounds'] and tries < cfg['slack_rounds'] + 2:
                tries += 1
                res = self.runner(['-w', '-T', str(int(t * 3 + 60))], [
                    self.corral, 'run', '-q', '-t', '%.1f' % t, '-k',
                    str(SLACK_GRACE), '--stacks', 'never', '-j', self.journal,
                    '--', self.prog('sleepers'), '-n', str(n), '-i', '-c',
                    str(SLACK_CONT_MS)])
                ev = {}
                try:
                    with open(self.journal, 'rb') as f:
                        for line in f:
                            if b'"event":"ending"' in line or \
                                    b'"event":"end"' in line:
                                j = json.loads(line)
                                ev[j['event']] = j
                except (OSError, ValueError):
                    pass
                if not res or not res['ok'] or res['left'] or \
                        'ending' not in ev or 'end' not in ev:
                    self.results['failures'] += 1
                    continue
                if res['ready'] > t - 1 or ev['end'].get('threads', 0) < n:
                    log('  timeout %.1f s came before the %d threads existed'
                        ' (ready at %.1f s): again, longer' % (t, n,
                                                              res['ready']))
                    t = max(t * 2, res['ready'] * 1.5 + 2)
                    continue
                data['slack'].append(ev['ending']['t'] - t)
                data['tail'].append(ev['end']['t'] - ev['ending']['t']
                                    - SLACK_GRACE)
                data['timeout'].append(t)
                data['ready'].append(res['ready'])
                data['threads'].append(ev['end'].get('threads', 0))
                r += 1
            self.results['slack'][str(n)] = data

    # -- 5. memory under large argv ------------------------------------------

    def argv_memory(self):
        """corral's peak RSS after N execs of /bin/true with 2 MiB of
        arguments each (tests/fixtures/bigargv.c), journal to /dev/null
        (formatted and written, not stored): memory bounded by what is
        alive plus a bounded history, not by every argv ever seen."""
        if not self.corral:
            return
        cfg = self.cfg
        for n in cfg['argv_execs']:
            log('memory: %d execs of 2 MiB argv, %d rounds'
                % (n, cfg['argv_rounds']))
            hwm = []
            for _ in range(cfg['argv_rounds']):
                res = self.runner(['-w', '-m', '-e', 'term'], [
                    self.corral, 'run', '-q', '-j', '/dev/null', '--',
                    self.prog('bigargv'), '-p', str(n), '2048'])
                if res and res['ok'] and res['hwm_kb'] > 0:
                    hwm.append(res['hwm_kb'])
                else:
                    self.results['failures'] += 1
            self.results['argv'][str(n)] = hwm

    # -- report -------------------------------------------------------------

    def machine(self):
        def first(path, key):
            try:
                with open(path) as f:
                    for line in f:
                        if line.startswith(key):
                            return line.split(':', 1)[1].strip()
            except OSError:
                pass
            return '?'
        try:
            commit = subprocess.run(['git', '-C', ROOT, 'rev-parse', '--short',
                                     'HEAD'], capture_output=True
                                    ).stdout.decode().strip()
        except OSError:
            commit = '?'
        strace_v = '-'
        if self.strace:
            strace_v = subprocess.run([self.strace, '-V'], capture_output=True
                                      ).stdout.decode().splitlines()[0]
        return {
            'date': datetime.datetime.now(datetime.timezone.utc)
            .strftime('%Y-%m-%d %H:%M UTC'),
            'kernel': platform.release(),
            'cpu': first('/proc/cpuinfo', 'model name'),
            'cpus': os.cpu_count(),
            'memory': '%.0f GiB' % (int(first('/proc/meminfo', 'MemTotal')
                                         .split()[0]) / 2**20),
            'load': open('/proc/loadavg').read().split()[:3],
            'commit': commit,
            'corral': getattr(self, 'corral_version', '-'),
            'strace': strace_v,
            'mode': 'bench-quick' if self.args.quick else 'bench',
        }

    def report(self):
        R = self.results
        lines = []
        out = lines.append
        m = R['machine']
        out('corral benchmarks (%s), %s, commit %s' % (m['mode'], m['date'],
                                                       m['commit']))
        out('machine: %s x %s, %s, Linux %s, load %s at start; %s'
            % (m['cpus'], m['cpu'], m['memory'], m['kernel'],
               ' '.join(m['load']), m['strace']))
        out('median [min..max] over the runs; x and % = median of the per-round ratios')
        out('')

        out('### 1. Overhead (wall time of the whole workload)')
        out('')
        out('| workload | contender | median s | spread s | vs untraced |'
            ' vs floor |')
        out('| --- | --- | ---: | ---: | ---: | ---: |')
        for wname, w in R['overhead'].items():
            for cname, c in w['contenders'].items():
                if not c['wall']:
                    out('| %s | %s | failed | | | |' % (wname, cname))
                    continue
                med = statistics.median(c['wall'])
                ratio = statistics.median(c['ratio']) if c['ratio'] else None
                vf = statistics.median(c['vs_floor']) if c['vs_floor'] \
                    else None
                out('| %s | %s | %.3f | %.3f..%.3f | %s | %s |' % (
                    '%s (%s)' % (wname, w['desc']) if cname == 'untraced'
                    else '', cname, med, min(c['wall']), max(c['wall']),
                    '%.3fx (%+.1f%%)' % (ratio, (ratio - 1) * 100)
                    if ratio else '-',
                    '%+.1f%%' % ((vf - 1) * 100) if vf else '-'))
        out('')

        out('### 2. Ending a tree (request to confirmed empty)')
        out('')
        out('| tree | contender | end ms | spread ms | stop-all ms |'
            ' spread ms | corral vs this |')
        out('| --- | --- | ---: | ---: | ---: | ---: | ---: |')
        for label, e in R['ending'].items():
            cor = e['contenders'].get('corral', {}).get('end')
            corm = statistics.median(cor) if cor else None
            first_row = True
            for cname, c in e['contenders'].items():
                if not c['end']:
                    out('| %s | %s | failed | | | | |' % (label, cname))
                    continue
                med = statistics.median(c['end'])
                smed = statistics.median(c['stop'])
                out('| %s | %s | %.1f | %.1f..%.1f | %.1f | %.1f..%.1f | %s |'
                    % (label if first_row else '', cname, med * 1e3,
                       min(c['end']) * 1e3, max(c['end']) * 1e3, smed * 1e3,
                       min(c['stop']) * 1e3, max(c['stop']) * 1e3,
                       '%.2fx' % (corm / med) if corm and cname != 'corral'
                       else '-'))
                first_row = False
            c = e['contenders'].get('corral')
            if c and c['external']:
                out('| | (corral, SIGTERM to corral exited) | %.1f | %.1f..%.1f'
                    ' | | | |' % (statistics.median(c['external']) * 1e3,
                                  min(c['external']) * 1e3,
                                  max(c['external']) * 1e3))
        out('')

        out('### 3. Scale')
        out('')
        out('| figure | median | spread |')
        out('| --- | ---: | ---: |')
        for label, e in R['ending'].items():
            c = e['contenders'].get('corral')
            if c and c['hwm_kb'] and not e['storm']:
                out('| corral peak RSS (VmHWM), %d live members | %.1f MiB |'
                    ' %.1f..%.1f |' % (e['n'], statistics.median(c['hwm_kb'])
                                       / 1024, min(c['hwm_kb']) / 1024,
                                       max(c['hwm_kb']) / 1024))
        th = R['scale'].get('threads')
        if th and th['hwm_kb']:
            out('| corral peak RSS (VmHWM), %d threads over a run | %.1f MiB |'
                ' %.1f..%.1f |' % (th['n'], statistics.median(th['hwm_kb'])
                                   / 1024, min(th['hwm_kb']) / 1024,
                                   max(th['hwm_kb']) / 1024))
        st = R['scale'].get('storm')
        if st:
            for cname, rates in st['rates'].items():
                if rates:
                    out('| fork storm (%d workers, %.0f s): forks/s under %s |'
                        ' %.0f | %.0f..%.0f |' % (
                            st['workers'], st['ms'] / 1000, cname,
                            statistics.median(rates), min(rates), max(rates)))
            ev = st['journal_events_per_s']
            if ev:
                out('| fork storm: events/s corral journals (corral -j) |'
                    ' %.0f | %.0f..%.0f |' % (statistics.median(ev), min(ev),
                                             max(ev)))
        out('')

        sl = R.get('slack')
        if sl:
            out('### 4. Deadlines under bursts (timeout vs %d threads that all'
                ' report at once, -k %.1f)' % (max(int(k) for k in sl),
                                             SLACK_GRACE))
            out('')
            out('| threads | runs | slack: ending - timeout, ms | spread ms |'
                ' tail: end - ending - grace, ms | spread ms |'
                ' threads ready after, s |')
            out('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
            for k, d in sl.items():
                if not d['slack']:
                    out('| %s | 0 | failed | | | | |' % k)
                    continue
                out('| %s | %d | %.1f | %.1f..%.1f | %.1f | %.1f..%.1f |'
                    ' %.1f |' % (k, len(d['slack']),
                                 statistics.median(d['slack']) * 1e3,
                                 min(d['slack']) * 1e3, max(d['slack']) * 1e3,
                                 statistics.median(d['tail']) * 1e3,
                                 min(d['tail']) * 1e3, max(d['tail']) * 1e3,
                                 statistics.median(d['ready'])))
            out('')

        am = R.get('argv')
        if am:
            out('### 5. Memory under large argv (N execs of 2 MiB of arguments)')
            out('')
            out('| execs | runs | corral peak RSS (VmHWM) MiB | spread MiB |')
            out('| ---: | ---: | ---: | ---: |')
            for k, v in am.items():
                if v:
                    out('| %s | %d | %.1f | %.1f..%.1f |' % (
                        k, len(v), statistics.median(v) / 1024,
                        min(v) / 1024, max(v) / 1024))
                else:
                    out('| %s | 0 | failed | |' % k)
            out('')

        out('### Goals')
        out('')
        out('| goal | measured | |')
        out('| --- | --- | --- |')
        for g in self.goals():
            out('| %s | %s | %s |' % g)
        out('')
        if R['skipped']:
            out('Skipped: ' + '; '.join(R['skipped']))
        if R['failures']:
            out('Failed or unclean trials (left out of the figures): %d'
                % R['failures'])
        return '\n'.join(lines) + '\n'

    def goals(self):
        R = self.results
        g = []

        def med(xs):
            return statistics.median(xs) if xs else None

        b = R['overhead'].get('build', {}).get('contenders', {})
        r = med(b.get('corral', {}).get('ratio'))
        if r:
            g.append(('build within 2% of untraced', 'corral %+.1f%%'
                      % ((r - 1) * 100), 'met' if r <= 1.02 else
                      'MISSED by %.1f points' % ((r - 1.02) * 100)))
        x = R['overhead'].get('exec loop', {}).get('contenders', {})
        vf = med(x.get('corral', {}).get('vs_floor'))
        if vf:
            d = vf - 1
            g.append(('exec loop at the event-only floor (within 5%)',
                      'corral %+.1f%% vs floor' % (d * 100),
                      'met' if d <= 0.05 else
                      'MISSED by %.1f points' % ((d - 0.05) * 100)))
        e = R['ending'].get('1000', {}).get('contenders', {})
        ce = med(e.get('corral', {}).get('end'))
        ke = med(e.get('cgroup.kill', {}).get('end'))
        we = med(e.get('/proc walk', {}).get('end'))
        if ce and ke:
            q = ce / ke
            g.append(('1,000 members: within 1.5x of cgroup.kill',
                      '%.2fx (%.1f vs %.1f ms)' % (q, ce * 1e3, ke * 1e3),
                      'met' if q <= 1.5 else 'MISSED by %.2fx' % (q - 1.5)))
        if ce and we:
            q = ce / we
            g.append(('1,000 members: at most half the /proc walk',
                      '%.2fx (%.1f vs %.1f ms)' % (q, ce * 1e3, we * 1e3),
                      'met' if q <= 0.5 else 'MISSED by %.2fx' % (q - 0.5)))
        e = R['ending'].get('10000', {}).get('contenders', {})
        h = med(e.get('corral', {}).get('hwm_kb'))
        if h:
            g.append(('10,000 members in at most 32 MiB',
                      '%.1f MiB' % (h / 1024), 'met' if h <= 32 * 1024 else
                      'MISSED by %.1f MiB' % (h / 1024 - 32)))
        for k, v in R.get('argv', {}).items():
            if v:
                g.append(('%s execs of 2 MiB argv in at most 32 MiB' % k,
                          '%.1f MiB' % (max(v) / 1024),
                          'met' if max(v) <= 32 * 1024 else 'MISSED'))
        for k, d in R.get('slack', {}).items():
            if d['slack']:
                sm, tm = max(d['slack']), max(d['tail'])
                g.append(('%s threads: ending within 0.5 s of the timeout, '
                          'exit within grace + 1 s' % k,
                          'worst slack %.0f ms, worst tail %.0f ms'
                          % (sm * 1e3, tm * 1e3),
                          'met' if sm <= 0.5 and tm <= 1.0 else 'MISSED'))
        return g

    def chart(self):
        """Kill latency against tree size, one line per contender."""
        gp = shutil.which('gnuplot')
        rows = [(e['n'], e) for e in self.results['ending'].values()
                if not e['storm']]
        if not rows:
            return None
        names = ['corral', '/proc walk', 'cgroup.kill']
        dat = os.path.join(self.out, 'kill-latency.dat')
        with open(dat, 'w') as f:
            f.write('# n ' + ' '.join('%s_med %s_min %s_max' % (n, n, n)
                                      for n in ('corral', 'walk', 'cgroup'))
                    + '\n')
            for n, e in sorted(rows, key=lambda x: x[0]):
                cols = [str(n)]
                for c in names:
                    v = e['contenders'].get(c, {}).get('end') or []
                    cols += (['%.3f' % (statistics.median(v) * 1e3),
                              '%.3f' % (min(v) * 1e3), '%.3f' % (max(v) * 1e3)]
                             if v else ['NaN'] * 3)
                f.write(' '.join(cols) + '\n')
        if not gp:
            self.results['skipped'].append(
                'chart: gnuplot not installed (Debian package gnuplot-nox)')
            return None
        png = os.path.join(self.out, 'kill-latency.png')
        script = '''
set terminal pngcairo size 720,480 font ",10"
set output "%(png)s"
set title "Ending a tree of sleeping processes (median, bars min..max)"
set xlabel "members in the tree"
set ylabel "request to confirmed empty (ms)"
set logscale xy
set xrange [50:20000]
set grid
set key top left
plot "%(dat)s" u 1:2:3:4 w yerrorlines lw 2 pt 7 t "corral stop-all + kill-all", \\
     "%(dat)s" u 1:5:6:7 w yerrorlines lw 2 pt 5 t "/proc SIGSTOP walk", \\
     "%(dat)s" u 1:8:9:10 w yerrorlines lw 2 pt 9 t "cgroup.kill"
''' % {'png': png, 'dat': dat}
        r = subprocess.run([gp], input=script.encode(), capture_output=True)
        if r.returncode != 0:
            log('gnuplot failed: %s' % r.stderr.decode()[-300:])
            return None
        return png

    def run(self):
        t0 = time.monotonic()
        self.results['machine'] = self.machine()
        sections = self.args.only.split(',') if self.args.only else \
            ['overhead', 'ending', 'scale', 'slack', 'argv']
        if 'overhead' in sections:
            self.overhead()
        if 'ending' in sections:
            self.ending()
        if 'scale' in sections:
            self.scale()
        if 'slack' in sections:
            self.slack()
        if 'argv' in sections:
            self.argv_memory()
        png = self.chart()
        self.results['seconds'] = time.monotonic() - t0
        table = self.report()
        table += 'Took %.0f s.' % self.results['seconds']
        if png:
            table += ' Chart: %s' % os.path.relpath(png, ROOT)
        table += '\n'
        with open(os.path.join(self.out, 'table.md'), 'w') as f:
            f.write(table)
        with open(os.path.join(self.out, 'results.json'), 'w') as f:
            json.dump(self.results, f, indent=1)
        if os.path.exists(self.journal):
            os.unlink(self.journal)
        print(table, end='')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--build', default=os.environ.get('BUILD', 'build'))
    ap.add_argument('--quick', action='store_true',
                    help='fewer runs, for a first look (under 2 minutes)')
    ap.add_argument('--rounds', type=int, help='override the rounds')
    ap.add_argument('--only', help='comma list: overhead,ending,scale,slack,argv')
    ap.add_argument('--out', help='results directory '
                    '(default BUILD/bench/out)')
    args = ap.parse_args()
    Bench(args).run()


if __name__ == '__main__':
    main()
