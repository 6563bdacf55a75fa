#!/usr/bin/env bash
# sandbox_bad_input.sh - `--sandbox` that cannot be built: a clear message,
# exit 125, nothing started. The command would create a marker file (in the
# workspace, and on the host if it ever ran unsandboxed); the marker must not
# exist, and the journal's end says processes 0.
#   - bubblewrap missing (PATH without bwrap; a non-executable "bwrap");
#   - a workspace that does not exist, a file, or /;
#   - a --bind / --ro-bind of a missing path, or of /;
#   - a bwrap that exits before the command runs (the sandbox failed):
#     125, the command not run, and the reason (bwrap's own message, from
#     the probe's trial) in the journal's end line (sandbox_error);
#   - a setuid bubblewrap first in PATH: docs/sandbox.md ("Decision: a
#     setuid bwrap"): corral does not refuse it as such; seized before it
#     runs, it has no privileges and works as a plain bwrap. So the command
#     must run sandboxed (network off, checked from inside). As root, when an
#     unprivileged user (nobody) can run corral, a setuid-root
#     copy is also run as that user.
. "$(dirname "$0")/lib.sh"
need_corral

WS=$T/ws
mkdir -p "$WS" "$T/jdir"
chmod 1777 "$T/jdir"
chmod 777 "$WS"
CORRAL_ABS=$(readlink -f "$CORRAL")

# refused LABEL MESSAGE_REGEX [env...] -- corral run options...: the run
# must exit 125 with a message matching MESSAGE_REGEX, the markers must not
# exist and nothing may have been started. LAST_J: its journal.
refused() {
	local label=$1 re=$2 j
	shift 2
	local -a envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	RUN_LABEL=$label
	j=$T/j.refused.$((RUN + 1))
	LAST_J=$j
	rm -f "$WS/marker" "$T/marker"
	run -- env ${envs[@]+"${envs[@]}"} "$CORRAL_ABS" run -j "$j" "$@" -- \
		/bin/sh -c "touch $WS/marker $T/marker 2>/dev/null; touch $WS/marker; echo RAN"
	expect_rc 125 "$label"
	expect_grep "$re" "$ERRF" "$label: the message"
	grep -q '^corral: ' "$ERRF" || fail "$label: no 'corral: ' message on stderr"
	[ -e "$WS/marker" ] && fail "$label: the command ran (marker $WS/marker exists)"
	[ -e "$T/marker" ] && fail "$label: the command ran unsandboxed (marker $T/marker exists)"
	grep -q '^RAN$' "$OUTF" && fail "$label: the command ran (its output is there)"
	if [ -s "$j" ]; then
		j_valid "$j" && {
			j_expect_end "$j" exit_code 125
			j_expect "$j" '.event == "exec" and (.setup | not)' 0 "$label: exec of the command"
		}
	fi
	RUN_LABEL=
}

# --- bubblewrap missing ----------------------------------------------------
refused "no bwrap in PATH" 'bubblewrap|bwrap' PATH=/nonexistent -- --sandbox --workspace "$WS"
[ -s "$LAST_J" ] && j_expect_end "$LAST_J" processes 0

mkdir -p "$T/fakebin"
printf 'not a program\n' >"$T/fakebin/bwrap"
chmod 644 "$T/fakebin/bwrap"
refused "bwrap not executable" 'bubblewrap|bwrap' PATH="$T/fakebin" -- --sandbox --workspace "$WS"
[ -s "$LAST_J" ] && j_expect_end "$LAST_J" processes 0

# --- the workspace ---------------------------------------------------------
refused "missing workspace" "$T/nonexistent" -- --sandbox --workspace "$T/nonexistent"
[ -e "$T/nonexistent" ] && fail "missing workspace: corral created it"
[ -s "$LAST_J" ] && j_expect_end "$LAST_J" processes 0
: >"$T/afile"
refused "workspace is a file" "$T/afile" -- --sandbox --workspace "$T/afile"
refused "workspace is /" 'workspace /' -- --sandbox --workspace /

# --- binds -----------------------------------------------------------------
refused "--bind of a missing path" "$T/missing-bind" -- --sandbox --workspace "$WS" --bind "$T/missing-bind"
[ -e "$T/missing-bind" ] && fail "--bind of a missing path: corral created it"
[ -s "$LAST_J" ] && j_expect_end "$LAST_J" processes 0
refused "--ro-bind of a missing path" "$T/missing-ro" -- --sandbox --workspace "$WS" --ro-bind "$T/missing-ro"
refused "--bind /" '--bind /' -- --sandbox --workspace "$WS" --bind /

# --- a bwrap that gives up before the command runs -------------------------
cat >"$T/fakebin/bwrap" <<'EOF'
#!/bin/sh
echo "bwrap: fake: cannot build the sandbox" >&2
exit 1
EOF
chmod 755 "$T/fakebin/bwrap"
refused "bwrap fails" 'sandbox' PATH="$T/fakebin:/usr/bin:/bin" -- --sandbox --workspace "$WS"
# the end line says why, with bubblewrap's own words (the probe's trial)
if [ -s "$LAST_J" ]; then
	j_expect "$LAST_J" '.event == "end" and .sandbox_failed == true and (.sandbox_error | test("bwrap: fake: cannot build the sandbox"))' 1 "bwrap fails: end.sandbox_error"
else
	fail "bwrap fails: no journal"
fi
expect_grep '^corral: bubblewrap exited with status 1 before the command ran: .*bwrap: fake: cannot build the sandbox' "$ERRF" "bwrap fails: the reason on stderr"

# --- bwrap cannot fork (a pids limit): corral must still end, promptly -----
# (spec) As root with a cgroup v1 pids hierarchy: corral (under timeout(1))
# in a pids cgroup with pids.max 3: timeout, corral, bwrap; bwrap's clone
# for its PID 1 fails (EAGAIN) and bwrap exits 1 before the command runs.
# corral must then end at once (125: the sandbox could not be built), not
# wait for a SIGCHLD that never comes.
PIDS=/sys/fs/cgroup/pids
if [ "$(id -u)" = 0 ] && [ "$(stat -f -c %T "$PIDS" 2>/dev/null)" = cgroupfs ] &&
	[ -w "$PIDS/cgroup.procs" ] && mkdir "$PIDS/corral-test.$MARK" 2>/dev/null; then
	RUN_LABEL="bwrap cannot fork"
	pc=$PIDS/corral-test.$MARK
	echo 3 >"$pc/pids.max"
	rm -f "$WS/marker"
	run -- /bin/sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec timeout -s KILL 10 "$@"' sh "$pc" \
		"$CORRAL_ABS" run -q --sandbox --workspace "$WS" -- /bin/sh -c "touch $WS/marker"
	expect_rc 125 "corral --sandbox when bwrap cannot fork (137: corral hung until timeout(1) killed it)"
	expect_within 9 "corral --sandbox when bwrap cannot fork"
	[ -e "$WS/marker" ] && fail "the command ran"
	echo max >"$pc/pids.max"
	for p in $(cat "$pc/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	rmdir "$pc" 2>/dev/null || { sleep 0.5; rmdir "$pc" 2>/dev/null; } || note "cannot remove $pc"
	RUN_LABEL=
else
	skip_part "no writable cgroup v1 pids hierarchy (or not root): the pids-limit case is skipped"
fi

# --- a setuid bwrap --------------------------------------------------------
BWRAP=$(command -v bwrap)
if [ -z "$BWRAP" ]; then
	skip_part "no bwrap installed: setuid cases skipped"
	done_test
fi
if ! "$CORRAL" probe >"$T/probe" 2>&1; then
	skip_part "the sandbox is not usable here, setuid cases skipped: $(tr '\n' ' ' <"$T/probe")"
	done_test
fi

# netcheck: prints "net off" when an AF_INET socket cannot be made inside
NETCHECK='import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    print("net on")
except OSError as e:
    print("net off", e.errno)'

# setuid_run LABEL DIR [runuser -u USER --]: a setuid copy of bwrap in DIR,
# first in PATH; the command must run sandboxed.
setuid_run() {
	local label=$1 dir=$2 j
	shift 2
	RUN_LABEL=$label
	# writable by the user corral runs as, and outside the workspace
	# (corral keeps no journal where a member of the run can write)
	j=$T/jdir/j.suid.$((RUN + 1))
	[ -u "$dir/bwrap" ] || note "$label: $dir/bwrap is not setuid (nosuid filesystem?): tested anyway"
	run -- "$@" env PATH="$dir:/usr/bin:/bin" "$CORRAL_ABS" run -j "$j" --sandbox --workspace "$WS" -- \
		/usr/bin/python3 -c "$NETCHECK"
	expect_rc 0 "$label: corral --sandbox with a setuid bwrap (docs/sandbox.md: not refused as such)"
	expect_grep '^net off' "$OUTF" "$label: the command ran sandboxed (no network)"
	if j_valid "$j"; then
		j_expect "$j" ".event == \"exec\" and .setup == true and .path == \"$dir/bwrap\"" 1 "$label: the setuid copy was the bwrap run"
		j_expect_end "$j" survivors 0
	fi
	RUN_LABEL=
}

mkdir -p "$T/suid"
cp "$BWRAP" "$T/suid/bwrap"
chmod 4755 "$T/suid/bwrap"
setuid_run "setuid bwrap (owner $(id -un))" "$T/suid"

if [ "$(id -u)" = 0 ]; then
	# a setuid-ROOT bwrap run by an unprivileged user: the case that matters
	u=
	for cand in nobody; do
		id -u "$cand" >/dev/null 2>&1 || continue
		runuser -u "$cand" -- test -x "$CORRAL_ABS" -a -w "$WS" 2>/dev/null || continue
		u=$cand
		break
	done
	if [ -n "$u" ]; then
		setuid_run "setuid-root bwrap run by $u" "$T/suid" runuser -u "$u" --
	else
		skip_part "no unprivileged user can run $CORRAL_ABS: setuid-root case as non-root skipped"
	fi
fi

done_test
