#!/usr/bin/env bash
# Members stopped by SIGSTOP and by SIGTSTP (and the command stopping itself
# too, with -a).
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture selfstop

TERM_CASE=SIGSTOP term_three '^READY 3$' -- "$FIX/selfstop" 3
TERM_CASE="SIGTSTP, -a" term_three '^READY 3$' -- "$FIX/selfstop" -t -a 3

done_test
