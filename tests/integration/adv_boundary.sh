#!/usr/bin/env bash
# --boundary: what a run gets, as the journal's start line records it, and
# the refusal for the high-assurance user: --boundary=landlock on a kernel
# without Landlock's scoping exits 125 with a message and starts nothing.
# Witness: cgroup + marker (nothing started, nothing left).
. "$(dirname "$0")/lib.sh"
need_corral

boundary_probe
want=seccomp
[ "$HOST_ABI" -ge 1 ] && want=landlock-ptrace
[ "$HOST_ABI" -ge 6 ] && want=landlock
expect_eq "$BOUNDARY" "$want" "default boundary (host Landlock ABI $HOST_ABI)"
expect_eq "$(j_start "$T/boundary.j" landlock_abi)" "$HOST_ABI" "landlock_abi in the start line"

run -- "$CORRAL" run -q -j "$T/j.seccomp" --boundary=seccomp -- true
expect_rc 0 "--boundary=seccomp"
expect_eq "$(j_start "$T/j.seccomp" boundary)" seccomp "--boundary=seccomp in the start line"

run -- "$CORRAL" run -q -j "$T/j.ll" --boundary=landlock -- sh -c 'echo ran'
if [ "$HOST_ABI" -ge 6 ]; then
	expect_rc 0 "--boundary=landlock on ABI $HOST_ABI"
	expect_eq "$(j_start "$T/j.ll" boundary)" landlock "--boundary=landlock in the start line"
	expect_grep '^ran$' "$OUTF" "the command ran"
else
	expect_rc 125 "--boundary=landlock refused on ABI $HOST_ABI"
	expect_grep 'corral: --boundary=landlock: ' "$ERRF" "a clear message"
	grep -q '^ran$' "$OUTF" && fail "the command ran although the boundary was refused"
	j_valid "$T/j.ll" && j_expect_end "$T/j.ll" exit_code 125
fi

run -- "$CORRAL" run -q --boundary=nope -- sh -c 'echo ran'
expect_rc 125 "--boundary=nope"
expect_grep "invalid --boundary 'nope'" "$ERRF" "a clear message"
grep -q '^ran$' "$OUTF" && fail "the command ran after a bad --boundary"

# The sandbox keeps working inside the domain (bubblewrap must mount: a
# domain that only scopes does not stop it; on ABI 1..5 none is used).
if "$CORRAL" probe >/dev/null 2>&1; then
	# (as root the sandbox runs as the workspace's owner: a root-owned one
	# is refused, docs/sandbox.md "Root callers")
	mkdir -p "$T/ws"
	[ "$(id -u)" = 0 ] && chown nobody "$T/ws"
	run -- "$CORRAL" run -q -j "$T/j.sb" --sandbox --workspace "$T/ws" -- sh -c 'echo sandboxed'
	expect_rc 0 "--sandbox under the default boundary"
	expect_grep '^sandboxed$' "$OUTF" "the sandboxed command ran"
	sb_want=seccomp
	[ "$HOST_ABI" -ge 6 ] && sb_want=landlock
	expect_eq "$(j_start "$T/j.sb" boundary)" "$sb_want" "boundary with --sandbox"
else
	skip_part "sandbox not usable here: its part is skipped"
fi
done_test
