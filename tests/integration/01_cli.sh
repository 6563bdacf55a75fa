#!/usr/bin/env bash
# CLI contract (docs/cli.md): --help and --version exit 0; bad usage exits
# 125 and starts nothing.
. "$(dirname "$0")/lib.sh"
need_corral

RUN_LABEL=--help
run -- "$CORRAL" --help
expect_rc 0 "corral --help"
expect_grep 'corral run' "$OUTF" "--help on stdout"

RUN_LABEL=--version
run -- "$CORRAL" --version
expect_rc 0 "corral --version"
expect_grep '[0-9]+\.[0-9]+' "$OUTF" "--version prints a version"

# Bad usage: 125, a message on stderr, and the command is never started
# (it would create a marker file).
n=0
for args in "run --no-such-option" "run -t notaduration" "run --timeout" \
	"run -k -5" "run --max-procs zero" "run --escape sideways" \
	"run --stacks sometimes" "no-such-subcommand" "--no-such-option"; do
	n=$((n + 1))
	RUN_LABEL="corral $args"
	# shellcheck disable=SC2086
	run -- "$CORRAL" $args -- touch "$T/marker.$n"
	expect_rc 125 "corral $args -- touch"
	[ -s "$ERRF" ] || fail "corral $args: nothing on stderr"
	[ ! -e "$T/marker.$n" ] || fail "corral $args: the command was started"
done

RUN_LABEL="run without a command"
run -- "$CORRAL" run
expect_rc 125 "corral run (no command)"
run -- "$CORRAL" run --
expect_rc 125 "corral run -- (no command)"
RUN_LABEL="no arguments"
run -- "$CORRAL"
expect_rc 125 "corral (no arguments)"

done_test
