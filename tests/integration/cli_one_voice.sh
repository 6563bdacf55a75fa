#!/usr/bin/env bash
# Smaller defects of issue 25: report --html to an unwritable path says
# so and prints no summary after it (exit 125); verify says an unknown
# option as every sub-command does (exit 125); `corral -t 5 make` points
# at `corral run`; verify on a cut journal gives no empty head line.
# Every sub-command refuses a bad option, a missing argument and a
# missing operand in the same words and with 125 (docs/cli.md,
# "Conventions"); an unknown sub-command points at `corral run`.
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
expect_grep "^corral: verify: unrecognized option '--frobnicate'$" "$T/err" "verify's message"
grep -q '^Usage' "$T/err" && fail "verify printed its whole help for one bad option"

# a journal cut in its middle: no empty "head " line
head -c "$(($(stat -c %s "$T/j") - 20))" "$T/j" >"$T/cut"
"$CORRAL" verify "$T/cut" >"$T/out" 2>&1
grep -q '^head $' "$T/out" && fail "verify prints an empty head line on a cut journal"
expect_grep '^head: none ' "$T/out" "verify says there is no head"

"$CORRAL" -t 5 make >"$T/out" 2>"$T/err"
expect_eq "$?" 125 "corral -t 5 make: exit status"
expect_grep "corral run -t" "$T/err" "a hint toward corral run"
# the same words, the same hint, 125, from every sub-command
one_voice() { # SUB MESSAGE ARGS...
	local sub=$1 msg=$2
	shift 2
	"$CORRAL" "$sub" "$@" >"$T/out" 2>"$T/err"
	expect_eq "$?" 125 "corral $sub $*: exit status"
	expect_grep "^corral: $sub: $msg\$" "$T/err" "corral $sub $*: message"
	expect_grep "^Try 'corral $sub --help' for more information\.\$" "$T/err" "corral $sub $*: hint"
	[ -s "$T/out" ] && fail "corral $sub $*: wrote to stdout: $(head -c 200 "$T/out")"
	grep -q '^Usage' "$T/err" && fail "corral $sub $*: printed its whole help"
	return 0
}
for sub in ps probe report verify; do
	one_voice "$sub" "unrecognized option '--frob'" --frob "$T/j"
	one_voice "$sub" "invalid option -- 'Z'" -Z "$T/j"
done
one_voice report "option '--html' requires an argument" --html
one_voice report "option '--tree' doesn't allow an argument" --tree=yes "$T/j"
one_voice verify "option '--key' requires an argument" --key
one_voice probe "option '--bwrap' requires an argument" --bwrap
one_voice ps "option '--json' doesn't allow an argument" --json=1
one_voice report "which journal\\? \\(- for stdin\\)"
one_voice verify "which journal\\? \\(- for stdin\\)"
one_voice verify "one journal only" "$T/j" "$T/j"
one_voice ps "one PID only" 1 2

"$CORRAL" frobnicate -x >"$T/out" 2>"$T/err"
expect_eq "$?" 125 "an unknown sub-command: exit status"
expect_grep "^corral: unknown command 'frobnicate' \\(to run a program: corral run frobnicate \\.\\.\\.\\)$" "$T/err" "a hint toward corral run"
done_test
