#!/usr/bin/env bash
# A tree of 259 sleeping members (depth 3, fan-out 6).
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture forktree

term_three '^READY 259$' -- "$FIX/forktree" -p 3 6

done_test
