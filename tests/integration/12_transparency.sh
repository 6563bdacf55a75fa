#!/usr/bin/env bash
# Transparency: under corral a command sees the same stdin, writes the same
# stdout and stderr and exits with the same status as without it.
. "$(dirname "$0")/lib.sh"
need_corral

pipeline='printf "b\na\nc\n" | sort -r | tr a-z A-Z; echo to-stderr >&2; ls / | wc -l; pwd; exit 5'

RUN_LABEL=untraced
run -- sh -c "$pipeline"
rc_plain=$RC
cp "$OUTF" "$T/plain.out"
cp "$ERRF" "$T/plain.err"

RUN_LABEL=corral
run -- "$CORRAL" run -q -- sh -c "$pipeline"
expect_eq "$RC" "$rc_plain" "exit status under corral"
cmp -s "$OUTF" "$T/plain.out" || {
	fail "stdout differs under corral"
	diff "$T/plain.out" "$OUTF" >&2
}
cmp -s "$ERRF" "$T/plain.err" || {
	fail "stderr differs under corral (-q)"
	diff "$T/plain.err" "$ERRF" >&2
}

# stdin passes through byte for byte (binary, 1 MiB)
RUN_LABEL=stdin
head -c 1048576 /dev/urandom >"$T/in"
run -i "$T/in" -- "$CORRAL" run -q -- sh -c 'cat; exit 4'
expect_rc 4 "cat under corral"
cmp -s "$T/in" "$OUTF" || fail "stdin did not come through unchanged ($(wc -c <"$OUTF") of 1048576 bytes)"

# stdin through a pipe, read by a grandchild
RUN_LABEL=stdin-pipe
run -i "$T/in" -- sh -c "\"$CORRAL\" run -q -- sh -c 'sh -c \"wc -c\"' | tr -d ' '"
expect_rc 0 "pipe into corral"
expect_eq "$(cat "$OUTF")" 1048576 "bytes read through a pipe"

# the working directory and the environment are the command's
RUN_LABEL=env
run -- env -C "$T" CORRAL_X='a b' "$CORRAL" run -q -- sh -c 'pwd; echo "$CORRAL_X"'
expect_eq "$(cat "$OUTF")" "$T
a b" "cwd and environment"

done_test
