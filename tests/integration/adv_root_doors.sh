#!/usr/bin/env bash
# Doors that a capability opens past the ptrace-access check, and so past
# Landlock's scoping (issue 22): perf_event_open aimed at a process outside
# the tree (with sigtrap it kills its target: the kernel lets a
# perfmon_capable() caller skip ptrace_may_access()), cpu-wide events, and
# what /proc/<outside>/environ gives a root member. In every --escape mode,
# as root and as the unprivileged test user.
# Witness: a process this test starts outside corral, which runs now and
# then (a perf event with sigtrap fires only while its target runs), is
# still alive after the member tried; the run leaves nothing behind.
# perf_event_open is slow on a loaded VM (it waits on the target CPUs):
# beside two CPU hogs and the suite, one run's three calls took over 60 s
# (the first 4 s, the cpu-wide one 26 s). The bound is a safety net.
DEADLINE=${DEADLINE:-240}
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture adv_attack

# perf events at all (perf_event_paranoid 3, or a kernel without them:
# nothing to refuse, nothing to test).
r=$("$FIX/adv_attack" count 0 -1 2>&1)
[ "$r" = "count: ok" ] ||
	skip_test "perf events unavailable here ($r, perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"

# The victim wakes every 50 ms without forking (a builtin read with a
# timeout on a FIFO nobody writes): a `sleep 0.05` loop forked 20 times a
# second, for the whole test, in each of the four victims alive until the
# end, and was most of this test's CPU in make test (docs/testing.md).
mkfifo "$T/vnap"
victim() {
	exec {VIN}< <(env -u CORRAL_TEST_MARK bash -c 'echo $$; exec 3<>"$1"; while :; do read -r -t 0.05 -u 3 _; done' _ "$T/vnap")
	read -r -t 10 -u "$VIN" VPID || { fail "victim: no pid"; return 1; }
	VICTIMS+=("$VPID")
}
alive() { [ -e "/proc/$VPID" ] && [ "$(awk '{print $3}' "/proc/$VPID/stat")" != Z ]; }

root=$([ "$(id -u)" = 0 ] && echo 1)
for mode in off log deny kill; do
	RUN_LABEL="escape $mode"
	victim || continue
	j=$T/j.$mode
	# The member holds its event open for a second while the victim runs.
	run -- "$CORRAL" run -q -j "$j" --escape "$mode" -- \
		"$FIX/adv_attack" count 0 -1 perf "$VPID" -1 count -1 0 \
		read "/proc/$VPID/environ" hold 1000 fsopen fuse
	# fsopen("fuse") comes last: in kill mode it ends the tree (123).
	expect_rc "$([ "$mode" = kill ] && echo 123 || echo 0)" "attack run"
	expect_grep '^count: ok$' "$OUTF" "a perf event on the caller itself still works"
	expect_grep '^perf: EACCES$' "$OUTF" "perf_event_open(outside pid, sigtrap) refused"
	[ "$(grep -c '^count: ' "$OUTF")" = 2 ] && expect_grep '^count: EACCES$' "$OUTF" \
		"a cpu-wide perf event refused"
	alive || fail "the outside process died (perf sigtrap reached it)"
	if [ -n "$root" ]; then
		# Open for a root member (docs/threat-model.md, "A root member"):
		# files opened through mm_access() in read mode pass Landlock's
		# ptrace scoping for a capable caller on this kernel.
		expect_grep '^read: ok [1-9]' "$OUTF" \
			"root reads /proc/<outside>/environ (documented as open)"
	else
		expect_grep '^read: (EACCES|EPERM)$' "$OUTF" \
			"/proc/<outside>/environ refused to an unprivileged member"
	fi
	[ "$mode" = deny ] && expect_grep '^fsopen: EPERM$' "$OUTF" "fsopen(\"fuse\") refused"
	[ "$mode" = kill ] && grep -q '^fsopen:' "$OUTF" && fail "fsopen(\"fuse\") returned in kill mode"
	kill "$VPID" 2>/dev/null
	j_valid "$j" || continue
	j_expect_end "$j" survivors 0
	if [ "$mode" = off ]; then
		j_check "$j" '[.[] | select(.event == "escape")] | length == 0' ||
			fail "off mode journals escapes"
		continue
	fi
	j_check "$j" "[.[] | select(.event == \"escape\" and (.call | startswith(\"perf_event_open\")) and (.call | contains(\", $VPID, \")) and .verdict == \"deny\" and .why == \"perf events of a process outside the tree\")] | length == 1" ||
		fail "no escape line refusing the perf event on $VPID"
	j_check "$j" '[.[] | select(.event == "escape" and .verdict == "deny" and .why == "perf events of every task on a CPU")] | length == 1' ||
		fail "no escape line refusing the cpu-wide event"
	j_check "$j" '[.[] | select(.event == "escape" and (.call | test("^perf_event_open[(]0x[0-9a-f]+, 0, ")))] | length == 0' ||
		fail "the event on the caller itself was journaled"
	want=$mode
	j_check "$j" "[.[] | select(.event == \"escape\" and .call == \"fsopen(\\\"fuse\\\", 0)\" and .verdict == \"$want\" and (.why | contains(\"FUSE\")))] | length == 1" ||
		fail "fsopen(\"fuse\") not journaled with verdict $want"
done
# corral's own read-mode /proc files: corral is non-dumpable, which holds
# an unprivileged member off; a root member reads them (documented).
RUN_LABEL="corral's own /proc"
run -- "$CORRAL" run -q -- sh -c \
	'exec "$0" read /proc/$PPID/environ read /proc/$PPID/mem' "$FIX/adv_attack"
expect_rc 0 "read run"
if [ -n "$root" ]; then
	expect_grep '^read: ok [1-9]' "$OUTF" "root reads corral's environ (documented as open)"
	expect_grep '^read: (EACCES|EPERM)$' "$OUTF" "corral's mem refused to a root member"
else
	[ "$(grep -c '^read: \(EACCES\|EPERM\)$' "$OUTF")" = 2 ] ||
		fail "corral's environ or mem readable by an unprivileged member: $(cat "$OUTF")"
fi
RUN_LABEL=
done_test
