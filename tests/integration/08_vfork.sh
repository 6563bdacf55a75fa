#!/usr/bin/env bash
# vfork: journaled as vfork; a vfork child that never execs (and exits), and
# one that execs.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture vfork_noexec

RUN_LABEL="vfork, no exec"
j=$T/j.noexec
run -- "$CORRAL" run -q -j "$j" -- "$FIX/vfork_noexec" exit 50
expect_rc 7 "vfork_noexec exit 50"
expect_grep '^STATUS 7$' "$OUTF" "vfork_noexec output"
child=$(sed -n 's/^CHILD \([0-9]*\)$/\1/p' "$OUTF")
if j_valid "$j"; then
	p=$(jq -r 'select(.event == "exec") | .pid' "$j" | head -n 1)
	j_expect "$j" ".event == \"vfork\" and .ppid == $p and .pid == ${child:-0}" 1 "vfork event"
	j_expect "$j" ".event == \"exit\" and .pid == ${child:-0} and .status == 7" 1 "exit of the vfork child"
	j_expect "$j" '.event == "exec"' 1 "exec events"
	j_expect_end "$j" processes 2
fi

RUN_LABEL="vfork + exec"
j=$T/j.exec
run -- "$CORRAL" run -q -j "$j" -- "$FIX/vfork_noexec" exec /bin/echo vforked
expect_rc 0 "vfork_noexec exec /bin/echo"
expect_grep '^vforked$' "$OUTF" "echo ran"
if j_valid "$j"; then
	j_expect "$j" '.event == "vfork"' 1 "vfork event"
	j_check "$j" '([.[] | select(.event == "vfork")][0].pid) as $c | [.[] | select(.event == "exec" and .pid == $c)] | length == 1 and .[0].argv == ["/bin/echo", "vforked"]' "exec by the vfork child"
fi

RUN_LABEL="posix_spawn"
# posix_spawn (clone(CLONE_VM|CLONE_VFORK)) as used by many programs
j=$T/j.spawn
py=$(command -v /usr/bin/python3 python3 | head -n 1)
run -- "$CORRAL" run -q -j "$j" -- "$py" -c 'import os, sys; pid = os.posix_spawn("/bin/true", ["/bin/true"], os.environ); sys.exit(os.waitpid(pid, 0)[1] >> 8)'
expect_rc 0 "posix_spawn"
if j_valid "$j"; then
	j_expect "$j" '.event == "exec" and .argv == ["/bin/true"]' 1 "exec of the spawned /bin/true"
	# posix_spawn is clone(CLONE_VM|CLONE_VFORK): the kernel reports a vfork
	j_check "$j" '[.[] | select(.event == "exec" and .argv == ["/bin/true"])][0].pid as $c | [.[] | select(.pid == $c and (.event == "vfork" or .event == "clone" or .event == "fork"))] | length == 1 and .[0].event == "vfork"' "the spawned child is created by a vfork event"
fi

done_test
