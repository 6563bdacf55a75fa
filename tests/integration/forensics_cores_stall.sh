#!/usr/bin/env bash
# Forensics: a core directory on a disk that never answers (docs/cores.md,
# "A stalled disk").
#
# The core directory is the root of a FUSE filesystem whose daemon
# (tests/fixtures/fuse_hang.c) answers the checks --core-dir makes on it
# and never answers a lookup: creating the core file blocks its writer in
# the kernel, uninterruptibly. corral must: give up on that writer after
# the time budget (1 s here) plus its 0.5 s slack, journal the core as
# `cut: "abandoned"`, and end the tree on time (the `end` line comes within
# -t + budget + slack, generously bounded). corral's own exit then waits for
# its blocked thread as the kernel makes every process wait: the daemon lets
# go, corral exits 124, and the witness finds nothing of the tree.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture fuse_hang core_scene

[ "$(id -u)" = 0 ] || skip_test "mounting a FUSE filesystem needs root"
[ -c /dev/fuse ] || skip_test "no /dev/fuse"

MNT=$T/mnt
mkdir -p "$MNT"
mkfifo "$T/fh.out"
"$FIX/fuse_hang" "$MNT" </dev/null >"$T/fh.out" 2>"$T/fh.err" &
DAEMON=$!
exec {FR}<"$T/fh.out"
release() {
	[ -n "${DAEMON:-}" ] || return 0
	kill -TERM "$DAEMON" 2>/dev/null
	wait "$DAEMON" 2>/dev/null
	DAEMON=
	umount -l "$MNT" 2>/dev/null
}
trap 'release; cleanup' EXIT
if ! read -r -t 10 -u "$FR" line || [ "$line" != READY ]; then
	skip_test "the FUSE daemon did not start: $(cat "$T/fh.err")"
fi

RUN_LABEL="stalled disk"
# The journal goes to stdout (-j -): the test reads its end line there.
start -- "$CORRAL" run -q -j - -t 1 -k 0 --stacks never --core timeout --core-budget 1G,1s --core-dir "$MNT" -- "$FIX/core_scene" hang 2
await '^ready$' 30
mark
await '"event":"end"' 30
end_us=$(($(now_us) - TM))
# -t 1 (from the start, so at most 1 s after ready) + 1 s + 0.5 s slack;
# generous for a loaded machine, far below "forever"
[ "$end_us" -le 10000000 ] || fail "the end line came $(secs $end_us)s after ready"
note "end line $(secs $end_us)s after ready"
# what blocks the writer: a lookup the daemon holds
read -r -t 5 -u "$FR" held && note "daemon: $held"
release
finish
expect_rc 124 "timeout with a stalled core directory"
end_run
j=$T/out.$RUN
grep '^{' "$j" >"$T/j"
if j_valid "$T/j"; then
	j_check "$T/j" '[.[] | select(.event == "core")][0] | .cut == "abandoned" and .truncated == true and (.error | test("abandoned")) and has("size") == false' "the core is journaled abandoned"
	j_expect_end "$T/j" cores_cut 1
	j_expect_end "$T/j" survivors 0
fi
expect_grep '^corral: core of [0-9]+: abandoned' "$T/err.$RUN" "said on stderr"

done_test
