#!/usr/bin/env bash
# tests/run.sh interrupted (^C in a terminal, a CI's TERM) ends every test
# it is running, and their children, before it exits (exit 130): nothing of
# the run outlives the runner. Before, a TERM ended the shell between the
# runner and each test's timeout(1), and the tests ran on to their end
# (found by ^C in tmux while the corral-ci runs were going).
# The runner runs one fake unit "binary" (a script in a build tree of its
# own) that starts two children and says so on a FIFO; then the runner gets
# SIGINT. Witness: lib.sh's (the runner, the fake test and its children
# run in this test's cgroup and carry its marker).
. "$(dirname "$0")/lib.sh"

B=$T/b
mkdir -p "$B/tests"
mkfifo "$T/ready"
exec {READY}<>"$T/ready"
for n in 1 2; do
	cat >"$B/tests/test_hang$n" <<SH
#!/bin/sh
sleep 1000 &
sleep 1000 &
echo started >"$T/ready"
wait
SH
	chmod +x "$B/tests/test_hang$n"
done

RUN_LABEL="SIGINT while two tests run"
start -- env -u TEST_FILTER -u TEST_SKIPS BUILD="$B" TEST_JOBS=2 TEST_TIMEOUT=300 \
	"$ROOT/tests/run.sh" unit
for n in 1 2; do
	read -r -t 60 -u "$READY" _ || fail "test $n did not start"
done
mark
kill -INT "$PID"
finish 60
expect_rc 130 "the interrupted runner"
expect_grep '^interrupted: ending the running tests' "$ERRF" "what it says"
end_run
done_test
