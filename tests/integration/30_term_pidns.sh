#!/usr/bin/env bash
# A new PID namespace inside the tree (its init and 5 members).
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture pidns

run -- "$FIX/pidns" 1
[ "$RC" = 3 ] && skip_test "no PID namespaces here"
term_three '^READY [0-9]+ 1$' -- "$FIX/pidns" -p 5

done_test
