#!/usr/bin/env bash
# Stack walks cannot hang corral (issue 22; docs/stacks.md, "Bounds").
#
# A member controls what a stack walk reads: its unwind tables and its
# files. stack_hostile ships a CFA expression that loops for ever
# (DW_OP_skip -3), replaces its own file by a FIFO (the unwinder's open()
# never returns), or blocks under 100,000 frames. On the old main the first
# two froze corral for ever at the first stack (timeout, crash, ps --stacks).
#
#  1. -t 2 on each: corral ends within the timeout + -k + a margin, exit 124,
#     the tree is gone (witness); the stack event says it was cut short and
#     why ("truncated": true, "cut": "budget", "deadline" with the first
#     frame only, "frames" with 64 frames).
#  2. SIGTERM to corral while a walk is stuck (a round over six FIFO
#     members, each worth a 1.25 s abandoned walk) ends the run at once:
#     the walk is abandoned for the signal ("cut": "signal").
#  3. A member that crashes with hostile unwind info does not stop the
#     supervision of the others: another member's timeout still fires.
#  4. corral ps --stacks and SIGUSR1 (--stacks snapshot) on such members
#     answer within their deadline, and corral goes on.
# Every run ends with the witness: nothing survives.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture stack_hostile
[ "$(uname -m)" = x86_64 ] || skip_test "the hostile CFI is x86-64 asm"

H=$FIX/stack_hostile
K=1 # -k
MARGIN=5 # generous: 2 cores shared with other jobs

# stack_of J FILTER: the first stack event matching FILTER, compact
stack_of() { jq -c "select(.event == \"stack\" and ($2))" "$1" | head -n 1; }

# ------------------------------------------------ 1. -t 2 on each hostile mode
# case MODE TRUNCATED ARGS...
hostile_timeout() {
	local mode=$1 want=$2 j s
	shift 2
	RUN_LABEL="-t 2, $mode"
	j=$T/j.$mode
	start -- "$CORRAL" run -q -j "$j" -t 2 -k $K -- "$H" "$mode" "$@"
	await '^ready$' 30 || { kill -KILL "$PID"; finish 10; end_run; return; }
	finish 30
	expect_rc 124 "$mode under -t 2"
	ELAPSED_US=$(((ELAPSED_US + T0 - TM)))
	expect_within $((2 + K + MARGIN)) "$mode under -t 2 -k $K (from start)"
	if j_valid "$j"; then
		j_expect_end "$j" reason timeout
		s=$(stack_of "$j" '.why == "timeout" and .pid != null')
		[ -n "$s" ] || fail "$mode: no timeout stack event"
		expect_eq "$(jq -r .truncated <<<"$s")" true "$mode: truncated"
		expect_eq "$(jq -r .cut <<<"$s")" "$want" "$mode: cut"
		case $want in
		deadline)
			# abandoned: the ip from the registers, nothing more
			expect_eq "$(jq '.frames | length' <<<"$s")" 1 "$mode: frames of an abandoned walk"
			;;
		frames)
			expect_eq "$(jq '.frames | length' <<<"$s")" 64 "$mode: frames (the cap)"
			expect_eq "$(jq -r '[.frames[].func] | map(select(. == "corral_fixture_deep")) | length' <<<"$s")" 62 "$mode: the recursion's frames"
			;;
		budget)
			expect_eq "$(jq -r '[.frames[].func] | index("corral_fixture_hostile_here") != null' <<<"$s")" true "$mode: frames up to the hostile function"
			;;
		esac
	fi
	end_run
}
hostile_timeout loop budget
mkdir -p "$T/fifo1"
hostile_timeout fifo deadline "$T/fifo1"
hostile_timeout deep frames

# ------------------------------------------------ 2. SIGTERM during a stuck walk
RUN_LABEL="SIGTERM while a walk is stuck"
j=$T/j.term
for i in 1 2 3 4 5 6; do mkdir -p "$T/term$i"; done
start -- "$CORRAL" run -q -j "$j" -t 1 -k 30 -- sh -c \
	"for i in 1 2 3 4 5 6; do '$H' fifo '$T/term'\$i & done; wait"
ok=1
for i in 1 2 3 4 5 6; do await '^ready$' 30 || { ok=; break; }; done
if [ -n "$ok" ]; then
	# The round starts right after the ending line (bounded polling).
	for i in $(seq 1 400); do
		grep -q '"event":"ending"' "$j" 2>/dev/null && break
		sleep 0.05 # waiting for the timeout's ending line (bounded)
	done
	mark
	kill -TERM "$PID"
	finish 30
	expect_rc 124 "ended by its timeout, hastened by SIGTERM"
	# Without the signal: six abandoned walks (the 5 s round budget) and
	# a 30 s grace; with it: at once.
	expect_within 4 "from SIGTERM to the end"
	if j_valid "$j"; then
		[ "$(j_count "$j" '.event == "stack" and .cut == "signal"')" -ge 1 ] ||
			fail "no stack cut short by the signal"
	fi
else
	kill -KILL "$PID"
	finish 10
fi
end_run

# ------------------------------------------------ 3. a hostile crash, another's timeout
RUN_LABEL="hostile crash, the other member's timeout"
j=$T/j.crash
start -- "$CORRAL" run -q -j "$j" -t 3 -k $K -- sh -c \
	"'$H' sleeper & '$H' crash; echo crashed; wait"
await '^crashed$' 30
finish 30
expect_rc 124 "the sleeper's timeout"
ELAPSED_US=$(((ELAPSED_US + T0 - TM)))
expect_within $((3 + K + MARGIN)) "crash then timeout (from start)"
if j_valid "$j"; then
	j_expect_end "$j" reason timeout
	s=$(stack_of "$j" '.why == "crash"')
	expect_eq "$(jq -r .cut <<<"$s")" budget "the crash's stack: cut"
	j_expect "$j" '.event == "exit" and .signal == "SIGSEGV"' 1 "the crash was delivered"
fi
end_run

# ------------------------------------------------ 4. ps --stacks, SIGUSR1
RUN_LABEL="ps --stacks and SIGUSR1"
j=$T/j.ps
mkdir -p "$T/ps"
start -- "$CORRAL" run -q -j "$j" --stacks snapshot,timeout -- sh -c \
	"'$H' loop & '$H' fifo '$T/ps' & wait"
if await '^ready$' 30 && await '^ready$' 30; then
	t0=$(now_us)
	timeout 40 "$CORRAL" ps --stacks "$PID" >"$T/ps.out" 2>"$T/ps.err"
	rc=$?
	took=$((($(now_us) - t0) / 1000000))
	expect_eq "$rc" 0 "corral ps --stacks"
	[ "$took" -le 10 ] || fail "corral ps --stacks took ${took}s"
	expect_grep 'truncated: budget' "$T/ps.out" "ps: the looping walk cut by its budget"
	expect_grep 'truncated: deadline' "$T/ps.out" "ps: the FIFO walk abandoned"
	expect_grep 'corral_fixture_hostile_here' "$T/ps.out" "ps: frames up to the hostile function"
	kill -USR1 "$PID"
	for i in $(seq 1 400); do
		[ "$(j_count "$j" '.event == "stack" and .why == "snapshot"' 2>/dev/null)" -ge 3 ] && break
		sleep 0.05 # waiting for the snapshot's stacks (bounded)
	done
	[ "$(j_count "$j" '.event == "stack" and .why == "snapshot" and .cut == "deadline"')" -ge 1 ] ||
		fail "SIGUSR1: no abandoned snapshot stack"
	[ "$(j_count "$j" '.event == "stack" and .why == "snapshot" and .cut == "budget"')" -ge 1 ] ||
		fail "SIGUSR1: no budget-cut snapshot stack"
	mark
	kill -TERM "$PID"
	finish 30
	expect_rc 143 "SIGTERM after the requests"
else
	kill -KILL "$PID"
	finish 10
fi
end_run

done_test
