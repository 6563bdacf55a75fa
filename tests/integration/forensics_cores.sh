#!/usr/bin/env bash
# Forensics: core files of members (--core, docs/cores.md).
#
#  1. A program of 3 workers blocked in corral_fixture_core_wait (a local
#     corral_local = 0x5eed00 + id in each) and a global corral_core_global,
#     ended by -t 1 with --core timeout: one `core` event, the file is what
#     it says (size, sha256), mode 0600 in a 0700 directory; gdb -batch on
#     it prints every thread's backtrace naming the function, and the
#     local's and the global's values. (gdb probed: skipped without it.)
#     corral report shows the core's path in the process's row (text, md,
#     html).
#  2. A crashing program (3 threads, SIGSEGV in the main thread) under
#     --core crash, with the kernel's own core of the same process made at
#     the delivery of the same signal (ulimit -c; core_pattern set to
#     "core" only if it is not and we are root, and restored): the same
#     threads, the same registers of the crashing thread, the same bytes of
#     the mapping holding corral_core_buffer (core_compare.py). The signal
#     was delivered: exit 139.
#  2a. SIGSEGVs the program catches (a handler, as a JVM's) are no crash:
#     no core.
#  2b. --escape kill with --core escape: a core of the escaping member,
#     whose top frame (gdb) is the refused call, setsid.
#  3. A byte budget too small: the core is cut ("bytes", truncated, its
#     PT_LOADs cut with p_filesz < p_memsz, the file within the budget),
#     gdb still reads its threads, the run ends on time.
#  4. A time budget too small for 128 MiB: cut "time", no sha256, every
#     PT_LOAD inside the file, and the run ends within -t + budget + slack.
#  4b. Disk full (root: a 4 MiB tmpfs): cut "disk full", said on stderr,
#     the run ends on time.
#  5. The directory: a symlink at --core-dir (or in its path) is refused
#     (exit 125, nothing written through it); a directory others may write
#     is refused; inside the sandbox's workspace is refused; --core without
#     --core-dir writes beside the journal (JOURNAL.cores), else to
#     corral.cores in the current directory, and says where; --core-filter root, name=, running (the member
#     in user code, not those asleep in a system call) and max= choose.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture core_scene
SCENE=$(readlink -f "$FIX/core_scene")
N=3

# core_of J: the path of the only core event's file
core_of() { jq -r 'select(.event == "core" and .path) | .path' "$1" | head -n 1; }

# check_file J: the core event says what the file is
check_file() {
	local j=$1 p size sha
	p=$(core_of "$j")
	[ -n "$p" ] && [ -f "$p" ] || { fail "no core file ($p)"; return 1; }
	size=$(jq -r 'select(.event == "core" and .path) | .size' "$j" | head -n 1)
	expect_eq "$(stat -c %s "$p")" "$size" "core file size = the event's size"
	sha=$(jq -r 'select(.event == "core" and .path) | .sha256 // empty' "$j" | head -n 1)
	if [ -n "$sha" ]; then
		expect_eq "$(sha256sum "$p" | cut -d' ' -f1)" "$sha" "core file sha256 = the event's"
	fi
	expect_eq "$(stat -c %a "$p")" 600 "core file mode"
	expect_eq "$(stat -c %u "$p")" "$(id -u)" "core file owner"
	expect_eq "$(stat -c %a "$(dirname "$p")")" 700 "core directory mode"
}

HAVE_GDB=
if command -v gdb >/dev/null 2>&1 && gdb -batch -ex 'print 1' >/dev/null 2>&1; then
	HAVE_GDB=1
fi

# ------------------------------------------------ 1. timeout, gdb
RUN_LABEL="timeout, gdb"
ready=
for t in 1 5; do # -t 1; once more with 5 if the scene was not set in time
	j=$T/j.timeout
	rm -rf "$T/c1" "$j"
	start -- "$CORRAL" run -q -j "$j" -t "$t" -k 0 --core timeout --core-dir "$T/c1" -- "$SCENE" hang $N
	AWAIT_SOFT=1 await '^ready$' 20 && ready=1
	finish
	end_run
	[ -n "$ready" ] && break
	note "the scene was not ready within -t $t: again"
done
expect_rc 124 "hang under -t $t"
if j_valid "$j"; then
	j_expect "$j" '.event == "core" and .path' 1 "core events"
	j_check "$j" "[.[] | select(.event == \"core\")][0] | .why == \"timeout\" and .threads == $((N + 1)) and .truncated == false and (.sha256 | test(\"^[0-9a-f]{64}$\"))" "the core event"
	j_expect_end "$j" cores 1
	j_expect_end "$j" cores_cut 0
	check_file "$j"
fi
core=$(core_of "$j")
if [ -z "$HAVE_GDB" ]; then
	note "gdb not found: the gdb checks are skipped"
elif [ -f "$core" ]; then
	gdb -batch -ex 'thread apply all bt' "$SCENE" "$core" >"$T/gdb.bt" 2>&1
	expect_eq "$(grep -c 'in corral_fixture_core_wait' "$T/gdb.bt")" $N "gdb: workers in corral_fixture_core_wait"
	expect_eq "$(grep -c 'in corral_fixture_core_main' "$T/gdb.bt")" 1 "gdb: main in corral_fixture_core_main"
	expect_eq "$(grep -c '^Thread [0-9]' "$T/gdb.bt")" $((N + 1)) "gdb: threads"
	args=()
	for i in $(seq 2 $((N + 1))); do
		args+=(-ex "thread $i" -ex 'frame function corral_fixture_core_wait' -ex 'printf "LOCAL %ld %ld\n", corral_local, id')
	done
	gdb -batch "${args[@]}" -ex 'printf "GLOBAL %ld\n", corral_core_global' "$SCENE" "$core" >"$T/gdb.vars" 2>&1
	bad=$(awk '/^LOCAL/ { n++; if ($2 != 6221056 + $3) print "corral_local " $2 " for id " $3 }
		END { if (n != '$N') print n " locals printed" }' "$T/gdb.vars")
	[ -z "$bad" ] || { fail "gdb: locals: $bad"; cat "$T/gdb.vars" >&2; }
	expect_eq "$(sed -n 's/^GLOBAL //p' "$T/gdb.vars")" 4242424242 "gdb: the global's value"
	ids=$(awk '/^LOCAL/ { print $3 }' "$T/gdb.vars" | sort -n | tr '\n' ' ')
	expect_eq "$ids" "0 1 2 " "gdb: one local per worker"
fi

# corral report links the core from the process's row (text, Markdown, HTML)
if [ -f "$core" ]; then
	"$CORRAL" report "$j" >"$T/rep.txt" 2>/dev/null
	expect_grep "^ +core: $core\$" "$T/rep.txt" "report (text): the process's core"
	"$CORRAL" report --format md "$j" >"$T/rep.md" 2>/dev/null
	expect_grep "<br>core: \`$core\`" "$T/rep.md" "report (md): the process's core"
	"$CORRAL" report --html "$T/rep.html" "$j" >/dev/null 2>&1
	expect_grep ",\"$core\"[],]" "$T/rep.html" "report (html): the process's core"
fi

# ------------------------------------------------ 2. crash, against the kernel's core
RUN_LABEL="crash vs the kernel's core"
pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
restore=
if [ "$pattern" != core ] && [ "$(id -u)" = 0 ] && [ -w /proc/sys/kernel/core_pattern ]; then
	restore=$pattern
	echo core >/proc/sys/kernel/core_pattern || restore=
	pattern=$(cat /proc/sys/kernel/core_pattern)
fi
uses_pid=$(cat /proc/sys/kernel/core_uses_pid 2>/dev/null || echo 0)
if [ "$pattern" != core ]; then
	note "core_pattern is '$pattern' and cannot be set here: kernel cores not compared"
	kc=
else
	mkdir -p "$T/kc"
	j=$T/j.crash
	(cd "$T/kc" && ulimit -c unlimited 2>/dev/null && ulimit -c >"$T/kc.limit"
	 # (an ASan build of corral would set RLIMIT_CORE 0, which the
	 # members inherit: no kernel core then)
	 ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}disable_coredump=0 \
	 exec "$CORRAL" run -q -j "$j" --core crash --core-dir "$T/c2" -- "$SCENE" crash $N) >"$T/kc.out" 2>&1
	RC=$?
	expect_rc 139 "crash: the signal was delivered"
	witness_check
	kc=$(ls "$T"/kc/core* 2>/dev/null | head -n 1)
	if [ "$(cat "$T/kc.limit" 2>/dev/null)" != unlimited ]; then
		note "ulimit -c unlimited refused: no kernel core to compare"
		kc=
	elif [ -z "$kc" ]; then
		fail "the kernel wrote no core (pattern $pattern, uses_pid $uses_pid)"
	fi
	if j_valid "$j"; then
		j_expect "$j" '.event == "core" and .why == "crash" and .path and .truncated == false' 1 "crash core events"
		j_check "$j" '[.[] | select(.event == "core" or .event == "exit" or .event == "signal") | .event] | index("signal") < index("core") and index("core") < index("exit")' "order: signal, core, exit"
		j_expect "$j" '.event == "exit" and .pid == .tgid and .core == true' 1 "the kernel dumped it too"
		check_file "$j"
		if [ -n "$kc" ]; then
			off=$(nm "$SCENE" | awk '$3 == "corral_core_buffer" { print $1 }')
			if ! python3 "$ROOT/tests/integration/core_compare.py" "$(core_of "$j")" "$kc" "$SCENE+$off" >"$T/cmp" 2>&1; then
				fail "corral's core and the kernel's differ:"
				cat "$T/cmp" >&2
			else
				note "$(cat "$T/cmp")"
			fi
		fi
	fi
fi
[ -n "$restore" ] && echo "$restore" >/proc/sys/kernel/core_pattern

# ------------------------------------------------ 2a. a SIGSEGV the program handles is no crash
RUN_LABEL="handled SIGSEGV"
j=$T/j.handled
start -- "$CORRAL" run -q -j "$j" -t 2 -k 0 --core crash --core-dir "$T/c12" -- "$SCENE" handled 3
await '^ready$' 30
finish
expect_rc 124 "handled SIGSEGVs, then the timeout"
end_run
if j_valid "$j"; then
	j_expect "$j" '.event == "signal" and .signal == "SIGSEGV"' 3 "the SIGSEGVs were seen"
	j_expect "$j" '.event == "core"' 0 "no core for a handled SIGSEGV"
fi

# ------------------------------------------------ 2b. an escape (--escape kill)
RUN_LABEL="escape"
need_fixture fx_escape
j=$T/j.escape
run -- "$CORRAL" run -q -j "$j" --escape kill --core escape --core-dir "$T/c8" -- "$FIX/fx_escape" setsid
expect_rc 123 "escape kill"
if j_valid "$j"; then
	j_expect "$j" '.event == "core" and .why == "escape" and .path and .truncated == false' 1 "a core at the escape"
	check_file "$j"
	if [ -n "$HAVE_GDB" ]; then
		# the first thread is held at the seccomp stop of setsid()
		gdb -batch -ex bt "$(readlink -f "$FIX/fx_escape")" "$(core_of "$j")" >"$T/gdb.esc" 2>&1
		expect_grep '^#0 .* in (__GI_)?setsid' "$T/gdb.esc" "gdb: the escaping call on top"
	fi
fi

# ------------------------------------------------ 3. byte budget
RUN_LABEL="byte budget"
j=$T/j.bytes
start -- "$CORRAL" run -q -j "$j" -t 1 -k 0 --core timeout --core-budget 1M --core-dir "$T/c3" -- "$SCENE" hang $N
AWAIT_SOFT=1 await '^ready$' 20
finish
expect_rc 124 "byte budget"
expect_within 20 "byte budget run"
end_run
if j_valid "$j"; then
	j_check "$j" '[.[] | select(.event == "core")][0] | .truncated == true and .cut == "bytes" and .size <= 1048576 and (.sha256 | type) == "string"' "a cut, marked core"
	j_expect_end "$j" cores_cut 1
	check_file "$j"
	p=$(core_of "$j")
	python3 - "$p" <<'EOF' || fail "the cut core's program headers"
import struct, sys
d = open(sys.argv[1], "rb").read()
phoff, = struct.unpack_from("<Q", d, 32); n, = struct.unpack_from("<H", d, 56)
cut = 0
for i in range(n):
    t, f, off, va, pa, fs, ms, al = struct.unpack_from("<IIQQQQQQ", d, phoff + 56 * i)
    if t == 1 and off + fs > len(d):
        sys.exit("PT_LOAD at %#x beyond the file" % va)
    cut += t == 1 and fs < ms
sys.exit(0 if cut else "no PT_LOAD with p_filesz < p_memsz")
EOF
	if [ -n "$HAVE_GDB" ] && [ -f "$p" ]; then
		# (the shared library list may be past the cut: gdb says so)
		gdb -batch -ex 'info threads' "$SCENE" "$p" >"$T/gdb.cut" 2>&1
		expect_eq "$(grep -c '^\[New LWP' "$T/gdb.cut")" $((N + 1)) "gdb reads the threads of a cut core"
	fi
fi

# ------------------------------------------------ 4. time budget
RUN_LABEL="time budget"
j=$T/j.time
# (SIGTERM once the 128 MiB are written: -t would race the writing)
start -- "$CORRAL" run -q -j "$j" -t 60 -k 0 --core signal --core-budget 4G,0.05s --core-dir "$T/c4" -- "$SCENE" big 128
if await '^ready$' 30; then kill -TERM "$PID"; else kill -KILL "$PID"; fi
mark
finish
expect_rc 143 "time budget"
# the 0.05 s budget, 0.5 s slack for the writer, the end; generous
expect_within 5 "time budget run (from SIGTERM)"
end_run
if j_valid "$j"; then
	j_check "$j" '[.[] | select(.event == "core")][0] | .truncated == true and .cut == "time" and has("sha256") == false' "cut by time, marked, no sha256"
	check_file "$j"
	p=$(core_of "$j")
	python3 - "$p" <<'EOF' || fail "the time-cut core's program headers"
import struct, sys
d = open(sys.argv[1], "rb").read()
phoff, = struct.unpack_from("<Q", d, 32); n, = struct.unpack_from("<H", d, 56)
for i in range(n):
    t, f, off, va, pa, fs, ms, al = struct.unpack_from("<IIQQQQQQ", d, phoff + 56 * i)
    if t == 1 and off + fs > len(d):
        sys.exit("PT_LOAD at %#x beyond the file (%d > %d)" % (va, off + fs, len(d)))
EOF
fi

# ------------------------------------------------ 4b. disk full (root: a 4 MiB tmpfs)
RUN_LABEL="disk full"
mkdir -p "$T/full"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4m,mode=0700 corral-test "$T/full" 2>/dev/null; then
	j=$T/j.full
	start -- "$CORRAL" run -q -j "$j" -t 60 -k 0 --core signal --core-dir "$T/full/cores" -- "$SCENE" big 16
	if await '^ready$' 30; then kill -TERM "$PID"; else kill -KILL "$PID"; fi
	mark
	finish
	expect_rc 143 "disk full"
	expect_within 10 "disk full run (from SIGTERM)"
	end_run
	expect_grep '^corral: core of [0-9]+: disk full: No space left on device after [0-9]+ bytes' "$T/err.$RUN" "disk full is said on stderr"
	if j_valid "$j"; then
		j_check "$j" '[.[] | select(.event == "core")][0] | .truncated == true and .cut == "disk full" and (.error | test("No space left"))' "the core event says disk full"
		j_expect_end "$j" cores_cut 1
	fi
	umount "$T/full"
else
	note "not root or no tmpfs mount: the disk full case is not run"
fi

# ------------------------------------------------ 5. the directory
RUN_LABEL="directory"
mkdir -p "$T/target" "$T/real"
ln -s "$T/target" "$T/link"
run -- "$CORRAL" run -q -j "$T/j.link" --core timeout --core-dir "$T/link" -- true
expect_rc 125 "a symlink at --core-dir"
expect_grep 'core-dir.*symlink' "$T/err.$RUN" "says why"
[ ! -e "$T/j.link" ] || fail "a refused --core-dir left a journal"
ln -s "$T/real" "$T/mid"
run -- "$CORRAL" run -q --core timeout --core-dir "$T/mid/cores" -- true
expect_rc 125 "a symlink in --core-dir's path"
[ -z "$(find "$T/target" "$T/real" -mindepth 1)" ] || fail "something was created through the symlinks"
mkdir -m 0777 "$T/open"
chmod 0777 "$T/open"
run -- "$CORRAL" run -q --core timeout --core-dir "$T/open" -- true
expect_rc 125 "a directory others may write"
mkdir -p "$T/ws"
run -- "$CORRAL" run -q --sandbox --workspace "$T/ws" --core timeout --core-dir "$T/ws/cores" -- true
expect_rc 125 "inside the sandbox's workspace"
expect_grep 'sandboxed tree may write' "$T/err.$RUN" "says why"
RUN_LABEL="default --core-dir"
j=$T/j.default
run -- "$CORRAL" run -j "$j" -t 1 -k 0 --core timeout -- sleep 30
expect_rc 124 "--core timeout without --core-dir"
[ "$(stat -c %a "$j.cores" 2>/dev/null)" = 700 ] || fail "no $j.cores of mode 0700 beside the journal"
ls "$j.cores"/core.sleep.* >/dev/null 2>&1 || fail "no core of sleep in $j.cores"
expect_grep "1 core file written to $j.cores" "$T/err.$RUN" "the end line says where the cores went"
if j_valid "$j"; then
	j_expect "$j" ".event == \"core\" and (.path | startswith(\"$j.cores/\"))" 1 "journal: the core's path"
fi
mkdir "$T/cwd"
(cd "$T/cwd" && exec "$CORRAL" run -t 1 -k 0 --core timeout -- sleep 30) 2>"$T/cwd.err"
expect_grep "1 core file written to corral.cores" "$T/cwd.err" "without a journal: corral.cores"
ls "$T/cwd/corral.cores"/core.* >/dev/null 2>&1 || fail "no core in ./corral.cores"
RUN_LABEL=
run -- "$CORRAL" run -q --core exit-left --core-dir "$T/c5" -- true
expect_rc 125 "--core exit-left"
run -- "$CORRAL" run -q --core timeout --core-filter bogus --core-dir "$T/c5" -- true
expect_rc 125 "--core-filter bogus"

RUN_LABEL="filter"
j=$T/j.filter
run -- "$CORRAL" run -q -j "$j" -t 1 -k 0 --core timeout --core-filter name=sleep --core-dir "$T/c6" -- sh -c "sleep 30 & exec $SCENE hang 1"
expect_rc 124 "filter name=sleep"
if j_valid "$j"; then
	j_expect "$j" '.event == "core" and .path' 1 "one core (sleep's)"
	j_check "$j" '([.[] | select(.event == "core")][0].path | test("/core\\.sleep\\.[0-9]+$"))' "named after sleep"
fi
j=$T/j.root
run -- "$CORRAL" run -q -j "$j" -t 1 -k 0 --core timeout --core-filter root,max=5 --core-dir "$T/c7" -- sh -c "sleep 30 & sleep 30 & wait"
expect_rc 124 "filter root"
if j_valid "$j"; then
	j_expect "$j" '.event == "core" and .path' 1 "one core (the root's)"
	j_check "$j" "([.[] | select(.event == \"exec\")][0].pid) as \$r | [.[] | select(.event == \"core\")][0].pid == \$r" "the root's"
fi

RUN_LABEL="filter running, max"
j=$T/j.running
# one member spins in user code, two sleep in a system call
run -- "$CORRAL" run -j "$j" -t 2 -k 0 --core timeout --core-filter running --core-dir "$T/c9" -- sh -c 'sleep 30 & sleep 30 & exec sh -c "while :; do :; done"'
expect_rc 124 "filter running"
expect_grep '^corral: 1 core file written to ' "$T/err.$RUN" "the summary names the core directory"
if j_valid "$j"; then
	j_expect "$j" '.event == "core" and .path' 1 "one core (the spinner's)"
	j_check "$j" '([.[] | select(.event == "exec")][0].pid) as $r | [.[] | select(.event == "core")][0].pid == $r' "the spinning sh (the root)"
fi
j=$T/j.max
run -- "$CORRAL" run -q -j "$j" -t 1 -k 0 --core timeout --core-filter name=sleep,max=2 --core-dir "$T/c10" -- sh -c 'sleep 30 & sleep 30 & sleep 30 & wait'
expect_rc 124 "filter max=2"
if j_valid "$j"; then
	j_expect "$j" '.event == "core" and .path' 2 "two cores (max=2)"
	j_expect "$j" '.event == "core" and (.pid | not) and (.error | test("1 process"))' 1 "the third is said skipped"
	j_expect_end "$j" cores_skipped 1
fi

done_test
