#!/usr/bin/env bash
# The public headers keep their own rules (docs/api.md, "Headers" and "The
# ABI scheme"), read from the source, no corral run:
#  - every struct whose first field is `size_t size` has STRUCT_init() (an
#    inline that zeroes it and sets size = sizeof), and no struct has a
#    `size` field anywhere else but first;
#  - STRUCT_init() does what it says (compiled and run here, for the structs
#    the library only fills or reads: no library needed);
#  - the one-call shorthands of before still compile (compatibility);
#  - the journal reader's headers (corral/common.h, journal.h, report.h)
#    declare nothing of the supervisor or the probe: a program built with
#    them cannot call what libcorral-journal lacks;
#  - the library's private count of event types is in no public header;
#  - tests/abi/layout.c prints every field and enum value the headers
#    declare (install_abi.sh then holds the baseline to them).
. "$(dirname "$0")/lib.sh"
INC=$ROOT/include
HEADERS=$(cd "$INC" && ls corral.h corral/*.h)

# ------------------------------------------------ sized structs: one pattern
python3 - "$INC" $HEADERS >"$T/sized" 2>"$T/sized.err" <<'PY' || { fail "sized structs break the pattern:"; cat "$T/sized.err" >&2; }
import re, sys
inc, names = sys.argv[1], sys.argv[2:]
src = "".join(open("%s/%s" % (inc, n)).read() for n in names)
nocomment = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
bad, sized = [], []
for m in re.finditer(r"^struct (corral_\w+) \{(.*?)^\};", nocomment, flags=re.S | re.M):
    name, body = m.group(1), m.group(2)
    fields = [f.strip() for f in body.split(";") if f.strip() and not f.strip().startswith("#")]
    has_size = [i for i, f in enumerate(fields) if re.fullmatch(r"size_t\s+size", f)]
    if not has_size:
        continue
    if has_size != [0]:
        bad.append("struct %s: size is field %d, not the first" % (name, has_size[0] + 1))
        continue
    sized.append(name)
    if not re.search(r"static inline void\s+%s_init\(struct %s \*\w+\)" % (name, name), nocomment):
        bad.append("struct %s starts with size but has no static inline void %s_init(struct %s *)" % (name, name, name))
for b in bad:
    print(b, file=sys.stderr)
print("\n".join(sized))
sys.exit(1 if bad else 0)
PY
expect_eq "$(sort "$T/sized" | tr '\n' ' ')" \
	"corral_config corral_diff_options corral_journal_check corral_probe corral_report_options corral_result " \
	"the structs that start with size_t size"

# STRUCT_init() zeroes and sets the size; the old shorthands still compile.
cat >"$T/init.c" <<'EOF'
#include <corral.h>
#include <stdio.h>
#include <string.h>

#define CHECK(T)                                                               \
	do {                                                                   \
		struct T s;                                                    \
		memset(&s, 0xa5, sizeof(s));                                   \
		T##_init(&s);                                                  \
		const unsigned char *b = (const unsigned char *)&s;            \
		size_t nz = 0;                                                 \
		for (size_t i = sizeof(size_t); i < sizeof(s); i++)            \
			nz += b[i] != 0;                                       \
		printf("%s size=%d nonzero=%zu\n", #T, s.size == sizeof(s),    \
		       nz);                                                    \
	} while (0)

int main(void)
{
	CHECK(corral_result);
	CHECK(corral_probe);
	CHECK(corral_journal_check);
	CHECK(corral_report_options);
	return 0;
}
EOF
# No library function is called: it links without one.
cc -std=c99 -pedantic -Wall -Wextra -Werror -I"$INC" -o "$T/init" "$T/init.c" ||
	fail "the _init() check does not build"
"$T/init" >"$T/init.out" || fail "the _init() check does not run"
for s in corral_result corral_probe corral_journal_check corral_report_options; do
	expect_grep "^$s size=1 nonzero=0\$" "$T/init.out" "${s}_init(): size set, the rest zero"
done

# What programs of before wrote (the shorthands, the size by hand) compiles.
cat >"$T/old.c" <<'EOF'
#include <corral.h>

int old_ways(struct corral *c, int fd);
int old_ways(struct corral *c, int fd)
{
	struct corral_result r;
	struct corral_probe p;
	struct corral_journal_check chk = {0};
	struct corral_report_options o = {.size = sizeof(o)};
	(void)o;
	return corral_result(c, &r) + corral_probe(NULL, &p) +
	       corral_journal_verify("", 0, &chk) +
	       corral_journal_verify_fd(fd, &chk);
}
EOF
cc -std=c99 -pedantic -Wall -Wextra -Werror -I"$INC" -fsyntax-only "$T/old.c" ||
	fail "the shorthands of before do not compile"

# ------------------------------------------- the journal reader's headers
printf '#include <corral/journal.h>\n#include <corral/report.h>\n' >"$T/reader.c"
cc -std=c99 -E -I"$INC" "$T/reader.c" >"$T/reader.i" || fail "the reader's headers do not preprocess"
for sym in corral_new corral_spawn corral_config corral_event corral_result corral_probe corral_tree_text; do
	grep -qw "$sym" "$T/reader.i" && fail "<corral/journal.h> + <corral/report.h> declare $sym (a supervisor's)"
done
grep -qw corral_journal_check_buf "$T/reader.i" || fail "<corral/journal.h> lacks corral_journal_check_buf"
grep -qw corral_report_load "$T/reader.i" || fail "<corral/report.h> lacks corral_report_load"

# ----------------------------------- tests/abi/layout.c covers every field
python3 - "$INC" "$ROOT/tests/abi/layout.c" <<'PY' || fail "tests/abi/layout.c does not cover the headers (above)"
import re, sys
inc, layout = sys.argv[1:]
src = "".join(open("%s/corral/%s.h" % (inc, n)).read()
              for n in ("common", "supervisor", "probe", "journal", "report"))
src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
src = re.sub(r"#ifdef CORRAL_TEST_GROW.*?#endif", "", src, flags=re.S)
want = set()
for m in re.finditer(r"^struct (corral_\w+) \{(.*?)^\};", src, flags=re.S | re.M):
    for decl in m.group(2).split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        fp = re.match(r".*\(\s*\*\s*(\w+)\s*\)\s*\(.*\)$", decl)
        parts = decl.split(",")
        names = [fp.group(1)] if fp else [re.sub(r"\[.*", "", parts[0].split()[-1].lstrip("*"))] + \
            [re.sub(r"\[.*", "", p.strip().lstrip("*").strip()) for p in parts[1:]]
        want |= {"F %s.%s" % (m.group(1), n) for n in names}
for m in re.finditer(r"enum(?: \w+)? \{(.*?)\};", src, flags=re.S):
    want |= {"E " + v for v in re.findall(r"\b(CORRAL_[A-Z0-9_]+)\b", m.group(1))}
text = open(layout).read()
have = {"F %s.%s" % m for m in re.findall(r"\bF\((\w+), (\w+)\);", text)}
have |= {"E " + v for v in re.findall(r"\bE\((CORRAL_\w+)\);", text)}
for w in sorted(want - have):
    print("tests/abi/layout.c lacks %s" % w, file=sys.stderr)
for w in sorted(have - want):
    print("tests/abi/layout.c prints %s, which the headers do not declare" % w, file=sys.stderr)
if len(want) < 250:
    print("only %d fields and values found in the headers" % len(want), file=sys.stderr)
    sys.exit(1)
sys.exit(1 if want != have else 0)
PY

# ------------------------------------------------ private things stay private
grep -rn '__COUNT\|EV__' "$INC" && fail "a private count in a public header (above)"

done_test
