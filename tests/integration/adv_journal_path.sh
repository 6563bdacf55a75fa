#!/usr/bin/env bash
# adv_journal_path.sh - the files corral writes are opened like a careful
# root daemon opens a log (issue 23, tracer/base/safe_open.c, docs/journal.md
# "Where lines go"). A member of a run can write its workspace (a root
# `corral run --sandbox` runs the command as the workspace's owner) and
# plants, where the next run writes its journal:
#   - a symbolic link to a root-only file, to a FIFO somebody reads, to a
#     block device (a loop device, as root), to /dev/null;
#   - a symbolic link as a directory of the path;
#   - a hard link to a file of corral's user, a file of its own (root);
# every one is refused (exit 125, before anything is spawned) and its
# target is untouched. The same for --html and --perfetto outputs and the
# --journal-key file. A journal inside the sandbox's writable workspace or
# a writable bind is refused. What is safe keeps today's behaviour: an
# existing file of corral's user is truncated; a new journal is made 0600.
# Runs as root and as the unprivileged test user.
. "$(dirname "$0")/lib.sh"
need_corral

ME=$(id -u)
WS=$T/ws
mkdir -p "$WS"
# The member: the workspace's owner. As root, the test user (TEST_UID, no
# passwd entry) when it can run corral from where the tree is.
MEMBER=
if [ "$ME" = 0 ] && as_test_user test -x "$CORRAL"; then
	MEMBER=$TEST_UID
	chown "$TEST_UID:$TEST_GID" "$WS"
fi
as_member() {
	if [ -n "$MEMBER" ]; then as_test_user "$@"; else "$@"; fi
}
printf 'precious\n' >"$T/victim"
chmod 600 "$T/victim"
cp "$T/victim" "$T/victim.orig"

# refused LABEL WHAT-REGEX -- corral args: exit 125, nothing spawned.
refused() {
	local label=$1 why=$2 m=$T/marker.$RUN
	shift 3
	RUN_LABEL=$label
	run -- "$CORRAL" "$@" -- sh -c "touch '$m'"
	expect_rc 125 "$label"
	[ ! -e "$m" ] || fail "$label: the command was started"
	expect_grep "$why" "$ERRF" "$label: the reason"
}
untouched() { # FILE ORIG WHAT
	cmp -s "$1" "$2" || fail "$3: $1 was changed: $(head -c 200 "$1" | od -c | head -n 3)"
}

# --- a symbolic link to a file corral's user can write ---------------------
as_member ln -s "$T/victim" "$WS/j.jsonl"
refused "link to a 0600 file" 'j.jsonl: a symbolic link' -- run -j "$WS/j.jsonl"
untouched "$T/victim" "$T/victim.orig" "link to a 0600 file"
[ -L "$WS/j.jsonl" ] || fail "the link itself was replaced"

# --- a symbolic link to a FIFO somebody reads ------------------------------
mkfifo "$T/fifo"
exec {R}<>"$T/fifo" # a reader (and a writer: open never waits)
as_member ln -s "$T/fifo" "$WS/fifo.jsonl"
refused "link to a FIFO" 'fifo.jsonl: a symbolic link' -- run -j "$WS/fifo.jsonl"
got=$(python3 - "$R" <<'EOF'
import os, sys, fcntl
fd = int(sys.argv[1])
fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
try:
    print(len(os.read(fd, 65536)))
except BlockingIOError:
    print(0)
EOF
)
exec {R}<&-
expect_eq "$got" 0 "bytes the FIFO's reader got through the link"

# --- a symbolic link to a device -------------------------------------------
as_member ln -s /dev/null "$WS/null.jsonl"
refused "link to /dev/null" 'null.jsonl: a symbolic link' -- run -j "$WS/null.jsonl"
LOOP=
if [ "$ME" = 0 ] && command -v losetup >/dev/null; then
	head -c 65536 /dev/zero >"$T/disk.img"
	cp "$T/disk.img" "$T/disk.orig"
	LOOP=$(losetup -f --show "$T/disk.img" 2>/dev/null) || LOOP=
fi
if [ -n "$LOOP" ] && [ -b "$LOOP" ]; then
	as_member ln -s "$LOOP" "$WS/disk.jsonl"
	refused "link to a block device" 'disk.jsonl: a symbolic link' -- run -j "$WS/disk.jsonl"
	blockdev --flushbufs "$LOOP" 2>/dev/null
	losetup -d "$LOOP"
	untouched "$T/disk.img" "$T/disk.orig" "link to a block device"
	# the device itself, named directly, is not a journal either
else
	note "no loop device (not root, or no losetup): the block device case is not checked"
fi
refused "a character device named directly" 'a character device' -- run -j /dev/zero

# --- a symbolic link as a directory of the path ----------------------------
mkdir -p "$T/private"
chmod 700 "$T/private"
as_member ln -s "$T/private" "$WS/logs"
refused "a linked directory" 'a directory on its path is a symbolic link' -- run -j "$WS/logs/j.jsonl"
[ ! -e "$T/private/j.jsonl" ] || fail "a journal was made through the linked directory"

# --- hard links, and a file of another user --------------------------------
if ln "$T/victim" "$WS/hard.jsonl" 2>/dev/null; then
	refused "a hard link" 'hard links: not truncated' -- run -j "$WS/hard.jsonl"
	untouched "$T/victim" "$T/victim.orig" "a hard link"
fi
if [ -n "$MEMBER" ]; then
	as_member sh -c "printf 'theirs\n' >'$WS/theirs.jsonl'"
	refused "a file of another uid" 'owned by uid [0-9]+, not by corral' -- run -j "$WS/theirs.jsonl"
	expect_eq "$(cat "$WS/theirs.jsonl")" theirs "the member's file"
fi

# --- the key file -----------------------------------------------------------
as_member ln -s "$T/victim" "$WS/key"
refused "--journal-key through a link" 'key .*key: a symbolic link' -- run -j "$T/jk.jsonl" --journal-key "$WS/key"

# --- the sandbox's writable workspace and binds ----------------------------
# Refused before bubblewrap is even looked for: no sandbox needed here.
refused "journal in the workspace" "inside the sandbox's writable workspace" -- \
	run --sandbox --workspace "$WS" -j "$WS/new.jsonl"
[ ! -e "$WS/new.jsonl" ] || fail "a journal was made in the workspace"
RUN_LABEL="journal in the workspace (default: cwd)"
run -- sh -c 'cd "$1" && shift && exec "$@"' _ "$WS" "$CORRAL" run --sandbox -j cwd.jsonl -- sh -c "touch '$T/marker.cwd'"
expect_rc 125 "$RUN_LABEL"
[ ! -e "$T/marker.cwd" ] || fail "$RUN_LABEL: the command was started"
expect_grep "inside the sandbox's writable workspace" "$ERRF" "$RUN_LABEL: the reason"
[ ! -e "$WS/cwd.jsonl" ] || fail "a journal was made in the working directory"
mkdir -p "$T/bound/sub"
refused "journal under a --bind" "inside the sandbox's writable bind" -- \
	run --sandbox --workspace "$WS" --bind "$T/bound" -j "$T/bound/sub/j.jsonl"
[ ! -e "$T/bound/sub/j.jsonl" ] || fail "a journal was made under a bind"

# --- report outputs ----------------------------------------------------------
RUN_LABEL="a journal to report on"
run -- "$CORRAL" run -q -j "$T/good.jsonl" -- true
expect_rc 0 "a plain run"
for opt in --html --perfetto; do
	as_member ln -s "$T/victim" "$WS/out$opt"
	RUN_LABEL="report $opt through a link"
	run -- "$CORRAL" report -q "$opt" "$WS/out$opt" "$T/good.jsonl"
	expect_rc 125 "report $opt through a link"
	expect_grep "out$opt: a symbolic link" "$ERRF" "report $opt: the reason"
	untouched "$T/victim" "$T/victim.orig" "report $opt through a link"
done
RUN_LABEL="report --html to a file of ours"
printf 'old\n' >"$T/page.html"
run -- "$CORRAL" report -q --html "$T/page.html" "$T/good.jsonl"
expect_rc 0 "report --html over a file of ours"
head -c 15 "$T/page.html" | grep -qi '<!doctype html' || fail "report --html: the old file was not replaced"

# --- what is safe keeps its behaviour ----------------------------------------
RUN_LABEL="an existing journal of ours"
printf 'old content\n' >"$T/own.jsonl"
run -- "$CORRAL" run -q -j "$T/own.jsonl" -- true
expect_rc 0 "-j over a file of ours"
head -n 1 "$T/own.jsonl" | grep -q '"event":"start"' || fail "the file was not truncated: $(head -n 1 "$T/own.jsonl")"
"$CORRAL" verify "$T/own.jsonl" >/dev/null || fail "the rewritten journal does not verify"
RUN_LABEL="a new journal"
run -- "$CORRAL" run -q -j "$T/new.jsonl" -- true
expect_rc 0 "-j NEW"
expect_eq "$(stat -c %a "$T/new.jsonl")" 600 "a new journal's mode"
RUN_LABEL="/dev/null named directly"
run -- "$CORRAL" run -q -j /dev/null -- true
expect_rc 0 "-j /dev/null"

done_test
