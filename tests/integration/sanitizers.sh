#!/usr/bin/env bash
# sanitizers.sh - LeakSanitizer works inside corral (tracer/audit/eptrace.c, the
# emulated ptrace): its StopTheWorld clones a CLONE_UNTRACED helper, which
# PTRACE_ATTACHes every thread, waits with __WALL, reads their registers
# (PTRACE_GETREGSET) and stacks, then detaches. Without the emulation every
# sanitized program died with "LeakSanitizer has encountered a fatal error"
# ("does not work under ptrace").
#
# tests/fixtures/san_threads.c built with -fsanitize=address and with
# -fsanitize=leak: a leaking one (reports "Direct leak of 4321 byte(s)" and
# exits as it does untraced: 1 under ASan, 23 under LSan), a clean one
# (exits 0), each with 8 threads alive during the check (each thread holds
# a block only on its stack: a register or stack LSan failed to read would
# show as a leak) SAN_RUNS times (3 here; `make soak` runs 50), and once
# without threads,
# plain and --sandbox. Runs as root and as the unprivileged test user
# (tests/run.sh). The witness checks that nothing is left after each run.
. "$(dirname "$0")/lib.sh"
need_corral

RUNS=${SAN_RUNS:-3}
SRC=$ROOT/tests/fixtures/san_threads.c
command -v gcc >/dev/null || skip_test "no gcc"
# The programs live in the sandbox's workspace (the sandbox has its own
# /tmp); as root it is the test user (TEST_UID)'s: the sandbox runs as its owner.
WS=$T/ws
mkdir -p "$WS"
chmod 755 "$WS"
for s in address leak; do
	gcc -g -O0 -fsanitize=$s -o "$WS/san_$s" "$SRC" -lpthread 2>"$T/cc.$s" ||
		skip_test "gcc cannot build with -fsanitize=$s (libasan/liblsan missing?): $(head -c 200 "$T/cc.$s")"
done
chmod 755 "$WS"/san_*
if [ "$(id -u)" = 0 ]; then
	chown -R "$TEST_UID:$TEST_GID" "$WS"
fi
# LSan must work here untraced first (another tracer, or a kernel that
# refuses ptrace, breaks it with or without corral).
"$WS/san_leak" 0 1 >/dev/null 2>"$T/untraced" || true
grep -q 'Direct leak of 4321' "$T/untraced" ||
	skip_test "LeakSanitizer does not work untraced here: $(head -c 200 "$T/untraced")"

SANDBOX=1
"$CORRAL" probe >"$T/probe" 2>&1 || SANDBOX=

# one MODE BIN THREADS LEAK: RUNS runs (one without threads), each checked
one() {
	local mode=$1 bin=$2 threads=$3 leak=$4 want i opts=() n=$RUNS
	[ "$threads" = 0 ] && n=1
	if [ "$leak" = 1 ]; then
		want=1
		[ "$bin" = leak ] && want=23
	else
		want=0
	fi
	[ "$mode" = sandbox ] && opts=(--sandbox --workspace "$WS")
	for i in $(seq "$n"); do
		RUN_LABEL="$mode $bin threads=$threads leak=$leak #$i"
		run -- "$CORRAL" run -q "${opts[@]}" -- "$WS/san_$bin" "$threads" "$leak"
		expect_rc "$want" "san_$bin"
		if grep -q 'does not work under ptrace\|LeakSanitizer has encountered a fatal error' "$ERRF"; then
			fail "LeakSanitizer could not stop the world"
			show_run
		fi
		if [ "$leak" = 1 ]; then
			expect_grep 'Direct leak of 4321 byte' "$ERRF" "the leak reported"
		elif grep -q 'leak of' "$ERRF"; then
			fail "a leak reported by the clean program (a thread's registers or stack not read?)"
			show_run
		fi
	done
	RUN_LABEL=
}

modes=plain
[ -n "$SANDBOX" ] && modes="plain sandbox" || note "no sandbox here: plain runs only"
for mode in $modes; do
	for bin in address leak; do
		for threads in 0 8; do
			one "$mode" "$bin" "$threads" 0
			one "$mode" "$bin" "$threads" 1
		done
	done
done

# The journal of one run: one emulated attach and detach per thread (8
# threads and main), by one helper, nothing left.
j=$T/j
RUN_LABEL=journal
run -- "$CORRAL" run -q -j "$j" -- "$WS/san_leak" 8 1
expect_rc 23 "san_leak, journaled"
if j_valid "$j"; then
	expect_eq "$(j_count "$j" '.event == "ptrace" and .action == "attach"')" 9 "attaches"
	expect_eq "$(j_count "$j" '.event == "ptrace" and .action == "detach"')" 9 "detaches"
	expect_eq "$(jq -r 'select(.event == "ptrace") | .pid' "$j" | sort -u | wc -l)" 1 "one tracer (the helper)"
	j_expect_end "$j" survivors 0
fi

done_test
