#!/usr/bin/env bash
# `corral ps` lists and asks only corrals. A member may bind the abstract
# name corral/live/<its own pid> (Landlock scopes connects, not binds), so
# the name and SO_PEERCRED's pid prove nothing: the listener must run
# corral's own executable (or, when its /proc exe cannot be read, being
# non-dumpable, it must not be traced: every member is). Two members bind
# such a name and answer with terminal escapes (OSC 52 to the clipboard,
# CSI, C1, a bidi override, bytes that are not UTF-8): one as it is, one
# non-dumpable. Neither is listed, `corral ps PID` refuses both and prints
# none of their bytes; the real corral is still listed (before: both were
# listed and `corral ps PID` copied their answer raw).
#
# Then what a peer that passes sends is still escaped: a process running
# corral's executable with a library preloaded (the residual the check
# leaves open, docs/threat-model.md) answers raw escapes; `corral ps PID`
# shows them as \e, \xHH (needs a C compiler for the library; skipped
# without one).
. "$(dirname "$0")/lib.sh"
need_corral
command -v python3 >/dev/null || skip_test "python3 not installed"

cat >"$T/m.py" <<'PY'
import ctypes, os, socket, sys
if sys.argv[1] == "nodump":
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
ANSWER = (b"\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[Hcorral: 1 process\n"
          b"\xc2\x9b31m \xe2\x80\xae \xff \x1b]0;title")
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(b"\0corral/live/%d" % os.getpid())
s.listen(8)
# One write(2) for the line: print() writes the text and its newline apart
# (strace), and two members print at once, so their lines interleaved
# ("READY dump 1READY nodump 2", then an empty line) and the second READY
# never came (seen under two CPU hogs, 1 run in 40).
os.write(1, b"READY %s %d\n" % (sys.argv[1].encode(), os.getpid()))
while True:
    c, _ = s.accept()
    try:
        c.settimeout(5)
        c.recv(16)
        c.sendall(ANSWER)
    except OSError:
        pass
    c.close()
PY

# raw: does FILE hold a control byte (not \n), C1, bidi or non-UTF-8?
raw() {
	python3 - "$1" <<'PY'
import re, sys
b = open(sys.argv[1], "rb").read()
try:
    s = b.decode("utf-8")
except UnicodeDecodeError:
    sys.exit(0)
sys.exit(0 if re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]", s) else 1)
PY
}

RUN_LABEL="members posing as corrals"
start -- "$CORRAL" run -q -- sh -c 'python3 "$1" dump & python3 "$1" nodump & wait' sh "$T/m.py" || exit 1
# the bound is a safety net (two python3 starts under corral); what once
# looked like a slow start was the two READY lines interleaved (m.py)
await '^READY ' 60 && A=$MATCH && await '^READY ' 60 && B=$MATCH
if [ -n "${A:-}" ] && [ -n "${B:-}" ]; then
	for m in "$A" "$B"; do
		set -- $m
		case $2 in dump) DUMP=$3 ;; nodump) NODUMP=$3 ;; esac
	done
	"$CORRAL" ps >"$T/list.out" 2>"$T/list.err"
	grep -q "^$PID " "$T/list.out" || fail "the real corral $PID is not listed: $(cat "$T/list.out" "$T/list.err")"
	grep -q "^$DUMP " "$T/list.out" && fail "the member $DUMP that took a live socket name is listed as a corral"
	grep -q "^$NODUMP " "$T/list.out" && fail "the non-dumpable member $NODUMP that took a live socket name is listed as a corral"
	for m in $DUMP $NODUMP; do
		timeout 30 "$CORRAL" ps "$m" >"$T/ps.$m.out" 2>"$T/ps.$m.err"
		rc=$?
		[ "$rc" = 1 ] || fail "corral ps $m (a member): exit status $rc, expected 1"
		[ -s "$T/ps.$m.out" ] && fail "corral ps $m printed the member's answer: $(cat -v "$T/ps.$m.out" | head -c 200)"
		grep -q "is not a corral of yours" "$T/ps.$m.err" ||
			fail "corral ps $m: no refusal: $(cat -v "$T/ps.$m.err" | head -c 200)"
		raw "$T/ps.$m.out" && fail "corral ps $m: raw control bytes on stdout"
		raw "$T/ps.$m.err" && fail "corral ps $m: raw control bytes on stderr"
	done
fi
kill -TERM "$PID"
finish
end_run

RUN_LABEL="a peer running corral's executable"
if command -v cc >/dev/null; then
	cat >"$T/fake.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
/* In corral's process, before its main: answer one client with escapes. */
__attribute__((constructor)) static void fake(void)
{
	if (!getenv("FAKE_LIVE"))
		return;
	static const char ans[] = "\x1b]52;c;cHduZWQ=\a\x1b[2J\x1b[Hcorral: 1 process\n"
				  "\xc2\x9b" "31m \xe2\x80\xae \xff \x1b]0;title";
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int n = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "corral/live/%d", (int)getpid());
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(sa_family_t) + 1 + n) < 0 || listen(s, 8) < 0)
		_exit(3);
	printf("READY %d\n", (int)getpid());
	fflush(stdout);
	int c = accept(s, NULL, NULL);
	char req[16];
	if (c >= 0 && read(c, req, sizeof(req)) >= 0 && write(c, ans, sizeof(ans) - 1) < 0)
		_exit(4);
	_exit(0);
}
C
	if cc -shared -fPIC -o "$T/fake.so" "$T/fake.c" 2>"$T/cc.err"; then
		# under make asan the library preloaded before ASan's runtime
		# makes ASan refuse to start: told not to check that order
		start -- env FAKE_LIVE=1 LD_PRELOAD="$T/fake.so" \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
			"$CORRAL" --version || exit 1
		if await '^READY '; then
			set -- $MATCH
			timeout 30 "$CORRAL" ps "$2" >"$T/pre.out" 2>"$T/pre.err"
			expect_eq "$?" 0 "corral ps of a process running corral's executable"
			raw "$T/pre.out" && fail "corral ps copied the answer raw: $(cat -v "$T/pre.out" | head -c 200)"
			grep -qF '\e]52;c;cHduZWQ=\x07\e[2J\e[Hcorral: 1 process' "$T/pre.out" ||
				fail "the answer is not shown escaped: $(cat -v "$T/pre.out" | head -c 300)"
			grep -qF '\xc2\x9b31m \xe2\x80\xae \xff \e]0;title' "$T/pre.out" ||
				fail "C1, bidi, non-UTF-8 not shown escaped: $(cat -v "$T/pre.out" | head -c 300)"
		fi
		finish
		end_run
	else
		note "cc cannot build a shared library: $(head -c 200 "$T/cc.err")"
	fi
else
	note "no C compiler: the escaping of a peer's answer is not checked"
fi

done_test
