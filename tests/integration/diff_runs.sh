#!/usr/bin/env bash
# diff_runs.sh - corral diff on pairs of real runs of one job (docs/diff.md):
#   - two runs of the same job: "no difference", exit 0, whatever the pids
#     and times;
#   - a run where one child fails (exit 3) and one process is extra (cat):
#     exit 1, the child in `changed` (end 0 against 3), cat in `only_b`,
#     nothing in `only_a`; text and Markdown name both;
#   - what is not built yet (more than two runs, --html) exits 2 and says so.
. "$(dirname "$0")/lib.sh"
need_corral
JOB='sh -c "exit ${CODE:-0}"; [ -z "$EXTRA" ] || cat /dev/null; exit 0'

for r in p1 p2; do
	run -- "$CORRAL" run -q -j "$T/$r" -- sh -c "$JOB"
	expect_rc 0 "passing run $r"
done
RUN_LABEL="failing run"
run -- env CODE=3 EXTRA=1 "$CORRAL" run -q -j "$T/f1" -- sh -c "$JOB"
expect_rc 0 "the failing run (its child fails, the job does not)"

RUN_LABEL="identical"
"$CORRAL" diff "$T/p1" "$T/p2" >"$T/same.out" 2>&1
expect_eq "$?" 0 "diff of two identical runs"
expect_grep '^no difference' "$T/same.out" "says no difference"

RUN_LABEL="different"
"$CORRAL" diff --json "$T/p1" "$T/f1" >"$T/d.json" 2>"$T/d.err"
expect_eq "$?" 1 "diff of a failing run"
got=$(gojq -c '[.differs, (.only_a | length), [.only_b[].argv], [.changed[] | [.argv, .a.status, .b.status]]]' "$T/d.json" 2>&1)
expect_eq "$got" '[true,0,[["cat","/dev/null"]],[[["sh","-c","exit 0"],0,3]]]' "json: exactly the extra process and the failing child"
"$CORRAL" diff "$T/p1" "$T/f1" >"$T/d.txt" 2>&1
expect_grep '^only in B \(1\)' "$T/d.txt" "text: only in B"
expect_grep 'A: exit 0.*B: exit 3' "$T/d.txt" "text: the child's two ends"
"$CORRAL" diff --format md "$T/p1" "$T/f1" >"$T/d.md" 2>&1
expect_grep 'cat /dev/null' "$T/d.md" "md: the extra process"

RUN_LABEL="not built yet"
"$CORRAL" diff "$T/p1" "$T/p2" "$T/f1" >"$T/n.out" 2>&1
expect_eq "$?" 2 "three runs"
expect_grep 'not built yet' "$T/n.out" "says so"
"$CORRAL" diff --html "$T/o.html" "$T/p1" "$T/f1" >"$T/h.out" 2>&1
expect_eq "$?" 2 "--html"
[ -e "$T/o.html" ] && fail "--html wrote a page"

done_test
