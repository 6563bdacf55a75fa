#!/usr/bin/env bash
# tests/demo.sh - what `make demo` shows: corral supervising a small real
# tree (a pipeline, a background job, a program with threads, one exec'd
# from a thread, and a daemon that double-forks away), the tree it prints at
# the end (--tree), its journal, one event per line, and `corral report` of
# that journal (summary, HTML timeline, Perfetto trace).
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
CORRAL=$BUILD/corral
FIX=$BUILD/fixtures
[ -x "$CORRAL" ] || { echo "demo: $CORRAL is not built (make)" >&2; exit 1; }
for f in threads daemonize; do
	[ -x "$FIX/$f" ] || { echo "demo: $FIX/$f is not built (make demo builds it)" >&2; exit 1; }
done
command -v jq >/dev/null || { echo "demo: jq is needed (make deps)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/corral-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
j=$tmp/journal.jsonl

# $0 in the script is the fixtures directory
script='printf "3\n1\n2\n" | sort -n | tr "\n" " "; echo; sleep 0.1 & $0/threads 3; $0/threads -x 2 /bin/echo exec from a thread; $0/daemonize; wait'

bold() { if [ -t 1 ]; then printf '\033[1m%s\033[0m\n' "$*"; else printf '%s\n' "$*"; fi; }

bold "\$ corral run --tree -j journal.jsonl -- sh -c '$script' $FIX"
echo "  (a pipeline, a background job, 3 threads, an exec from a thread, a"
echo "   daemon that double-forks and stays: corral ends it when sh exits)"
"$CORRAL" run --tree -j "$j" -- sh -c "$script" "$FIX"
rc=$?
echo
bold "corral exited with $rc"
echo
bold "journal ($(wc -l <"$j") events):"
if [ -t 1 ]; then
	jq -C -c . "$j"
else
	jq -c . "$j"
fi
echo
bold "\$ corral report journal.jsonl     (the journal read back: docs/report.md)"
"$CORRAL" report "$j" || rc=$?
echo
html=$BUILD/demo-report.html trace=$BUILD/demo-trace.json
bold "\$ corral report -q --html $html --perfetto $trace journal.jsonl"
"$CORRAL" report -q --html "$html" --perfetto "$trace" "$j" || rc=$?
echo "  $html: the run as a timeline (open it in a browser, offline)"
echo "  $trace: the run for ui.perfetto.dev or chrome://tracing"
exit "$rc"
