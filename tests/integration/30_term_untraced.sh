#!/usr/bin/env bash
# CLONE_UNTRACED via clone and clone3: if either made a child, it would not be
# known to corral and would survive every way of ending the tree.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture untraced

term_three '^READY$' -- "$FIX/untraced" -p

done_test
