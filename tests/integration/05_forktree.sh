#!/usr/bin/env bash
# A fork tree of depth 3 and fan-out 3 (40 members) whose 27 leaves exec
# /bin/true: the journal has every fork and every exec, with the right
# parents, and the end counts are right.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture forktree

j=$T/j
run -- "$CORRAL" run -q -j "$j" -- "$FIX/forktree" 3 3 /bin/true
expect_rc 0 "forktree 3 3 /bin/true"
expect_grep '^DONE 40$' "$OUTF" "forktree output"
expect_eq "$(grep -c '^member ' "$OUTF")" 40 "members printed"

if j_valid "$j"; then
	root=$(jq -r 'select(.event == "exec") | .pid' "$j" | head -n 1)
	j_expect "$j" '.event == "fork"' 39 "fork events"
	j_expect "$j" '.event == "exec"' 28 "exec events (forktree + 27 leaves)"
	j_expect "$j" '.event == "exec" and (.argv == ["/bin/true"])' 27 "exec of /bin/true"
	j_expect "$j" ".event == \"fork\" and .ppid == $root" 3 "children of the root"
	j_expect "$j" '.event == "exit" and .status == 0' 40 "exit events with status 0"
	j_expect_end "$j" processes 40
	j_expect_end "$j" execs 28
	j_expect_end "$j" threads 0
	j_expect_end "$j" left 0
	j_expect_end "$j" survivors 0
	# every parent is known before its child's fork event; pids are unique
	j_check "$j" '[.[] | select(.event == "exec")][0].pid as $r
		| reduce (.[] | select(.event == "fork")) as $f ({known: [$r], ok: true};
			.ok = (.ok and (.known | index([$f.ppid]) != null) and (.known | index([$f.pid]) == null))
			| .known += [$f.pid]) | .ok' "fork parents known, pids unique"
	j_check "$j" '[.[] | select(.event == "fork")] | all(.pid == .tgid)' "fork: pid == tgid"
	# every exec'd pid is a member
	j_check "$j" '([.[] | select(.event == "fork") | .pid] + [[.[] | select(.event == "exec")][0].pid]) as $m
		| [.[] | select(.event == "exec") | .pid] | all(. as $p | $m | index([$p]) != null)' "exec by members"
fi

done_test
