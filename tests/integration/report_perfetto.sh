#!/usr/bin/env bash
# corral report --perfetto writes a Chrome trace-event file that follows
# the format (report_check_trace.py: the fields each phase needs, one pid
# per tid, named tracks, nested slices, paired flows bound inside slices)
# and holds what the journal holds (processes, execs, signals, stacks,
# escapes), for a real run with forks, threads, an escape and a timeout
# with stacks, for a journal where the kernel reused pids, and for a
# synthetic storm journal.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture forktree threads fx_escape stack_hang
CHECK=$LIB_DIR/report_check_trace.py

RUN_LABEL="real run"
j=$T/j.real
run -- "$CORRAL" run -q -j "$j" -t 1 --stacks timeout --escape log -- \
	sh -c '$0/forktree 1 2 >/dev/null; $0/threads 2 >/dev/null; $0/fx_escape setsid >/dev/null; $0/stack_hang >/dev/null' "$FIX"
expect_rc 124 "run ended by its timeout"
if j_valid "$j"; then
	[ "$(j_count "$j" '.event == "escape"')" -ge 1 ] || fail "the run has no escape event to show"
	[ "$(j_count "$j" '.event == "stack"')" -ge 1 ] || fail "the run has no stack event to show"
	if "$CORRAL" report -q --perfetto "$T/trace.json" "$j" 2>"$T/rep.err"; then
		python3 "$CHECK" "$T/trace.json" "$j" >"$T/check" 2>&1 || { fail "trace check failed"; cat "$T/check" >&2; }
		# a thread's track and the exec slices name what ran
		jq -e '[.traceEvents[] | select(.ph == "M" and .name == "thread_name" and (.args.name | startswith("thread ")))] | length >= 2' "$T/trace.json" >/dev/null ||
			fail "no thread tracks for the threads fixture"
		jq -e '[.traceEvents[] | select(.ph == "X" and .cat == "exec" and .name == "stack_hang")] | length == 1' "$T/trace.json" >/dev/null ||
			fail "no exec slice named stack_hang"
		jq -e '[.traceEvents[] | select(.ph == "i" and .cat == "stack") | .args.frames | length] | min >= 1' "$T/trace.json" >/dev/null ||
			fail "stack instants without frames"
		# the ending and the end in the summary's words, not the
		# journal's names ("ending (timeout)", "end: exit code 124")
		got=$(jq -r '[.traceEvents[] | select(.ph == "i" and .s == "g" and (.cat == "ending" or .cat == "end")) | .name] | join("|")' "$T/trace.json")
		case $got in
		"the tree was ended because the timeout expired|corral exited 124 because the timeout expired; the command was killed by SIG"*) ;;
		*) fail "the ending and the end are not in words: $got" ;;
		esac
		expect_eq "$(jq -c '[.traceEvents[] | select(.ph == "i" and .cat == "end") | .args.exit_code, .args.reason]' "$T/trace.json")" '[124,"timeout"]' "the end's args"
	else
		fail "report --perfetto failed: $(head -c 300 "$T/rep.err")"
	fi
fi

RUN_LABEL="words escaped"
# a reason corral does not write (a NUL in it): said as one, and the trace
# is still JSON that gives the bytes back
printf '%s\n' '{"event":"start","t":0,"schema":1,"version":"1","pid":1,"command":["x"]}' \
	'{"event":"ending","t":0.5,"reason":"exit\u0000ed\u001b[2J"}' \
	'{"event":"end","t":1,"exit_code":0,"reason":"exit\u0000ed","signal":"SIG\u001b"}' >"$T/nul.jsonl"
if "$CORRAL" report -q --perfetto "$T/nul.json" "$T/nul.jsonl" 2>"$T/rep.err"; then
	got=$(jq -c '[.traceEvents[] | select(.ph == "i" and .s == "g") | .name]' "$T/nul.json")
	expect_eq "$got" '["the tree was ended because of reason exit\u0000ed\u001b[2J","corral exited 0 because of reason exit\u0000ed; the command was killed by SIG\u001b"]' "names around strings corral does not write"
else
	fail "report --perfetto failed on a NUL reason: $(head -c 300 "$T/rep.err")"
fi

RUN_LABEL="to stdout"
# --perfetto - : the trace is the whole of stdout (no summary mixed in)
if [ -s "$T/trace.json" ]; then
	"$CORRAL" report --perfetto - "$j" >"$T/stdout.json" 2>/dev/null || fail "report --perfetto - failed"
	python3 "$CHECK" "$T/stdout.json" "$j" >"$T/check" 2>&1 || { fail "trace on stdout: check failed"; head -5 "$T/check" >&2; }
fi

RUN_LABEL="reused pids"
# pid 12 is a thread of 11, then a process; 11 is reused too: every track
# still has one owner (the later users get ids above pid_max)
cp "$LIB_DIR/report_golden/reuse.jsonl" "$T/reuse.jsonl"
if "$CORRAL" report -q --perfetto "$T/reuse.json" "$T/reuse.jsonl" 2>"$T/rep.err"; then
	python3 "$CHECK" "$T/reuse.json" "$T/reuse.jsonl" >"$T/check" 2>&1 || { fail "reused-pid trace check failed"; cat "$T/check" >&2; }
	jq -e '[.traceEvents[] | select(.ph == "M" and .name == "process_name") | .args.name] == ["sh", "(fork) sh", "(fork) sh (pid 12)", "(fork) sh (pid 11)"]' "$T/reuse.json" >/dev/null ||
		fail "reused pids not told apart in the track names"
else
	fail "report --perfetto failed on reused pids: $(head -c 300 "$T/rep.err")"
fi

RUN_LABEL="synthetic storm"
python3 "$LIB_DIR/report_gen.py" 20000 7 >"$T/storm.jsonl"
if "$CORRAL" report -q --perfetto "$T/storm.json" "$T/storm.jsonl" 2>"$T/rep.err"; then
	python3 "$CHECK" "$T/storm.json" "$T/storm.jsonl" >"$T/check" 2>&1 || { fail "storm trace check failed"; cat "$T/check" >&2; }
else
	fail "report --perfetto failed on the storm: $(head -c 300 "$T/rep.err")"
fi

done_test
