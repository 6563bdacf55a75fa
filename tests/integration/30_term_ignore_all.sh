#!/usr/bin/env bash
# Members that ignore and block every catchable signal: only the final kill
# after the grace (-k 1) ends them.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture ignore_all

term_three '^READY [0-9]+$' -- "$FIX/ignore_all" 5

done_test
