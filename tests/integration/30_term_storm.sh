#!/usr/bin/env bash
# A fork storm running at kill time: 50 workers forking and exiting.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture storm

# All 50 workers up before the timeout is not needed (the storm rages with
# the ones that are) and can take longer than the timeout on a loaded machine.
TERM_TIMEOUT=3 TERM_READY_SOFT=1 term_three '^READY 50$' -- "$FIX/storm" 50

done_test
