#!/usr/bin/env bash
# docs/journal.md is exact: every key real journals carry is in its key
# index (per event), every key the index lists is written by the code, and
# the start/exit keys say what they promise (wall clock, host, ids, cwd,
# rusage).
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture threads daemonize fx_escape core_scene
DOC=$ROOT/docs/journal.md

RUN_LABEL="journals"
run -- "$CORRAL" run -q -j "$T/j1" -t 1 -k 0.3 --stacks timeout -- sh -c 'ls / >/dev/null; sh -c "kill -STOP \$\$" & sleep 30'
expect_rc 124 "timeout"
run -- "$CORRAL" run -q -j "$T/j2" -- "$FIX/threads" 3
expect_rc 0 "threads"
run -- "$CORRAL" run -q -j "$T/j3" -k 0.3 -- "$FIX/daemonize"
run -- "$CORRAL" run -q -j "$T/j4" --escape=log -- "$FIX/fx_escape" setsid
run -- "$CORRAL" run -q -j "$T/j5" -- /nonexistent/command
expect_rc 127 "not found"
before=$(date -u +%s)
run -- "$CORRAL" run -q -j "$T/j6" -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'
after=$(date -u +%s)
expect_rc 0 "busy shell"
run -- "$CORRAL" run -q -j "$T/j7" -t 1 -k 0 --core timeout --core-dir "$T/cores" -- "$FIX/core_scene" hang 2
expect_rc 124 "--core timeout"

RUN_LABEL="keys against the index"
python3 - "$DOC" "$ROOT/tracer" "$T"/j[1-7] <<'EOF' || fail "docs/journal.md and the journals disagree"
import glob, json, re, sys
doc, src, journals = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(doc).read()
index = text[text.index('## Key index'):]
index = index[:index.index('\n## ', 1)]
allowed = {}
for row in index.splitlines():
    cells = [c.strip() for c in row.strip().strip('|').split('|')]
    if len(cells) < 2 or '`' not in cells[1] or cells[0] == 'event':
        continue
    keys = set(re.findall(r'`([a-z_][a-z_0-9]*)(?::[nsbao])?`', cells[1]))
    events = ['*'] if cells[0] == 'every line' else [e.strip() for e in cells[0].split(',')]
    for e in events:
        allowed.setdefault(e, set()).update(keys)
bad = 0
seen = {}
for j in journals:
    for line in open(j):
        o = json.loads(line)
        ev = o['event']
        for k in o:
            seen.setdefault(ev, set()).add(k)
            if k not in allowed.get(ev, set()) | allowed['*']:
                print('%s: event %s writes key %r, not in the key index' % (j, ev, k), file=sys.stderr)
                bad = 1
for ev in ['start', 'exec', 'fork', 'vfork', 'thread', 'exit', 'signal', 'stop', 'left', 'ending', 'end', 'stack', 'escape', 'core']:
    if ev not in seen:
        print('the journals have no %s event: the test does not cover it' % ev, file=sys.stderr)
        bad = 1
code = ''.join(open(f).read() for f in glob.glob(src + '/*/*.c'))
for ev, keys in allowed.items():
    for k in keys:
        if '"%s"' % k not in code and '\\"%s\\"' % k not in code:
            print('key index: %r (%s) is written nowhere in tracer/' % (k, ev), file=sys.stderr)
            bad = 1
sys.exit(bad)
EOF

RUN_LABEL="start and exit keys"
if j_valid "$T/j6"; then
	j_check "$T/j6" ".[0] | (.time | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\\\.[0-9]{6}Z$\")) and (.time | sub(\"\\\\.[0-9]+Z$\"; \"Z\") | fromdate) >= $before - 1 and (.time | sub(\"\\\\.[0-9]+Z$\"; \"Z\") | fromdate) <= $after + 1" "start.time is the wall clock, RFC 3339 UTC"
	j_check "$T/j6" ".[0] | .host == \"$(hostname)\" and .uid == $(id -u) and .gid == $(id -g) and .cwd == \"$PWD\" and .kill_after == 2 and (.monotonic | type) == \"number\" and .chain == \"hmac-sha256\"" "start: host, ids, cwd, kill_after"
	# the busy shell used CPU time: its exit says so
	j_check "$T/j6" '[.[] | select(.event == "exit")][0] | (.cpu_user + .cpu_sys) > 0 and .max_rss > 0' "exit: rusage"
fi
if j_valid "$T/j2"; then
	j_check "$T/j2" '[.[] | select(.event == "exit" and .pid != .tgid)] | length > 0 and all(has("cpu_user") | not)' "a thread's exit has no rusage"
fi

done_test
