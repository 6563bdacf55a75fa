#!/usr/bin/env bash
# Ending a tree whose command has double-forked a setsid daemon (and is still
# running): --timeout, SIGTERM, SIGINT and SIGKILL to corral; the daemon never
# survives.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture daemonize

term_three '^READY [0-9]+$' -- "$FIX/daemonize" -w
TERM_WAYS=sigint term_three '^READY [0-9]+$' -- "$FIX/daemonize" -w

done_test
