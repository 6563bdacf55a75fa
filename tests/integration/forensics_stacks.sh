#!/usr/bin/env bash
# Forensics: stacks (docs/stacks.md, --stacks).
#
#  1. A program hung in functions of known names, ended by --timeout, has a
#     `stack` event for every thread (count == threads), naming
#     corral_fixture_hang_here (workers, with their callers in order) or
#     corral_fixture_main_parked (main): with -k 0, and with the default
#     grace (the stacks must show what it was doing when the timeout hit,
#     not be lost because SIGTERM ended it during the grace).
#  2. SIGTERM to corral: the same, why=signal.
#  3. A crash names the crashing function (SIGSEGV: corral_fixture_crash_here;
#     abort: corral_fixture_abort_here); corral exits 139 / 134 and the
#     signal was really delivered (the exit event, and a parent shell sees
#     the status).
#  4. The fixtures are built without frame pointers: no `mov %rsp,%rbp` in
#     any corral_fixture_* function (objdump), so the stacks above came from
#     .eh_frame alone.
#  5. --stacks exit-left: what the command left behind has its stacks,
#     why=exit-left; --stacks never: no stack at all.
# Every run ends with the witness: nothing survives.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture stack_hang stack_crash

HANG=$(readlink -f "$FIX/stack_hang")
CRASH=$(readlink -f "$FIX/stack_crash")
N=8

# thread_ids J: the tids of the first exec'd process (leader + threads)
thread_ids() {
	jq -r --slurp '
		([.[] | select(.event == "exec")][0].pid) as $p
		| [$p] + [.[] | select(.event == "thread" and .tgid == $p) | .pid]
		| sort | .[]' "$1"
}

# stack_ids J WHY: the tids that have a stack event with why=WHY, sorted
stack_ids() {
	jq -r --arg w "$2" 'select(.event == "stack" and .why == $w) | .pid' "$1" | sort -n
}

# check_hang_stacks J WHY WHAT: every thread of stack_hang has exactly one
# stack event with why=WHY; workers name the hang chain in order, main
# names corral_fixture_main_parked above main; modules are the fixture.
check_hang_stacks() {
	local j=$1 why=$2 what=$3 want got leader bad
	want=$(thread_ids "$j" | sort -n | tr '\n' ' ')
	got=$(stack_ids "$j" "$why" | tr '\n' ' ')
	expect_eq "$(echo $want | wc -w)" $((N + 1)) "$what: threads journaled (leader + $N)"
	expect_eq "$got" "$want" "$what: tids with a why=$why stack event (one each)"
	leader=$(jq -r 'select(.event == "exec") | .pid' "$j" | head -n 1)
	# workers: hang_here -> hang_mid -> hang_outer -> thread_start, in order
	bad=$(jq -r --argjson l "$leader" --arg w "$why" --arg m "$HANG" '
		select(.event == "stack" and .why == $w and .pid != $l)
		| [.frames[].func] as $f
		| ($f | index("corral_fixture_hang_here")) as $i
		| if $i == null then "\(.pid): no corral_fixture_hang_here in \($f)"
		  elif $f[$i + 1] != "corral_fixture_hang_mid"
		    or $f[$i + 2] != "corral_fixture_hang_outer"
		    or $f[$i + 3] != "corral_fixture_thread_start"
		  then "\(.pid): callers out of order: \($f)"
		  elif .frames[$i].module != $m then "\(.pid): module \(.frames[$i].module)"
		  elif (.frames[$i].ip | test("^0x[0-9a-f]+$") | not) then "\(.pid): ip \(.frames[$i].ip)"
		  else empty end' "$j")
	[ -z "$bad" ] || fail "$what: worker stacks: $(echo "$bad" | head -n 3)"
	bad=$(jq -r --argjson l "$leader" --arg w "$why" --arg m "$HANG" '
		select(.event == "stack" and .why == $w and .pid == $l)
		| [.frames[].func] as $f
		| ($f | index("corral_fixture_main_parked")) as $i
		| if $i == null then "no corral_fixture_main_parked in \($f)"
		  elif $f[$i + 1] != "main" then "main is not the caller: \($f)"
		  elif .frames[$i].module != $m then "module \(.frames[$i].module)"
		  else empty end' "$j")
	[ -z "$bad" ] || fail "$what: main thread stack: $bad"
	j_expect "$j" '.event == "stack" and (.error | type) == "string"' 0 "$what: stacks with an error"
}

# ------------------------------------------------ 1. hung program, --timeout
for k in 0 default; do
	RUN_LABEL="timeout, -k $k"
	j=$T/j.timeout.$k
	kopt=(-k 0)
	[ $k = default ] && kopt=()
	start -- "$CORRAL" run -q -j "$j" -t 3 ${kopt[@]+"${kopt[@]}"} -- "$FIX/stack_hang" "$N"
	await '^ready$' 3
	finish
	expect_rc 124 "stack_hang $N under -t 3"
	if j_valid "$j"; then
		j_expect_end "$j" reason timeout
		check_hang_stacks "$j" timeout "timeout (-k $k)"
		j_expect_end "$j" stacks $((N + 1))
	fi
	end_run
done

# ------------------------------------------------ 2. SIGTERM to corral
RUN_LABEL="SIGTERM to corral"
j=$T/j.signal
start -- "$CORRAL" run -q -j "$j" -k 0 -- "$FIX/stack_hang" "$N"
if await '^ready$'; then kill -TERM "$PID"; else kill -KILL "$PID"; fi
finish
expect_rc 143 "SIGTERM to corral"
if j_valid "$j"; then
	j_expect_end "$j" reason signal
	check_hang_stacks "$j" signal "SIGTERM"
fi
end_run

# ------------------------------------------------ 3. crashes
# crash_case ARG RC SIG FUNC
crash_case() {
	local arg=$1 rc=$2 sig=$3 fn=$4 j bad
	RUN_LABEL="crash ${arg:-segv}"
	j=$T/j.crash.${arg:-segv}
	run -- "$CORRAL" run -q -j "$j" -- "$FIX/stack_crash" $arg
	expect_rc "$rc" "stack_crash $arg: exit status 128+$sig"
	j_valid "$j" || return
	j_expect "$j" ".event == \"stack\" and .why == \"crash\"" 1 "crash stack events"
	j_expect "$j" ".event == \"signal\" and .signal == \"$sig\"" 1 "signal-delivery of $sig"
	j_expect "$j" ".event == \"exit\" and .signal == \"$sig\"" 1 "exit by $sig (the signal was delivered)"
	j_expect_end "$j" signal "$sig"
	bad=$(jq -r --arg fn "$fn" --arg m "$CRASH" '
		select(.event == "stack" and .why == "crash")
		| [.frames[].func] as $f
		| ([.frames[] | select(.module == $m)][0]) as $first
		| ($f | index($fn)) as $i
		| if $first.func != $fn then "innermost frame of the fixture is \($first.func), not \($fn): \($f)"
		  elif $f[$i + 1] != "corral_fixture_crash_mid" or $f[$i + 2] != "corral_fixture_crash_outer"
		    or $f[$i + 3] != "main" then "callers out of order: \($f)"
		  else empty end' "$j")
	[ -z "$bad" ] || fail "crash stack: $bad"
	# order: signal-delivery stop, then the stack, then the death
	j_check "$j" "[.[] | select(.event == \"signal\" or .event == \"stack\" or .event == \"exit\") | .event] == [\"signal\", \"stack\", \"exit\"]" "event order"
	j_expect_end "$j" survivors 0
}
crash_case "" 139 SIGSEGV corral_fixture_crash_here
crash_case abort 134 SIGABRT corral_fixture_abort_here

# The signal reaches the program as it would untraced: its parent sees it.
RUN_LABEL="crash seen by a parent"
j=$T/j.crash.parent
run -- "$CORRAL" run -q -j "$j" -- sh -c '"$1"; echo "status=$?"' sh "$FIX/stack_crash"
expect_rc 0 "sh around stack_crash"
expect_grep '^status=139$' "$OUTF" "the parent shell saw SIGSEGV (139)"
j_valid "$j" && j_expect "$j" '.event == "stack" and .why == "crash" and (.frames | map(.func) | index("corral_fixture_crash_here")) != null' 1 "crash stack below a shell"
RUN_LABEL=

# ------------------------------------------------ 4. no frame pointers
if command -v objdump >/dev/null; then
	for f in "$HANG" "$CRASH"; do
		fns=$(objdump -d --no-show-raw-insn "$f" | awk '
			/^[0-9a-f]+ <corral_fixture_[a-z_]*>:$/ { fn = $2; n++; next }
			/^$/ { fn = "" }
			fn != "" && /mov +%rsp,%rbp/ { print fn }
			END { if (n == 0) print "NONE" }')
		case $fns in
		NONE) fail "objdump: no corral_fixture_* function in ${f##*/}" ;;
		"") ;;
		*) fail "${f##*/} has a frame-pointer prologue in: $fns" ;;
		esac
	done
	readelf -S "$HANG" | grep -q '\.eh_frame ' || fail "stack_hang has no .eh_frame"
else
	skip_part "no objdump: relying on the Makefile's -fomit-frame-pointer for the fixtures"
fi

# ------------------------------------------------ 5. exit-left, never
# The command exits at once, leaving stack_hang behind (its "ready" comes
# first: the shell prints LEFT only after it, on the same pipe).
for k in 0 default; do
	RUN_LABEL="exit-left, -k $k"
	j=$T/j.left.$k
	kopt=(-k 0)
	[ $k = default ] && kopt=()
	start -- "$CORRAL" run -q -j "$j" --stacks exit-left ${kopt[@]+"${kopt[@]}"} -- \
		sh -c 'mkfifo "$1" && { "$2" 3 >"$1" & read -r r <"$1"; echo "LEFT $!"; }' sh "$T/left.fifo.$k" "$FIX/stack_hang"
	await '^LEFT '
	finish
	expect_rc 0 "sh leaving stack_hang behind"
	if j_valid "$j"; then
		left=${MATCH#LEFT }
		j_expect "$j" ".event == \"left\" and .pid == $left" 1 "left event for stack_hang"
		j_expect "$j" ".event == \"stack\" and .tgid == $left and .why == \"exit-left\"" 4 \
			"why=exit-left stacks of the left stack_hang (4 threads)"
		j_expect "$j" ".event == \"stack\" and .tgid == $left and .why == \"exit-left\" and (.frames | map(.func) | index(\"corral_fixture_hang_here\")) != null" 3 \
			"exit-left stacks naming corral_fixture_hang_here"
		j_expect_end "$j" survivors 0
	fi
	end_run
done
rm -f "$T"/left.fifo.*

RUN_LABEL="--stacks never"
j=$T/j.never
start -- "$CORRAL" run -q -j "$j" -t 2 -k 0 --stacks never -- "$FIX/stack_hang" 2
await '^ready$' 2
finish
expect_rc 124 "stack_hang under --stacks never"
j_valid "$j" && j_expect "$j" '.event == "stack"' 0 "stack events with --stacks never"
end_run

done_test
