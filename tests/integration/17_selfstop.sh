#!/usr/bin/env bash
# Members stopped by SIGSTOP / SIGTSTP stay stopped (their parent sees them
# stopped) until continued; stop and cont are journaled.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture selfstop

for sig in STOP TSTP; do
	RUN_LABEL=SIG$sig
	opt=
	[ $sig = TSTP ] && opt=-t
	j=$T/j.$sig
	run -- "$CORRAL" run -q -j "$j" -- "$FIX/selfstop" $opt -c 2
	expect_rc 0 "selfstop $opt -c 2"
	expect_grep '^READY 2$' "$OUTF" "children seen stopped by their parent"
	expect_eq "$(grep -c '^CONTINUED' "$OUTF")" 2 "children continued"
	if j_valid "$j"; then
		j_expect "$j" ".event == \"stop\" and .signal == \"SIG$sig\"" 2 "stop events"
		j_expect "$j" '.event == "cont"' 2 "cont events"
		j_expect_end "$j" survivors 0
	fi
done

done_test
