#!/usr/bin/env bash
# corral ps --json (issue 25): the corrals of this user as a JSON array,
# and the live processes of one as a JSON object, parsed by python: the
# member that never exec'd is a fork running its creator's program.
. "$(dirname "$0")/lib.sh"
need_corral

start -- "$CORRAL" run -q -- bash -c '(read -t 60 x <> <(:)) & sleep 60 & echo READY; wait'
await '^READY' || done_test
"$CORRAL" ps --json >"$T/list" 2>"$T/list.err" || fail "ps --json exited $?: $(cat "$T/list.err")"
python3 - "$T/list" "$PID" <<'PY' || fail "ps --json: the list (above)"
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, list), d
assert any(c["pid"] == int(sys.argv[2]) and c["argv"][:2] == [d[0]["argv"][0], "run"] for c in d), d
PY
"$CORRAL" ps --json "$PID" >"$T/one" 2>"$T/one.err" || fail "ps --json PID exited $?: $(cat "$T/one.err")"
python3 - "$T/one" "$PID" <<'PY' || fail "ps --json PID: the live processes (above)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["corral"] == int(sys.argv[2]), d
ps = d["processes"]
argv0 = sorted(p["argv"][0] for p in ps)
assert "sleep" in argv0 and "bash" in argv0, argv0
root = ps[0]
assert root["argv"][:2] == ["bash", "-c"] and not root["fork"], root
forks = [p for p in ps if p["fork"] and p["argv"][0] == "bash"]
assert forks, ps
for p in ps:
    assert p["state"] in ("running", "stopped", "held by corral"), p
    assert p["age"] >= 0 and p["threads"] >= 1, p
PY
kill -TERM "$PID"
finish
done_test
