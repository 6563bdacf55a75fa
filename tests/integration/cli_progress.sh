#!/usr/bin/env bash
# Progress on long runs (issue 25): on a terminal, corral says every so
# often that the run goes on (how long, live processes, execs so far);
# not with -q, not when stderr is not a terminal; --progress DUR asks for
# it anywhere. Driven in tmux (real terminals): the runs wait for a file
# the test creates once the terminal showed what it waits for.
. "$(dirname "$0")/lib.sh"
need_corral
command -v tmux >/dev/null || skip_test "tmux is missing"

SOCK=$T/tmux.sock
tm() { tmux -S "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; cleanup' EXIT
GO=$T/go
waitgo="until [ -e $GO ]; do sleep 0.1; done"

# pane NAME: what the terminal shows
pane() { tm capture-pane -p -J -S - -t "$1" 2>/dev/null; }
# await_pane NAME REGEX COUNT: until COUNT lines match (a deadline only
# against hangs)
await_pane() {
	local i
	for ((i = 0; i < 900; i++)); do
		[ "$(pane "$1" | grep -cE "$2")" -ge "$3" ] && return 0
		sleep 0.1
	done
	fail "$1: no $3 line(s) /$2/ on the terminal:"
	pane "$1" >&2
	return 1
}

# not a terminal, no --progress: nothing (started first: it runs longest)
"$CORRAL" run -- sh -c "$waitgo" 2>"$T/file.err" &
FILEPID=$!
tm -f /dev/null new-session -d -s q -x 200 -y 40 \
	"'$CORRAL' run -q -- sh -c '$waitgo'; echo Q-DONE rc=\$?; sleep 600"
tm new-session -d -s a -x 200 -y 40 \
	"'$CORRAL' run -- sh -c 'sleep 300 & $waitgo'; echo A-DONE rc=\$?; sleep 600"

# on a terminal, by default: a line after 10 s, another 10 s later (the
# runs above have been going on longer than that by then)
LINE='^corral: running [0-9.]+s: [0-9]+ live process(es)?, [0-9]+ execs? so far$'  # "1 exec" when the line comes that early (a loaded machine)
await_pane a "$LINE" 2
touch "$GO"
await_pane a '^A-DONE rc=0$' 1
await_pane q '^Q-DONE rc=0$' 1
wait "$FILEPID"
expect_eq "$?" 0 "the run with stderr to a file"
pane a | grep -q '^corral: 1 process left behind by the command was ended$' ||
	fail "the end message is missing after the progress lines: $(pane a)"
pane q | grep -q 'corral: running' && fail "-q on a terminal printed progress: $(pane q)"
grep -q 'corral: running' "$T/file.err" && fail "progress went to a file: $(cat "$T/file.err")"

# --progress DUR: asked for, to a file too; it waits for its own line
next_err=$T/err.$((RUN + 1)) # run's stderr (lib.sh)
run -- "$CORRAL" run --progress 0.2 -- sh -c \
	"until grep -q '^corral: running' $next_err; do sleep 0.05; done"
expect_rc 0 "--progress 0.2 to a file"
expect_grep "$LINE" "$ERRF" "--progress's line"
run -- "$CORRAL" run --progress x -- true
expect_rc 125 "--progress x"
expect_grep "invalid time interval for --progress: 'x'" "$ERRF" "--progress x: message"

tm kill-server 2>/dev/null
done_test
