#!/usr/bin/env python3
"""check-functions.py [--root DIR] [--max N]: no function over N lines without a reason.

`make check-layers` (and so `make test`) runs it over tracer/, sandbox/,
report/ and cli/ (their sub-folders too). A function is counted from the
first line of its signature to its closing brace, both included (what an
editor shows as its lines). Over --max (100) it must say why, on the line
right above its signature:

    /* long: one table, one case a rule: split, the cases are looked up */
    static int long_function(...)

(docs/design.md, "Function length"). tests/long-functions.txt lists the
few that are being split elsewhere ("FILE.c FUNCTION  # why"); an entry
that is no longer long is reported, not failed, so that the one who split
it can drop it.

The source is read as text, in the shape clang-format gives it (the
repository's .clang-format, Linux braces): a function body opens with a
`{` alone on a line and closes with the next line that starts with `}`.

Exit 0 when every long function says why, 1 with each one that does not
listed, 2 when the tree cannot be read.
"""
import argparse
import os
import re
import sys

DIRS = ('tracer', 'sandbox', 'report', 'cli')
MARK = re.compile(r'^/\* long: \S.*\*/$')

ap = argparse.ArgumentParser()
ap.add_argument('--root', default=os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
ap.add_argument('--max', type=int, default=100)
ap.add_argument('--list', action='store_true',
                help='print every function over --max, marked or not')
args = ap.parse_args()


def strip_attributes(sig):
    """The signature without its __attribute__((...)) parts."""
    out = ''
    i = 0
    while True:
        j = sig.find('__attribute__', i)
        if j < 0:
            return out + sig[i:]
        out += sig[i:j]
        k = sig.find('(', j)
        if k < 0:
            return out
        depth = 0
        while k < len(sig):
            depth += {'(': 1, ')': -1}.get(sig[k], 0)
            k += 1
            if depth == 0:
                break
        i = k


def functions(path):
    """(name, first line, last line, the line above it) of each function."""
    lines = open(path, encoding='utf-8', errors='replace').read().split('\n')
    i = 0
    while i < len(lines):
        if lines[i] != '{':
            i += 1
            continue
        # the signature: back to the nearest line that starts at column 0,
        # then up over lines of it that start there too (a return type or
        # an attribute on a line of its own)
        s = i - 1
        while s > 0 and not re.match(r'[A-Za-z_]', lines[s]):
            s -= 1
        while (s > 0 and re.match(r'[A-Za-z_]', lines[s - 1]) and
               not re.search(r'[;}]\s*$|\*/\s*$', lines[s - 1])):
            s -= 1
        e = i + 1
        while e < len(lines) and not lines[e].startswith('}'):
            e += 1
        m = re.search(r'([A-Za-z_]\w*)\s*\(',
                      strip_attributes(' '.join(lines[s:i])))
        yield (m.group(1) if m else lines[s].strip(), s + 1, e + 1,
               lines[s - 1] if s > 0 else '')
        i = e + 1


def allowlist():
    path = os.path.join(args.root, 'tests/long-functions.txt')
    allowed = {}
    try:
        for n, line in enumerate(open(path, encoding='utf-8'), 1):
            body = line.split('#', 1)[0].split()
            if not body:
                continue
            if len(body) != 2 or not line.partition('#')[2].strip():
                print('check-functions: %s:%d: not "FILE.c FUNCTION  # why"'
                      % (path, n), file=sys.stderr)
                sys.exit(2)
            allowed[tuple(body)] = False
    except FileNotFoundError:
        pass
    return allowed


allowed = allowlist()
bad = []
seen = 0
for d in DIRS:
    top = os.path.join(args.root, d)
    if not os.path.isdir(top):
        continue
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for f in sorted(filenames):
            if not f.endswith('.c'):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, args.root)
            for name, first, last, above in functions(path):
                seen += 1
                n = last - first + 1
                if n <= args.max:
                    continue
                why = ('marked' if MARK.match(above) else
                       'listed' if (f, name) in allowed else None)
                if (f, name) in allowed:
                    allowed[(f, name)] = True
                if args.list:
                    print('%4d %s:%d %s%s' % (n, rel, first, name,
                                              ' (%s)' % why if why else ''))
                if not why:
                    bad.append('%s:%d: %s is %d lines (over %d) and does '
                               'not say why: split it, or put '
                               '"/* long: <reason> */" right above it' %
                               (rel, first, name, n, args.max))
if seen == 0:
    print('check-functions: no function found under %s' % ', '.join(DIRS),
          file=sys.stderr)
    sys.exit(2)
for (f, name), hit in sorted(allowed.items()):
    if not hit:
        print('check-functions: tests/long-functions.txt: %s %s is no longer '
              'over %d lines: drop the entry' % (f, name, args.max))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
