#!/usr/bin/env bash
# The HTML timeline's canvas, drawn in headless Chromium and read back
# (report_html_click.py: the page's own draw() run with the canvas calls
# recorded, then the pixels), for a run a person reads in one look:
#
# - the last axis label is whole: a run of 3 s has a tick at its end, at
#   the right edge; its label is drawn left of its line, inside the canvas,
#   and the canvas's last columns hold no ink of it (before: drawn right of
#   its line and cut off at the edge);
# - a root with 5,000 children has 5,000 SIGCHLD marks on its bar; they
#   are drawn at most one a pixel column, so the bar stays a green bar with
#   ticks, not a black band (before: every tick drawn, ~8 deep a column at
#   40% each).
#
# The journal is made by hand (a run of 5,000 real processes would test
# the tracer, not the drawing).
. "$(dirname "$0")/lib.sh"
need_corral
command -v python3 >/dev/null || skip_test "python3 not installed"
command -v chromium >/dev/null || skip_test "chromium is missing (make deps installs it)"

python3 - "$T/j.jsonl" <<'PY'
import json, sys
L = [{"event": "start", "t": 0, "schema": 1, "version": "0.1.0", "pid": 999,
      "command": ["sh", "-c", "storm"]},
     {"event": "exec", "t": 0.001, "pid": 1000, "tgid": 1000, "path": "/bin/sh",
      "argv": ["sh", "-c", "storm"]}]
for i in range(5000):
    t = 0.01 + i * 0.00057  # born from 0.01 s to 2.86 s
    pid = 1001 + i
    L.append({"event": "fork", "t": round(t, 6), "pid": pid, "ppid": 1000})
    L.append({"event": "exit", "t": round(t + 0.0002, 6), "pid": pid, "status": 0})
    L.append({"event": "signal", "t": round(t + 0.0003, 6), "pid": 1000,
              "signo": 17, "signal": "SIGCHLD"})
L.append({"event": "exit", "t": 2.99, "pid": 1000, "status": 0})
L.append({"event": "end", "t": 3.0, "exit_code": 0, "reason": "none", "status": 0})
with open(sys.argv[1], "w") as f:
    for l in L:
        f.write(json.dumps(l) + "\n")
PY
"$CORRAL" report -q --html "$T/r.html" "$T/j.jsonl" 2>"$T/rep.err" || fail "report --html failed: $(head -c 300 "$T/rep.err")"
chmod -R a+rX "$T"

# Each step redraws with the page's draw() and the context's calls
# recorded; then reads the canvas's pixels (device pixels: times dpr).
cat >"$T/steps.json" <<'J'
[["eval", "axis", "(() => { const calls = [], f = ctx.fillText; ctx.fillText = function (s, X, Y) { calls.push([String(s), X, Y, this.measureText(String(s)).width]); return f.apply(this, arguments); }; try { draw(); } finally { delete ctx.fillText; } const d = window.devicePixelRatio || 1, img = ctx.getImageData(Math.floor((W - 6) * d), 0, Math.floor(6 * d), Math.floor((AXIS - 2) * d)).data; let ink = 0; for (let i = 0; i < img.length; i += 4) if (img[i] < 200 || img[i + 1] < 200 || img[i + 2] < 200) ink++; return { W, LABEL, labels: calls.filter(c => c[2] === AXIS / 2 && c[1] >= LABEL), edge_ink: ink }; })()"],
 ["eval", "ticks", "(() => { const xs = [], f = ctx.fillRect; ctx.fillRect = function (X, Y, w, h) { if (w === 1 && h === ROW / 2 - 2) xs.push(X + 0.5); return f.apply(this, arguments); }; try { draw(); } finally { delete ctx.fillRect; } const d = window.devicePixelRatio || 1, y = AXIS + rowOf[0] * ROW - tl.scrollTop, x0 = Math.ceil(x(procs[0][P.born])) + 1, x1 = Math.floor(x(procs[0][P.ended])) - 1; const img = ctx.getImageData(Math.floor(x0 * d), Math.floor((y + 5) * d), Math.floor((x1 - x0) * d), Math.floor(4 * d)).data; let dark = 0, inked = 0, n = 0; for (let i = 0; i < img.length; i += 4) { n++; if (img[i + 1] < 70) dark++; if (img[i + 1] < 150) inked++; } return { signals: (marksOf.get(0) || []).length, ticks: xs.length, columns: new Set(xs.map(Math.round)).size, pixels: n, dark, inked, root: procs[0][P.pid], row: rowOf[0] }; })()"]]
J
if ! timeout -k 5 150 python3 "$ROOT/tests/integration/report_html_click.py" "$T/r.html" "$T/steps.json" >"$T/out" 2>&1; then
	fail "driving chromium failed: $(tail -3 "$T/out")"
	done_test
fi

RUN_LABEL="last axis label"
python3 - "$T/out" <<'PY' || fail "an axis label is cut off (above)"
import json, sys
v = json.loads([l for l in open(sys.argv[1]) if l.startswith("axis=")][0][5:])
W, labels, bad = v["W"], v["labels"], 0
print("canvas %d px wide; axis labels (text, x, width): %s" % (W, [(t, round(x), round(w)) for t, x, _, w in labels]))
if not labels or labels[-1][0] != "3000 ms":
    print("the tick at the run's end (3000 ms) has no label"); bad = 1
for t, x, _, w in labels:
    if x < v["LABEL"] or x + w > W:
        print("label %r drawn over %.1f..%.1f: outside the timeline's %d..%d" % (t, x, x + w, v["LABEL"], W)); bad = 1
if v["edge_ink"]:
    print("%d pixels of ink in the axis's last 6 columns: a label runs into the edge" % v["edge_ink"]); bad = 1
sys.exit(bad)
PY

RUN_LABEL="5,000 SIGCHLD ticks"
python3 - "$T/out" <<'PY' || fail "the root's signal ticks are not one a pixel column (above)"
import json, sys
v = json.loads([l for l in open(sys.argv[1]) if l.startswith("ticks=")][0][6:])
print(v)
bad = 0
if v["root"] != 1000 or v["row"] != 0:
    print("the root is not the first row"); bad = 1
if v["signals"] != 5000:
    print("the root has %d signal marks, not 5000" % v["signals"]); bad = 1
if v["ticks"] != v["columns"]:
    print("%d ticks drawn in %d pixel columns: more than one a column" % (v["ticks"], v["columns"])); bad = 1
if v["ticks"] < 100:
    print("only %d ticks drawn" % v["ticks"]); bad = 1
# the bar (#3fa34d, green 163) under one tick (rgba(29,35,48,0.4)) has a
# green of 112, under two 81; a black band is near 35
if v["dark"]:
    print("%d of %d pixels of the root's bar are near black (a band of ticks)" % (v["dark"], v["pixels"])); bad = 1
if not v["inked"]:
    print("no tick shows on the root's bar"); bad = 1
sys.exit(bad)
PY
done_test
