#!/usr/bin/env bash
# Smaller defects of issue 25: report --html to an unwritable path says
# so and prints no summary after it (exit 125); verify says an unknown
# option as every sub-command does (exit 125); `corral -t 5 make` points
# at `corral run`; verify on a cut journal gives no empty head line.
. "$(dirname "$0")/lib.sh"
need_corral

run -- "$CORRAL" run -q -j "$T/j" -- true
"$CORRAL" report --html /proc/nope/r.html "$T/j" >"$T/out" 2>"$T/err"
rc=$?
expect_eq "$rc" 125 "report --html to an unwritable path: exit status"
[ -s "$T/out" ] && fail "report printed the summary after the write error: $(head -c 200 "$T/out")"
expect_grep '^corral: report: cannot write: ' "$T/err" "the error"

"$CORRAL" verify --frobnicate "$T/j" >"$T/out" 2>"$T/err"
expect_eq "$?" 125 "verify with an unknown option: exit status"
expect_grep "^corral verify: unrecognized option '--frobnicate'$" "$T/err" "verify's message"
grep -q '^Usage' "$T/err" && fail "verify printed its whole help for one bad option"

# a journal cut in its middle: no empty "head " line
head -c "$(($(stat -c %s "$T/j") - 20))" "$T/j" >"$T/cut"
"$CORRAL" verify "$T/cut" >"$T/out" 2>&1
grep -q '^head $' "$T/out" && fail "verify prints an empty head line on a cut journal"
expect_grep '^head: none ' "$T/out" "verify says there is no head"

"$CORRAL" -t 5 make >"$T/out" 2>"$T/err"
expect_eq "$?" 125 "corral -t 5 make: exit status"
expect_grep "corral run -t" "$T/err" "a hint toward corral run"
done_test
