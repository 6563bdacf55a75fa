#!/usr/bin/env bash
# corral report and the journal's digest chain (schema 2): a journal as
# written is reported intact; after any single line is edited (still valid
# JSON) the report still shows the run, names that line as altered and
# agrees with `corral verify` (the independent witness, run on the same
# file); a removed line marks the line after the gap; a journal read from
# a pipe is said to be unchecked; a --journal-key run is checked with
# --key (and fails with another key); the page flags altered lines.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture forktree

RUN_LABEL="intact"
j=$T/j
run -- "$CORRAL" run -q -j "$j" -- "$FIX/forktree" 1 2
expect_rc 0 forktree
j_valid "$j" || done_test
[ "$(j_start "$j" schema)" -ge 2 ] || skip_test "the journal has no digest chain (schema < 2)"
"$CORRAL" report --json "$j" >"$T/ok.json" 2>"$T/ok.err"
expect_eq "$?" 0 "report of the journal as written"
expect_eq "$(jq -r .chain.state "$T/ok.json")" intact "chain state"
expect_grep '^  chain      intact' <("$CORRAL" report "$j") "summary says intact"

RUN_LABEL="one line edited"
n=$(wc -l <"$j")
for k in $(seq 1 "$n"); do
	# "t":0.001 -> "t":10.001: still JSON, no longer the bytes corral wrote
	sed "${k}s/\"t\":/\"t\":1/" "$j" >"$T/e.$k"
	cmp -s "$j" "$T/e.$k" && { fail "line $k: the edit changed nothing"; continue; }
	"$CORRAL" report --json "$T/e.$k" >"$T/e.$k.json" 2>"$T/e.$k.err"
	rc=$?
	if [ "$rc" != 0 ]; then
		fail "line $k edited: report exited $rc: $(head -c 200 "$T/e.$k.err")"
		continue
	fi
	got=$(jq -r '.chain.state + " " + (.chain.altered[0].line | tostring)' "$T/e.$k.json")
	expect_eq "$got" "broken $k" "line $k edited: chain state and first altered line"
	expect_eq "$(jq -r .counts.altered_lines "$T/e.$k.json")" 1 "line $k edited: lines marked"
	# the witness: corral verify names the same line
	"$CORRAL" verify "$T/e.$k" >"$T/v.$k" 2>&1
	grep -q "line $k: changed" "$T/v.$k" || fail "line $k edited: corral verify says $(head -c 200 "$T/v.$k")"
	grep -q "line $k: the digest chain is broken" "$T/e.$k.err" || fail "line $k edited: no note on stderr: $(cat "$T/e.$k.err")"
done
# the run is still shown: the tree of the journal as written (but times)
"$CORRAL" report --tree "$T/e.3" 2>/dev/null | sed -E 's/, -?[0-9.]+s\]$/]/' >"$T/tree.e3"
"$CORRAL" report --tree "$j" | sed -E 's/, [0-9.]+s\]$/]/' >"$T/tree.ok"
cmp -s "$T/tree.ok" "$T/tree.e3" || { fail "an edited line changed the tree"; diff "$T/tree.ok" "$T/tree.e3" >&2; }

RUN_LABEL="one line removed"
sed '3d' "$j" >"$T/removed"
"$CORRAL" report --json "$T/removed" >"$T/removed.json" 2>/dev/null
expect_eq "$?" 0 "report of a journal with a line removed"
expect_eq "$(jq -r '.chain.state + " " + (.chain.altered[0].line | tostring)' "$T/removed.json")" "broken 3" "removed line: the line after the gap"

RUN_LABEL="pipe"
cat "$j" | "$CORRAL" report - >"$T/pipe.out" 2>"$T/pipe.err"
expect_eq "$?" 0 "report from a pipe"
grep -q 'not checked (read from a pipe' "$T/pipe.err" || fail "pipe: no note: $(cat "$T/pipe.err")"

RUN_LABEL="--journal-key run"
head -c 32 /dev/urandom >"$T/key"
jk=$T/j.key
run -- "$CORRAL" run -q -j "$jk" --journal-key "$T/key" -- "$FIX/forktree" 1 1
expect_rc 0 "forktree with a journal key"
if j_valid "$jk"; then
	"$CORRAL" report --json "$jk" 2>/dev/null | jq -r .chain.state >"$T/k0"
	expect_eq "$(cat "$T/k0")" unchecked "a keyed run without --key"
	"$CORRAL" report --json --key "$T/key" "$jk" | jq -r .chain.state >"$T/k1"
	expect_eq "$(cat "$T/k1")" intact "a keyed run with --key"
	sed '2s/"t":/"t":1/' "$jk" >"$T/jk2"
	"$CORRAL" report --json --key "$T/key" "$T/jk2" 2>/dev/null |
		jq -r '.chain.state + " " + (.chain.altered[0].line | tostring)' >"$T/k2"
	expect_eq "$(cat "$T/k2")" "broken 2" "a keyed run, line 2 edited, with --key"
	head -c 32 /dev/urandom >"$T/otherkey"
	"$CORRAL" report --json --key "$T/otherkey" "$jk" 2>/dev/null | jq -r .chain.state >"$T/k3"
	expect_eq "$(cat "$T/k3")" broken "a keyed run checked with another key"
fi

RUN_LABEL="page"
"$CORRAL" report -q --html "$T/e.html" "$T/e.3" 2>/dev/null || fail "report --html of an edited journal"
grep -q '"chain":{"state":"broken","altered":\[{"line":3,"verdict":"changed"}\]' "$T/e.html" ||
	fail "the page's data does not carry the altered line"

done_test
