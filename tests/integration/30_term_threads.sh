#!/usr/bin/env bash
# A process with 500 threads (all paused).
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture threads

term_three '^READY 500$' -- "$FIX/threads" -p 500

done_test
