#!/usr/bin/env bash
# A member's bytes in corral's JSON outside the journal: `corral ps --json`
# (the list and one corral's processes) and `run --result FILE` (the
# command, the processes that failed) carry the
# argv of members, which a member chooses. Before the fix (issue 26, found
# under load) a surrogate (ED A0 80), an overlong form (C0 AF) or a code
# point past U+10FFFF (F4 90 80 80) went out raw: invalid UTF-8, and a
# strict reader (python's json over UTF-8) refused the whole list, every
# other corral's entry with it. Witness: python reads each output as
# strict UTF-8 JSON, and each hostile argument comes back byte for byte
# through the \udcXX escapes (surrogateescape), quotes and controls too.
. "$(dirname "$0")/lib.sh"
need_corral

BAD=($'sur\xed\xa0\x80ro' $'over\xc0\xaflong' $'past\xf4\x90\x80\x80max' $'cut\xe2\x82' \
	$'q"uote\\\n\x1b[31m' 'plain é')
# check FILE JQPATH-IN-PYTHON: the hostile arguments, in order, somewhere
# in an argv of FILE (found by the python expression's list of argvs)
check() {
	python3 - "$1" "$2" "${BAD[@]}" <<'PY'
import json, sys
path, where, want = sys.argv[1], sys.argv[2], [a.encode("utf-8", "surrogateescape") for a in sys.argv[3:]]
raw = open(path, "rb").read()
d = json.loads(raw.decode("utf-8", "strict"))  # strict: invalid UTF-8 fails here
argvs = eval(where, {"d": d})
for argv in argvs:
    got = [a.encode("utf-8", "surrogateescape") for a in argv]
    for i in range(len(got) - len(want) + 1):
        if got[i:i + len(want)] == want:
            sys.exit(0)
print("no argv holds the hostile arguments byte for byte:", argvs, file=sys.stderr)
sys.exit(1)
PY
}

RUN_LABEL="ps --json"
start -- "$CORRAL" run -q -- sh -c 'echo READY; sleep 60; :' sh "${BAD[@]}"
if await '^READY' 30; then
	"$CORRAL" ps --json >"$T/list" 2>"$T/list.err" || fail "ps --json exited $?: $(cat "$T/list.err")"
	check "$T/list" '[c["argv"] for c in d]' || fail "ps --json: the list"
	"$CORRAL" ps --json "$PID" >"$T/one" 2>"$T/one.err" || fail "ps --json PID exited $?: $(cat "$T/one.err")"
	check "$T/one" '[p["argv"] for p in d["processes"]]' || fail "ps --json PID: the processes"
fi
kill -TERM "$PID"
finish 30
end_run

RUN_LABEL="run --result"
run -- "$CORRAL" run -q --result "$T/r.json" -- sh -c 'exit 3' sh "${BAD[@]}"
expect_rc 3 "the member's status"
check "$T/r.json" '[d["command"]]' || fail "--result: the command"
check "$T/r.json" '[p["argv"] for p in d["failed"]]' || fail "--result: the failed processes"

RUN_LABEL=
done_test
