#!/usr/bin/env bash
# corral report --tree rebuilds, from the journal alone, the tree that
# `corral run --tree` printed live from the engine's own table: the two
# must agree line for line (durations aside: the live tree measures them
# with its own clock reads). The live tree is the independent witness. A
# forktree run is also compared with a golden file (pids normalised), and
# argv with bytes that are not UTF-8 is quoted the same way.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture forktree daemonize threads stack_crash

# norm_time: the lifetimes printed as [.., 0.123s] -> [.., T]
norm_time() { sed -E 's/, [0-9]+\.[0-9]{3}s\]$/, T]/'; }
# norm_pid: the pid of each tree line -> P1, P2... in order; the fixture
# directory -> $FIX
norm_pid() {
	python3 -c '
import re, sys
ids = {}
fix = sys.argv[1]
for line in sys.stdin:
    line = line.replace(fix, "$FIX")
    m = re.match(r"^([|` ]*(?:[|`]- )?)([0-9]+) ", line)
    if m and not line.startswith("corral: "):
        pid = ids.setdefault(m.group(2), "P%d" % (len(ids) + 1))
        line = m.group(1) + pid + line[m.end(2):]
    sys.stdout.write(line)
' "$FIX"
}

# tree_case LABEL CMD...: live tree vs report --tree
tree_case() {
	RUN_LABEL=$1
	shift
	local j=$T/j.$RUN_LABEL
	run -- "$CORRAL" run --tree -j "$j" -- "$@"
	j_valid "$j" || return 1
	# the tree is the last thing corral prints: from its header on
	# (and not what the shell says about corral's own death by a signal)
	sed -n '/^corral: [0-9]* process\(es\)\?, [0-9]* threads\?, /,$p' "$ERRF" |
		grep -E '^(corral: |[|` ]*([|`]- )?[0-9]+ )' | norm_time >"$T/live"
	if [ ! -s "$T/live" ]; then
		fail "no live tree on stderr"
		show_run
		return 1
	fi
	if ! "$CORRAL" report --tree "$j" >"$T/rep.raw" 2>"$T/rep.err"; then
		fail "report --tree exited $?: $(head -c 300 "$T/rep.err")"
		return 1
	fi
	norm_time <"$T/rep.raw" >"$T/rep"
	if ! diff -u "$T/live" "$T/rep" >"$T/diff"; then
		fail "report --tree differs from the live tree"
		cat "$T/diff" >&2
		return 1
	fi
	cp "$T/rep" "$T/last.tree"
}

tree_case forktree "$FIX/forktree" 2 3
# golden: 1 + 3 + 9 members, each a fork of the root program
norm_pid <"$T/last.tree" >"$T/forktree.norm"
golden=$LIB_DIR/report_golden/forktree.tree
if [ -n "${UPDATE_GOLDEN:-}" ]; then
	cp "$T/forktree.norm" "$golden"
fi
if ! diff -u "$golden" "$T/forktree.norm" >&2; then
	fail "forktree tree differs from $golden"
fi

tree_case daemonize "$FIX/daemonize"
expect_grep '^   `- [0-9]+ .*/daemonize \[killed by SIGTERM, T\]$' "$T/last.tree" "daemon left behind, killed"

tree_case exec-thread "$FIX/threads" -x 2 /bin/echo exec from a thread
expect_grep '^corral: 1 process, 2 threads, 2 execs; the command exited with status 0$' "$T/last.tree" "threads and execs counted"
expect_grep '^[0-9]+ /bin/echo exec from a thread \(was threads\) \[exit 0, T\]$' "$T/last.tree" "exec from a thread names the process (and the program it was)"

tree_case pipeline sh -c 'printf "b\na\n" | sort >/dev/null; (sleep 60 &); exit 0'

tree_case crash "$FIX/stack_crash"
expect_grep 'stack_crash \[killed by SIGSEGV( \(core dumped\))?, T\]$' "$T/last.tree" "crash shown"

# bytes that are not UTF-8 and quotes: shown as a shell reads them back
tree_case quoting sh -c 'exit 0' "$(printf 'a\377b')" "it's"
expect_grep "^[0-9]+ sh -c 'exit 0' \\$'a\\\\xffb' 'it'\\\\''s' \\[exit 0, T\\]$" "$T/last.tree" "argv quoted"

done_test
