#!/usr/bin/env bash
# The event vocabulary is declared once (tracer/base/events.def): the public
# enum in include/corral/common.h, the HTML report's mark table and
# docs/journal.md (every event documented, the key index) agree with it.
# events_table.py says what differs. A broken copy of each place must be
# caught too, or the check proves nothing.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip_test "python3 not found"
CHECK=$ROOT/tests/integration/events_table.py

RUN_LABEL="the tree"
python3 "$CHECK" "$ROOT" || fail "the event vocabulary's places disagree with tracer/base/events.def"

# A copy with one place broken at a time: each must fail.
broken() { # label, file, python expression on s
	local label=$1 file=$2 expr=$3
	RUN_LABEL="broken: $label"
	rm -rf "$T/copy"
	mkdir -p "$T/copy/tracer/base" "$T/copy/include/corral" "$T/copy/report" "$T/copy/docs"
	cp "$ROOT/tracer/base/events.def" "$T/copy/tracer/base/"
	cp "$ROOT/include/corral/common.h" "$T/copy/include/corral/"
	cp "$ROOT/report/timeline.html" "$T/copy/report/"
	cp "$ROOT/docs/journal.md" "$T/copy/docs/"
	python3 - "$T/copy/$file" "$expr" <<'PY'
import sys
p, expr = sys.argv[1], sys.argv[2]
s = open(p).read()
t = eval(expr)
assert t != s, 'the edit changed nothing'
open(p, 'w').write(t)
PY
	if python3 "$CHECK" "$T/copy" 2>"$T/err"; then
		fail "not caught"
	else
		note "caught: $(head -c 160 "$T/err")"
	fi
}
broken "an event added to events.def only" tracer/base/events.def \
	"s.replace('#endif', 'EV(NEW, \"new\", NONE, \"pid:n\", \"new\")\n#endif', 1)"
broken "an event added to corral/common.h only" include/corral/common.h \
	"s.replace('CORRAL_EV_PTRACE,', 'CORRAL_EV_PTRACE, CORRAL_EV_NEW,')"
broken "a key added to events.def only" tracer/base/events.def \
	"s.replace('state:s wchan:s', 'state:s wchan:s since:n')"
broken "a mark left out of the HTML" report/timeline.html \
	"s.replace(', \"ptrace\"]', ']')"
broken "an event not documented" docs/journal.md \
	"s.replace('| \`survivor\` |', '| survivor |')"
broken "a key type not one of n s b a o" tracer/base/events.def \
	"s.replace('wchan:s', 'wchan:x')"

done_test
