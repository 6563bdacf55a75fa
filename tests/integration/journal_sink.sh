#!/usr/bin/env bash
# The journal never hangs the run, never breaks a line, says when it loses
# lines, writes to a descriptor as given, and is never seen by the command
# (docs/journal.md, "Where lines go").
. "$(dirname "$0")/lib.sh"
need_corral

# jlines_ok FILE WHAT: every line of FILE is a JSON object, and FILE ends
# with a newline (no torn last line).
jlines_ok() {
	python3 - "$1" <<'EOF' || fail "$2: a line is not whole JSON"
import json, sys
data = open(sys.argv[1], 'rb').read()
if data and not data.endswith(b'\n'):
    print('no newline at the end: a torn line', file=sys.stderr); sys.exit(1)
for i, l in enumerate(data.split(b'\n')[:-1]):
    try:
        assert isinstance(json.loads(l), dict)
    except Exception as e:
        print('line %d: %r: %s' % (i + 1, l[:120], e), file=sys.stderr); sys.exit(1)
EOF
}

# Whatever is in the pipe/FIFO open on descriptor $1 now, without waiting.
read_now() {
	python3 - "$1" <<'EOF'
import os, sys, fcntl
fd = int(sys.argv[1])
fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
out = b''
while True:
    try:
        b = os.read(fd, 65536)
    except BlockingIOError:
        break
    if not b:
        break
    out += b
sys.stdout.buffer.write(out)
EOF
}

# The command: events as fast as a shell makes them.
LOOP='while :; do /bin/true; done'
# COUNTED: N execs (their lines, ~300 bytes each, are twice a pipe's 64 KiB
# at N=400), then READY. Its awaits are liveness bounds: 400 traced execs
# took over 30 s as an unprivileged user with two CPU hogs beside it.
N=400
COUNTED="i=0; while [ \$i -lt $N ]; do /bin/true; i=\$((i+1)); done; echo READY; exec sleep 1000"

RUN_LABEL="FIFO without a reader"
mkfifo "$T/noreader"
run -- "$CORRAL" run -j "$T/noreader" -- sh -c "touch '$T/m1'"
expect_rc 125 "-j FIFO without a reader"
[ ! -e "$T/m1" ] || fail "the command was started"
expect_grep 'no reader' "$ERRF" "message"

RUN_LABEL="-j - (stdout, shared with the command)"
run -- "$CORRAL" run -q -j - -- sh -c 'echo to-stderr >&2'
expect_rc 0 "-j -"
"$CORRAL" verify "$OUTF" >/dev/null || fail "-j -: stdout is not a valid journal"
expect_grep 'to-stderr' "$ERRF" "the command's stderr"
printf 'kept\n' >"$T/stdout.log"
run -- bash -c "exec >>'$T/stdout.log'; exec \"\$@\"" _ "$CORRAL" run -q -j /dev/stdout -- true
expect_rc 0 "-j /dev/stdout >>FILE"
expect_eq "$(head -n 1 "$T/stdout.log")" kept "-j /dev/stdout >>FILE keeps the file's content"
tail -n +2 "$T/stdout.log" >"$T/stdout.journal"
"$CORRAL" verify "$T/stdout.journal" >/dev/null || fail "-j /dev/stdout: not a valid journal after the kept line"

RUN_LABEL="stalled FIFO reader, --timeout"
mkfifo "$T/stalled"
exec {R}<>"$T/stalled" # a reader that never reads (until the end)
# A one-page pipe: the loop fills it within the second whatever the
# machine's load (64 KiB took more than 1 s of execs on a loaded machine).
python3 -c 'import fcntl, sys; fcntl.fcntl(int(sys.argv[1]), 1031, 4096)' "$R" ||
	fail "F_SETPIPE_SZ on the FIFO"
start -- "$CORRAL" run -j "$T/stalled" -t 1 -k 0.2 -- sh -c "$LOOP"
finish 30
expect_rc 124 "timeout while the reader is stalled"
expect_grep 'corral: journal: .*stalled' "$ERRF" "the loss is said"
expect_grep 'journal: [0-9]+ lines, [1-9][0-9]* lost' "$ERRF" "lost lines counted"
end_run
read_now "$R" >"$T/stalled.out"
exec {R}<&-
[ -s "$T/stalled.out" ] || fail "nothing reached the reader"
jlines_ok "$T/stalled.out" "what the stalled reader got"
head -n 1 "$T/stalled.out" | grep -q '"event":"start"' || fail "first line is not start"

RUN_LABEL="stalled FIFO reader, SIGTERM"
mkfifo "$T/stalled2"
exec {R}<>"$T/stalled2"
start -- "$CORRAL" run -j "$T/stalled2" -k 0.2 -- sh -c "$COUNTED"
if await '^READY$' 120; then
	kill -TERM "$PID"
else
	kill -KILL "$PID"
fi
finish 30
expect_rc 143 "SIGTERM while the reader is stalled"
expect_grep 'journal: [0-9]+ lines, [1-9][0-9]* lost' "$ERRF" "lost lines counted"
end_run
read_now "$R" >"$T/stalled2.out"
exec {R}<&-
jlines_ok "$T/stalled2.out" "what the stalled reader got"

RUN_LABEL="stalled FIFO reader, small queue, --journal-strict"
mkfifo "$T/stalled3"
exec {R}<>"$T/stalled3"
start -- "$CORRAL" run -j "$T/stalled3" --journal-strict --journal-queue 4K -k 0.2 -- sh -c "$LOOP"
finish 30
expect_rc 125 "--journal-strict: the first dropped line ends the run"
expect_grep 'the reader is too slow' "$ERRF" "the drop is said"
end_run
read_now "$R" >"$T/stalled3.out"
exec {R}<&-
jlines_ok "$T/stalled3.out" "what the stalled reader got (strict)"

RUN_LABEL="a reader that drains late gets every line"
mkfifo "$T/late"
exec {R}<>"$T/late"
start -- "$CORRAL" run -j "$T/late" -k 10 -- sh -c "$COUNTED"
if await '^READY$' 120; then
	# The pipe is full and lines are queued; now the reader catches up,
	# and says so after its first read (then corral is told to end).
	exec {RS}< <(timeout 20 python3 -c '
import os, sys
fd = int(sys.argv[1]); out = open(sys.argv[2], "wb"); said = False
while True:
    b = os.read(fd, 65536)
    out.write(b); out.flush()
    if not said:
        print("reading", flush=True); said = True
    if b"\"event\":\"end\"" in b: break
' "$R" "$T/late.out")
	read -r -t 20 -u "$RS" _ || fail "the reader did not start"
	kill -TERM "$PID"
	finish 30
	cat <&"$RS" >/dev/null # the reader has seen the end line
	exec {RS}<&-
	expect_rc 143 "SIGTERM"
	end_run
	jlines_ok "$T/late.out" "the late reader's copy"
	expect_eq "$(tail -n 1 "$T/late.out" | jq -r '.event + " " + (.journal_lost|tostring)')" "end 0" "end line, nothing lost"
	nexec=$(grep -c '"event":"exec"' "$T/late.out")
	[ "$nexec" -ge $((N + 1)) ] || fail "the late reader got $nexec exec lines, expected at least $((N + 1))"
else
	kill -KILL "$PID"
	finish 10
	end_run
fi
exec {R}<&-

RUN_LABEL="/dev/full"
run -- "$CORRAL" run -j /dev/full -- sh -c 'exit 3'
expect_rc 3 "-j /dev/full: the command's status (default policy)"
expect_grep '^corral: journal: /dev/full: No space left on device' "$ERRF" "the first error is said"
[ "$(grep -c '^corral: journal: /dev/full:' "$ERRF")" = 1 ] || fail "the error is said more than once"
expect_grep 'journal: 0 lines, [1-9][0-9]* lost' "$ERRF" "the loss is counted"

RUN_LABEL="/dev/full, --journal-strict"
run -- "$CORRAL" run -j /dev/full --journal-strict -- sh -c "touch '$T/m3'"
expect_rc 125 "--journal-strict"
[ ! -e "$T/m3" ] || fail "--journal-strict: the command was started without a start line"

RUN_LABEL="full filesystem"
if [ "$(id -u)" = 0 ] && mkdir "$T/mnt" && mount -t tmpfs -o size=16k tmpfs "$T/mnt" 2>/dev/null; then
	run -- "$CORRAL" run -j "$T/mnt/j" -- sh -c 'i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i+1)); done; exit 4'
	expect_rc 4 "disk full: the command's status"
	jlines_ok "$T/mnt/j" "the journal on a full disk"
	expect_grep 'corral: journal: .*No space left on device' "$ERRF" "the error is said"
	expect_grep 'journal: [0-9]+ lines, [1-9][0-9]* lost' "$ERRF" "the loss is counted"
	n=$(wc -l <"$T/mnt/j")
	[ "$n" -gt 10 ] || fail "only $n lines before the disk was full"
	rm -f "$T/mnt/j"

	RUN_LABEL="full filesystem, --journal-strict"
	start -- "$CORRAL" run -j "$T/mnt/j" --journal-strict -k 0.2 -- sh -c "$LOOP"
	finish 30
	expect_rc 125 "--journal-strict on a full disk ends the run"
	jlines_ok "$T/mnt/j" "the journal on a full disk (strict)"
	j_sel "$T/mnt/j" '.event == "ending"' | grep -q '"reason":"journal"' ||
		note "the ending line did not fit on the disk (expected when full)"
	end_run
	umount "$T/mnt"
else
	skip_part "not root or no tmpfs: full filesystem not tested"
fi

RUN_LABEL="/dev/fd/N opened for append"
printf 'kept line 1\nkept line 2\n' >"$T/app.log"
run -- bash -c "exec 3>>'$T/app.log'; exec \"\$@\"" _ "$CORRAL" run -q -j /dev/fd/3 -- sh -c 'exit 0'
expect_rc 0 "-j /dev/fd/3 3>>FILE"
expect_eq "$(head -n 2 "$T/app.log")" "$(printf 'kept line 1\nkept line 2')" "content before the journal"
tail -n +3 "$T/app.log" >"$T/app.journal"
if j_valid "$T/app.journal"; then
	j_expect_end "$T/app.journal" journal_intact true
fi

RUN_LABEL="the command cannot see the journal"
run -- "$CORRAL" run -q -j "$T/jpath" -- sh -c 'ls -l /proc/$$/fd/'
expect_rc 0 "-j FILE"
grep -q jpath "$OUTF" && fail "-j FILE: the command has a descriptor on the journal"
grep -q '^l' "$OUTF" || fail "-j FILE: the witness listed no descriptor at all"
run -- bash -c "exec 3>'$T/jfd'; exec \"\$@\"" _ "$CORRAL" run -q -j /dev/fd/3 -- sh -c 'ls -l /proc/$$/fd/'
expect_rc 0 "-j /dev/fd/3"
grep -Eq 'jfd| 3 ->' "$OUTF" && fail "-j /dev/fd/3: the command inherited the journal"
mkfifo "$T/pipe"
exec {R}<>"$T/pipe"
run -- bash -c "exec 3>'$T/pipe'; exec \"\$@\"" _ "$CORRAL" run -q -j /dev/fd/3 -- sh -c 'ls -l /proc/$$/fd/; [ -e /proc/$$/fd/3 ] && echo FD3; true'
expect_rc 0 "-j /dev/fd/3 (a FIFO)"
grep -q 'FD3' "$OUTF" && fail "-j /dev/fd/3 (a FIFO): the command inherited the journal"
read_now "$R" >"$T/pipe.out"
exec {R}<&-
jlines_ok "$T/pipe.out" "the FIFO's copy"
tail -n 1 "$T/pipe.out" | grep -q '"event":"end"' || fail "the FIFO got no end line"

RUN_LABEL="an exit line goes out while the run goes on"
# A thread's exit resumes nobody and nothing follows it here (no SIGCHLD,
# the process then sleeps): its line waits for company at most JSINK_LATER
# (10 ms), then the loop wakes up to write it; it must not wait for the end.
start -- "$CORRAL" run -q -j "$T/due.jsonl" -- python3 -c '
import threading, time
t = threading.Thread(target=lambda: None)
t.start()
t.join()
print("READY", flush=True)
time.sleep(1000)'
if await '^READY$' 120; then
	python3 - "$T/due.jsonl" <<'EOF2' || fail "the thread's exit line was not written within 10 s while the run went on"
import json, sys, time
deadline = time.monotonic() + 10
while time.monotonic() < deadline:
    with open(sys.argv[1]) as f:
        ev = [json.loads(l) for l in f if l.endswith('\n')]
    tids = {e['pid'] for e in ev if e['event'] == 'thread'}
    if any(e['event'] == 'exit' and e['pid'] in tids for e in ev):
        sys.exit(0)
    time.sleep(0.02)
sys.exit(1)
EOF2
fi
kill -TERM "$PID"
finish 30
expect_rc 143 "SIGTERM"
end_run
jlines_ok "$T/due.jsonl" "the journal"
tid=$(jq -r 'select(.event == "thread") | .pid' "$T/due.jsonl")
expect_eq "$(jq -c "select(.event == \"exit\" and .pid == $tid)" "$T/due.jsonl" | wc -l)" 1 "the thread's exit line, once"

done_test
