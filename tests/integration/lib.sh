# tests/integration/lib.sh - sourced by every integration test.
#
#   . "$(dirname "$0")/lib.sh"
#   start -- "$CORRAL" run -j "$T/j" -- "$FIX/daemonize"   # in the witness
#   await '^READY'                                            # a line, deadline
#   finish                                                    # RC, ELAPSED
#   expect_rc 0 "daemonize"
#   ...
#   done_test
#
# The witness: every command a test starts runs in a fresh cgroup v2 (as
# root) and carries CORRAL_TEST_MARK=<unique> in its environment; after each
# run the cgroup must be empty and no process may carry the marker. What is
# left is reported, killed (cgroup.kill) and the test fails. The cgroup and
# the marker scan are the witness only: corral itself never relies on them.
#
# No sleeps as synchronisation: tests wait for lines on a pipe (await) or
# for the end of the command (finish); deadlines (read -t, timeout) are
# safety nets against hangs only.

set -u

LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$LIB_DIR/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
CORRAL=${CORRAL:-$BUILD/corral}
FIX=$BUILD/fixtures
TEST_NAME=$(basename "$0" .sh)
T=$(mktemp -d "${TMPDIR:-/tmp}/corral-$TEST_NAME.XXXXXX")
chmod 755 "$T"
MARK="$TEST_NAME.$$.$RANDOM$RANDOM"
FAILS=0
RUN=0
CG=
PID=
SUB=
OUT=
ST=
RC=
ELAPSED=
MATCH=
DEADLINE=${DEADLINE:-60} # safety net for one run, seconds
# The unprivileged identity of root's tests (tests/test-user.sh): a uid with
# no passwd entry, so no user has to exist. as_test_user CMD... runs CMD as
# it, with no supplementary groups and a HOME of the test's own.
TEST_UID=
TEST_GID=
if [ "$(id -u)" = 0 ]; then
	read -r TEST_UID TEST_GID < <("$ROOT/tests/test-user.sh") || true
fi
as_test_user() {
	setpriv --reuid="$TEST_UID" --regid="$TEST_GID" --clear-groups -- \
		env HOME="$T" USER="uid$TEST_UID" LOGNAME="uid$TEST_UID" "$@"
}

# ---------------------------------------------------------------- reporting

fail() {
	FAILS=$((FAILS + 1))
	echo "FAIL [$TEST_NAME${RUN_LABEL:+ / $RUN_LABEL}]: $*" >&2
}

note() { echo "[$TEST_NAME${RUN_LABEL:+ / $RUN_LABEL}] $*" >&2; }

# skip_test REASON: the machine lacks what the whole test needs (found by a
# probe that runs the thing, not by guessing): say so and exit 77, which
# tests/run.sh counts as skipped and lists with REASON. Never a way to pass:
# .ci/run fails when a core capability's test is skipped (.ci/must-not-skip).
skip_test() {
	echo "SKIP [$TEST_NAME]: $*" >&2
	exit 77
}

# skip_part REASON: one part of the test cannot run here (the rest does);
# the test goes on and tests/run.sh lists the line with the skips.
skip_part() {
	echo "SKIP [$TEST_NAME / ${RUN_LABEL:-part}]: $*" >&2
}

# Print the stdout/stderr of the last run (after a failure).
show_run() {
	local f
	for f in "$T/out.$RUN" "$T/err.$RUN"; do
		[ -s "$f" ] || continue
		echo "---- ${f##*/} (last 30 lines)" >&2
		tail -n 30 "$f" | cut -c1-300 | cat -v >&2
	done
}

# Show the last lines of a journal (after a failure).
show_journal() {
	[ -s "$1" ] || { echo "---- journal $1: empty or missing" >&2; return; }
	echo "---- journal ${1##*/} (first 5 / last 10 lines)" >&2
	head -n 5 "$1" | cut -c1-300 >&2
	echo "  ..." >&2
	tail -n 10 "$1" | cut -c1-300 >&2
}

# now_us: wall clock in microseconds (integer). Inside lib.sh the clock is
# read as ${EPOCHREALTIME/./} and results are set with printf -v: each
# $(...) is a fork, and a fork (with its exit) costs ~5 ms of CPU on our
# 2-core machines; a run through start/finish/witness_check took a dozen.
now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }

# secs US: microseconds -> "S.mmm"; secs_v VAR US sets VAR (no fork)
secs() { printf '%d.%03d' $(($1 / 1000000)) $((($1 % 1000000) / 1000)); }
secs_v() { printf -v "$1" '%d.%03d' $(($2 / 1000000)) $((($2 % 1000000) / 1000)); }

# ----------------------------------------------------------------- witness

witness_setup() {
	CG=
	if [ "$(id -u)" = 0 ]; then
		local base
		for base in /sys/fs/cgroup/unified /sys/fs/cgroup; do
			[ "$(stat -f -c %T "$base" 2>/dev/null)" = cgroup2fs ] || continue
			[ -w "$base/cgroup.procs" ] || continue
			if mkdir "$base/corral-test.$MARK" 2>/dev/null; then
				CG=$base/corral-test.$MARK
				break
			fi
		done
	fi
	if [ -n "$CG" ]; then
		WITNESS="cgroup $CG + marker"
	else
		WITNESS="marker CORRAL_TEST_MARK (no writable cgroup2)"
	fi
}

# Called in the launching subshell, before anything of the test starts.
witness_enter() {
	export CORRAL_TEST_MARK=$MARK
	if [ -n "$CG" ]; then
		echo "$BASHPID" >"$CG/cgroup.procs" || {
			echo "witness: cannot enter $CG" >&2
			exit 125
		}
	fi
}

# Live processes of this test: pids from the cgroup and from the marker.
# witness_scan: the test's processes still alive in WPIDS (space-separated,
# empty when none). Builtins but for the one grep (it runs after every run:
# see start). witness_pids prints them, one a line.
witness_pids() {
	local IFS=$' \t\n'
	witness_scan
	[ -z "$WPIDS" ] || printf '%s\n' $WPIDS
}
witness_scan() {
	local p st IFS=$' \t\n'
	local -A seen=()
	if [ -n "$CG" ] && [ -r "$CG/cgroup.procs" ]; then
		while read -r p; do [ -n "$p" ] && seen[$p]=1; done <"$CG/cgroup.procs"
	fi
	for p in $(grep -slzx "CORRAL_TEST_MARK=$MARK" /proc/[0-9]*/environ 2>/dev/null); do
		p=${p#/proc/}
		p=${p%/environ}
		[ "$p" = "$BASHPID" ] && continue
		# a zombie has an empty environ; a process that is exiting may
		# still match. The state is the field after the ")" that ends
		# the name (which may hold spaces).
		st=
		read -r st <"/proc/$p/stat" 2>/dev/null || continue
		st=${st##*) }
		[ "${st%% *}" = Z ] && continue
		seen[$p]=1
	done
	WPIDS=${!seen[*]}
	return 0
}

witness_describe() {
	local p n=0
	for p in "$@"; do
		n=$((n + 1))
		if [ "$n" -gt 10 ]; then
			echo "  ... and $(($# - 10)) more" >&2
			break
		fi
		printf '  pid %s: %s [%s]\n' "$p" \
			"$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-120)" \
			"$(awk '{print "state " $3 ", ppid " $4}' "/proc/$p/stat" 2>/dev/null)" >&2
	done
}

witness_kill() {
	local p
	if [ -n "$CG" ]; then
		echo 1 >"$CG/cgroup.kill" 2>/dev/null
	fi
	witness_scan
	for p in $WPIDS; do kill -KILL "$p" 2>/dev/null; done
	local until=$((${EPOCHREALTIME/./} + 5000000))
	while witness_scan && [ -n "$WPIDS" ] && [ "${EPOCHREALTIME/./}" -lt "$until" ]; do
		sleep 0.05 # waiting for the kernel to finish killing (cleanup only)
	done
}

# witness_check [SETTLE_SECS]: nothing this test started may be alive.
# SETTLE (default 0) allows for asynchronous death (corral was SIGKILLed and
# EXITKILL is delivering SIGKILL to the tree): poll until then.
witness_check() {
	local settle=${1:-0} left
	witness_scan
	left=$WPIDS
	if [ -n "$left" ] && [ "$settle" != 0 ]; then
		local until=$((${EPOCHREALTIME/./} + settle * 1000000))
		while [ -n "$left" ] && [ "${EPOCHREALTIME/./}" -lt "$until" ]; do
			sleep 0.02 # bounded wait for the kernel's asynchronous SIGKILL
			witness_scan
			left=$WPIDS
		done
	fi
	if [ -n "$left" ]; then
		# shellcheck disable=SC2086
		fail "witness: $(echo $left | wc -w) process(es) of the test still alive ($WITNESS):"
		# shellcheck disable=SC2086
		witness_describe $left
		witness_kill
		witness_scan
		left=$WPIDS
		[ -z "$left" ] || fail "witness: could not kill: $left"
		return 1
	fi
	return 0
}

cleanup() {
	# A second TERM (timeout sends one to the test and one to its group)
	# must not cut the cleanup short: the witness is what kills the rest.
	trap '' INT TERM
	victims_kill
	[ -n "$OUT" ] && exec {OUT}<&-
	[ -n "$ST" ] && exec {ST}<&-
	witness_kill
	if [ -n "$CG" ]; then
		rmdir "$CG" 2>/dev/null || {
			sleep 0.2
			rmdir "$CG" 2>/dev/null || echo "witness: cannot remove $CG" >&2
		}
	fi
	if [ "$FAILS" = 0 ] || [ -z "${KEEP_FAILED:-}" ]; then
		rm -rf "$T"
	else
		echo "[$TEST_NAME] kept $T" >&2
	fi
}

# ----------------------------------------------------------------- running

# start [-i FILE] [-f] [--] CMD...: CMD runs in the background inside the
# witness, with stdin from FILE (default /dev/null), stderr in $T/err.N and
# stdout on a pipe that await reads (what it reads also goes to $T/out.N);
# with -f stdout goes straight to $T/out.N (for much output; no await then).
# SIGINT and SIGQUIT are reset to default (a background job of a script has
# them ignored). Sets PID (the pid of CMD itself) and T0.
start() {
	local input=/dev/null tofile=
	while :; do
		case ${1:-} in
		-i) input=$2; shift 2 ;;
		-f) tofile=1; shift ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	RUN=$((RUN + 1))
	OUTF=$T/out.$RUN
	ERRF=$T/err.$RUN
	: >"$OUTF"
	# FIFOs named by the run: one mkfifo, no rm (cleanup removes $T); each
	# process a run starts is a fork + exec, which a loaded machine makes
	# slow, and tests make thousands of runs (docs/testing.md)
	local ofifo=$T/o.fifo.$RUN sfifo=$T/s.fifo.$RUN
	if [ -n "$tofile" ]; then mkfifo "$sfifo"; else mkfifo "$ofifo" "$sfifo"; fi
	local out=$ofifo
	[ -n "$tofile" ] && out=$OUTF
	(
		witness_enter
		env --default-signal=INT,QUIT "$@" <"$input" 9>&- &
		echo "$!" >&9
		wait "$!"
		echo "$?" >&9
	) >"$out" 2>"$ERRF" 9>"$sfifo" &
	SUB=$!
	if [ -n "$tofile" ]; then
		OUT=
	else
		exec {OUT}<"$ofifo"
	fi
	exec {ST}<"$sfifo"
	PID=
	read -r -t 10 -u "$ST" PID || { fail "start: no pid from the launcher"; return 1; }
	T0=${EPOCHREALTIME/./}
	TM=$T0
}

# poll_until SECS CMD...: run CMD until it succeeds, at most SECS seconds by
# the clock (not a count of tries: on a loaded machine each try is slow);
# 1 when it never did. For a state with no event to wait on (a file's
# line, a /proc entry), polled every 50 ms.
poll_until() {
	local until=$((${EPOCHREALTIME/./} + $1 * 1000000))
	shift
	while :; do
		"$@" && return 0
		[ "${EPOCHREALTIME/./}" -lt "$until" ] || return 1
		sleep 0.05 # polling a state nothing signals (bounded by the clock)
	done
}

# mark: remember now (ELAPSED is measured from the last mark or start).
mark() { TM=${EPOCHREALTIME/./}; }

# await REGEX [SECS]: read stdout lines of the running command until one
# matches (extended regex); MATCH is the line. Fails on EOF or deadline
# (with AWAIT_SOFT=1 only notes it and returns 1: for a command the test's
# own timeout may end before it is ready, on a loaded machine; load_threads'
# 6000 threads were not all up when its 6 s timeout ended them, beside two
# CPU hogs).
_await_fail() {
	if [ -n "${AWAIT_SOFT:-}" ]; then note "$@"; else fail "$@"; fi
}

await() {
	local re=$1 secs=${2:-20} line until rem wait_s
	until=$((${EPOCHREALTIME/./} + secs * 1000000))
	MATCH=
	while :; do
		rem=$(((until - ${EPOCHREALTIME/./}) / 1000))
		if [ "$rem" -le 0 ]; then
			_await_fail "await '$re': no such line within ${secs}s"
			return 1
		fi
		secs_v wait_s $((rem * 1000))
		if ! IFS= read -r -t "$wait_s" -u "$OUT" line; then
			[ -n "$line" ] && printf '%s' "$line" >>"$OUTF"
			if [ "${EPOCHREALTIME/./}" -ge "$until" ]; then
				_await_fail "await '$re': no such line within ${secs}s"
			else
				_await_fail "await '$re': end of output before such a line"
			fi
			return 1
		fi
		printf '%s\n' "$line" >>"$OUTF"
		if [[ $line =~ $re ]]; then
			MATCH=$line
			return 0
		fi
	done
}

# finish [SECS]: wait (deadline SECS, default $DEADLINE) for the command; sets
# RC and ELAPSED (seconds since the last mark/start, "S.mmm"), then reads the
# rest of stdout into $T/out.N. A command still running at the deadline is
# killed and the run fails ("hung"). Does not run the witness.
finish() {
	local secs=${1:-$DEADLINE} rc
	RC=
	if ! read -r -t "$secs" -u "$ST" rc; then
		fail "hung: still running after ${secs}s: killed"
		kill -KILL "$PID" 2>/dev/null
		read -r -t 10 -u "$ST" rc
		rc=${rc:-hung}
	fi
	local end
	end=${EPOCHREALTIME/./}
	wait "$SUB" 2>/dev/null
	RC=$rc
	ELAPSED_US=$((end - TM))
	secs_v ELAPSED "$ELAPSED_US"
}

# drain: the rest of stdout, once the tree is gone (after the witness).
drain() {
	if [ -n "$OUT" ]; then
		timeout 10 cat <&"$OUT" >>"$OUTF"
		exec {OUT}<&-
	fi
	[ -n "$ST" ] && exec {ST}<&-
	OUT= ST=
}

# run [-i FILE] [--] CMD...: start -f + finish + witness_check + drain.
run() {
	start -f "$@" || return 1
	finish
	witness_check
	drain
}

# end_run [SETTLE]: witness_check + drain after finish.
end_run() {
	witness_check "${1:-0}"
	drain
}

# --------------------------------------------------------------- assertions

expect_rc() {
	local want=$1 what=${2:-command}
	if [ "$RC" != "$want" ]; then
		fail "$what: exit status $RC, expected $want"
		show_run
		return 1
	fi
}

# expect_within SECS what: ELAPSED <= SECS
expect_within() {
	if [ "$ELAPSED_US" -gt $(($1 * 1000000)) ]; then
		fail "${2:-run}: took ${ELAPSED}s, more than $1s"
		return 1
	fi
}

expect_eq() { # expect_eq GOT WANT WHAT
	[ "$1" = "$2" ] && return 0
	fail "$3: got '$1', expected '$2'"
	return 1
}

expect_grep() { # expect_grep REGEX FILE WHAT
	grep -Eq -- "$1" "$2" 2>/dev/null && return 0
	fail "$3: no line matching /$1/ in ${2##*/}"
	show_run
	return 1
}

# ----------------------------------------------------------------- journal

# The helpers below that answer with a count, a boolean or a scalar ask
# gojq when the machine has it (make deps installs it): it starts in ~10 ms
# of CPU where jq 1.6 takes ~25 ms (it compiles its builtins at each start),
# and make test starts these helpers some thousand times (~20 s of CPU
# saved, docs/testing.md). What prints objects (j_sel) and a test's own
# jq calls stay on jq: gojq sorts an object's keys, and tests compare
# those lines as text.
JQF=$(command -v gojq || echo jq)

# j_sel J FILTER: the events matching jq FILTER, one per line (compact)
j_sel() { jq -c "select($2)" "$1" 2>/dev/null; }
# j_count J FILTER: how many events match
# (one jq each, no pipe: tests call these thousands of times)
# (lines that are not JSON, e.g. a last line cut by a SIGKILL, are skipped)
# (j_count_v VAR J FILTER sets VAR: one process, the filter's, where
# n=$(j_count ...) makes two: the fork for $(...) and the one for jq)
j_count() { "$JQF" -n -R "[inputs | fromjson? | select($2)] | length" "$1" 2>/dev/null || echo 0; }
j_count_v() {
	printf -v "$1" '%s' "$("$JQF" -n -R "[inputs | fromjson? | select($3)] | length" "$2" 2>/dev/null)"
	[ -n "${!1}" ] || printf -v "$1" 0
}
# One jq a journal, not one a question: jq 1.6 costs ~25 ms of CPU a start
# (it compiles its builtins each time), tests ask thousands of questions,
# and most are the same three (is every line an event, what does the end
# say, what does the start say). _j_digest reads the journal once and keeps
# the answers until the file changes (size and mtime); j_parse, j_end and
# j_start answer from them. Only scalar top-level keys without a newline or
# tab are kept; any other key, or a journal with more than one end, asks jq
# as before.
declare -A J_DIG=()
J_DIG_FILE=
J_DIG_STAMP=
_j_digest() {
	local j=$1 stamp k v
	stamp=$(stat -c '%s %.9Y %i' "$j" 2>/dev/null) || stamp=none
	[ "$j" = "$J_DIG_FILE" ] && [ "$stamp" = "$J_DIG_STAMP" ] && return 0
	J_DIG=()
	J_DIG_FILE=$j J_DIG_STAMP=$stamp
	[ "$stamp" = none ] && return 0
	while IFS=$'\t' read -r k v; do
		J_DIG[$k]=$v
	done < <("$JQF" -n -R -r '
		def flat($p): to_entries[]
			| select((.value | type) != "object" and (.value | type) != "array")
			| (.value | tostring) as $v
			| select(($v | test("[\t\n]")) | not)
			| "\($p).\(.key)\t\($v)";
		reduce (inputs | try fromjson catch "\u0000not json") as $o
			({bad: "", start: null, ends: 0, end: null, last: ""};
			if .bad != "" then .
			elif $o == "\u0000not json" then .bad = "not JSON"
			elif ($o | type) != "object" or ($o.event | type) != "string" then
				.bad = "not an event object"
			else
				(if .start == null and $o.event == "start" then .start = $o else . end)
				| (if $o.event == "end" then .ends += 1 | .end = $o else . end)
				| .last = $o.event
			end)
		| "bad\t\(.bad)", "ends\t\(.ends)", "last\t\(.last)",
		  (if .start then .start | flat("start") else empty end),
		  (if .ends == 1 then .end | flat("end") else empty end)' "$j" 2>/dev/null)
}

# j_end J KEY: a key of the end event (raw). j_end_v VAR J KEY sets VAR
# instead, in this shell: the digest is kept for the next question (in a
# $(j_end ...) it is computed in the fork and lost with it).
j_end() {
	local v
	j_end_v v "$1" "$2"
	printf '%s\n' "$v"
}
j_end_v() {
	_j_digest "$2"
	if [ "${J_DIG[ends]:-}" = 1 ] && [[ $3 =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
		if [ -n "${J_DIG[end.$3]+set}" ]; then
			printf -v "$1" '%s' "${J_DIG[end.$3]}"
			return 0
		fi
	fi
	# a key the end does not have, one not kept (not a scalar), or more
	# than one end: jq, as it always was
	printf -v "$1" '%s' "$("$JQF" -r "select(.event == \"end\") | .$3" "$2" 2>/dev/null)"
}
# j_start J KEY
j_start() {
	_j_digest "$1"
	if [[ $2 =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] && [ -n "${J_DIG[start.$2]+set}" ]; then
		printf '%s\n' "${J_DIG[start.$2]}"
		return 0
	fi
	"$JQF" -n -r "first(inputs | select(.event == \"start\")) | .$2" "$1" 2>/dev/null
}

# j_str S: S as a JSON string literal, for a jq filter (no jq started).
# Control characters other than tab and newline are not expected in test
# strings; they are refused rather than quoted wrongly.
j_str() {
	local s=$1
	if [[ $s =~ [[:cntrl:]] ]] && [[ ${s//[$'\t\n']/} =~ [[:cntrl:]] ]]; then
		fail "j_str: a control character in '$s'"
		printf '""'
		return 1
	fi
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\t'/\\t}
	s=${s//$'\n'/\\n}
	printf '"%s"' "$s"
}

# j_parse J: every line is one JSON object with an "event" (corral may have
# been killed: no end line required).
j_parse() {
	local j=$1 bad
	if [ ! -s "$j" ]; then
		fail "journal ${j##*/}: missing or empty"
		return 1
	fi
	# the first bad line's complaint (the digest stops at it)
	local first=
	_j_digest "$j"
	bad=${J_DIG[bad]-"not readable"}
	# corral writes "event" first in every line (docs/journal.md)
	read -r -n 20 first <"$j"
	[[ $first == '{"event":"start"'* ]] && first=start
	if [ -n "$bad" ]; then
		fail "journal ${j##*/}: a line is $bad"
		grep -n -m 3 -v '^{.*}$' "$j" | cut -c1-200 >&2
		return 1
	fi
	[ "$first" = start ] || {
		fail "journal ${j##*/}: first event is not start"
		return 1
	}
}

# j_valid J: j_parse, and the last event is end (the digest's last line,
# which j_parse found to be an event like every other).
j_valid() {
	j_parse "$1" || return 1
	[ "${J_DIG[last]-}" = end ] || {
		fail "journal ${1##*/}: last event is not end"
		show_journal "$1"
		return 1
	}
}

# j_check J JQ_EXPR WHAT: jq -s (all events as one array) must be true.
j_check() {
	local r
	r=$("$JQF" -s "$2" "$1" 2>&1)
	[ "$r" = true ] && return 0
	fail "${3:-journal}: '$2' is $r"
	return 1
}

# j_expect J FILTER WANT WHAT: count of events matching FILTER == WANT
j_expect() {
	local n
	j_count_v n "$1" "$2"
	[ "$n" = "$3" ] && return 0
	fail "${4:-journal}: $n event(s) matching '$2', expected $3"
	return 1
}

# j_expect_end J KEY WANT: the end event's KEY == WANT
j_expect_end() {
	local v
	j_end_v v "$1" "$2"
	[ "$v" = "$3" ] && return 0
	fail "journal end.$2 = '$v', expected '$3'"
	return 1
}

# ------------------------------------------------------------- preconditions

need_corral() {
	[ -x "$CORRAL" ] || { fail "$CORRAL not built"; exit 1; }
}

# stage_install: what a third party sees, for the install_* tests: make
# install of this build into $T/stage (PREFIX=/usr, a multiarch LIBDIR),
# pkg-config pointed at the stage first and the system after (for the
# requirements). Sets S (the stage), LIBDIR, EXDIR (the installed
# examples) and SAN (under make asan the library is instrumented: so must
# be what links it). Ends the test when the install fails.
stage_install() {
	SAN=
	nm -u "$BUILD/libcorral.a" 2>/dev/null | grep -q __asan_init && SAN="-fsanitize=address,undefined"
	need_corral
	command -v pkg-config >/dev/null || { fail "pkg-config is missing"; done_test; }
	local multiarch
	multiarch=$(cc -print-multiarch 2>/dev/null)
	LIBDIR=/usr/lib${multiarch:+/$multiarch}
	S=$T/stage
	env -u MAKEFLAGS -u MAKELEVEL make -s -C "$ROOT" BUILD="$BUILD" DESTDIR="$S" \
		PREFIX=/usr LIBDIR="$LIBDIR" LDCONFIG= install >"$T/make.log" 2>&1 ||
		{ fail "make install failed"; cat "$T/make.log" >&2; done_test; }
	EXDIR=$S/usr/share/doc/corral/examples
	export PKG_CONFIG_SYSROOT_DIR=$S
	export PKG_CONFIG_LIBDIR=$S$LIBDIR/pkgconfig:$(pkg-config --variable pc_path pkg-config)
}

# stage_make MODE [TARGET...]: build the installed examples' Makefile in
# $T/MODE (shared, or static: STATIC=1), -Werror, rpath to the stage; its
# output in $T/MODE.log.
stage_make() {
	local mode=$1 static=
	shift
	mkdir -p "$T/$mode"
	[ "$mode" = static ] && static=1
	env -u MAKEFLAGS -u MAKELEVEL make -s -C "$T/$mode" -f "$EXDIR/Makefile" VPATH="$EXDIR" \
		STATIC=$static CFLAGS="-O2 -Wall -Wextra -Werror $SAN" \
		LDFLAGS="-Wl,-rpath,$S$LIBDIR" "$@" >"$T/$mode.log" 2>&1
}

need_fixture() {
	local f
	for f in "$@"; do
		[ -x "$FIX/$f" ] || { fail "fixture $FIX/$f not built (make $BUILD/fixtures/$f)"; exit 1; }
	done
}

# sandbox_workspace FILE...: WS ($T/ws) holds copies of the FILEs, for runs
# with --sandbox --workspace "$WS" (the sandbox sees its workspace, not
# every host path). As root it is the test user's (TEST_UID): the sandbox
# runs the command as the workspace's owner.
sandbox_workspace() {
	WS=$T/ws
	mkdir -p "$WS"
	chmod 755 "$WS"
	[ $# = 0 ] || cp "$@" "$WS/"
	if [ "$(id -u)" = 0 ]; then
		chown -R "$TEST_UID:$TEST_GID" "$WS"
	fi
}

# sandbox_modes: MODES is "plain sandbox" where `corral probe` says the
# sandbox works here, else "plain" (and a note says so).
sandbox_modes() {
	MODES=plain
	if "$CORRAL" probe >"$T/probe" 2>&1; then
		MODES="plain sandbox"
	else
		note "no sandbox here: plain runs only"
	fi
}

# --------------------------------------------------------- ending the tree

# j_acted_within J SECS WHAT: the journal's ending line came within SECS of
# the last mark (the signal): the wall time of the start line plus the
# ending's t, against the mark. A liveness bound: generous.
j_acted_within() {
	local st en
	st=$(j_start "$1" time)
	en=$(jq -r 'select(.event == "ending") | .t' "$1" 2>/dev/null | head -n 1)
	if [ -z "$st" ] || [ -z "$en" ]; then
		fail "$3: no start time or no ending line in ${1##*/}"
		return 1
	fi
	local s0 act
	s0=$(date -d "$st" +%s.%6N) || return 1
	act=$(awk -v s="$s0" -v e="$en" -v m="$TM" 'BEGIN { printf "%.3f", s + e - m / 1e6 }')
	if awk -v a="$act" -v b="$2" 'BEGIN { exit !(a > b) }'; then
		fail "$3: acted on ${act}s after it was sent, more than $2s"
		return 1
	fi
}

# term_three READY_REGEX [--] CMD...: the tree of CMD is ended three ways,
# each in its own run, and each time nothing may survive:
#   1. corral --timeout TERM_TIMEOUT: exit 124, within timeout + grace + slack;
#   2. SIGTERM to corral once CMD has printed READY_REGEX: exit 143, within
#      grace + slack;
#   3. SIGKILL to corral once ready: the tree dies with it (EXITKILL).
# TERM_TIMEOUT (default 2), TERM_GRACE (-k, default 1), TERM_SLACK (5),
# TERM_OPTS (array: more corral options), TERM_READY (seconds to get ready,
# default 20), TERM_WAYS (default "timeout sigterm sigkill"). With
# TERM_READY_SOFT=1 a READY line that does not come in time is noted, not a
# failure, and the signal is sent anyway (a storm rages either way). In the
# timeout way READY must come before the timeout fires: on a loaded machine
# it may not, and then the run goes on with the tree as far as it got (noted).
# The end is acted on (the journal's ending line) within TERM_SLACK of the
# timeout or the signal; the whole run may also take the stacks corral
# takes at the ending, before the grace: TERM_STACKS (default 5, the
# default stack budget, all of it on a loaded machine with a big tree).
term_three() {
	local re=$1 way
	shift
	[ "${1:-}" = -- ] && shift
	local to=${TERM_TIMEOUT:-2} ka=${TERM_GRACE:-1} slack=${TERM_SLACK:-5}
	local stacks=${TERM_STACKS:-5}
	local ready=${TERM_READY:-20} j
	local -a opts=(${TERM_OPTS[@]+"${TERM_OPTS[@]}"})
	for way in ${TERM_WAYS:-timeout sigterm sigkill}; do
		RUN_LABEL=${TERM_CASE:+$TERM_CASE: }$way
		j=$T/j.$way.$RUN
		case $way in
		timeout)
			start -- "$CORRAL" run -q -j "$j" --timeout "$to" -k "$ka" "${opts[@]}" -- "$@" || continue
			# the hard situation should be in place before the timeout
			# fires; under load, as far as it got by then (noted)
			AWAIT_SOFT=1 await "$re" "$to"
			finish $((to + stacks + ka + slack + 15))
			expect_rc 124 "--timeout $to"
			expect_within $((to + stacks + ka + slack)) "--timeout $to, stacks, -k $ka (from start)"
			local en
			en=$(jq -r 'select(.event == "ending") | .t' "$j" 2>/dev/null | head -n 1)
			awk -v e="${en:-999}" -v b=$((to + slack)) 'BEGIN { exit !(e <= b) }' ||
				fail "--timeout $to: acted on at ${en:-never}s, later than $((to + slack))s"
			if j_valid "$j"; then
				j_expect_end "$j" reason timeout
				j_expect_end "$j" exit_code 124
				j_expect_end "$j" survivors 0
				j_expect "$j" '.event == "ending" and .reason == "timeout"' 1 "ending event"
			fi
			end_run
			;;
		sigterm | sigint)
			local sig=TERM code=143
			[ "$way" = sigint ] && sig=INT code=130
			start -- "$CORRAL" run -q -j "$j" -k "$ka" "${opts[@]}" -- "$@" || continue
			if AWAIT_SOFT=${TERM_READY_SOFT:-} await "$re" "$ready" ||
				[ -n "${TERM_READY_SOFT:-}" ]; then
				mark
				kill -"$sig" "$PID"
			else
				kill -KILL "$PID"
				finish 15
				end_run 5
				continue
			fi
			finish $((stacks + ka + slack + 15))
			expect_rc $code "SIG$sig to corral"
			expect_within $((stacks + ka + slack)) "SIG$sig to corral, stacks, -k $ka (from the signal)"
			j_acted_within "$j" "$slack" "SIG$sig to corral"
			if j_valid "$j"; then
				j_expect_end "$j" reason signal
				j_expect_end "$j" exit_code $code
				j_expect_end "$j" survivors 0
				j_expect "$j" ".event == \"ending\" and .reason == \"signal\" and .signal == \"SIG$sig\"" 1 "ending event"
			fi
			end_run
			;;
		sigkill)
			start -- "$CORRAL" run -q -j "$j" "${opts[@]}" -- "$@" || continue
			AWAIT_SOFT=${TERM_READY_SOFT:-} await "$re" "$ready"
			mark
			kill -KILL "$PID"
			finish 15
			expect_rc 137 "SIGKILL to corral"
			j_parse "$j"
			# the tree dies asynchronously (EXITKILL): allow 5 s
			end_run 5
			;;
		*) fail "term_three: unknown way $way" ;;
		esac
		[ "$FAILS" -gt 0 ] && [ -n "${VERBOSE_FAIL:-}" ] && show_journal "$j"
	done
	RUN_LABEL=
}

# ------------------------------------------------- adversary (adv_*.sh)

# Processes the test starts *outside* corral and outside the witness (no
# marker, not in the cgroup): what a hostile member aims at. Ended by the
# test (victim_end) or at cleanup.
VICTIMS=()

victims_kill() {
	local p
	for p in ${VICTIMS[@]+"${VICTIMS[@]}"}; do kill -KILL "$p" 2>/dev/null; done
	VICTIMS=()
}

# victim_start [FILE]: adv_victim outside the tree; sets VPID, VADDR (its
# flag), VFD (its descriptor of FILE) and VIN (our end of its stdout).
victim_start() {
	exec {VIN}< <(env -u CORRAL_TEST_MARK "$FIX/adv_victim" ${1+"$1"})
	local line
	read -r -t 10 -u "$VIN" line || { fail "victim: no READY line"; return 1; }
	set -- $line
	VPID=$2 VADDR=$3 VFD=$4
	VICTIMS+=("$VPID")
}

# victim_state: the victim's state letter (R, S, T...), empty if gone.
victim_state() { awk '{print $3}' "/proc/$VPID/stat" 2>/dev/null; }

# victim_end: SIGCONT + SIGTERM; VREPORT is its last line ("flag=... usr1=N"),
# empty when it was killed.
victim_end() {
	VREPORT=
	kill -CONT "$VPID" 2>/dev/null
	kill -TERM "$VPID" 2>/dev/null && read -r -t 10 -u "$VIN" VREPORT
	exec {VIN}<&-
}

# boundary_probe: HOST_ABI, the kernel's Landlock ABI asked directly (0 if
# none; not corral's word), and BOUNDARY, what corral's journal says a
# default run got ("landlock", "landlock-ptrace", "seccomp"). Under
# build/tests/corral-testkernel (CORRAL_TESTKERNEL_LANDLOCK, docs/testing.md)
# HOST_ABI is the kernel that binary pretends to be: the one the run gets.
boundary_probe() {
	HOST_ABI=$(python3 -c 'import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
r = libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1)) if os.uname().machine in ("x86_64", "aarch64") else -1
print(r if r > 0 else 0)')
	case ${CORRAL_TESTKERNEL_LANDLOCK:-} in
	"") ;;
	none | disabled) HOST_ABI=0 ;;
	*) HOST_ABI=$CORRAL_TESTKERNEL_LANDLOCK ;;
	esac
	run -- "$CORRAL" run -q -j "$T/boundary.j" -- true
	BOUNDARY=$(j_start "$T/boundary.j" boundary)
}

done_test() {
	if [ "$FAILS" = 0 ]; then
		echo "ok [$TEST_NAME]"
		exit 0
	fi
	echo "[$TEST_NAME] $FAILS failure(s)" >&2
	exit 1
}

command -v jq >/dev/null || { echo "FAIL [$TEST_NAME]: jq is missing" >&2; exit 1; }
witness_setup
trap cleanup EXIT
trap 'exit 130' INT TERM
