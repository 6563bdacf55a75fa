#!/usr/bin/env bash
# corral exits with the command's status; 128+N when the command is killed
# by signal N; the journal's end event says the same.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture exit_with killself

for code in 0 3 1 255; do
	RUN_LABEL="exit_with $code"
	j=$T/j.exit$code
	run -- "$CORRAL" run -q -j "$j" -- "$FIX/exit_with" "$code"
	expect_rc "$code" "exit_with $code"
	if j_valid "$j"; then
		j_expect_end "$j" exit_code "$code"
		j_expect_end "$j" status "$code"
		j_expect_end "$j" reason none
		j_expect_end "$j" survivors 0
	fi
done

for sig in TERM:15 SEGV:11 KILL:9 INT:2 ABRT:6; do
	name=${sig%:*} n=${sig#*:}
	RUN_LABEL="killself $name"
	j=$T/j.$name
	run -- "$CORRAL" run -q -j "$j" -- "$FIX/killself" "$name"
	expect_rc $((128 + n)) "killself $name"
	if j_valid "$j"; then
		j_expect_end "$j" exit_code $((128 + n))
		j_expect "$j" ".event == \"exit\" and .signo == $n and .signal == \"SIG$name\"" 1 "exit event by SIG$name"
	fi
done

# the status of a shell pipeline's last command
RUN_LABEL="sh exit 42"
run -- "$CORRAL" run -q -- sh -c 'true | false; exit 42'
expect_rc 42 "sh -c 'exit 42'"

done_test
