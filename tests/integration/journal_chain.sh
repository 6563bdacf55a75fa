#!/usr/bin/env bash
# Tamper evidence: a member that edits, truncates, appends to or replaces
# the journal during the run is caught by corral at the end (journal_intact,
# stderr) and by `corral verify`; verify passes a clean journal, names the
# exact line of every single-line change, and refuses garbage with exit 2
# (not a journal) and a usage error with 125 (docs/cli.md, "Conventions").
. "$(dirname "$0")/lib.sh"
need_corral

# verify_rc WANT WHAT ARGS...: corral verify's exit status and output.
VOUT=
verify_rc() {
	local want=$1 what=$2 rc
	shift 2
	VOUT=$("$CORRAL" verify "$@" 2>&1)
	rc=$?
	[ "$rc" = "$want" ] && return 0
	fail "$what: corral verify exit $rc, expected $want: $VOUT"
	return 1
}

head_of() { sed -n 's/^corral: journal: .* head \([0-9a-f]\{64\}\)$/\1/p' "$1"; }

RUN_LABEL="clean run"
j=$T/clean
run -- "$CORRAL" run -j "$j" -- sh -c 'ls / >/dev/null; exit 2'
expect_rc 2 "clean run"
expect_grep '^corral: journal: [0-9]+ lines, 0 lost, intact, head [0-9a-f]{64}$' "$ERRF" "summary on stderr"
h=$(head_of "$ERRF")
if j_valid "$j"; then
	j_expect_end "$j" journal_intact true
	j_check "$j" '[.[] | .n] == [range(length)]' "n counts the lines"
	j_check "$j" '.[0].chain == "hmac-sha256" and .[0].key == "run"' "start says which chain"
	expect_eq "$(tail -n 1 "$j" | jq -r .h)" "$h" "the head on stderr is the last line's digest"
fi
verify_rc 0 "clean journal" "$j"
verify_rc 0 "clean journal, --head" --head "$h" "$j"
expect_eq "$(echo "$VOUT" | tail -n 1)" "head $h" "verify prints the head"
verify_rc 1 "wrong --head" --head "$(printf '%064d' 0)" "$j"
head -n -1 "$j" >"$T/cut"
verify_rc 1 "end line removed" "$T/cut"
echo "$VOUT" | grep -q truncated || fail "end line removed: not called truncated: $VOUT"
head -n -1 "$j" >"$T/cut2"
tail -n 1 "$j" | head -c 40 >>"$T/cut2"
verify_rc 1 "torn end line" "$T/cut2"
verify_rc 1 "--head of the full journal, last line removed" --head "$h" "$T/cut"
verify_rc 0 "stdin" - <"$j"

RUN_LABEL="every single-line change"
python3 - "$CORRAL" "$j" "$T/m" <<'EOF' || fail "a change was not found at its line"
import re, subprocess, sys
corral, j, m = sys.argv[1:]
lines = open(j, 'rb').read().split(b'\n')[:-1]
assert len(lines) >= 5, len(lines)
def check(kind, i, new):
    open(m, 'wb').write(b''.join(l + b'\n' for l in new))
    p = subprocess.run([corral, 'verify', m], capture_output=True, text=True)
    got = re.search(r'NOT intact: line (\d+)', p.stdout)
    if p.returncode != 1 or not got or int(got.group(1)) != i + 1:
        print('%s of line %d: exit %d: %s' % (kind, i + 1, p.returncode, p.stdout.strip()), file=sys.stderr)
        return 1
    return 0
bad = 0
for i, l in enumerate(lines):
    # one byte of the value of "t" (in every line) changed
    k = l.index(b'"t":') + 5
    e = l[:k] + (b'7' if l[k:k+1] != b'7' else b'8') + l[k+1:]
    bad += check('edit', i, lines[:i] + [e] + lines[i+1:])
    # a key added in the middle, the digest left as it was
    e = l.replace(b',', b',"x":1,', 1)
    bad += check('key added', i, lines[:i] + [e] + lines[i+1:])
    bad += check('removal', i, lines[:i] + lines[i+1:])
    forged = lines[1].replace(b'"t":', b'"t": ')
    bad += check('insertion', i, lines[:i] + [forged] + lines[i:])
    if i + 1 < len(lines):
        bad += check('swap', i, lines[:i] + [lines[i+1], l] + lines[i+2:])
# the key the end line discloses, changed: the end line is named
l = lines[-1]
k = l.index(b'"chain_key":"') + 14
e = l[:k] + (b'0' if l[k:k+1] != b'0' else b'1') + l[k+1:]
bad += check('disclosed key', len(lines) - 1, lines[:-1] + [e])
sys.exit(1 if bad else 0)
EOF

# A member tampers with the journal while the run goes on; corral goes on
# writing after it. What the member does is run through J=path.
tamper() {
	local what=$1 script=$2 path_lost=${3:-}
	RUN_LABEL="member: $what"
	j=$T/t.$RUN
	run -- env J="$j" "$CORRAL" run -j "$j" -- sh -c "$script; /bin/true; exit 0"
	expect_rc 0 "$what"
	expect_grep '^corral: journal: .*NOT the journal corral wrote' "$ERRF" "$what: said on stderr"
	expect_grep 'NOT INTACT, head' "$ERRF" "$what: summary"
	if [ -z "$path_lost" ]; then
		[ "$(tail -n 1 "$j" | jq -r .journal_intact 2>/dev/null)" = false ] ||
			fail "$what: the end line does not say journal_intact false"
		verify_rc 1 "$what: corral verify" "$j"
	else
		# corral's lines went to the inode it opened, no longer at the
		# path: what is there now has no end line (or is not a journal)
		"$CORRAL" verify "$j" >/dev/null 2>&1
		rc=$?
		[ "$rc" = 1 ] || [ "$rc" = 2 ] || fail "$what: corral verify exit $rc"
	fi
}
tamper "appends a forged line" 'echo "{\"event\":\"exit\",\"t\":0.1,\"pid\":1,\"status\":0,\"n\":3,\"h\":\"$(printf %064d 0)\"}" >>"$J"'
tamper "truncates the file" ': >"$J"'
tamper "edits a line in place" 'python3 -c "import os,sys; f=open(sys.argv[1],\"r+b\"); f.seek(2); f.write(b\"E\")" "$J"'
tamper "replaces the file" 'cp "$J" "$J.new"; mv "$J.new" "$J"' path_lost
tamper "removes the file" 'rm "$J"; : >"$J"' path_lost
expect_grep 'removed or replaced' "$ERRF" "removed: said so"

RUN_LABEL="key file"
head -c 32 /dev/urandom >"$T/key"
head -c 32 /dev/urandom >"$T/other"
j=$T/keyed
run -- "$CORRAL" run -q -j "$j" --journal-key "$T/key" -- true
expect_rc 0 "--journal-key"
if j_valid "$j"; then
	j_check "$j" '.[0].key == "file" and (.[-1] | has("chain_key") | not)' "a key file is never disclosed"
	j_expect_end "$j" journal_intact true
fi
verify_rc 0 "--key FILE" --key "$T/key" "$j"
verify_rc 1 "no key" "$j"
verify_rc 1 "wrong key" --key "$T/other" "$j"
run -- "$CORRAL" run -j "$j" --journal-key "$T/nokey" -- sh -c "touch '$T/marker'"
expect_rc 125 "--journal-key missing"
[ ! -e "$T/marker" ] || fail "--journal-key missing: the command was started"

RUN_LABEL="garbage"
head -c 65536 /dev/urandom >"$T/random"
verify_rc 2 "random bytes" "$T/random"
echo "$VOUT" | grep -q 'not a corral journal' || fail "random bytes: message: $VOUT"
: >"$T/empty"
verify_rc 2 "empty file" "$T/empty"
printf '{"event":"start"}\n{"a":1}\n' >"$T/json"
verify_rc 2 "JSON without digests" "$T/json"
verify_rc 2 "missing file" "$T/nonexistent"
verify_rc 2 "a directory" "$T"
# usage errors: 125, as in every sub-command, whatever the journal is
verify_rc 125 "bad --head" --head xyz "$j"
verify_rc 125 "no journal given"
verify_rc 125 "two journals" "$j" "$j"
verify_rc 125 "bad option" --frobnicate "$j"
# a journal line followed by garbage: a journal, not intact
{ head -n 2 "$T/clean"; head -c 3000 /dev/urandom; } >"$T/mixed"
verify_rc 1 "journal lines then garbage" "$T/mixed"

done_test
