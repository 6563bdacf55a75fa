#!/usr/bin/env bash
# sandbox_options.sh - bubblewrap's options people use (docs/sandbox.md,
# "Options"): each works, checked from inside, and each bad value is
# refused before anything starts (exit 125, a `corral: ` message naming the
# option, no marker file, the journal's end with processes 0 and a
# sandbox_error, the witness empty).
#   --bind SRC:DST, --ro-bind SRC:DST, --dev-bind SRC[:DST], --tmpfs DIR,
#   --hostname NAME, --uid/--gid, --bwrap PATH, --setenv, --unsetenv,
#   --clearenv, --sandbox-git, --sandbox-user.
. "$(dirname "$0")/lib.sh"
need_corral

if ! "$CORRAL" probe >"$T/probe" 2>&1; then
	skip_test "the sandbox is not usable here: $(tr '\n' ' ' <"$T/probe")"
fi
CORRAL_ABS=$(readlink -f "$CORRAL")
WS=$T/ws
mkdir -p "$WS" "$T/data" "$T/rw"
echo hello >"$T/data/greeting"
chmod 777 "$WS" "$T/rw"
chmod 755 "$T/data"
chmod 644 "$T/data/greeting"

# --- each option works --------------------------------------------------------
RUN_LABEL="binds"
run -- "$CORRAL" run -q --sandbox --workspace "$WS" \
	--ro-bind "$T/data:/opt/data" --bind "$T/rw:/srv/out" --dev-bind /dev/null:/dev/corral-null \
	--tmpfs /opt/scratch -- /bin/sh -c '
	cat /opt/data/greeting
	echo x >/opt/data/new 2>/dev/null && echo "ro-bind: writable" || echo "ro-bind: read-only"
	echo through >/srv/out/file && echo "bind: written"
	echo x >/dev/corral-null && echo "dev-bind: device usable"
	[ -z "$(ls -A /opt/scratch)" ] && echo x >/opt/scratch/f && echo "tmpfs: empty and writable"
	[ -e '"$T/data"' ] && echo "source visible at its own path" || echo "source not at its own path"'
expect_rc 0 "the binds"
for l in hello "ro-bind: read-only" "bind: written" "dev-bind: device usable" "tmpfs: empty and writable" "source not at its own path"; do
	expect_grep "^$l\$" "$OUTF" "$l"
done
expect_eq "$(cat "$T/rw/file" 2>/dev/null)" through "--bind SRC:DST writes reach SRC on the host"
[ -e "$T/data/new" ] && fail "--ro-bind SRC:DST was writable"
[ -e /opt/scratch ] && fail "--tmpfs /opt/scratch reached the host"

RUN_LABEL="hostname uid gid"
run -- "$CORRAL" run -q --sandbox --workspace "$WS" --hostname build-box --uid 1234 --gid 4321 -- \
	/bin/sh -c 'hostname; id -u; id -g'
expect_rc 0 "--hostname --uid --gid"
expect_eq "$(tr '\n' ' ' <"$OUTF")" "build-box 1234 4321 " "host name, uid, gid inside"
run -- "$CORRAL" run -q --sandbox --workspace "$WS" --uid 0 -- /bin/sh -c 'id -u; grep CapEff /proc/self/status'
expect_grep '^0$' "$OUTF" "--uid 0 inside"
expect_grep '^CapEff:[[:space:]]+0+$' "$OUTF" "uid 0 inside holds no capability"

RUN_LABEL="env"
run -- env KEEP=1 DROP=2 "$CORRAL" run -q --sandbox --workspace "$WS" --setenv NEW=a=b --setenv KEEP=changed --unsetenv DROP -- \
	/bin/sh -c 'echo "KEEP=$KEEP DROP=${DROP-unset} NEW=$NEW"'
expect_grep '^KEEP=changed DROP=unset NEW=a=b$' "$OUTF" "--setenv/--unsetenv"
run -- env KEEP=1 "$CORRAL" run -q --sandbox --workspace "$WS" --clearenv --setenv "CORRAL_TEST_MARK=$MARK" -- \
	/usr/bin/env
expect_rc 0 "--clearenv"
bad=$(grep -v -E '^(PATH|TERM|HOME|TMPDIR|PWD|CORRAL_SANDBOX|CORRAL_TEST_MARK)=' "$OUTF")
[ -z "$bad" ] || fail "--clearenv left: $bad"
expect_grep '^PATH=' "$OUTF" "--clearenv keeps PATH"

RUN_LABEL="--bwrap"
mkdir -p "$T/bin"
cp "$(command -v bwrap)" "$T/bin/bwrap"
chmod 755 "$T/bin" "$T/bin/bwrap"
j=$T/j.bwrap
run -- "$CORRAL" run -q -j "$j" --sandbox --workspace "$WS" --bwrap "$T/bin/bwrap" -- /bin/true
expect_rc 0 "--bwrap PATH"
j_valid "$j" && j_expect "$j" ".event == \"exec\" and .setup == true and .path == \"$T/bin/bwrap\"" 1 "the given bwrap was run"

# --- bad values: refused before anything starts -------------------------------
# refused LABEL MESSAGE_REGEX -- corral run options...
refused() {
	local label=$1 re=$2 j
	shift 3
	RUN_LABEL="refused: $label"
	j=$T/j.refused.$((RUN + 1))
	rm -f "$WS/marker" "$T/marker"
	run -- "$CORRAL_ABS" run -j "$j" "$@" -- \
		/bin/sh -c "touch $WS/marker $T/marker 2>/dev/null; touch $WS/marker; echo RAN"
	expect_rc 125 "$label"
	expect_grep "^corral: .*$re" "$ERRF" "$label: the message"
	[ -e "$WS/marker" ] || [ -e "$T/marker" ] && fail "$label: the command ran"
	grep -q '^RAN$' "$OUTF" && fail "$label: the command ran (its output is there)"
	# a usage error stops before the journal is opened; a sandbox refusal
	# writes start + end with the reason
	if [ -s "$j" ] && j_valid "$j"; then
		j_expect_end "$j" processes 0
		j_expect "$j" '.event == "end" and (.sandbox_error | type) == "string" and (.sandbox_error | length) > 0' 1 "$label: end.sandbox_error"
	fi
	RUN_LABEL=
}
S=(--sandbox --workspace "$WS")
refused "relative destination" 'must be an absolute path' -- "${S[@]}" --bind "$T/rw:srv/out"
refused "destination /" 'destination / would cover' -- "${S[@]}" --ro-bind "$T/data:/"
refused "destination /proc" 'cover the sandbox.s own /proc' -- "${S[@]}" --bind "$T/rw:/proc"
refused "destination below /proc" 'inside the sandbox.s /proc' -- "${S[@]}" --ro-bind "$T/data:/proc/sys"
refused "destination /dev" 'cover the sandbox.s own /dev' -- "${S[@]}" --dev-bind /dev:/dev
refused "destination /tmp" 'cover the sandbox.s own /tmp' -- "${S[@]}" --bind "$T/rw:/tmp"
refused "destination above the workspace" 'would hide the workspace' -- "${S[@]}" --ro-bind "$T/data:$(dirname "$WS")"
refused "destination with .." "must be an absolute path" -- "${S[@]}" --ro-bind "$T/data:/opt/../proc"
refused "duplicate destination" 'already given' -- "${S[@]}" --ro-bind "$T/data:/opt/x" --bind "$T/rw:/opt/x"
refused "missing source" "$T/nope" -- "${S[@]}" --ro-bind "$T/nope:/opt/x"
refused "missing --dev-bind source" "/dev/corral-nope" -- "${S[@]}" --dev-bind /dev/corral-nope
refused "source /" 'whole root' -- "${S[@]}" --ro-bind /:/host
refused "empty destination" 'SRC or SRC:DST' -- "${S[@]}" --bind "$T/rw:"
refused "relative --tmpfs" '--tmpfs .*absolute' -- "${S[@]}" --tmpfs scratch
refused "--tmpfs /tmp" 'own /tmp' -- "${S[@]}" --tmpfs /tmp
refused "--tmpfs /" 'destination / would cover' -- "${S[@]}" --tmpfs /
refused "--tmpfs on the workspace" 'would hide the workspace' -- "${S[@]}" --tmpfs "$WS"
refused "--tmpfs twice" 'already given' -- "${S[@]}" --tmpfs /opt/a --tmpfs /opt/a/
refused "bad --hostname" '--hostname' -- "${S[@]}" --hostname 'no spaces'
refused "--hostname too long" '--hostname' -- "${S[@]}" --hostname "$(printf 'a%.0s' {1..70})"
refused "--uid -1" '--uid' -- "${S[@]}" --uid -1
refused "--uid 4294967295" '--uid' -- "${S[@]}" --uid 4294967295
refused "--gid abc" '--gid' -- "${S[@]}" --gid abc
refused "--setenv without =" '--setenv' -- "${S[@]}" --setenv NOVALUE
refused "--setenv =x" '--setenv' -- "${S[@]}" --setenv =x
refused "--unsetenv A=B" '--unsetenv' -- "${S[@]}" --unsetenv A=B
refused "--sandbox-git bad" '--sandbox-git' -- "${S[@]}" --sandbox-git=maybe
refused "--bwrap missing" 'bubblewrap' -- "${S[@]}" --bwrap "$T/nonexistent/bwrap"
refused "--bwrap a directory" 'bubblewrap' -- "${S[@]}" --bwrap "$T/bin"
refused "--sandbox-user unknown" 'no such user' -- "${S[@]}" --sandbox-user corral-no-such-user
refused "--sandbox-user bad group" 'no such group' -- "${S[@]}" --sandbox-user 0:corral-no-such-group
refused "--sandbox-user empty" '--sandbox-user' -- "${S[@]}" --sandbox-user ''
refused "--tmpfs without --sandbox" 'need --sandbox' -- --tmpfs /opt/x
refused "--clearenv without --sandbox" 'need --sandbox' -- --clearenv
if [ "$(id -u)" != 0 ]; then
	refused "--sandbox-user as non-root" 'only root can' -- "${S[@]}" --sandbox-user root
	# naming oneself is fine
	RUN_LABEL="--sandbox-user self"
	run -- "$CORRAL" run -q --sandbox --workspace "$WS" --sandbox-user "$(id -un)" -- /bin/true
	expect_rc 0 "--sandbox-user naming the caller"
fi

done_test
