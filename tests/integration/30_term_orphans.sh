#!/usr/bin/env bash
# Orphans reparented away from the tree (to init or whatever reaper is above
# corral), and orphans reparented to a subreaper inside the tree.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture subreaper

TERM_CASE="to init" term_three '^READY [0-9]+$' -- "$FIX/subreaper" -n -p
TERM_CASE="to a subreaper" term_three '^READY [0-9]+$' -- "$FIX/subreaper" -p

done_test
