#!/usr/bin/env bash
# eptrace_setuid.sh - no privilege gained through the emulated ptrace
# (issue 36). An unprivileged member (a uid with no passwd entry) forks a
# child, seizes it with PTRACE_O_TRACEEXEC and lets it exec a set-uid-root
# program; at the exec stop it writes code at the child's instruction
# pointer that exits 66 as root and 77 otherwise (tests/fixtures/
# ept_suid.c). Witnesses:
#   - without corral the kernel runs the exec unprivileged under that
#     tracer (LSM_UNSAFE_PTRACE): injected=user, the attack's code works;
#   - under a root corral the code must never run as root: the emulated
#     tracer is let go at the exec stop (no exec stop for it, the program
#     runs as it does untraced: its own exit 50, euid 0), and the journal
#     says "revoked";
#   - the same child exec'ing a program that is not set-id keeps its
#     tracer (the code runs, as the member's own uid);
#   - a tracee that makes itself not dumpable after the seize: its
#     tracer's PEEKDATA gets EIO, untraced and under corral alike (the
#     kernel's ptrace_access_vm, checked at the request, not the attach);
#   - a tracer that seizes 4500 children and never waits for their ends:
#     corral keeps at most 4096 of them (journaled once), its peak RSS
#     stays small, and the timeout ends everything.
# Root only: a set-uid-root program and another uid are needed.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture ept_suid
need_fixture euid_exit
[ "$(id -u)" = 0 ] || skip_test "needs root (a set-uid-root program, another uid)"
[ "$(uname -m)" = x86_64 ] || skip_test "the injected code is x86_64"

U=${CORRAL_TEST_UID:-4242}
G=${CORRAL_TEST_GID:-$U}
# The programs in a directory of the test's own, reachable by that uid.
cp "$FIX/ept_suid" "$FIX/euid_exit" "$T/"
cp "$FIX/euid_exit" "$T/plain_exit"
chown root:root "$T/euid_exit"
chmod 4755 "$T/euid_exit"
chmod 755 "$T/ept_suid" "$T/plain_exit"
as_user=(setpriv --reuid="$U" --regid="$G" --clear-groups --)

# The set-uid bit works here (a nosuid /tmp would make the test vacuous).
"${as_user[@]}" "$T/euid_exit"
[ $? = 50 ] || skip_test "$T is mounted nosuid: the set-uid program runs unprivileged"

RUN_LABEL="untraced"
run -- "${as_user[@]}" "$T/ept_suid" "$T/euid_exit"
expect_rc 0 "ept_suid untraced"
expect_grep '^poke=OK$' "$OUTF" "the tracer writes its code at the exec stop"
expect_grep '^injected=user$' "$OUTF" "the kernel ran the exec unprivileged under the tracer"

RUN_LABEL="corral"
j=$T/j.suid
run -- "$CORRAL" run -q -j "$j" -- "${as_user[@]}" "$T/ept_suid" "$T/euid_exit"
expect_rc 0 "ept_suid under corral"
expect_grep '^seize=OK$' "$OUTF" "the seize is allowed (same uid)"
if grep -q '^injected=root$' "$OUTF"; then
	fail "the member's code ran as root through corral's emulated ptrace"
fi
expect_grep '^execstop=none$' "$OUTF" "no exec stop for a tracer that lost its tracee"
expect_grep '^exited=50$' "$OUTF" "the set-uid program ran as it does untraced"
if j_valid "$j"; then
	j_expect "$j" '.event == "ptrace" and .action == "revoked" and (.detail | test("set-id"))' 1 "journal: revoked, and why"
	j_expect_end "$j" survivors 0
fi

RUN_LABEL="corral, not set-id"
j=$T/j.plain
run -- "$CORRAL" run -q -j "$j" -- "${as_user[@]}" "$T/ept_suid" "$T/plain_exit"
expect_rc 0 "ept_suid on a plain program"
expect_grep '^execstop=yes$' "$OUTF" "the exec stop of a plain program is reported"
expect_grep '^injected=user$' "$OUTF" "the tracer keeps its tracee: its code runs as the member"
if j_valid "$j"; then
	j_expect "$j" '.event == "ptrace" and .action == "revoked"' 0 "nothing revoked"
fi

RUN_LABEL="not dumpable after the attach"
run -- "${as_user[@]}" "$T/ept_suid" --nodump
expect_grep '^peek=EIO$' "$OUTF" "untraced: the kernel refuses the PEEK"
j=$T/j.nodump
run -- "$CORRAL" run -q -j "$j" -- "${as_user[@]}" "$T/ept_suid" --nodump
expect_rc 0 "ept_suid --nodump under corral"
expect_grep '^seize=OK$' "$OUTF" "the seize is allowed"
expect_grep '^peek=EIO$' "$OUTF" "under corral: the PEEK is refused as the kernel refuses it"
[ -n "$(j_valid "$j" && echo ok)" ] && j_expect_end "$j" survivors 0

RUN_LABEL="a tracer that never waits"
j=$T/j.nowait
start -- "$CORRAL" run -q -j "$j" --stacks never --timeout 120 --kill-after 1 -- "${as_user[@]}" "$T/ept_suid" --nowait 4500
await '^READY 4500$' 120
cpid=$(pgrep -f -n -- "-j $j") || cpid=
hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$cpid/status" 2>/dev/null)
[ -n "$cpid" ] && kill -TERM "$cpid"
finish 60
end_run
note "corral's peak RSS with 4500 ends not waited for: ${hwm:-?} kB"
if [ -z "$hwm" ] || [ "$hwm" -gt 65536 ]; then
	fail "corral's peak RSS ${hwm:-unknown} kB (more than 64 MiB, or not read)"
fi
if j_valid "$j"; then
	expect_grep 'more ends not waited for than corral keeps' "$j" "journal: the cap on ends kept, once"
	j_expect_end "$j" survivors 0
fi

done_test
