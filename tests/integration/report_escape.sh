#!/usr/bin/env bash
# A journal is written by corral, but a member may edit it during the run
# and anyone afterwards, and a member names its processes, frames and calls.
# A hand-made journal puts terminal escapes (CSI cursor moves and erases, an
# unterminated OSC 52, C1 controls raw and in UTF-8, bidi overrides, bytes
# that are not UTF-8) and Markdown/HTML (bold, a link, an image, raw HTML,
# backquotes, '|', an e-mail address) in every string field. `corral report`
# in text, md, json, --tree, --html and its stderr notes must show them
# escaped: no control byte, no C1, no bidi, only UTF-8 in what a terminal
# gets; Markdown where GitHub's renderer (cmark-gfm, when installed) makes
# no link, image, bold or HTML of them, and a structural check (python) that
# every byte from the journal sits in a code span; JSON that parses and
# gives the strings back exactly (before: the summary printed them raw).
# Also: no report file but esc.c reads a journal string's bytes.
. "$(dirname "$0")/lib.sh"
need_corral
command -v python3 >/dev/null || skip_test "python3 not installed"

RUN_LABEL="journal strings with escapes"
SRC=$LIB_DIR/../..
python3 - "$T/j.jsonl" <<'PY'
import json, sys
E = ("\x1b[2A\x1b[2K\x1b[1;32mchain intact\x1b[0m \x9b31m \u009b\u0085 "
     "\u202e\u2066\u200f\u2028 \udcff\udc9b\udcc2 **PASSED** "
     "[Approve](https://evil.example/x) <img src=x onerror=alert(1)> "
     "![i](https://e.example/i.png) `tick`` | pipe _u_ ~~s~~ "
     "www.evil.example a@b.example &amp; \\ \x1b]52;c;SGVsbG8=")
def S(tag): return tag + E
F = [{"func": S("f"), "off": 1, "module": S("/m/mod"), "ip": S("ip")},
     {"func": "??", "module": S("/m2/") + "x"}]
lines = [
 {"event": "start", "t": 0, "schema": 1, "version": S("v"), "pid": 100,
  "command": [S("cmd"), S("arg")], "wall": S("wall"), "host": S("host"),
  "cwd": S("cwd")},
 {"event": "exec", "t": 0.1, "pid": 101, "path": S("/bin/p"),
  "argv": [S("/x/argv0"), S("a1")]},
 {"event": "fork", "t": 0.2, "pid": 102, "ppid": 101},
 {"event": "exec", "t": 0.3, "pid": 102, "path": S("/bin/q"), "argv": [S("child")]},
 {"event": "signal", "t": 0.4, "pid": 102, "signo": 15, "signal": S("SIG")},
 {"event": "stop", "t": 0.41, "pid": 102, "signo": 19, "signal": S("SIG")},
 {"event": "escape", "t": 0.5, "pid": 102, "call": S("call"),
  "verdict": S("verdict"), "why": S("why"), "frames": F},
 {"event": "stack", "t": 0.6, "pid": 102, "tgid": 102, "why": S("why"),
  "frames": F, "error": S("err")},
 {"event": "stack", "t": 0.61, "why": S("why"), "error": S("noted")},
 {"event": "denied", "t": 0.62, "pid": 102, "detail": S("detail")},
 {"event": "fork", "t": 0.63, "pid": 103, "ppid": 102},
 {"event": "left", "t": 0.64, "pid": 103, "argv": [S("leftover")]},
 {"event": "ending", "t": 0.7, "reason": S("reason"), "signal": S("SIG")},
 {"event": "exit", "t": 0.8, "pid": 102, "signo": 9, "core": False, S("k"): S("x")},
 {"event": "exit", "t": 0.9, "pid": 103, "signo": 11, "core": True},
 {"event": "exit", "t": 0.95, "pid": 101, "status": 3},
 {"event": "end", "t": 1.0, "exit_code": 1, "reason": S("reason"),
  "signal": S("SIG"), "exec_error": S("exec"), "by_signal": S("SIG"),
  S("key"): S("val")},
]
with open(sys.argv[1], "w") as f:
    for l in lines:
        f.write(json.dumps(l, ensure_ascii=True) + "\n")
PY

J=$T/j.jsonl
for fmt in text md json; do
	"$CORRAL" report --format $fmt "$J" >"$T/out.$fmt" 2>"$T/err.$fmt" ||
		fail "report --format $fmt exited $?: $(head -c 300 "$T/err.$fmt")"
done
"$CORRAL" report --tree "$J" >"$T/out.tree" 2>"$T/err.tree" || fail "report --tree exited $?"
"$CORRAL" report -q --html "$T/out.html" "$J" 2>"$T/err.html" || fail "report --html exited $?"

# what a terminal gets: no C0 but \n, no DEL, no C1 (raw or UTF-8), no
# bidi or line separator, nothing that is not UTF-8
python3 - "$T" <<'PY' || fail "a terminal output holds a raw control byte (above)"
import re, sys
t = sys.argv[1]
bad = 0
for name in ["out.text", "out.tree", "out.md", "err.text", "err.md", "err.tree"]:
    b = open(t + "/" + name, "rb").read()
    if not b and name.startswith("out"):
        print(name, "is empty"); bad = 1; continue
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError as e:
        print(name, "is not UTF-8:", e); bad = 1; continue
    m = re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]", s)
    if m:
        print(name, "holds %r at %d: %r" % (m.group(), m.start(), s[max(0, m.start()-60):m.start()+20]))
        bad = 1
sys.exit(bad)
PY
# the notes went to stderr, escaped
grep -q 'stacks: noted\\e\[2A' "$T/err.text" || fail "the note is not on stderr, escaped: $(head -c 300 "$T/err.text")"

# Markdown: outside code spans, only the report's own words. Each line:
# code spans by CommonMark's rule (a run of N backquotes up to the next run
# of exactly N), none left open; what is outside must not hold anything a
# journal string had ('[' but the report's own "[exit 3]", '!', '*', '_',
# '~', an HTML tag but "<br>", '&', '@', "://", "www.", a backslash); no
# '|' inside a span on a table row.
python3 - "$T/out.md" <<'PY' || fail "Markdown has journal bytes outside code spans (above)"
import re, sys
bad = 0
for n, line in enumerate(open(sys.argv[1], encoding="utf-8").read().split("\n"), 1):
    outside, i, table = [], 0, line.startswith("|")
    while i < len(line):
        if line[i] != "`":
            outside.append(line[i]); i += 1; continue
        run = len(re.match("`+", line[i:]).group())
        close = None
        for m in re.finditer("`+", line[i + run:]):
            if len(m.group()) == run:
                close = i + run + m.start(); break
        if close is None:
            print("line %d: a backquote run left open at %d: %r" % (n, i, line[i:i+60])); bad = 1; break
        if table and "|" in line[i:close]:
            print("line %d: '|' inside a code span on a table row" % n); bad = 1
        i = close + run
        outside.append(" ")
    o = "".join(outside).replace("<br>", " ")
    o = re.sub(r"\[(exit -?\d+|killed by SIG[A-Z0-9+]+( \(core dumped\))?|no exit seen)( at [0-9.]+s)?(, ran [0-9.]+s)?\]", " ", o)
    m = re.search(r"[\[\]!*_~&@\\]|<[A-Za-z/!?]|://|www\.", o)
    if m:
        print("line %d: %r outside code spans: %r" % (n, m.group(), o[max(0, m.start()-40):m.start()+40])); bad = 1
sys.exit(bad)
PY
if command -v cmark-gfm >/dev/null; then
	cmark-gfm -e table -e autolink -e strikethrough -e tagfilter "$T/out.md" >"$T/md.html" ||
		fail "cmark-gfm failed"
	if grep -Eo '<a |<img|<strong|<em>|<del>|<script|<[a-z]+ [a-z]+=' "$T/md.html" >"$T/md.bad"; then
		fail "GitHub's renderer makes HTML of journal bytes: $(sort "$T/md.bad" | uniq -c | tr '\n' ' ')"
	fi
else
	note "cmark-gfm not installed: the Markdown is checked structurally only"
fi

# JSON: parses, and the strings come back exactly (bytes that are not
# UTF-8 as \udcXX, Python's surrogateescape)
python3 - "$T/out.json" "$J" <<'PY' || fail "the JSON summary does not give the strings back (above)"
import json, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))
lines = [json.loads(l) for l in open(sys.argv[2])]
start, end = lines[0], lines[-1]
esc = [l for l in lines if l["event"] == "escape"][0]
stk = [l for l in lines if l["event"] == "stack" and "pid" in l][0]
want = {
    "version": start["version"], "wall": start["wall"], "host": start["host"],
    "cwd": start["cwd"], "command": start["command"], "reason": end["reason"],
    "signal": end["signal"],
}
bad = 0
for k, v in want.items():
    if s.get(k) != v:
        print("%s: %r != %r" % (k, s.get(k), v)); bad = 1
if s["escapes"][0]["call"] != esc["call"] or s["escapes"][0]["verdict"] != esc["verdict"]:
    print("escape call/verdict differ"); bad = 1
if s["stacks"][0]["why"] != stk["why"]:
    print("stack why differs"); bad = 1
# a fork left behind runs what its creator (102) ran when it forked
creator = [l for l in lines if l.get("event") == "exec" and l.get("pid") == 102][0]
if s["left"][0]["argv"] != creator["argv"]:
    print("left argv differs"); bad = 1
if not any(lines[8]["error"] in n["msg"] for n in s["notes"]):
    print("the note does not hold the error"); bad = 1
sys.exit(bad)
PY

# HTML: the data is JSON in a <script>: no member '<' anywhere
python3 - "$T/out.html" <<'PY' || fail "the HTML page holds journal bytes unescaped (above)"
import json, re, sys
h = open(sys.argv[1], encoding="utf-8").read()
bad = 0
for w in ["<img src=x", "\x1b"]:
    if w in h:
        print("the page holds %r" % w); bad = 1
m = re.search(r"const DATA = (.*?);\n", h, re.S)
if not m:
    print("no DATA in the page"); bad = 1
else:
    d = json.loads(m.group(1))
    if not d["summary"]["version"].startswith("v\x1b[2A"):
        print("DATA's version is not the journal's"); bad = 1
sys.exit(bad)
PY

# A NUL byte in an enumerated field (found by make fuzz): shown, not raw
printf '%s\n' '{"event":"start","t":0,"schema":1,"version":"1","pid":1,"command":["x"]}' \
	'{"event":"ending","t":0.5,"reason":"exit\u0000ed"}' \
	'{"event":"end","t":1,"exit_code":0,"reason":"exit\u0000ed","status":0}' >"$T/nul.jsonl"
"$CORRAL" report "$T/nul.jsonl" >"$T/nul.out" 2>/dev/null
[ "$(tr -cd '\000' <"$T/nul.out" | wc -c)" = 0 ] || fail "a NUL byte of the journal reaches the terminal"
# a reason corral does not write is said as one, quoted and escaped, in
# the result's and the ending's words (report/summary.c, put_because)
grep -qF "ending     the tree was ended from 0.500000s because of reason \$'exit\\x00ed':" "$T/nul.out" ||
	fail "the ending's reason with a NUL is not shown escaped: $(cat -v "$T/nul.out" | grep ending)"
grep -qF "result     corral exited 0 because of reason \$'exit\\x00ed';" "$T/nul.out" ||
	fail "the end's reason with a NUL is not shown escaped: $(cat -v "$T/nul.out" | grep result)"
"$CORRAL" report --format md "$T/nul.jsonl" >"$T/nul.md" 2>/dev/null
[ "$(tr -cd '\000' <"$T/nul.md" | wc -c)" = 0 ] || fail "a NUL byte of the journal reaches the Markdown"
grep -qF "| ending | the tree was ended from 0.500000s because of reason \`exit\\x00ed\`:" "$T/nul.md" ||
	fail "the ending's reason with a NUL is not in a code span in Markdown: $(cat -v "$T/nul.md" | grep ending)"

# Structural: only esc.c reads a ustr's bytes (the fields end in '_')
if [ -d "$SRC/report" ]; then
	grep -nE '(\.|->)(p_|n_)\b' "$SRC"/report/*.c | grep -v '^[^:]*/esc\.c:' >"$T/lint" &&
		fail "a report file reads a journal string's bytes outside esc.c: $(head -3 "$T/lint")"
fi
end_run

done_test
