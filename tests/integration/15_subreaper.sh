#!/usr/bin/env bash
# A member that makes itself a child subreaper: its orphans are reparented
# to it, inside the tree; all are journaled.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture subreaper

j=$T/j
run -- "$CORRAL" run -q -j "$j" -- "$FIX/subreaper"
expect_rc 0 "subreaper"
cmdpid=
if j_valid "$j"; then
	cmdpid=$(jq -r 'select(.event == "exec") | .pid' "$j" | head -n 1)
	j_expect_end "$j" processes 3
	j_expect_end "$j" left 0
	j_expect_end "$j" survivors 0
	o=$(sed -n 's/^READY \([0-9]*\)$/\1/p' "$OUTF")
	j_expect "$j" ".event == \"exit\" and .pid == ${o:-0} and .signal == \"SIGTERM\"" 1 "the orphan's end"
fi
expect_grep "^ORPHAN [0-9]+ ${cmdpid:-x}\$" "$OUTF" "orphan reparented to the subreaper"
expect_grep '^REAPED 143$' "$OUTF" "the subreaper reaped the orphan"

# without the subreaper the orphan goes out of the tree's lineage; corral
# still knows it
RUN_LABEL="-n"
j=$T/j.n
run -- "$CORRAL" run -q -j "$j" -- "$FIX/subreaper" -n
expect_rc 0 "subreaper -n"
if j_valid "$j"; then
	j_expect_end "$j" processes 3
	o=$(sed -n 's/^READY \([0-9]*\)$/\1/p' "$OUTF")
	j_expect "$j" ".event == \"exit\" and .pid == ${o:-0}" 1 "the orphan's end"
fi

done_test
