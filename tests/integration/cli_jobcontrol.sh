#!/usr/bin/env bash
# Job control in a real terminal (docs/cli.md "Job control"): an interactive
# bash on a pseudo-terminal (tests/integration/cli_pty.py) runs corral as a
# job. ^Z stops the job (bash says Stopped, corral and the tree stay
# stopped), fg resumes it and the command completes with its status; ^C
# ends the tree and stops a shell loop (corral dies of SIGINT); a command
# backgrounded with bg that reads the terminal stops the job again and fg
# lets it read; corral's report starts on a line of its own after the
# command's unterminated last line. The witness checks that each run
# leaves nothing behind.
. "$(dirname "$0")/lib.sh"
need_corral
command -v python3 >/dev/null || skip_test "python3 not installed"

for scenario in suspend_fg ctrl_c fg_after_stop_interrupt bg_tty_input \
	started_in_background newline_before_report; do
	RUN_LABEL=$scenario
	rm -f "$T/go"
	run -- python3 "$LIB_DIR/cli_pty.py" "$scenario" "$CORRAL" "$T"
	expect_rc 0 "$scenario (terminal transcript on stderr)"
done

done_test
