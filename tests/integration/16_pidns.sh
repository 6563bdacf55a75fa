#!/usr/bin/env bash
# A new PID namespace inside the tree: its init and members are journaled
# with host pids.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture pidns

RUN_LABEL=untraced
run -- "$FIX/pidns" 1
[ "$RC" = 3 ] && skip_test "no PID namespaces here: $(cat "$ERRF")"
RUN_LABEL=

j=$T/j
run -- "$CORRAL" run -q -j "$j" -- "$FIX/pidns" 3
expect_rc 0 "pidns 3"
read -r _ init nspid < <(grep '^INIT ' "$OUTF")
expect_eq "${nspid:-}" 1 "the init's pid in its namespace"
if j_valid "$j" && [ -n "${init:-}" ]; then
	j_expect "$j" ".event == \"fork\" and .pid == $init" 1 "fork event of the init (host pid $init)"
	j_expect "$j" ".event == \"fork\" and .ppid == $init" 3 "members forked by the init"
	j_expect "$j" '.event == "exit"' 5 "exit events"
	j_expect_end "$j" processes 5
	j_expect_end "$j" survivors 0
fi

done_test
