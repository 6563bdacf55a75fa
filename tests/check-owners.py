#!/usr/bin/env python3
"""check-owners.py [--root DIR]: each part of struct corral has one writer.

`make check-layers` runs it after tests/check-layers.py. The parts of the
supervisor object (tracer/internal.h) are declared in struct corral as

    const struct NAME_part NAME;

const, so that a write from any file but its owner does not compile; the
owner, NAME.c, takes it writable with OWN(c, NAME). What the compiler cannot
see is a cast, so this script holds the rest of the rule:

  - OWN(x, NAME) appears only in tracer's NAME.c (in any folder);
  - every part is declared const, named after its type, and its owner
    NAME.c exists;
  - docs/design.md, "Who writes what", has a row for every part (`| `c->NAME` |`) and
    no part that is not there.

Exit 0 when the code keeps to it, 1 with every breach listed, 2 when
internal.h or docs/design.md cannot be read.
"""
import argparse
import os
import re
import sys

ap = argparse.ArgumentParser()
ap.add_argument('--root', default=os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
args = ap.parse_args()
root = args.root


def die(msg):
    print('check-owners: ' + msg, file=sys.stderr)
    sys.exit(2)


def strip_comments(text):
    return re.sub(r'/\*.*?\*/|//[^\n]*', ' ', text, flags=re.S)


tdir = os.path.join(root, 'tracer')
files = {}  # stem -> path (tracer/ and its folders)
internal = None
for d, _, names in os.walk(tdir):
    for n in sorted(names):
        if n.endswith('.c'):
            files.setdefault(n[:-2], os.path.join(d, n))
        elif n == 'internal.h':
            internal = os.path.join(d, n)
if not internal:
    die('tracer/internal.h not found')
try:
    htext = strip_comments(open(internal, encoding='utf-8').read())
    design = open(os.path.join(root, 'docs/design.md'),
                  encoding='utf-8').read()
except OSError as e:
    die(str(e))

m = re.search(r'^struct corral \{(.*?)\};', htext, flags=re.S | re.M)
if not m:
    die('%s: no struct corral' % internal)
body = m.group(1)
bad = []
parts = set()
for const, typ, name in re.findall(
        r'(const\s+)?struct\s+([a-z_0-9]+)_part\s+([a-z_0-9]+)\s*;', body):
    parts.add(name)
    if not const:
        bad.append('struct corral: part %s is not const (its owner alone '
                   'writes it, through OWN())' % name)
    if typ != name:
        bad.append('struct corral: part %s has the type struct %s_part: '
                   'a part is named after its owner' % (name, typ))
    if name not in files:
        bad.append('struct corral: part %s has no owner: tracer/ has no '
                   '%s.c' % (name, name))

sec = re.search(r'^## Who writes what\n(.*?)(?=^## |\Z)', design,
                flags=re.S | re.M)
if not sec:
    bad.append('docs/design.md has no "## Who writes what" section')
else:
    named = set(re.findall(r'^\|\s*`c->([a-z_0-9]+)`', sec.group(1), flags=re.M))
    for p in sorted(parts - named):
        bad.append('docs/design.md, "Who writes what", does not name the '
                   'part `c->%s`' % p)
    for p in sorted(named - parts):
        bad.append('docs/design.md, "Who writes what", names `c->%s`, '
                   'which struct corral does not have as a part' % p)

uses = 0
for stem, path in sorted(files.items()):
    text = strip_comments(open(path, encoding='utf-8').read())
    for part in re.findall(r'\bOWN\s*\(\s*[^,()]+,\s*([a-z_0-9]+)\s*\)',
                           text):
        uses += 1
        if part != stem:
            bad.append('%s takes c->%s writable (OWN), which is %s.c\'s '
                       '(docs/design.md, "Who writes what")' %
                       (os.path.relpath(path, root), part, part))

for b in sorted(set(bad)):
    print(b, file=sys.stderr)
if bad:
    print('check-owners: %d breach(es) of one writer per part' %
          len(set(bad)), file=sys.stderr)
    sys.exit(1)
print('check-owners: %d parts, each written by its own file (%d OWN uses)' %
      (len(parts), uses))
