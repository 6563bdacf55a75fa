#!/usr/bin/env bash
# corral report (the summary) on journals of real runs of the fixtures:
# golden files for a run that leaves a daemon behind, one that fails, one
# that crashes (with its stack) and one ended by a timeout (with stacks),
# pids and times normalised; the --json counts checked against the
# journal itself with jq (the independent witness); argv bytes that are not
# UTF-8 come back exactly: quoted ($'\xHH') in the text, as \udcXX in the JSON.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture daemonize exit_with stack_crash stack_hang

GOLDEN=$LIB_DIR/report_golden

# norm: fixture dir -> $FIX, test dir -> $T, pids -> P, times -> T, counts that depend on
# timing (lines, signals) -> N, corral's version -> V; items of each list sorted (their order
# follows times).
norm() {
	python3 -c '
import re, sys
fix, tmp = sys.argv[1], sys.argv[2]
out, items = [], []
def flush():
    out.extend(sorted(items)); items.clear()
for line in sys.stdin.read().split("\n"):
    line = line.replace(fix, "$FIX").replace(tmp, "$T")
    if re.match(r"^(  |\| )(started|cwd) ", line):
        continue  # wall clock, host and checkout (schema 2 start keys)
    line = re.sub(r"\b[0-9]+\.[0-9]+s\b", "T", line)
    line = re.sub(r"\b[0-9]+ (lines|signals)\b", r"N \1", line)
    line = re.sub(r"corral (`?)[0-9]+\.[0-9]+\.[0-9]+\b", r"corral \1V", line)
    line = re.sub(r"(^  |^- |lineage: |> |\(thread |^  [0-9.T]+ )[0-9]+\b", r"\1P", line)
    line = re.sub(r"(T |^  |^- )[0-9]+ ", r"\1P ", line)
    line = re.sub(r"^(  |- )(crashed|failed|ended by corral|left behind): [0-9]+ ", r"\1\2: P ", line)
    line = re.sub(r"(^      |<br>)cwd: [^<]*?( <br>|$)", r"\1cwd: C\2", line)
    if (line.startswith("      lineage:") or line.startswith("      cwd:")) and items:
        items[-1] += "\n" + line
    elif re.match(r"^(  |- )\S", line) and out and (out[-1].endswith("):") or items):
        items.append(line)
    else:
        flush(); out.append(line)
flush()
print("\n".join(out).rstrip("\n"))
' "$FIX" "$T"
}

# golden NAME JOURNAL [REPORT OPTIONS]: the normalised summary == the file
golden() {
	local name=$1 j=$2
	shift 2
	if ! "$CORRAL" report "$@" "$j" >"$T/sum.$name" 2>"$T/sum.$name.err"; then
		fail "$name: report exited non-zero: $(head -c 300 "$T/sum.$name.err")"
		return 1
	fi
	norm <"$T/sum.$name" >"$T/sum.$name.norm"
	[ -n "${UPDATE_GOLDEN:-}" ] && cp "$T/sum.$name.norm" "$GOLDEN/$name"
	if ! diff -u "$GOLDEN/$name" "$T/sum.$name.norm" >&2; then
		fail "$name: summary differs from $GOLDEN/$name"
		return 1
	fi
}

# facts J: the --json summary agrees with the journal's own lines
facts() {
	local j=$1 s=$T/facts.json
	"$CORRAL" report --json "$j" >"$s" || { fail "report --json failed"; return 1; }
	jq -e . "$s" >/dev/null || { fail "report --json is not JSON"; return 1; }
	local k got want
	for k in processes threads execs; do
		got=$(jq -r ".counts.$k" "$s")
		want=$(j_end "$j" "$k")
		expect_eq "$got" "$want" "counts.$k vs the end line"
	done
	got=$(jq -r '[.left[].pid] | sort | join(" ")' "$s")
	want=$(jq -r 'select(.event == "left") | .pid' "$j" | sort -n | tr '\n' ' ' | sed 's/ $//')
	expect_eq "$got" "$want" "left behind pids vs left events"
	got=$(jq -r '.exit_code' "$s")
	expect_eq "$got" "$(j_end "$j" exit_code)" "exit_code"
	got=$(jq -r '.counts.crashed' "$s")
	want=$(j_count "$j" '.event == "exit" and (.signo == 11 or .signo == 6 or .signo == 7)')
	expect_eq "$got" "$want" "crashed vs exits by SIGSEGV/SIGABRT/SIGBUS"
	got=$(jq -r '.counts.stacks' "$s")
	want=$(j_count "$j" '.event == "stack" and has("pid")')
	expect_eq "$got" "$want" "stacks vs stack events"
}

RUN_LABEL="left behind"
run -- "$CORRAL" run -q -j "$T/j.left" -- "$FIX/daemonize"
expect_rc 0 daemonize
j_valid "$T/j.left" && golden left "$T/j.left" && facts "$T/j.left"

RUN_LABEL="failed"
run -- "$CORRAL" run -q -j "$T/j.failed" -- "$FIX/exit_with" 3
expect_rc 3 exit_with
j_valid "$T/j.failed" && golden failed "$T/j.failed" && facts "$T/j.failed"

RUN_LABEL="crash"
run -- "$CORRAL" run -q --stacks crash -j "$T/j.crash" -- "$FIX/stack_crash"
expect_rc 139 stack_crash
if j_valid "$T/j.crash"; then
	golden crash "$T/j.crash"
	golden crash.md "$T/j.crash" --format md
	facts "$T/j.crash"
fi

RUN_LABEL="timeout"
run -- "$CORRAL" run -q -t 0.5 --stacks timeout -j "$T/j.timeout" -- "$FIX/stack_hang"
expect_rc 124 "stack_hang ended by the timeout"
j_valid "$T/j.timeout" && golden timeout "$T/j.timeout" && facts "$T/j.timeout"

RUN_LABEL="bytes"
bad=$(printf 'a\377b\303')
run -- "$CORRAL" run -q -j "$T/j.bytes" -- sh -c 'exit 0' "$bad" "é"
expect_rc 0 "sh with non-UTF-8 argv"
if j_valid "$T/j.bytes"; then
	"$CORRAL" report --tree "$T/j.bytes" >"$T/tree.bytes"
	# the tree and the summary show each byte, quoted as a shell reads
	# it back (as the live --tree does)
	want="sh -c 'exit 0' \$'a\\xffb\\xc3' 'é'"
	grep -qaF -- "$want" "$T/tree.bytes" ||
		fail "tree does not show the argv bytes as $want: $(head -c 300 "$T/tree.bytes")"
	"$CORRAL" report "$T/j.bytes" >"$T/sum.bytes"
	grep -qaF -- "command    $want" "$T/sum.bytes" ||
		fail "summary does not show the argv bytes as $want: $(head -c 300 "$T/sum.bytes")"
	"$CORRAL" report --json "$T/j.bytes" >"$T/bytes.json"
	python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
got = [a.encode("utf-8", "surrogateescape") for a in s["command"]]
want = [b"sh", b"-c", b"exit 0", b"a\xffb\xc3", "é".encode()]
sys.exit(0 if got == want else "command round trip: %r != %r" % (got, want))
' "$T/bytes.json" || fail "--json does not give the original bytes back (surrogateescape)"
fi

done_test
