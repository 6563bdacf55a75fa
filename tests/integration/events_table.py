#!/usr/bin/env python3
"""events_table.py ROOT [--fix]: the event vocabulary's places against
tracer/base/events.def, its one declaration (events_table.sh runs it).

Checked: include/corral/common.h's enum corral_event_type (same members, same
order), report/timeline.html's MK table (MARK's names, in order), each
EV's mark is a MARK, docs/journal.md documents every event (a row in its
"Events" or "Forensics events" table) and its "Key index" is the list
itself. --fix rewrites the key index from events.def (then review the
diff). The C places are checked by the compiler (tracer/base/names.c,
journal.c's and the report's switches) and by tests/unit/test_events.c.
"""
import re
import sys

root = sys.argv[1]
fix = '--fix' in sys.argv[2:]
bad = []


def read(p):
    with open(root + '/' + p, encoding='utf-8') as f:
        return f.read()


def strings(s):
    """The concatenation of the C string literals in s."""
    return ''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', s))


def parse_def(text):
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    evs = []
    for m in re.finditer(r'^EV\((.*?)\)\s*$', text, flags=re.S | re.M):
        body = m.group(1)
        head = re.match(r'\s*(\w+)\s*,\s*"([^"]*)"\s*,\s*(\w+)\s*,(.*)',
                        body, flags=re.S)
        if not head:
            bad.append('events.def: cannot read EV(%s)' % body[:40])
            continue
        ident, name, mark, rest = head.groups()
        # keys, then doc: two runs of literals separated by a comma
        parts = re.split(r'"\s*,\s*"', rest.strip(), maxsplit=1)
        if len(parts) != 2:
            bad.append('events.def: %s: keys and doc expected' % ident)
            continue
        keys = strings('"' + parts[0].lstrip('"') + '"')
        doc = strings('"' + parts[1].rstrip('"') + '"')
        evs.append(dict(id=ident, name=name, mark=mark,
                        keys=keys.split(), doc=doc))
    marks = re.findall(r'^MARK\((\w+),\s*"([^"]*)"\)', text, flags=re.M)
    return evs, marks


evs, marks = parse_def(read('tracer/base/events.def'))
if len(evs) < 20 or len(marks) < 8:
    bad.append('events.def: read %d events and %d marks: the parser is '
               'wrong' % (len(evs), len(marks)))
names = [e['name'] for e in evs]
if len(set(names)) != len(names):
    bad.append('events.def: a name is listed twice')
for e in evs:
    for k in e['keys']:
        if not re.fullmatch(r'[a-z_][a-z0-9_]*:[nsbao]', k):
            bad.append('events.def: %s: key %r is not name:type (type one '
                       'of n s b a o)' % (e['name'], k))
    if e['mark'] != 'NONE' and e['mark'] not in [m[0] for m in marks]:
        bad.append('events.def: %s: mark %s is no MARK()' %
                   (e['name'], e['mark']))

# include/corral/common.h: the public enum, member for member
h = read('include/corral/common.h')
m = re.search(r'enum corral_event_type \{(.*?)\};', h, flags=re.S)
members = re.findall(r'\b(CORRAL_EV_\w+)', re.sub(r'/\*.*?\*/', '',
                                                    m.group(1), flags=re.S))
want = ['CORRAL_EV_' + e['id'] for e in evs]
if members != want:
    bad.append('include/corral/common.h: enum corral_event_type is %s; '
               'tracer/base/events.def says %s' % (members, want))

# report/timeline.html: the MK table
html = read('report/timeline.html')
m = re.search(r'^const MK = \[(.*?)\];', html, flags=re.M)
mk = re.findall(r'"([^"]*)"', m.group(1)) if m else None
if mk != [n for _, n in marks]:
    bad.append('report/timeline.html: MK is %s; tracer/base/events.def\'s MARK '
               'list is %s' % (mk, [n for _, n in marks]))

# docs/journal.md: every event in a table, and the key index
doc = read('docs/journal.md')
ev_sec = doc[doc.index('\n## Events'):doc.index('\n## Key index')]
documented = set(re.findall(r'^\| `([a-z_]+)` \|', ev_sec, flags=re.M))
for n in names:
    if n not in documented:
        bad.append('docs/journal.md: event %s has no row in "Events" or '
                   '"Forensics events"' % n)
for n in sorted(documented - set(names)):
    bad.append('docs/journal.md documents an event %s that '
               'tracer/base/events.def does not list' % n)

start = doc.index('\n## Key index')
tbl = doc.index('\n| event |', start)
end = doc.index('\n\n', tbl + 1)
lines = ['| event | keys (`name:type`: n number, s string, b true/false, '
         'a array, o object) | when |', '| --- | --- | --- |',
         '| every line | `event:s`, `t:n`, `n:n`, `h:s` | |']
for e in evs:
    lines.append('| %s | %s | %s |' % (
        e['name'], ', '.join('`%s`' % k for k in e['keys']), e['doc']))
table = '\n' + '\n'.join(lines)
if doc[tbl:end] != table:
    if fix:
        with open(root + '/docs/journal.md', 'w', encoding='utf-8') as f:
            f.write(doc[:tbl] + table + doc[end:])
        print('docs/journal.md: key index rewritten from tracer/base/events.def')
    else:
        bad.append('docs/journal.md: the key index is not tracer/base/events.def '
                   '(tests/integration/events_table.py ROOT --fix writes '
                   'it); it should read:' + table)

for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
