#!/usr/bin/env bash
# One voice and honest messages (docs/cli.md): usage errors in coreutils'
# words, exit 125 and nothing started; a short usage for a bare `corral`;
# --help complete; singular/plural; --tree quotes argv (argument
# boundaries kept, control characters escaped) and says (fork) once; -q
# --tree prints the tree without the summary; "command not found" escapes
# control characters; the timeout message says how members ended.
. "$(dirname "$0")/lib.sh"
need_corral

ESC=$'\e'

# refused ARGS... -- MESSAGE: exit 125, MESSAGE on stderr, nothing ran.
n=0
refused() {
	local msg=${*: -1}
	local -a args=("${@:1:$#-2}")
	n=$((n + 1))
	RUN_LABEL="corral ${args[*]}"
	run -- "$CORRAL" "${args[@]}" -- touch "$T/ran.$n"
	expect_rc 125 "corral ${args[*]}"
	expect_grep "^corral: $msg" "$ERRF" "message"
	expect_grep "^Try 'corral --help' for more information\.$" "$ERRF" "hint"
	[ ! -e "$T/ran.$n" ] || fail "corral ${args[*]}: the command was started"
}
refused run -qZ -- "invalid option -- 'Z'"
refused run --tree=yes -- "option '--tree' doesn't allow an argument"
refused run --frobnicate -- "unrecognized option '--frobnicate'"
refused run --s -- "option '--s' is ambiguous"
refused run --stacks never,timeout -- "invalid --stacks 'never,timeout'"
refused run -j '' -- "invalid --journal '': an empty path"
refused run -t 1e400 -- "invalid time interval for --timeout: '1e400'"
refused run -s NOSUCH -- "invalid signal for --signal: 'NOSUCH'"
refused run --timeout -- "invalid time interval for --timeout: '--'"
refused frob -- "unknown command 'frob'"
refused --frob -- "unrecognized option '--frob'"

RUN_LABEL="probe speaks with the same voice"
run -- "$CORRAL" probe --frob
expect_rc 125 "corral probe --frob"
expect_grep "^corral: probe: unrecognized option '--frob'" "$ERRF" "probe message"

RUN_LABEL="bare corral"
run -- "$CORRAL"
expect_rc 125 "bare corral"
lines=$(wc -l <"$ERRF")
[ "$lines" -ge 3 ] && [ "$lines" -le 5 ] || fail "bare corral: $lines lines of usage, expected 3 to 5"
expect_grep '^Usage: corral run' "$ERRF" "usage"

RUN_LABEL="--help"
run -- "$CORRAL" --help
expect_rc 0 "--help"
for w in 'corral ps' 'corral probe \[--json\] \[--bwrap PATH\]' '--signal SIG' \
	'--preserve-status' '--verbose' '--foreground' 'Exit status'; do
	expect_grep "$w" "$OUTF" "--help mentions $w"
done

RUN_LABEL="--tree quotes argv"
run -- "$CORRAL" run --tree -- sh -c ': "$1"; (sleep 0; (sleep 0; exit 0); exit 0); exit 0' sh "a b" $'x\e[31my\n'
expect_rc 0 "--tree"
expect_grep "^corral: [0-9]+ processes, 0 threads, [0-9]+ execs; the command exited with status 0$" "$ERRF" "summary line"
expect_grep "sh -c ': \"\\\$1\"; .*' sh 'a b' \\$'x\\\\e\\[31my\\\\n'" "$ERRF" "argv quoted"
grep -q "$ESC" "$ERRF" && fail "--tree: a raw ESC reached stderr"
grep -q '(fork) (fork)' "$ERRF" && fail "--tree: (fork) (fork)"
expect_grep '^   `- [0-9]+ \(fork\) sh -c' "$ERRF" "a fork of a fork named once"
grep -q '(none)' "$ERRF" && fail "--tree: '(none)' in the summary"

RUN_LABEL="-q --tree"
run -- "$CORRAL" run -q --tree -- true
expect_rc 0 "-q --tree"
grep -q '^corral:' "$ERRF" && fail "-q --tree printed a summary: $(grep '^corral:' "$ERRF")"
expect_grep '^[0-9]+ true \[exit 0, ' "$ERRF" "-q --tree prints the tree"

RUN_LABEL="singular"
run -- "$CORRAL" run -- sh -c 'sleep 100 & exit 0'
expect_grep '^corral: 1 process left behind by the command was ended$' "$ERRF" "singular"
run -- "$CORRAL" run -- sh -c 'sleep 100 & sleep 100 & exit 0'
expect_grep '^corral: 2 processes left behind by the command were ended$' "$ERRF" "plural"

RUN_LABEL="timeout says terminated, not 0 killed"
run -- "$CORRAL" run -t 0.2 -- sh -c 'sleep 100 & sleep 100'
expect_rc 124 "timeout"
expect_grep '^corral: timeout after 0.2s: the tree was ended: 3 terminated by SIGTERM$' "$ERRF" "timeout message"
run -- "$CORRAL" run -t 0.2 -k 0.1 -- sh -c 'trap "" TERM; sleep 100'
expect_grep '^corral: timeout after 0.2s: the tree was ended: 2 killed by SIGKILL$' "$ERRF" "forced kill message"

RUN_LABEL="not found, escaped"
run -- "$CORRAL" run -- $'no-such\e]0;pwned\a-cmd'
expect_rc 127 "not found"
expect_grep "^corral: \\$'no-such\\\\e\\]0;pwned\\\\x07-cmd': command not found$" "$ERRF" "escaped name"
grep -q "$ESC" "$ERRF" && fail "a raw ESC reached stderr"

RUN_LABEL="-q hides the summary"
run -- "$CORRAL" run -q -t 0.2 -- sleep 100
expect_rc 124 "-q timeout"
[ -s "$ERRF" ] && fail "-q printed: $(cat "$ERRF")"

RUN_LABEL="-j - writes the journal to stdout"
run -- "$CORRAL" run -j - -- true
expect_rc 0 "-j -"
expect_eq "$(head -n 1 "$OUTF" | jq -r .event)" start "first stdout line"
expect_eq "$(tail -n 1 "$OUTF" | jq -r .event)" end "last stdout line"

RUN_LABEL="durations as timeout(1) takes them"
for d in 1e3 0x10 ' 5' inf 1.5m 0; do
	run -- "$CORRAL" run -t "$d" -- true
	expect_rc 0 "-t '$d'"
done
run -- "$CORRAL" run -q -t 0x1p-3 -- sleep 100
expect_rc 124 "-t 0x1p-3 (0.125 s) expires"

RUN_LABEL="-s and -v"
# (a background job of sh ignores SIGINT: the sleeper is in the foreground)
run -- "$CORRAL" run -v -t 0.3 -s int -- sh -c 'trap "echo GOT-INT; exit 5" INT; sleep 100'
expect_rc 124 "-s int after a timeout"
expect_grep '^GOT-INT$' "$OUTF" "the command got SIGINT first"
expect_grep '^corral: ending the tree \(timeout\): sending SIGINT and SIGCONT to 2 processes, SIGKILL after 2s to what is left$' "$ERRF" "-v says what is sent"
expect_grep '^corral:   [0-9]+ sleep 100$' "$ERRF" "-v names each member"
expect_grep '^corral: [0-9]+ sleep 100: terminated by SIGINT$' "$ERRF" "-v says how the sleeper ended"
expect_grep "^corral: [0-9]+ sh -c '.*': exited with status 5$" "$ERRF" "-v says how the shell ended"
run -- "$CORRAL" run -v -t 0.2 -k 0 -- sleep 100
expect_grep '^corral: ending the tree \(timeout\): stopping and sending SIGKILL to 1 process$' "$ERRF" "-v without a grace"
expect_grep '^corral: [0-9]+ sleep 100: killed by SIGKILL$' "$ERRF" "-v: killed"

RUN_LABEL="--foreground is accepted"
run -- "$CORRAL" run --foreground -- sh -c 'exit 4'
expect_rc 4 "--foreground"

done_test
