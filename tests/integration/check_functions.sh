#!/usr/bin/env bash
# make check-layers' second step (tests/check-functions.py): no function in
# tracer/ sandbox/ report/ cli/ over 100 lines unless "/* long: <reason> */"
# sits right above it or tests/long-functions.txt lists it. The tree keeps
# to it, and a small tree of its own shows each way through the rule.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip_test "python3 not found"
CHECK=$ROOT/tests/check-functions.py

RUN_LABEL="the tree"
python3 "$CHECK" --root "$ROOT" >"$T/out" 2>&1 ||
	fail "a long function does not say why: $(cat "$T/out")"

# fn NAME LINES [ABOVE]: a function of LINES lines in all, signature to
# closing brace, with ABOVE on the line above it.
fn() {
	printf '%s\nstatic int %s(int a,\n\t\t  int b)\n{\n' "${3:-}" "$1"
	local i
	for ((i = 0; i < $2 - 5; i++)); do
		printf '\ta += b;\n'
	done
	printf '\treturn a;\n}\n'
}
mini() { # label, expected rc, expected text or "", then "path=content"
	local label=$1 want=$2 text=$3
	shift 3
	RUN_LABEL="mini: $label"
	rm -rf "$T/m"
	mkdir -p "$T/m/tracer/sub" "$T/m/cli" "$T/m/tests"
	local kv
	for kv in "$@"; do
		printf '%s\n' "${kv#*=}" >"$T/m/${kv%%=*}"
	done
	python3 "$CHECK" --root "$T/m" >"$T/out" 2>&1
	local rc=$?
	[ "$rc" = "$want" ] || fail "exit $rc, expected $want: $(cat "$T/out")"
	[ -z "$text" ] || grep -qF -- "$text" "$T/out" ||
		fail "no '$text' in: $(cat "$T/out")"
	# what it counted is a real function: the compiler takes the file
	cc -c -o "$T/m.o" "$T/m/tracer/sub/a.c" 2>"$T/cc" ||
		fail "the sample does not compile: $(cat "$T/cc")"
}
mini "100 lines" 0 "" "tracer/sub/a.c=$(fn f 100)"
mini "101 lines" 1 "tracer/sub/a.c:2: f is 101 lines (over 100)" \
	"tracer/sub/a.c=$(fn f 101)"
mini "101 lines, the reason above" 0 "" \
	"tracer/sub/a.c=$(fn f 101 '/* long: one case a rule */')"
mini "101 lines, a reason with nothing in it" 1 "f is 101 lines" \
	"tracer/sub/a.c=$(fn f 101 '/* long: */')"
mini "101 lines, the reason a line too high" 1 "f is 101 lines" \
	"tracer/sub/a.c=$(fn f 101 '/* long: one case a rule */
')"
mini "101 lines, listed" 0 "" "tracer/sub/a.c=$(fn f 101)" \
	"tests/long-functions.txt=a.c f # being split on branch x"
mini "listed without why" 2 "not \"FILE.c FUNCTION  # why\"" \
	"tracer/sub/a.c=$(fn f 101)" "tests/long-functions.txt=a.c f"
mini "listed, no longer long" 0 "a.c f is no longer over 100 lines" \
	"tracer/sub/a.c=$(fn f 50)" \
	"tests/long-functions.txt=a.c f # being split on branch x"
mini "the second of two" 1 "tracer/sub/a.c:53: g is 130 lines" \
	"tracer/sub/a.c=$(fn f 50)
$(fn g 130)"

done_test
