#!/usr/bin/env bash
# The CLI is a thin client of corral.h (and the headers it includes): its objects are compiled without
# the library's internal headers (Makefile CLI_INC) and call nothing of
# the library but the public corral_* functions; `corral probe` prints,
# in text and in JSON, what the library's corral_probe() answers, with the
# same verdict both ways and the exit status the man page gives.
. "$(dirname "$0")/lib.sh"
need_corral

# Every library symbol the CLI objects use is a public one.
nm -g --defined-only "$BUILD"/obj/tracer/*/*.o "$BUILD"/obj/sandbox/*.o 2>/dev/null |
	awk 'NF == 3 { print $3 }' | sort -u >"$T/libsyms"
[ -s "$T/libsyms" ] || fail "no library objects in $BUILD/obj"
cat "$ROOT"/include/corral.h "$ROOT"/include/corral/*.h |
	grep -E '^[a-z][a-z_ ]*[ *](corral_[a-z0-9_]+)\(' |
	grep -v '^static' | sed -E 's/.*[ *](corral_[a-z0-9_]+)\(.*/\1/' | sort -u >"$T/public"
nm -u "$BUILD"/obj/cli/*.o | awk '{ print $2 }' | sort -u >"$T/cliuses"
comm -12 "$T/libsyms" "$T/cliuses" >"$T/used"
[ -s "$T/used" ] || fail "the CLI uses no library function at all?"
comm -23 "$T/used" "$T/public" >"$T/internal"
[ -s "$T/internal" ] && { fail "the CLI calls internal library functions:"; cat "$T/internal" >&2; }
grep -l '#include "\(sandbox\|internal\|table\|json\|filter\|audit\)\.h"' "$ROOT"/cli/*.c "$ROOT"/cli/*.h 2>/dev/null |
	while read -r f; do fail "$f includes a library-internal header"; done

# corral probe: text and JSON agree, exit 0 (usable) or 1 (not).
RUN_LABEL="probe --json"
run -- "$CORRAL" probe --json
json_rc=$RC
[ "$json_rc" = 0 ] || [ "$json_rc" = 1 ] || fail "probe --json exit $json_rc"
jq -e . "$OUTF" >/dev/null 2>&1 || fail "probe --json is not JSON: $(head -c 300 "$OUTF")"
expect_eq "$(jq -s length "$OUTF")" 1 "probe --json: one object"
for k in sandbox_ok reason bwrap_found bwrap_path bwrap_version bwrap_setuid \
	bwrap_works bwrap_error userns userns_error seccomp ptrace \
	yama_ptrace_scope cgroup2 cgroup2_mount is_root; do
	jq -e "has(\"$k\")" "$OUTF" >/dev/null || fail "probe --json lacks $k"
done
ok=$(jq -r .sandbox_ok "$OUTF")
expect_eq "$ok" "$([ "$json_rc" = 0 ] && echo true || echo false)" "sandbox_ok agrees with the exit status"
expect_eq "$(jq -r .is_root "$OUTF")" "$([ "$(id -u)" = 0 ] && echo true || echo false)" "is_root"

RUN_LABEL="probe (text)"
run -- "$CORRAL" probe
expect_rc "$json_rc" "probe: same verdict as --json"
if [ "$ok" = true ]; then
	expect_grep '^sandbox: +usable$' "$OUTF" "text verdict"
else
	expect_grep '^sandbox: +NOT usable: .+' "$OUTF" "text verdict with a reason"
fi
RUN_LABEL="probe, bwrap missing"
run -- "$CORRAL" probe --json --bwrap /nonexistent/bwrap
expect_rc 1 "probe with a missing bwrap"
expect_eq "$(jq -r .bwrap_found "$OUTF")" false "bwrap_found"
jq -r .reason "$OUTF" | grep -q bwrap || fail "the reason does not name bwrap: $(jq -r .reason "$OUTF")"
# A bwrap path with a byte that is not UTF-8, a quote and a control byte:
# still one valid JSON object, and the path comes back byte for byte
# (the journal's \udcXX convention, docs/journal.md).
BW=$(command -v bwrap)
if [ -n "$BW" ]; then
	odd="$T/$(printf 'odd\377"\001dir')"
	mkdir "$odd" && ln -s "$BW" "$odd/bwrap"
	RUN_LABEL="probe, odd bwrap path"
	run -- "$CORRAL" probe --json --bwrap "$odd/bwrap"
	python3 -c '
import json, sys
raw = open(sys.argv[1], "rb").read()
o = json.loads(raw.decode("ascii"))  # escaped: plain ASCII on the wire
assert o["bwrap_found"] is True, o
got = o["bwrap_path"].encode("utf-8", "surrogateescape")
assert got == sys.argv[2].encode("utf-8", "surrogateescape"), (got, sys.argv[2])
' "$OUTF" "$odd/bwrap" || fail "probe --json with an odd bwrap path: $(head -c 300 "$OUTF")"
fi

RUN_LABEL="probe, bad usage"
run -- "$CORRAL" probe --no-such-option
expect_rc 125 "probe --no-such-option"

done_test
