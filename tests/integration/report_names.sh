#!/usr/bin/env bash
# A process is named by the program it runs at every instant (issue 25):
# a fork that never exec'd runs what its creator ran WHEN IT FORKED, not
# its creator's later program, and not what /proc says when it is left
# behind; it is marked "(fork)" wherever it is named (live tree, report
# tree, summary, HTML, Perfetto). A process that exec'd several times
# says what it was ("(was bash)").
. "$(dirname "$0")/lib.sh"
need_corral

# live tree: the lines after the header, durations cut
live_tree() {
	grep -E '^[|` ]*([|`]- )?[0-9]+ ' "$ERRF" | sed -E 's/, [0-9]+\.[0-9]{3}s\]$/, T]/'
}

# 1. The subshell of bash -c '(...) & exec sleep 0.5' runs bash: it forked
# before its creator exec'd sleep.
RUN_LABEL="fork then exec"
CMD='(sleep 0.3; true) & exec sleep 0.5'
run -- "$CORRAL" run --tree -q -j "$T/j1" -- bash -c "$CMD"
expect_rc 0 "bash"
live_tree >"$T/live1"
want1="\`- [0-9]+ \\(fork\\) bash -c '\\(sleep 0\\.3; true\\) & exec sleep 0\\.5' \\[exit 0, T\\]"
expect_grep "^$want1\$" "$T/live1" "live tree: the subshell runs bash"
expect_grep '^[0-9]+ sleep 0\.5 \(was bash\) \[exit 0, T\]$' "$T/live1" "live tree: the root was bash"
"$CORRAL" report --tree "$T/j1" | sed -E 's/, [0-9]+\.[0-9]{3}s\]$/, T]/' >"$T/rep1"
expect_grep "^$want1\$" "$T/rep1" "report tree: the subshell runs bash"
"$CORRAL" report --json "$T/j1" >"$T/sum1.json"
sub=$(jq -r 'select(.event == "fork") | .pid' "$T/j1" | head -n 1)
"$CORRAL" report --html "$T/h1.html" "$T/j1" >/dev/null 2>&1
"$CORRAL" report --perfetto "$T/p1.json" "$T/j1" >/dev/null 2>&1
got=$(jq -r --argjson p "$sub" '.traceEvents[] | select(.ph == "M" and .name == "process_name" and .pid == $p) | .args.name' "$T/p1.json")
expect_eq "$got" "(fork) bash" "perfetto: the subshell's track"
got=$(jq -r --argjson p "$sub" '[.traceEvents[] | select(.ph == "X" and .pid == $p and .cat == "fork") | .name] | join(",")' "$T/p1.json")
expect_eq "$got" "(fork) bash" "perfetto: the subshell's fork slice"
grep -q '"(fork) bash' "$T/h1.html" || grep -q "\[$sub,[0-9-]*,[^]]*\"bash\"" "$T/h1.html" ||
	fail "html: the subshell is not named bash"

# 2. Killed before any exec: a fork left behind when its creator (which
# exec'd sleep after the fork) exits is "(fork) bash -c ...", never the
# creator's later program and never unmarked.
RUN_LABEL="left before its exec"
CMD2='(sleep 30; :) & exec sleep 0.1'
run -- "$CORRAL" run --tree -q -j "$T/j2" -- bash -c "$CMD2"
expect_rc 0 "bash"
live_tree >"$T/live2"
want2="\`- [0-9]+ \\(fork\\) bash -c '\\(sleep 30; :\\) & exec sleep 0\\.1' \\[killed by SIGTERM, T\\]"
expect_grep "^$want2\$" "$T/live2" "live tree: the left fork runs bash, marked (fork)"
"$CORRAL" report --tree "$T/j2" | sed -E 's/, [0-9]+\.[0-9]{3}s\]$/, T]/' >"$T/rep2"
expect_grep "^$want2\$" "$T/rep2" "report tree: the left fork"
"$CORRAL" report "$T/j2" >"$T/sum2"
expect_grep "^  left behind: [0-9]+ \\(fork\\) bash -c '\\(sleep 30; :\\) & exec sleep 0\\.1' \\[killed by SIGTERM" "$T/sum2" "summary: the left fork"
# the journal's left line names what it runs: bash, from the fork
sub=$(jq -r 'select(.event == "fork") | .pid' "$T/j2" | head -n 1)
got=$(jq -r --argjson p "$sub" 'select(.event == "left" and .pid == $p) | .argv[0]' "$T/j2")
expect_eq "$got" "bash" "journal: left argv"

done_test
