#!/usr/bin/env bash
# Journal strings: quotes, backslashes, control characters, valid UTF-8 and
# invalid bytes in argv and in the executable's path come back exactly
# (invalid bytes as \udcXX, Python's surrogateescape).
. "$(dirname "$0")/lib.sh"
need_corral
command -v python3 >/dev/null || { fail "python3 is needed"; done_test; }

args=(
	'plain'
	''
	'dq"uote'
	"sq'uote"
	'back\slash\\'
	$'tab\there'
	$'new\nline'
	$'cr\rbell\a\x01\x1f\x7f'
	$'esc\e[0m'
	'é ü 日本 😀'
	$'\xff\xfe'
	$'bad\xc3\x28utf8'
	$'lone\x80cont'
	$'overlong\xc0\xafslash'
	$'surrogate\xed\xa0\x80half'
	$'trunc\xe6\x97'
	'</script>\u0000'
	'{"json":[1,2]}'
)
printf '%s\0' "${args[@]}" >"$T/args"

# an executable whose path needs escaping too
dir=$T/$'d"ir\\x\x01\xffé'
mkdir -p "$dir"
cp "$(readlink -f /bin/true)" "$dir/tr\"ue"
printf '%s' "$dir/tr\"ue" >"$T/path"

j=$T/j
run -- "$CORRAL" run -q -j "$j" -- "$dir/tr\"ue" "${args[@]}"
expect_rc 0 "true with odd arguments"
if j_valid "$j"; then
	python3 - "$j" "$T/args" "$T/path" <<'PY' || fail "escaping: see above"
import json, sys
jpath, argspath, pathpath = sys.argv[1:4]
want = open(argspath, "rb").read().split(b"\0")[:-1]
want_path = open(pathpath, "rb").read()
raw = open(jpath, "rb").read()
ok = True
def bad(msg):
    global ok
    ok = False
    print("escaping:", msg, file=sys.stderr)
try:
    text = raw.decode("utf-8")
except UnicodeDecodeError as e:
    bad("the journal is not valid UTF-8: %s" % e)
    text = raw.decode("utf-8", "replace")
for no, line in enumerate(text.splitlines(), 1):
    for ch in line:
        if ord(ch) < 0x20 or ord(ch) == 0x7f:
            bad("line %d has a raw control character %r" % (no, ch))
            break
events = [json.loads(l) for l in text.splitlines()]
def enc(s):
    return s.encode("utf-8", "surrogateescape")
start = events[0]
got_cmd = [enc(a) for a in start.get("command", [])]
if got_cmd != [want_path] + want:
    bad("start.command differs:\n got  %r\n want %r" % (got_cmd, [want_path] + want))
execs = [e for e in events if e.get("event") == "exec"]
if len(execs) != 1:
    bad("%d exec events, expected 1" % len(execs))
else:
    e = execs[0]
    got = [enc(a) for a in e.get("argv", [])]
    if got[1:] != want:
        for i, (g, w) in enumerate(zip(got[1:], want)):
            if g != w:
                bad("argv[%d]: got %r, want %r" % (i + 1, g, w))
        if len(got) - 1 != len(want):
            bad("argv has %d elements, expected %d" % (len(got), len(want) + 1))
    if got[:1] != [want_path]:
        bad("argv[0]: got %r, want %r" % (got[:1], want_path))
    if enc(e.get("path", "")) != want_path:
        bad("exec path: got %r, want %r" % (enc(e.get("path", "")), want_path))
# the escapes used are the documented ones
if '\\u0009' in text or '\\u000a' in text:
    bad("tab/newline written as \\u00XX instead of \\t / \\n")
if '\\udcff' not in text.lower():
    bad("invalid byte 0xff not written as \\udcff")
sys.exit(0 if ok else 1)
PY
fi

done_test
