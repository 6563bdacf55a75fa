#!/usr/bin/env bash
# Members that tried ptrace on one another and on corral, still alive.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture traceme

term_three '^READY$' -- "$FIX/traceme" -T -p

done_test
