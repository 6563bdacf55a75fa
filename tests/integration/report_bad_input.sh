#!/usr/bin/env bash
# corral report on bad input: not a journal, garbage, binary, a 1 GiB line
# (read from a pipe: never held whole), nesting, bytes that are not UTF-8,
# a line without time: a message naming the line and exit status 2, never a
# crash or a hang. Journals corral may honestly leave are read: a tail cut
# mid-line (noted, the rest shown), a corral killed with SIGKILL (no end
# line: noted, processes shown with no exit), keys and events this reader
# does not know (a later schema: ignored or carried along).
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture daemonize forktree

# bad NAME REGEX: report on $T/in.NAME must exit 2 with a message matching
bad() {
	local name=$1 re=$2 rc
	timeout -k 5 60 "$CORRAL" report "$T/in.$name" >"$T/out.$name" 2>"$T/err.$name"
	rc=$?
	if [ "$rc" != 2 ]; then
		fail "$name: exit status $rc, expected 2 ($(head -c 200 "$T/err.$name"))"
		return 1
	fi
	grep -qE "^corral: report: .*$re" "$T/err.$name" ||
		fail "$name: message '$(head -c 200 "$T/err.$name")' does not match /$re/"
	[ -s "$T/out.$name" ] && fail "$name: something was printed on stdout"
	return 0
}

RUN_LABEL="bad input"
START='{"event":"start","t":0,"schema":1,"version":"0.1.0","pid":1,"argv":["corral"],"command":["true"]}'
: >"$T/in.empty"
bad empty 'empty: not a corral journal'
printf 'hello world\n' >"$T/in.garbage"
bad garbage 'line 1: not JSON'
head -c 20000 "$CORRAL" >"$T/in.binary"
bad binary 'line [0-9]+: '
printf '{"event":"exec","t":1,"pid":2}\n' >"$T/in.nostart"
bad nostart 'line 1: not a corral journal \(the first event is "exec"'
printf '[1,2,3]\n' >"$T/in.array"
bad array 'line 1: not a journal event'
printf '%s\n{"event":"exec","t":1,"pid":2}\nnot json at all\n{"event":"exit","t":2,"pid":2,"status":0}\n' "$START" >"$T/in.middle"
bad middle 'line 3: not JSON'
printf '%s\n{"event":"fork","pid":2,"ppid":1}\n' "$START" >"$T/in.notime"
bad notime 'line 2: event "fork" has no time'
{ printf '%s\n{"event":"x","t":1,"deep":' "$START"; for _ in $(seq 100); do printf '['; done; for _ in $(seq 100); do printf ']'; done; printf '}\n'; } >"$T/in.deep"
bad deep 'line 2: nested deeper than'
printf '%s\n{"event":"exec","t":1,"pid":2,"argv":["a\377b"]}\n' "$START" >"$T/in.rawbytes"
bad rawbytes 'line 2: not JSON'
printf '%s\n{"event":"exec","t":1,"pid":2,"argv":["a\0b"]}\n' "$START" >"$T/in.nul"
bad nul 'line 2: not JSON'
printf '%s\n{"event":"exec","t":1,"pid":2,"argv":["unterminated]}\n{"event":"exit","t":2,"pid":2,"status":0}\n' "$START" >"$T/in.unterminated"
bad unterminated 'line 2: not JSON'

RUN_LABEL="1 GiB line on a pipe"
# memory of the report process (ru_maxrss of the child), and no hang
python3 - "$CORRAL" "$T/gib.err" >"$T/gib.out" <<'PY'
import resource, subprocess, sys
with open(sys.argv[2], "wb") as err:
    p = subprocess.Popen([sys.argv[1], "report", "-"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err)
    chunk = b"a" * (1 << 20)
    try:
        for _ in range(1024):
            p.stdin.write(chunk)
        p.stdin.write(b"\n")
        p.stdin.close()
    except BrokenPipeError:
        pass  # the report stopped reading: what it should do
    rc = p.wait(timeout=120)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
PY
read -r rc mb <"$T/gib.out"
expect_eq "$rc" 2 "exit status on a 1 GiB line"
grep -q '^corral: report: -: line 1: longer than 64 MiB' "$T/gib.err" || fail "message: $(head -c 200 "$T/gib.err")"
[ "${mb:-9999}" -le 256 ] || fail "the report used ${mb} MB on a 1 GiB line (the line was read whole?)"

RUN_LABEL="usage"
"$CORRAL" report >/dev/null 2>"$T/usage.err"
expect_eq "$?" 125 "no journal named"
"$CORRAL" report --bogus "$T/in.garbage" >/dev/null 2>&1
expect_eq "$?" 125 "unknown option"
"$CORRAL" report "$T/does-not-exist" >/dev/null 2>"$T/nofile.err"
expect_eq "$?" 2 "missing journal"
grep -q "cannot open $T/does-not-exist" "$T/nofile.err" || fail "missing journal: $(cat "$T/nofile.err")"

RUN_LABEL="cut tail"
j=$T/j.cut
run -- "$CORRAL" run -q -j "$j" -- "$FIX/forktree" 1 3
expect_rc 0 forktree
if j_valid "$j"; then
	# cut in the middle of the last line, as a killed writer could leave it
	size=$(stat -c %s "$j")
	last=$(tail -n 1 "$j" | wc -c)
	head -c $((size - last / 2)) "$j" >"$T/j.cut2"
	"$CORRAL" report --tree "$T/j.cut2" >"$T/cut.out" 2>"$T/cut.err"
	expect_eq "$?" 0 "report of a journal with a cut tail"
	n=$(wc -l <"$j")
	grep -q "line $n: the journal is cut here" "$T/cut.err" || fail "cut tail not reported: $(cat "$T/cut.err")"
	expect_eq "$(grep -c 'forktree 1 3 \[exit 0' "$T/cut.out")" 4 "processes shown from the cut journal"
fi

RUN_LABEL="corral killed"
j=$T/j.killed
start -- "$CORRAL" run -q -j "$j" -- "$FIX/daemonize" -w
if await '^READY'; then
	kill -KILL "$PID"
fi
finish
end_run 5
if j_parse "$j"; then
	"$CORRAL" report "$j" >"$T/killed.out" 2>"$T/killed.err"
	expect_eq "$?" 0 "report of a journal whose corral was killed"
	grep -q 'no end line' "$T/killed.err" || fail "missing end line not noted: $(cat "$T/killed.err")"
	grep -q 'no exit seen (2)' "$T/killed.out" || { fail "processes without exit not listed"; cat "$T/killed.out" >&2; }
fi

RUN_LABEL="later schema"
cat >"$T/in.later" <<'J'
{"event":"start","t":0,"schema":2,"version":"0.2.0","pid":1,"time":"2026-12-01T10:00:00.000000Z","host":"vm","cwd":"/tmp","argv":["corral"],"command":["sh"],"n":0,"h":"ab12"}
{"event":"exec","t":0.1,"pid":10,"tgid":10,"path":"/bin/sh","argv":["sh"],"cwd":"/tmp","h":"cd34"}
{"event":"teleport","t":0.2,"pid":10,"h":"ef56"}
{"event":"exit","t":0.3,"pid":10,"tgid":10,"status":0,"cpu_user":0.01,"cpu_sys":0.002,"max_rss":1234,"rusage2":{"x":1},"n":3,"h":"0987"}
{"event":"end","t":0.4,"exit_code":0,"reason":"none","status":0,"processes":1,"threads":0,"execs":1,"left":0,"killed":0,"survivors":0,"phases":{"grace":0,"stop":0,"kill":0},"duration":0.4,"journal_lost":0,"h":"6543"}
J
"$CORRAL" report "$T/in.later" >"$T/later.out" 2>"$T/later.err"
expect_eq "$?" 0 "report of a schema 2 journal with unknown keys and events"
grep -q 'started    2026-12-01T10:00:00.000000Z on vm' "$T/later.out" || fail "wall clock of the start not shown"
grep -q '1 event(s) of a type this report does not know' "$T/later.err" || fail "unknown event not noted"
"$CORRAL" report -q --html "$T/later.html" "$T/in.later" 2>/dev/null || fail "--html on schema 2"
grep -q '"max_rss":1234' "$T/later.html" || fail "the exit's resource keys are not carried to the page"
grep -q '"rusage2":{"x":1}' "$T/later.html" || fail "unknown exit keys are not carried to the page"

done_test
