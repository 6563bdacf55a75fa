#!/usr/bin/env bash
# `corral ps PID` on a corral that is stopped (a job stopped with ^Z, or
# SIGSTOP): the connection is queued but nobody answers until the job is
# continued. corral ps must say so and exit 1, not wait forever (before: it
# hung). Once continued, the same corral answers.
. "$(dirname "$0")/lib.sh"
need_corral

RUN_LABEL="corral ps on a stopped corral"
start -- "$CORRAL" run -q -- sh -c 'echo READY; exec sleep 1000' || exit 1
if await '^READY$'; then
	kill -STOP "$PID"
	for i in $(seq 1 200); do
		[ "$(awk '{print $3}' "/proc/$PID/stat" 2>/dev/null)" = T ] && break
		sleep 0.05 # polling the kernel's state of corral (bounded)
	done
	# (timeout: a safety net against the hang this test is about)
	timeout 60 "$CORRAL" ps "$PID" >"$T/ps.out" 2>"$T/ps.err"
	expect_eq "$?" 1 "corral ps on a stopped corral"
	expect_grep "^corral: ps: corral $PID is stopped" "$T/ps.err" "what it says"
	kill -CONT "$PID"
	for i in $(seq 1 100); do
		timeout 60 "$CORRAL" ps "$PID" >"$T/ps2.out" 2>"$T/ps2.err" || break
		grep -q 'sleep 1000' "$T/ps2.out" && break
		sleep 0.05 # polling a live view for an expected line (bounded)
	done
	expect_grep '^[0-9]+ sleep 1000 \[running' "$T/ps2.out" "the continued corral answers"
fi
kill -TERM "$PID"
finish
end_run

done_test
