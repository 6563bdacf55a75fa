#!/usr/bin/env python3
"""report_check_trace.py TRACE.json [JOURNAL]: check a Chrome trace-event
file written by `corral report --perfetto` against the format: every event
has the fields its phase needs, each tid belongs to one pid, every process
and thread track is named, complete slices on a track nest, flow starts
and ends are paired and bind inside a slice. With JOURNAL, the counts of
processes, exec slices, signals, stacks and escapes must match it.
Prints the problems and exits 1 if any."""
import collections
import json
import sys

errors = []


def err(msg):
    if len(errors) < 30:
        errors.append(msg)


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("not a trace: no traceEvents array")
        return 1
    evs = doc["traceEvents"]
    owner = {}  # tid -> pid
    named_p, named_t = set(), set()
    slices = collections.defaultdict(list)
    flows = collections.defaultdict(dict)
    used_p, used_t = set(), set()
    count = collections.Counter()
    for i, e in enumerate(evs):
        where = "event %d (%s)" % (i, json.dumps(e)[:120])
        if not isinstance(e, dict):
            err(where + ": not an object")
            continue
        ph = e.get("ph")
        if ph not in ("X", "B", "E", "i", "I", "M", "s", "t", "f"):
            err(where + ": unknown phase %r" % ph)
            continue
        for k in ("pid", "tid"):
            if not isinstance(e.get(k), int):
                err(where + ": %s missing or not an integer" % k)
        if not isinstance(e.get("name"), str):
            err(where + ": name missing")
        pid, tid = e.get("pid"), e.get("tid")
        if ph == "M":
            if not isinstance(e.get("args"), dict):
                err(where + ": metadata without args")
                continue
            if e["name"] in ("process_name", "thread_name"):
                if not isinstance(e["args"].get("name"), str):
                    err(where + ": %s without args.name" % e["name"])
                (named_p if e["name"] == "process_name" else named_t).add(
                    pid if e["name"] == "process_name" else (pid, tid))
            if e["name"] == "process_name":
                count["process"] += 1
        else:
            if not num(e.get("ts")) or e["ts"] < 0:
                err(where + ": ts missing or negative")
                continue
            used_p.add(pid)
        if isinstance(tid, int) and isinstance(pid, int):
            if owner.setdefault(tid, pid) != pid:
                err(where + ": tid %d also used under pid %d" % (tid, owner[tid]))
        if ph == "X":
            if not num(e.get("dur")) or e["dur"] < 0:
                err(where + ": complete event without a valid dur")
                continue
            slices[(pid, tid)].append((e["ts"], e["ts"] + e["dur"], e["name"]))
            used_t.add((pid, tid))
            count["exec" if e.get("cat") == "exec" else "slice"] += 1
        elif ph in ("i", "I"):
            if e.get("s", "t") not in ("g", "p", "t"):
                err(where + ": instant with scope %r" % e.get("s"))
            count[e.get("cat")] += 1
        elif ph in ("s", "f"):
            if "id" not in e:
                err(where + ": flow without id")
                continue
            if ph in flows[e["id"]]:
                err(where + ": second flow %s for id %r" % (ph, e["id"]))
            flows[e["id"]][ph] = e
        elif ph in ("B", "E"):
            err(where + ": B/E not expected (corral writes X)")
    for p in used_p - named_p:
        err("pid %d has events but no process_name" % p)
    for pt in used_t - named_t:
        err("track %r has slices but no thread_name" % (pt,))
    # nesting: on a track, slices are disjoint or contain each other
    for track, ss in slices.items():
        ss.sort(key=lambda s: (s[0], -(s[1] - s[0])))
        stack = []
        for b, e, n in ss:
            while stack and stack[-1][1] <= b:
                stack.pop()
            if stack and e > stack[-1][1]:
                err("track %r: slice %r [%d,%d] overlaps %r [%d,%d] without nesting"
                    % (track, n, b, e, stack[-1][2], stack[-1][0], stack[-1][1]))
            stack.append((b, e, n))

    def inside(ev):
        return any(b <= ev["ts"] <= e for b, e, _ in slices.get((ev["pid"], ev["tid"]), []))

    for fid, pair in flows.items():
        if set(pair) != {"s", "f"}:
            err("flow id %r is not a pair: %s" % (fid, sorted(pair)))
            continue
        if pair["f"]["ts"] < pair["s"]["ts"]:
            err("flow id %r ends before it starts" % fid)
        for k in ("s", "f"):
            if not inside(pair[k]):
                err("flow id %r: %s at %d is in no slice of its track" % (fid, k, pair[k]["ts"]))
        count["flow"] += 1
    if len(sys.argv) > 2:
        want = collections.Counter()
        procs = 0
        with open(sys.argv[2], "rb") as f:
            for line in f:
                ev = json.loads(line)
                t = ev.get("event")
                if t in ("fork", "vfork", "clone"):
                    procs += 1
                elif t == "exec":
                    want["exec"] += 1
                elif t in ("signal", "escape"):
                    want[t] += 1
                elif t == "stack" and "pid" in ev:
                    want["stack"] += 1
        procs += 1  # the command, spawned before the journal's first fork
        if count["process"] != procs:
            err("process tracks: %d, journal has %d processes" % (count["process"], procs))
        for k in ("exec", "signal", "stack", "escape"):
            if count[k] != want[k]:
                err("%s: %d in the trace, %d in the journal" % (k, count[k], want[k]))
    for e in errors:
        print(e)
    print("trace: %d events, %d processes, %d exec slices, %d flows; %d problem(s)"
          % (len(evs), count["process"], count["exec"], count["flow"], len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
