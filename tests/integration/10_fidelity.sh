#!/usr/bin/env bash
# Fidelity: a loop of 100 fork+exec of /bin/true gives exactly 100 exec
# events of it, with the resolved path and the exact argv; every line of the
# journal is one JSON object.
. "$(dirname "$0")/lib.sh"
need_corral

j=$T/j
run -- "$CORRAL" run -q -j "$j" -- sh -c 'for i in $(seq 100); do /bin/true; done'
expect_rc 0 "100 x /bin/true"
truepath=$(readlink -f /bin/true)
if j_valid "$j"; then
	j_expect "$j" ".event == \"exec\" and .path == \"$truepath\" and .argv == [\"/bin/true\"]" 100 "exec events of /bin/true"
	j_expect "$j" '.event == "exec"' 102 "exec events (sh, seq, 100 x true)"
	j_expect "$j" '.event == "fork" or .event == "vfork" or .event == "clone"' 101 "process creations"
	j_expect "$j" '.event == "exit"' 102 "exit events"
	j_expect_end "$j" execs 102
	j_expect_end "$j" processes 102
	# one object per line, nothing else
	n=$(wc -l <"$j")
	m=$(jq -c . "$j" | wc -l)
	expect_eq "$m" "$n" "JSON values = lines"
	python3 - "$j" <<'PY' || fail "journal lines do not all parse as one JSON object each (python)"
import json, sys
with open(sys.argv[1], "rb") as f:
    for no, line in enumerate(f, 1):
        assert line.endswith(b"\n"), "line %d not terminated" % no
        obj = json.loads(line.decode("utf-8"))
        assert isinstance(obj, dict) and "event" in obj, "line %d" % no
PY
fi

done_test
