#!/usr/bin/env bash
# A vfork child that never execs (its parent stays suspended in vfork).
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture vfork_noexec

term_three '^READY [0-9]+$' -- "$FIX/vfork_noexec" pause

done_test
