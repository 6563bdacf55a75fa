#!/usr/bin/env bash
# CLONE_UNTRACED would make a child the tracer is not told about: under
# corral clone(CLONE_UNTRACED) stops at corral, which clears the bit (the
# child is traced like any other: LeakSanitizer's helper needs the clone to
# work, tracer/audit/eptrace.c), clone3 fails with ENOSYS (its flags are in
# memory, out of a seccomp filter's reach), and nothing escapes.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture untraced

j=$T/j
run -- "$CORRAL" run -q -j "$j" -- "$FIX/untraced"
expect_rc 0 "untraced"
expect_grep '^clone_untraced=OK:[0-9]+$' "$OUTF" "clone(CLONE_UNTRACED), made traced"
expect_grep '^clone3_untraced=ENOSYS$' "$OUTF" "clone3(CLONE_UNTRACED)"
expect_grep '^clone3=(ENOSYS|OK:[0-9]+)$' "$OUTF" "plain clone3"
if j_valid "$j"; then
	j_expect_end "$j" survivors 0
	# the CLONE_UNTRACED child is a member: born as one (fork: its exit
	# signal is SIGCHLD), left behind pausing, and ended; a plain clone3
	# child, if allowed, is traced too (one more)
	u=$(sed -n 's/^clone_untraced=OK:\([0-9]*\)$/\1/p' "$OUTF")
	expect_grep "\"event\":\"fork\",[^}]*\"pid\":$u," "$j" "untraced child's birth journaled"
	expect_grep "\"event\":\"left\",[^}]*\"pid\":$u," "$j" "untraced child left, then ended"
	if grep -q '^clone3=OK' "$OUTF"; then
		j_expect_end "$j" processes 3
	else
		j_expect_end "$j" processes 2
	fi
fi
# (the witness after run: no escaped child may be alive)

# glibc falls back from clone3 to clone: threads and posix_spawn still work
RUN_LABEL="fallback"
run -- "$CORRAL" run -q -- python3 -c 'import os, threading; t = threading.Thread(target=lambda: None); t.start(); t.join(); os.posix_spawn("/bin/true", ["true"], os.environ); print(os.wait()[1])'
expect_rc 0 "threads and posix_spawn under corral"
expect_grep '^0$' "$OUTF" "posix_spawn'd child status"

done_test
