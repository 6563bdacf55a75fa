#!/usr/bin/env bash
# The HTML timeline answers "what failed" (issue 25): its legend filters
# by outcome and its text filter matches how a process ended. Driven in
# headless Chromium like a person: real mouse clicks on the legend (the
# DevTools protocol, report_html_click.py), then the rows shown are
# counted (the page exposes them as data-bars on <body>). Rows that
# failed, crashed or were left behind come before their siblings that
# exited 0.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture exit_with
command -v chromium >/dev/null || skip_test "chromium is missing (make deps installs it)"

# 6 processes: sh, two that exit 3, one that exits 0, one crash, one left
run -- "$CORRAL" run -q -j "$T/j" -- sh -c \
	'$0/exit_with 3; $0/exit_with 3; $0/exit_with 0; sh -c "kill -SEGV \$\$"; sleep 30 & exit 0' "$FIX"
expect_rc 0 "the command"
j_valid "$T/j" || done_test
"$CORRAL" report -q --html "$T/r.html" "$T/j" || fail "report --html failed"
chmod -R a+rX "$T"

cat >"$T/steps.json" <<'J'
[["attr", "bars"],
 ["eval", "order", "rows.map(i => procs[i][P.how]).join(',')"],
 ["click", ".lg[data-how=\"1\"]"], ["attr", "bars"],
 ["click", ".lg[data-how=\"3\"]"], ["attr", "bars"],
 ["click", ".lg[data-how=\"1\"]"], ["click", ".lg[data-how=\"3\"]"], ["attr", "bars"],
 ["type", "#filter", "exit 3"], ["attr", "bars"],
 ["type", "#filter", "sigsegv"], ["attr", "bars"],
 ["eval", "stats", "document.getElementById('stats').textContent"]]
J
if ! timeout -k 5 150 python3 "$ROOT/tests/integration/report_html_click.py" "$T/r.html" "$T/steps.json" >"$T/clicks" 2>&1; then
	fail "driving chromium failed: $(tail -3 "$T/clicks")"
	done_test
fi
mapfile -t bars < <(sed -n 's/^bars=//p' "$T/clicks")
expect_eq "${bars[0]:-}" 6 "all rows before a click"
expect_eq "${bars[1]:-}" 2 "rows after clicking 'failed' (the two exit 3)"
expect_eq "${bars[2]:-}" 3 "rows after adding 'crashed'"
expect_eq "${bars[3]:-}" 6 "rows after both clicked again"
expect_eq "${bars[4]:-}" 2 "rows matching the text 'exit 3'"
expect_eq "${bars[5]:-}" 1 "rows matching the text 'sigsegv'"
# important rows above the fold: the root, then its children that failed,
# crashed or were left behind, then the one that exited 0 (it was born
# before the crash and the sleep)
expect_eq "$(sed -n 's/^order=//p' "$T/clicks")" '"0,1,1,3,4,0"' "rows' outcomes, top to bottom"
# the header in words, as the text summary says it (no "exit code 0
# (exited)", no "ending exited at")
stats=$(sed -n 's/^stats=//p' "$T/clicks")
case $stats in
*"corral exited 0; the command exited with status 0 and left processes behind"*) ;;
*) fail "the header's result is not in words: $stats" ;;
esac
case $stats in
*"the tree was ended from "*" because the command exited and left processes behind"*) ;;
*) fail "the header's ending is not in words: $stats" ;;
esac
done_test
