#!/usr/bin/env bash
# adv_journal_runs.sh - a run is bound to its place in the file (issue 23,
# docs/journal.md "A run's place in the file"): its start line says at
# which byte corral began writing and, after existing content, names the
# digest of the line before it. A forged run (self-sealed with a key of the
# forger's own: tests/integration/forge_run.py) or a genuine run of another
# journal, prepended, inserted between two runs or spliced in, fails
# `corral verify`, with and without --head; an end line that says
# journal_intact:false is never intact; `corral report` shows the run its
# last end line belongs to; two runs corral appended to one file verify,
# and --head says which run it proves and what every other run is.
# Runs as root and as the unprivileged test user.
. "$(dirname "$0")/lib.sh"
need_corral
command -v python3 >/dev/null || skip_test "no python3 (forge_run.py)"
FORGE=$ROOT/tests/integration/forge_run.py

head_of() { sed -n 's/^corral: journal: .*head \([0-9a-f]\{64\}\)$/\1/p' "$1" | tail -n 1; }

# a real run, and its head as corral printed it
real_run() { # JOURNAL-ARGS... (the run's stderr is in $ERRF)
	run -- "$CORRAL" run "$@" -- true
	expect_rc 0 "a real run"
}
RUN_LABEL="real run A"
real_run -j "$T/a.jsonl"
HA=$(head_of "$ERRF")
RUN_LABEL="real run B (another journal)"
real_run -j "$T/b.jsonl"
HB=$(head_of "$ERRF")
# two runs corral appended to one file (a descriptor in append mode)
RUN_LABEL="two runs in one file"
run -- bash -c "exec 3>>'$T/two.jsonl'; exec \"\$@\"" _ "$CORRAL" run -j /dev/fd/3 -- true
expect_rc 0 "first run, appending"
H1=$(head_of "$ERRF")
run -- bash -c "exec 3>>'$T/two.jsonl'; exec \"\$@\"" _ "$CORRAL" run -j /dev/fd/3 -- true
expect_rc 0 "second run, appending"
H2=$(head_of "$ERRF")
[ -n "$HA" ] && [ -n "$HB" ] && [ -n "$H1" ] && [ -n "$H2" ] || fail "no head on stderr"
LEN1=$(($(head -n 4 "$T/two.jsonl" | wc -c)))

# verify_fails LABEL FILE [HEAD]: exit 1, with and without --head
verify_fails() {
	local label=$1 f=$2 h=${3:-}
	RUN_LABEL=$label
	run -- "$CORRAL" verify "$f"
	expect_rc 1 "$label: verify"
	expect_grep 'NOT intact' "$OUTF" "$label: verify says so"
	if [ -n "$h" ]; then
		run -- "$CORRAL" verify --head "$h" "$f"
		expect_rc 1 "$label: verify --head"
		expect_grep 'NOT intact' "$OUTF" "$label: verify --head says so"
	fi
}

# --- the honest cases ---------------------------------------------------------
RUN_LABEL="two appended runs verify"
run -- "$CORRAL" verify "$T/two.jsonl"
expect_rc 0 "verify of two appended runs"
run -- "$CORRAL" verify --head "$H2" "$T/two.jsonl"
expect_rc 0 "verify --head of two appended runs"
expect_grep 'run 2 \(lines 5-8\): ends at the recorded head: proven' "$OUTF" "--head names the run it ends"
expect_grep 'run 1 \(lines 1-4\): proven' "$OUTF" "--head proves the run before, chained"
run -- "$CORRAL" verify --head "$H1" "$T/two.jsonl"
expect_rc 1 "verify --head of the first run's head"
expect_grep 'run 2 \(lines 5-8\): appended after the recorded head: NOT proven' "$OUTF" "--head flags the run after it"

# --- a forged run put before the real one -------------------------------------
python3 "$FORGE" "$T/a.jsonl" "$T/forged.jsonl" --offset 0
cat "$T/forged.jsonl" "$T/a.jsonl" >"$T/prepended.jsonl"
verify_fails "forged run prepended" "$T/prepended.jsonl" "$HA"
expect_grep 'line 5: moved' "$OUTF" "prepended: the real run's start line is named"
RUN_LABEL="report of the prepended file"
run -- "$CORRAL" report "$T/prepended.jsonl"
expect_rc 0 "report"
expect_grep '^  command +true$' "$OUTF" "report shows the real run's command"
grep -q 'forged' "$OUTF" && fail "report shows the forged run: $(grep forged "$OUTF")"
expect_grep 'holds 2 runs: shown is run 2' "$ERRF" "report says the file holds several runs"

# --- a forged run inserted between two real runs ------------------------------
python3 "$FORGE" "$T/two.jsonl" "$T/mid.jsonl" --offset "$LEN1" --after "$H1"
{ head -n 4 "$T/two.jsonl"; cat "$T/mid.jsonl"; tail -n 4 "$T/two.jsonl"; } >"$T/inserted.jsonl"
verify_fails "forged run inserted" "$T/inserted.jsonl" "$H2"
expect_grep 'line 9: moved' "$OUTF" "inserted: the run after it is named"

# --- a genuine run of another journal spliced in ------------------------------
cat "$T/a.jsonl" "$T/b.jsonl" >"$T/spliced.jsonl"
verify_fails "run of another journal spliced after" "$T/spliced.jsonl" "$HA"
cat "$T/b.jsonl" "$T/a.jsonl" >"$T/spliced2.jsonl"
verify_fails "run of another journal spliced before" "$T/spliced2.jsonl" "$HA"
{ head -n 4 "$T/two.jsonl"; cat "$T/b.jsonl"; tail -n 4 "$T/two.jsonl"; } >"$T/spliced3.jsonl"
verify_fails "run of another journal spliced between" "$T/spliced3.jsonl" "$H2"

# --- corral said the journal was changed --------------------------------------
# A member appends a line during the run; corral's check at the end finds
# it (journal_intact:false); the member then takes its line out again, and
# every digest is consistent.
RUN_LABEL="journal_intact:false"
run -- "$CORRAL" run -j "$T/t.jsonl" -- sh -c "printf 'member was here\n' >>'$T/t.jsonl'"
expect_rc 0 "a member that writes the journal"
HT=$(head_of "$ERRF")
grep -q '"journal_intact":false' "$T/t.jsonl" || fail "corral did not find the change"
grep -v '^member was here$' "$T/t.jsonl" >"$T/cleaned.jsonl"
verify_fails "end line says journal_intact:false" "$T/cleaned.jsonl" "$HT"
expect_grep 'journal_intact:false' "$OUTF" "verify says why"

done_test
