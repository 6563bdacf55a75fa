#!/usr/bin/env bash
# The README's example is the real output, every time (issue 25): its
# command, taken from README.md, is run 20 times; the tree it prints
# (pids and durations normalised) is the same each time and is the one
# the README shows. A process left behind between its fork and its exec
# would change the tree from run to run: the example waits for its
# sleep to run before it exits.
. "$(dirname "$0")/lib.sh"
need_corral

readme=${README:-$ROOT/README.md}
line=$(grep -m1 '^\$ corral run --tree -j journal.jsonl' "$readme") ||
	{ fail "no example command in README.md"; done_test; }
# the command's argv, as the shell of the README reads it
python3 - "$line" >"$T/argv" <<'PY' || fail "the README command does not parse"
import shlex, sys
argv = shlex.split(sys.argv[1][2:])
assert argv[0] == "corral"
sys.stdout.write("\0".join(argv[1:]) + "\0")
PY
mapfile -d '' -t argv <"$T/argv"

# norm: tree lines only, pids -> P1.. in order, durations -> T
norm() {
	python3 -c '
import re, sys
ids = {}
for line in sys.stdin:
    m = re.match(r"^([|` ]*(?:[|`]- )?)([0-9]+) (.*)$", line.rstrip("\n"))
    if not m:
        continue
    pid = ids.setdefault(m.group(2), "P%d" % (len(ids) + 1))
    rest = re.sub(r", [0-9]+\.[0-9]{3}s\]$", ", T]", m.group(3))
    print(m.group(1) + pid + " " + rest)
'
}

# the tree the README shows: from the command line to the next "$ "
L=$line awk '$0 == ENVIRON["L"] {on = 1; next} on && /^\$ / {exit} on' "$readme" | norm >"$T/readme.tree"
[ -s "$T/readme.tree" ] || fail "no tree under the README's command"

mkdir "$T/ex"
cd "$T/ex" || exit 1
for i in $(seq 1 20); do
	RUN_LABEL="run $i"
	rm -f "$T/ex/journal.jsonl"
	run -- "$CORRAL" "${argv[@]}"
	expect_rc 0 "the example" || break
	norm <"$ERRF" >"$T/tree.$i"
	if ! diff -u "$T/readme.tree" "$T/tree.$i" >"$T/diff"; then
		fail "the tree differs from the README's"
		cat "$T/diff" >&2
		break
	fi
done
done_test
