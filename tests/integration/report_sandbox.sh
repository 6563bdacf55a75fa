#!/usr/bin/env bash
# A --sandbox run as the user sees it (issue 25): the root row of the tree
# is the user's command (bwrap's command line stays in the journal and the
# HTML details), the command is never marked (setup), and bubblewrap's own
# processes, which end as designed when the command does (its PID 1 is
# often SIGKILLed by --die-with-parent), are never counted "ended by
# corral" nor "left behind": the summary, the end line and the exit status
# say the same. Three runs: the SIGKILL of bwrap's PID 1 comes in some.
. "$(dirname "$0")/lib.sh"
need_corral

if ! "$CORRAL" probe >"$T/probe" 2>&1; then
	skip_test "the sandbox is not usable here: $(tr '\n' ' ' <"$T/probe")"
fi
WS=$T/ws
mkdir -p "$WS"
[ "$(id -u)" = 0 ] && chown nobody "$WS"

CMD=(sh -c 'echo hi; /bin/true')
root_re="^[0-9]+ \\(sandbox\\) sh -c 'echo hi; /bin/true' \\[exit 0, [0-9.]+s\\]$"
for i in 1 2 3; do
	RUN_LABEL="run $i"
	j=$T/j.$i
	run -- "$CORRAL" run --tree -j "$j" --sandbox --workspace "$WS" -- "${CMD[@]}"
	expect_rc 0 "the command in the sandbox"
	j_valid "$j" || continue
	j_expect_end "$j" left 0
	grep -E '^[|` ]*([|`]- )?[0-9]+ ' "$ERRF" >"$T/live.$i"
	expect_grep "$root_re" "$T/live.$i" "live tree: the root row is the user's command"
	grep -q "(setup) sh" "$T/live.$i" && fail "live tree: the command is marked (setup)"
	grep -q 'left behind' "$ERRF" && fail "corral says something was left behind"
	"$CORRAL" report --tree "$j" >"$T/rep.$i"
	expect_grep "$root_re" "$T/rep.$i" "report tree: the root row is the user's command"
	grep -q "(setup) sh" "$T/rep.$i" && fail "report tree: the command is marked (setup)"
	"$CORRAL" report "$j" >"$T/sum.$i"
	expect_grep ' 0 failed, 0 left behind, 0 ended by corral, 0 crashed$' "$T/sum.$i" "summary: nothing ended by corral or left behind"
	grep -q '^what failed' "$T/sum.$i" && fail "summary: bubblewrap's processes listed as failures"
	"$CORRAL" report --json "$j" >"$T/json.$i"
	expect_eq "$(jq -c '.counts | [.killed_by_corral, .left, .failed, .ok, .setup]' "$T/json.$i")" "[0,0,0,4,2]" "json counts"
	# bwrap's command line is in the journal (and the HTML details)
	expect_eq "$(jq -r 'select(.event == "exec" and .setup == true) | .argv[0]' "$j" | head -n 1 | xargs basename)" bwrap "journal: bwrap's exec"
done
done_test
