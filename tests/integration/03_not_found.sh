#!/usr/bin/env bash
# A command that cannot be run: 127 when not found, 126 when not
# executable; a clear message on stderr and nothing runs.
. "$(dirname "$0")/lib.sh"
need_corral

check_nothing_ran() { # J: if there is a journal, it shows no exec
	[ -e "$1" ] || return 0
	j_valid "$1" || return
	j_expect "$1" '.event == "exec"' 0 "exec events"
	j_expect_end "$1" survivors 0
}

RUN_LABEL="missing path"
j=$T/j.missing
run -- "$CORRAL" run -j "$j" -- /nonexistent/dir/cmd arg
expect_rc 127 "missing command"
expect_grep 'nonexistent/dir/cmd' "$ERRF" "stderr names the command"
check_nothing_ran "$j"

RUN_LABEL="missing in PATH"
j=$T/j.nopath
run -- "$CORRAL" run -j "$j" -- no-such-command-corral-test
expect_rc 127 "command not in PATH"
expect_grep 'no-such-command-corral-test' "$ERRF" "stderr names the command"
check_nothing_ran "$j"

RUN_LABEL="not executable"
printf '#!/bin/sh\ntouch "%s/ran"\n' "$T" >"$T/noexec"
chmod 644 "$T/noexec"
j=$T/j.noexec
run -- "$CORRAL" run -j "$j" -- "$T/noexec"
expect_rc 126 "non-executable file"
expect_grep 'noexec' "$ERRF" "stderr names the file"
[ ! -e "$T/ran" ] || fail "the non-executable file ran"
check_nothing_ran "$j"

RUN_LABEL="directory"
mkdir "$T/adir"
run -- "$CORRAL" run -- "$T/adir"
expect_rc 126 "a directory as command"

RUN_LABEL="PATH lookup works"
run -- "$CORRAL" run -q -- sh -c 'exit 0'
expect_rc 0 "sh found in PATH"

done_test
