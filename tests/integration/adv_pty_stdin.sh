#!/usr/bin/env bash
# --pty with more input than the command reads (issue 9, attack 5): the
# pseudo-terminal's input side fills up and refuses more (EAGAIN). The
# relay used to retry forever, so the loop never got back to the timeout.
# Now each direction is a bounded queue on non-blocking descriptors and a
# full side is simply not read from. Witnesses: corral ends the tree at -t
# (exit 124) instead of hanging past the test's deadline; nothing is left;
# a command that does read its input still gets it and its output.
. "$(dirname "$0")/lib.sh"
need_corral

yes 'a line of input the command never reads' | head -c 4000000 >"$T/big"

RUN_LABEL="unread input, -t 2"
DEADLINE=40 run -i "$T/big" -- "$CORRAL" run -q --pty -t 2 -k 1 -j "$T/j1" -- sleep 1000
expect_rc 124 "corral ended the tree at its timeout"
j_valid "$T/j1" && j_expect_end "$T/j1" survivors 0

RUN_LABEL="read input, much output"
DEADLINE=40 run -i "$T/big" -- "$CORRAL" run -q --pty -t 30 -- \
	sh -c 'head -n 3 | tr a-z A-Z; seq 1 20000 | tail -n 1; echo done'
expect_rc 0 "the command ran to its end"
# (the terminal echoes the input too: the command's lines may follow an echo)
expect_grep 'A LINE OF INPUT THE COMMAND NEVER READS' "$OUTF" "input reached the command"
expect_grep '20000.?$' "$OUTF" "output came back"
expect_grep 'done.?$' "$OUTF" "the last line came back"
RUN_LABEL=
done_test
