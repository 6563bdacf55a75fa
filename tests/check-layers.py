#!/usr/bin/env python3
"""check-layers.py [--root DIR] [--build DIR]: tracer/ calls only downward.

`make check-layers` (and `make test`) runs it. The layer map is the picture
in docs/design.md, "Layers", read as it is drawn:

  - the rows between lines of dashes are layers, top first; a file is on the
    row where its name is drawn, with its folder of tracer/: `core/loop.c`,
    or `core/: loop.c lifecycle.c` (a folder label names the folder of the
    bare names after it on that line); the folder drawn must be the file's
    (a file directly in tracer/ is drawn bare). File names are unique
    across the folders (the build puts every folder on the include path);
  - a file may use (call, or read a variable of) a file on a lower row, and
    one on its own row only along an arrow written `a.c -> b.c` in the
    paragraph after the picture, or in the bottom row's "within this row:"
    list (`a -> b, c; ...`: each name before an arrow uses each after it).

What a file uses is read from the objects in BUILD/obj (nm: the globals one
object leaves undefined that another defines), and from its #include lines
(x.h is x.c's header; internal.h, grouped by layer itself, is left out). A
tracer/ file that is not in the picture fails too: a new file is placed.
cli/ sits above the library, through include/ (corral.h) only: its objects use
nothing of the library but corral_* (and it includes no library header).

The folders, as wholes (docs/design.md, "Folders"): tracer/base/ is the
floor (its files use nothing of the library outside it, sandbox/ included);
sandbox/ uses, of tracer/, only tracer/base/; report/ (it reads journals)
only tracer/base/ and tracer/journal/.

Exit 0 when the code keeps to the picture, 1 with every arrow that runs the
wrong way listed, 2 when the picture or the objects cannot be read.
"""
import argparse
import os
import re
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument('--root', default=os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
ap.add_argument('--build', default=None)
args = ap.parse_args()
root = args.root
build = args.build or os.path.join(root, 'build')
if not os.path.isabs(build):
    build = os.path.join(root, build)


def die(msg):
    print('check-layers: ' + msg, file=sys.stderr)
    sys.exit(2)


# ------------------------------------------------------------- the picture
try:
    design = open(os.path.join(root, 'docs/design.md'), encoding='utf-8').read()
except OSError as e:
    die('docs/design.md: %s' % e)
m = re.search(r'^## Layers\n(.*?)^```\n(.*?)^```\n(.*?)(?=^## |\Z)', design,
              flags=re.S | re.M)
if not m:
    die('docs/design.md has no "## Layers" section with a picture')
picture, after = m.group(2), m.group(3)

layer = {}  # file stem -> row (0 = top)
drawn_in = {}  # file stem -> the folder it is drawn in ('' = tracer/ itself)
row = 0
within = ''
for line in picture.splitlines():
    if re.match(r'^[\s|]*-{10,}\s*$', line):
        row += 1
        continue
    # the bottom row's own arrows, in words after "within this row:"
    w = line.find('within this row:')
    if w >= 0 or within:
        within += ' ' + (line[w + len('within this row:'):] if w >= 0 else line)
        line = line[:w] if w >= 0 else ''
    # `folder/: a.c b.c` (a label) or `folder/a.c` or a bare `a.c`
    label = ''
    for tok in re.findall(r'(?<![\w/])((?:[a-z_0-9]+/)?)(:|[a-z_0-9]+\.c\b)',
                          line):
        folder, name = tok
        if name == ':':
            label = folder.rstrip('/')
            continue
        stem = name[:-2]
        folder = folder.rstrip('/') or label
        if stem in layer and layer[stem] != row:
            die('docs/design.md: %s.c is drawn on two rows' % stem)
        layer[stem] = row
        drawn_in[stem] = folder
if row < 1 or len(layer) < 2:
    die('docs/design.md: the picture has %d rows and %d files: not read' %
        (row + 1, len(layer)))

allowed = set()  # (from, to) on the same row
for a, b in re.findall(r'`([a-z_0-9]+)\.c -> ([a-z_0-9]+)\.c`', after):
    allowed.add((a, b))
within = re.sub(r'\([^()]*\)', '', within).replace(')', '')
for seg in within.split(';'):
    groups = [[n.strip() for n in g.split(',') if n.strip()]
              for g in seg.split('->')]
    # an order within the row: each name uses those after it
    for i, g1 in enumerate(groups):
        for g2 in groups[i + 1:]:
            for a in g1:
                for b in g2:
                    allowed.add((a, b))
for a, b in allowed:
    for s in (a, b):
        if s not in layer:
            die('docs/design.md: an arrow names %s, which is not in the '
                'picture' % s)

# ------------------------------------------------------------------ the code
bad = []


def check(user, used, how):
    if user == used or user not in layer or used not in layer:
        return
    lu, ld = layer[user], layer[used]
    if ld > lu:
        return
    if ld == lu and (user, used) in allowed:
        return
    where = 'its own row' if ld == lu else 'a row above it'
    bad.append('%s %s %s, on %s (docs/design.md, "Layers")' %
               (path(user), how, path(used), where))


# The files of tracer/: in tracer/ itself or one folder down.
tdir = os.path.join(root, 'tracer')
folder_of = {}  # x.c or x.h -> its folder ('' = tracer/ itself)
for d in [''] + sorted(e for e in os.listdir(tdir)
                       if os.path.isdir(os.path.join(tdir, e))):
    for f in sorted(os.listdir(os.path.join(tdir, d))):
        if f.endswith(('.c', '.h')):
            if f in folder_of:
                bad.append('tracer/%s and tracer/%s: two files of one name '
                           '(an include names a header by its file name)' %
                           (os.path.join(folder_of[f], f), os.path.join(d, f)))
            folder_of.setdefault(f, d)


def path(stem, ext='.c'):
    """tracer/FOLDER/stem.c, the path of a file of tracer/."""
    return 'tracer/' + os.path.join(folder_of.get(stem + ext, ''), stem + ext)


sources = sorted(f[:-2] for f in folder_of if f.endswith('.c'))
for s in sources:
    if s not in layer:
        bad.append('%s is not in the picture of docs/design.md, '
                   '"Layers": draw it on its row' % path(s))
    elif drawn_in[s] != folder_of[s + '.c']:
        bad.append('docs/design.md draws %s.c in tracer/%s, but it is %s' %
                   (s, drawn_in[s] + '/' if drawn_in[s] else '', path(s)))
for s in sorted(layer):
    if s not in sources:
        bad.append('docs/design.md draws %s.c, which tracer/ does not have'
                   % s)

# nm, once for every object (each a separate nm was most of this check's
# time: about 150 processes, 45 s on a loaded machine): for each object,
# the globals it defines and the symbols it leaves undefined.
_nm_cache = {}


def nm_objects(objs):
    todo = [o for o in objs if o not in _nm_cache]
    if todo:
        try:
            out = subprocess.run(['nm', '-P', '-A'] + todo, check=True,
                                 capture_output=True, text=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            die('nm: %s' % e)
        for o in todo:
            _nm_cache[o] = (set(), set())
        for l in out.splitlines():
            path, _, rest = l.partition(': ')
            f = rest.split()
            if path not in _nm_cache or len(f) < 2:
                continue
            if f[1] == 'U':
                _nm_cache[path][1].add(f[0])
            elif f[1].isupper() and f[1] not in ('N',):
                _nm_cache[path][0].add(f[0])


def nm(obj, flags):
    """The symbol names nm would list: flags ['--defined-only', '-g'] or
    ['-u'] (the only two this script asks)."""
    nm_objects([obj])
    defined, undefined = _nm_cache[obj]
    return sorted(undefined if flags == ['-u'] else defined)


def objects(d):
    """The objects of a source folder (tracer/ and its folders' alone)."""
    if d == 'tracer':
        return [os.path.join(build, 'obj', path(s)[:-2] + '.o')
                for s in sources]
    od = os.path.join(build, 'obj', d)
    return [os.path.join(od, f) for f in
            (sorted(os.listdir(od)) if os.path.isdir(od) else [])
            if f.endswith('.o')]


nm_objects([o for d in ('tracer', 'sandbox', 'report', 'cli')
            for o in objects(d) if os.path.exists(o)])
owner = {}
undef = {}
for s in sources:
    obj = os.path.join(build, 'obj', path(s)[:-2] + '.o')
    if not os.path.exists(obj):
        die('%s is not built (make all first)' % obj)
    for l in nm(obj, ['--defined-only', '-g']):
        owner.setdefault(l.split()[0], s)
    undef[s] = {l.split()[0] for l in nm(obj, ['-u'])}
for s in sources:
    for sym in sorted(undef[s]):
        if sym in owner:
            check(s, owner[sym], 'uses %s of' % sym)

# Includes. A header belongs to the lowest row among the files that define
# what it declares (journal.h declares the sink's and the chain's
# functions as well as the journal's); one that declares nothing defined
# (types only) to the file of its name; internal.h is grouped by layer.
def header_row(h):
    try:
        text = open(os.path.join(root, path(h, '.h')),
                    encoding='utf-8').read()
    except OSError:
        return None, None
    rows = [(layer[owner[n]], owner[n]) for n in
            set(re.findall(r'\b([a-z_][a-z_0-9]*)\s*\(', text))
            if n in owner and owner[n] in layer]
    if rows:
        return max(rows)
    return (layer[h], h) if h in layer else (None, None)


for s in sources:
    text = open(os.path.join(root, path(s)), encoding='utf-8').read()
    for h in re.findall(r'^\s*#\s*include\s+"([a-z_0-9]+)\.h"', text,
                        flags=re.M):
        if h == 'internal':
            continue
        r, f = header_row(h)
        if r is not None and f != s:
            check(s, f, 'includes %s.h, the header of' % h)

# The folders as wholes: tracer/base/ is the floor; sandbox/ stands on
# tracer/base/ alone; report/ reads journals with tracer/base/ and
# tracer/journal/. (The rows above hold each file; this holds the rooms, so
# that a folder can be read, and built, knowing only those below it.)
where_def = {}  # symbol -> (folder, file) that defines it
for d in ('tracer', 'sandbox', 'report'):
    for o in objects(d):
        rel = os.path.relpath(o, os.path.join(build, 'obj'))[:-2] + '.c'
        for sym in nm(o, ['--defined-only', '-g']):
            where_def.setdefault(sym, (os.path.dirname(rel), rel))
rooms = [('tracer/base', {'tracer/base'},
          'tracer/base/ is the floor: it uses nothing outside it'),
         ('sandbox', {'sandbox', 'tracer/base'},
          'sandbox/ uses, of tracer/, only tracer/base/'),
         ('report', {'report', 'tracer/base', 'tracer/journal'},
          'report/ uses, of tracer/, only tracer/base/ and tracer/journal/')]
for room, may, rule in rooms:
    for o in (objects('tracer') if room.startswith('tracer/') else
              objects(room)):
        rel = os.path.relpath(o, os.path.join(build, 'obj'))[:-2] + '.c'
        if not rel.startswith(room + '/'):
            continue
        for sym in nm(o, ['-u']):
            if sym in where_def and where_def[sym][0] not in may:
                bad.append('%s uses %s of %s (docs/design.md, "Folders": '
                           '%s)' % (rel, sym, where_def[sym][1], rule))

# cli/: corral.h only
lib_defined = set(where_def)
cdir = os.path.join(root, 'cli')
for f in sorted(os.listdir(cdir)) if os.path.isdir(cdir) else []:
    if f.endswith('.c'):
        obj = os.path.join(build, 'obj', 'cli', f[:-2] + '.o')
        if not os.path.exists(obj):
            die('%s is not built (make all first)' % obj)
        for sym in sorted({l.split()[0] for l in nm(obj, ['-u'])}):
            if sym in lib_defined and not sym.startswith('corral_'):
                bad.append('cli/%s uses %s, which is not in include/ '
                           '(cli/ sits above the library)' % (f, sym))

for b in sorted(set(bad)):
    print(b, file=sys.stderr)
if bad:
    print('check-layers: %d arrow(s) against docs/design.md ("Layers", '
          '"Folders")' %
          len(set(bad)), file=sys.stderr)
    sys.exit(1)
print('check-layers: tracer/ keeps to the picture (%d files, %d rows, '
      '%d folders)' % (len(sources), row + 1,
                      len({folder_of[s + '.c'] for s in sources})))
