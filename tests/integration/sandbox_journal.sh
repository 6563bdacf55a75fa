#!/usr/bin/env bash
# sandbox_journal.sh - in sandbox mode the journal tells bubblewrap's setup
# apart from the command (docs/journal.md):
#   - bwrap's exec is the first exec and the only one marked setup:true;
#   - the setup processes (bwrap, its PID 1, the fork that becomes the
#     command, until its exec) carry setup:true; the command's exec and
#     everything after it about the command's tree carry no setup;
#   - every task inside the sandbox carries nspid (PID 1 for bwrap's init,
#     2 for the command, more for its children), one nspid per task;
#   - the exit status of the command comes through bwrap;
#   - (spec) bubblewrap's own PID 1, still exiting when bwrap's monitor
#     exits, is not "left behind by the command": no `left` event for a
#     setup process, end.left counts only the command's leftovers, and no
#     "left behind" message when the command left nothing.
. "$(dirname "$0")/lib.sh"
need_corral

if ! "$CORRAL" probe >"$T/probe" 2>&1; then
	skip_test "the sandbox is not usable here: $(tr '\n' ' ' <"$T/probe")"
fi
WS=$T/ws
mkdir -p "$WS"
# As root the sandbox runs as the workspace's owner (docs/sandbox.md, "Root
# callers"): give it to nobody, so the run takes the unprivileged spawn path.
[ "$(id -u)" = 0 ] && chown nobody "$WS"

# --- setup / nspid marks ---------------------------------------------------
RUN_LABEL="marks"
j=$T/j.marks
CMD=(/bin/sh -c '/bin/true; /bin/sh -c "exit 0"; echo done; true')
run -- "$CORRAL" run -j "$j" --sandbox --workspace "$WS" -- "${CMD[@]}"
expect_rc 0 "a small tree in the sandbox"
expect_grep '^done$' "$OUTF" "the command's output"
if j_valid "$j"; then
	j_expect_end "$j" exit_code 0
	j_expect_end "$j" survivors 0
	root=$(jq -r 'select(.event == "exec") | .pid' "$j" | head -n 1)
	cmdpid=$(jq -r --argjson c "$(printf '%s\n' "${CMD[@]}" | jq -R . | jq -s .)" \
		'select(.event == "exec" and .argv == $c) | .pid' "$j" | head -n 1)
	if [ -z "$root" ] || [ -z "$cmdpid" ]; then
		fail "journal: no exec of bwrap ($root) or of the command ($cmdpid)"
		show_journal "$j"
	else
		A="--argjson root $root --argjson cmd $cmdpid"
		# shellcheck disable=SC2086
		jc() { local r; r=$(jq -s $A "$1" "$j" 2>&1); [ "$r" = true ] || { fail "$2: '$1' is $r"; return 1; }; }
		jc '[.[] | select(.event == "exec")][0] | .setup == true and .pid == $root and (.path | test("bwrap$")) and (.argv | index("--seccomp") != null)' \
			"the first exec is bwrap's, marked setup, with the seccomp policy"
		jc '[.[] | select(.event == "exec" and .setup == true)] | length == 1' \
			"exactly one exec marked setup (bwrap's)"
		jc '[.[] | select(.event == "exec" and .pid == $cmd)] | length == 1 and (.[0] | (has("setup") | not) and .nspid == 2)' \
			"the command's exec: no setup key, nspid 2"
		jc '[.[] | select((.event == "fork" or .event == "clone") and .ppid == $root)] | length == 1 and (.[0] | .setup == true and .nspid == 1)' \
			"bwrap's PID 1: one child of bwrap, setup, nspid 1"
		jc '[.[] | select((.event == "fork" or .event == "clone") and .pid == $cmd)] | length == 1 and (.[0] | .setup == true and .nspid == 2)' \
			"the fork that becomes the command: setup, nspid 2"
		# after the command's exec, nothing of the command's tree is setup
		jc '(map(.event == "exec" and .pid == $cmd) | index(true)) as $x | [.[$x:][] | select(.pid != null and .pid != $root and .nspid != 1 and .setup == true)] | length == 0' \
			"no setup mark on the command's tree after its exec"
		jc '[.[] | select((.event == "fork" or .event == "vfork" or .event == "clone") and .ppid == $cmd)] | length >= 2 and all(.[]; (has("setup") | not) and .nspid >= 3)' \
			"the command's children: no setup, nspid >= 3"
		jc '[.[] | select(.event != "start" and .event != "end" and .event != "ending" and .pid != null and .pid != $root)] | all(.[]; (.nspid | type) == "number" and .nspid >= 1)' \
			"every event of a task inside the sandbox carries nspid"
		jc '[.[] | select(.nspid != null) | [.pid, .nspid]] | unique | group_by(.[0]) | all(.[]; length == 1)' \
			"one nspid per task"
		jc '[.[] | select(.setup == true and .pid != $root and .pid != $cmd and .nspid != 1)] | length == 0' \
			"setup marks only on bwrap, its PID 1 and the command's fork"
	fi
fi

# --- the command's exit status through bwrap -------------------------------
RUN_LABEL="exit status"
run -- "$CORRAL" run -q --sandbox --workspace "$WS" -- /bin/sh -c 'exit 7'
expect_rc 7 "sh -c 'exit 7' in the sandbox"
run -- "$CORRAL" run -q --sandbox --workspace "$WS" -- /bin/sh -c 'kill -KILL $$'
expect_rc 137 "a command killed by SIGKILL in the sandbox"

# --- (spec) bwrap's PID 1 is not left behind by the command ----------------
RUN_LABEL="no leftovers"
j=$T/j.true
run -- "$CORRAL" run -j "$j" --sandbox --workspace "$WS" -- /bin/true
expect_rc 0 "/bin/true in the sandbox"
if grep -q 'left behind' "$ERRF"; then
	fail "corral says something was left behind by /bin/true: $(grep 'left behind' "$ERRF")"
fi
if j_valid "$j"; then
	j_expect "$j" '.event == "left" and .setup == true' 0 "left events for bubblewrap's setup processes"
	j_expect_end "$j" left 0
	j_expect_end "$j" survivors 0
fi

RUN_LABEL="one leftover"
j=$T/j.left
run -- "$CORRAL" run -j "$j" --sandbox --workspace "$WS" -- /bin/sh -c 'sleep 1000 & echo started'
expect_rc 0 "sh leaving a sleep behind in the sandbox"
if j_valid "$j"; then
	j_expect "$j" '.event == "left" and (.setup | not)' 1 "left events for the command's leftover"
	j_expect "$j" '.event == "left" and .setup == true' 0 "left events for bubblewrap's setup processes"
	j_expect_end "$j" left 1
	j_expect_end "$j" survivors 0
fi
expect_grep '1 process left behind' "$ERRF" "the message counts the command's leftover only"

done_test
