#!/usr/bin/env bash
# A program exec'd from a non-leader thread is what runs when the tree is
# ended.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture threads

term_three '^READY$' -- "$FIX/threads" -x 8 sh -c 'echo READY; exec sleep 1000'

done_test
