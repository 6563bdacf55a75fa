#!/usr/bin/env bash
# What failed, first (issue 25): every summary format (text, Markdown,
# JSON, the HTML's data) lists the failed, crashed, ended-by-corral and
# left-behind processes with argv, the directory they ran in, exit status,
# duration and lineage, failures first, at most 20 then a count.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture exit_with

mkdir -p "$T/sub dir"
RUN_LABEL="mixed run"
run -- "$CORRAL" run -q -j "$T/j" -- sh -c \
	'cd "$1" && $0/exit_with 3; $0/exit_with 0; sh -c "kill -SEGV \$\$"; sleep 30 & exit 0' "$FIX" "$T/sub dir"
expect_rc 0 "the command"
j_valid "$T/j" || done_test

"$CORRAL" report "$T/j" >"$T/text" || fail "report (text) failed"
# failures first: the list comes before "longest running"
expect_grep '^what failed \(3\):$' "$T/text" "text: the heading with the count"
got=$(sed -n '/^what failed/,/^$/p' "$T/text" | grep -E '^  [a-z]' | cut -d: -f1 | tr '\n' ',')
expect_eq "$got" "  crashed,  failed,  left behind," "text: crashed, then failed, then left behind"
expect_grep "^  failed: [0-9]+ $FIX/exit_with 3 \[exit 3 at [0-9.]+s, ran [0-9.]+s\]$" "$T/text" "text: argv, status, duration"
expect_grep "^      cwd: $T/sub dir$" "$T/text" "text: the directory it ran in"
expect_grep '^      lineage: [0-9]+ sh > [0-9]+ exit_with$' "$T/text" "text: lineage"
l1=$(grep -n '^what failed' "$T/text" | cut -d: -f1)
l2=$(grep -n '^longest running' "$T/text" | cut -d: -f1)
[ "${l1:-99}" -lt "${l2:-0}" ] || fail "text: what failed is not first"

"$CORRAL" report --format md "$T/j" >"$T/md" || fail "report (md) failed"
expect_grep '^### What failed \(3\)$' "$T/md" "md: the heading"
expect_grep "^- failed: [0-9]+ \`$FIX/exit_with 3\` \[exit 3 at [0-9.]+s, ran [0-9.]+s\] <br>cwd: \`$T/sub dir\` <br>lineage: " "$T/md" "md: the failed process"

"$CORRAL" report --json "$T/j" >"$T/json" || fail "report --json failed"
expect_eq "$(jq -c '[.failures[].how]' "$T/json")" '["crashed","failed","left behind"]' "json: failures, in order"
expect_eq "$(jq -c '.failures[1] | [.argv, .status, .cwd, (.duration > 0), (.lineage | length)]' "$T/json")" \
	"[[\"$FIX/exit_with\",\"3\"],3,\"$T/sub dir\",true,1]" "json: argv, status, cwd, duration, lineage"
expect_eq "$(jq -r '.failures[0].signal' "$T/json")" SIGSEGV "json: the crash's signal"
expect_eq "$(jq -r '.failures_more' "$T/json")" 0 "json: none more"

"$CORRAL" report -q --html "$T/h.html" "$T/j" || fail "report --html failed"
grep -q '"failures":\[{"pid":' "$T/h.html" || fail "html: the page's data has no failures list"
grep -q 'id="fails"' "$T/h.html" || fail "html: the page has no failures list"

# bounded: 25 failures, 20 listed, then a count
RUN_LABEL="25 failures"
run -- "$CORRAL" run -q -j "$T/j25" -- sh -c 'for i in $(seq 25); do $0/exit_with 1; done; exit 0' "$FIX"
"$CORRAL" report "$T/j25" >"$T/t25"
expect_grep '^what failed \(25\):$' "$T/t25" "text: the count"
expect_eq "$(grep -c '^  failed: ' "$T/t25")" 20 "text: 20 listed"
expect_grep '^  \.\.\. and 5 more$' "$T/t25" "text: the rest counted"
"$CORRAL" report --json "$T/j25" >"$T/j25.json"
expect_eq "$(jq -c '[(.failures | length), .failures_more]' "$T/j25.json")" "[20,5]" "json: 20 listed, 5 more"
done_test
