#!/usr/bin/env bash
# A fork storm running at kill time: 50 workers forking and exiting.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture storm

TERM_TIMEOUT=3 term_three '^READY 50$' -- "$FIX/storm" 50

done_test
