#!/usr/bin/env bash
# Forensics: SIGUSR1 to corral writes one `snapshot` event listing exactly
# the live members of the tree (the pids the journal's fork/exec events
# created and that have not exited), each with ppid, state, threads, path,
# argv, cwd and fds. With --stacks snapshot, one `stack` event per thread
# follows (why=snapshot); without it, none. Either way the command keeps
# running afterwards and finishes normally (exit 0), and nothing survives.
#
# The tree: sh, stack_hang 3 (4 threads, parked) and three sleepers
# (stack_hang 0: one thread, parked). Each says "ready" on a fifo that sh
# reads, from inside its parking function, so every member has exec'd and is
# parked when sh prints "READY <pids>"; sh then waits for a line on stdin.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture stack_hang

HANG=$(readlink -f "$FIX/stack_hang")
W=$T/work
mkdir -p "$W"
W=$(readlink -f "$W")
cd "$W" || exit 1

TREE='
mkfifo "$1" || exit 1
"$2" 3 >"$1" & h=$!
read -r r <"$1"
"$2" 0 >"$1" & a=$!
read -r r <"$1"
"$2" 0 >"$1" & b=$!
read -r r <"$1"
"$2" 0 >"$1" & c=$!
read -r r <"$1"
echo "READY $h $a $b $c"
read -r line
kill $h $a $b $c
wait
echo "done $line"'

# wait_journal J FILTER WHAT: until an event matching FILTER is in J. The
# journal is a file: this polls it (bounded), it does not sleep in place of
# a readiness signal.
wait_journal() {
	local until=$(($(now_us) + 10000000))
	while [ "$(j_count "$1" "$2")" = 0 ]; do
		if [ "$(now_us)" -ge "$until" ]; then
			fail "$3: not in the journal within 10s"
			return 1
		fi
		sleep 0.02
	done
}

for with in no yes; do
	RUN_LABEL="snapshot, stacks $with"
	j=$T/j.$with
	in=$T/in.$with
	mkfifo "$in"
	opts=()
	[ $with = yes ] && opts=(--stacks snapshot)
	start -i "$in" -- "$CORRAL" run -q -j "$j" ${opts[@]+"${opts[@]}"} -- sh -c "$TREE" sh "$W/h.$with" "$FIX/stack_hang"
	exec {IN}>"$in"
	if ! await '^READY [0-9]+ [0-9]+ [0-9]+ [0-9]+$'; then
		exec {IN}>&-
		finish 5
		end_run
		continue
	fi
	read -r _ h a b c <<<"$MATCH"
	kill -USR1 "$PID"
	wait_journal "$j" '.event == "snapshot"' "snapshot event"
	echo go >&"$IN"
	exec {IN}>&-
	finish
	expect_rc 0 "the command after the snapshot"
	if j_valid "$j"; then
		j_expect "$j" '.event == "snapshot"' 1 "snapshot events"
		sh_pid=$(jq -r 'select(.event == "exec") | .pid' "$j" | head -n 1)
		corral_pid=$(j_start "$j" pid)
		# live processes when the snapshot was written, from the journal
		live=$(jq -r -s '
			(map(.event) | index("snapshot")) as $s
			| .[0:$s] as $before
			| [$before[] | select(.event == "fork" or .event == "vfork" or .event == "clone" or .event == "exec") | .pid] - [$before[] | select(.event == "exit") | .pid]
			| unique | .[]' "$j" | tr '\n' ' ')
		members=$(jq -r 'select(.event == "snapshot") | [.members[].pid] | sort | .[]' "$j" | tr '\n' ' ')
		want=$(printf '%s\n' "$sh_pid" "$h" "$a" "$b" "$c" | sort -n | tr '\n' ' ')
		expect_eq "$members" "$live" "snapshot members vs live pids from the journal"
		expect_eq "$members" "$want" "snapshot members vs the tree's own pids"
		# one object per member with every key, right values
		bad=$(jq -r --argjson sh "$sh_pid" --argjson h "$h" --argjson cp "$corral_pid" \
			--arg hang "$HANG" --arg w "$W" --arg in "$(readlink -f "$in")" --arg hf "$W/h.$with" '
			select(.event == "snapshot") | .members[] | . as $m
			| [ (["pid", "ppid", "state", "threads", "path", "argv", "cwd", "fds"] - keys | select(length > 0) | "missing \(.)"),
			    (if (.state | type) != "string" or (.state | length) != 1 then "state \(.state)" else empty end),
			    (if .cwd != $w then "cwd \(.cwd)" else empty end),
			    (if (.fds | type) != "object" or (.fds | has("0") and has("1") and has("2") | not) then "fds \(.fds)" else empty end),
			    (if .pid == $sh then
			        (if .argv[0:2] != ["sh", "-c"] then "argv \(.argv)" else empty end),
			        (if .ppid != $cp then "ppid \(.ppid) (corral is \($cp))" else empty end),
			        (if .fds["0"] != $in then "stdin \(.fds["0"])" else empty end),
			        (if .threads != 1 then "threads \(.threads)" else empty end)
			     elif .pid == $h then
			        (if .argv[1:] != ["3"] or .path != $hang then "argv \(.argv) path \(.path)" else empty end),
			        (if .ppid != $sh then "ppid \(.ppid)" else empty end),
			        (if .threads != 4 then "threads \(.threads), expected 4" else empty end),
			        (if .fds["1"] != $hf then "stdout \(.fds["1"])" else empty end)
			     else
			        (if .argv[1:] != ["0"] or .path != $hang then "argv \(.argv) path \(.path)" else empty end),
			        (if .ppid != $sh then "ppid \(.ppid)" else empty end),
			        (if .threads != 1 then "threads \(.threads)" else empty end),
			        (if .fds["1"] != $hf then "stdout \(.fds["1"])" else empty end)
			     end) ]
			| select(length > 0) | "pid \($m.pid): \(join(", "))"' "$j")
		[ -z "$bad" ] || fail "snapshot members: $(echo "$bad" | head -n 5)"
		if [ $with = yes ]; then
			# 1 (sh) + 4 (stack_hang) + 3 sleepers, after the snapshot
			j_expect "$j" '.event == "stack" and .why == "snapshot"' 8 "why=snapshot stack events"
			j_expect "$j" '.event == "stack"' 8 "stack events in all"
			j_check "$j" '(map(.event) | index("snapshot")) < (map(.event) | index("stack"))' "stacks follow the snapshot"
			j_expect "$j" ".event == \"stack\" and .tgid == $h and (.frames | map(.func) | index(\"corral_fixture_hang_here\")) != null" 3 \
				"snapshot stacks of stack_hang's workers"
			j_expect "$j" ".event == \"stack\" and .tgid == $h and (.frames | map(.func) | index(\"corral_fixture_main_parked\")) != null" 1 \
				"snapshot stack of stack_hang's main thread"
			j_expect "$j" ".event == \"stack\" and (.frames | map(.func) | index(\"corral_fixture_main_parked\")) != null" 4 \
				"snapshot stacks of the main threads of the four stack_hang"
			got=$(jq -r 'select(.event == "stack") | .tgid' "$j" | sort -un | tr '\n' ' ')
			expect_eq "$got" "$want" "processes with snapshot stacks"
		else
			j_expect "$j" '.event == "stack"' 0 "stack events without --stacks snapshot"
		fi
		j_expect_end "$j" reason none
		j_expect_end "$j" exit_code 0
		j_expect_end "$j" survivors 0
		j_expect_end "$j" left 0
	fi
	end_run
	expect_grep '^done go$' "$OUTF" "the command ran on after the snapshot"
	rm -f "$in" "$W/h.$with"
done
cd / || exit 1

done_test
