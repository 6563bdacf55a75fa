#!/usr/bin/env bash
# libcorral-journal (docs/api.md, "Two libraries"): a program that only
# checks and reports journals links it, from a staged install, with
# nothing but pkg-config corral-journal, and then needs neither libseccomp
# nor libunwind (readelf -d on the program and on the library, ldd for
# what the loader really maps), nor libcorral; shared and static. The
# installed example check_journal built that way verifies a journal a real
# run wrote (intact), finds the line changed in a copy, and summarises the
# run. The library exports exactly what <corral/common.h>,
# <corral/journal.h> and <corral/report.h> declare, in CORRAL_JOURNAL_0.
. "$(dirname "$0")/lib.sh"
stage_install
VERSION=$(sed -n 's/^#define CORRAL_VERSION "\(.*\)"/\1/p' "$ROOT/include/corral/common.h")
MAJOR=${VERSION%%.*}
SO=$S$LIBDIR/libcorral-journal.so.$VERSION

# ------------------------------------------------------------ the library
soname=$(readelf -d "$SO" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
expect_eq "$soname" "libcorral-journal.so.$MAJOR" "SONAME"
readelf -d "$SO" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >"$T/so.needed"
grep -E 'seccomp|unwind|libcorral' "$T/so.needed" &&
	fail "libcorral-journal.so needs the above"

# Exports: what the reader's headers declare, all in CORRAL_JOURNAL_0.
(cd "$ROOT/include/corral" && cat common.h journal.h report.h) |
	grep -E '^[a-z][a-z_ ]*[ *](corral_[a-z0-9_]+)\(' | grep -v '^static' |
	sed -E 's/.*[ *](corral_[a-z0-9_]+)\(.*/\1/' | sort -u >"$T/declared"
[ "$(wc -l <"$T/declared")" -ge 15 ] || fail "found only $(wc -l <"$T/declared") declarations"
nm -D --defined-only "$SO" | awk '{ print $3 }' | sort >"$T/exported"
grep -qx "CORRAL_JOURNAL_$MAJOR" "$T/exported" || fail "no version node CORRAL_JOURNAL_$MAJOR"
grep -v "^CORRAL_JOURNAL_$MAJOR\$" "$T/exported" | sed "s/@@CORRAL_JOURNAL_$MAJOR\$//" >"$T/exported.names"
diff -u "$T/declared" "$T/exported.names" >"$T/exports.diff" ||
	{ fail "libcorral-journal.so's exports differ from the reader's headers (- declared, + exported):"; cat "$T/exports.diff" >&2; }
nm -g --defined-only "$S$LIBDIR/libcorral-journal.a" | awk 'NF == 3 { print $3 }' | sort >"$T/static.names"
diff -u "$T/declared" "$T/static.names" >"$T/static.diff" ||
	{ fail "libcorral-journal.a's globals differ from the reader's headers:"; cat "$T/static.diff" >&2; }

# ------------------------------------------------------------ pkg-config
pkg-config --exists corral-journal || { fail "pkg-config does not find corral-journal"; done_test; }
expect_eq "$(pkg-config --modversion corral-journal)" "$VERSION" "pkg-config --modversion corral-journal"
expect_eq "$(echo $(pkg-config --libs corral-journal))" "-L$S$LIBDIR -lcorral-journal" "pkg-config --libs corral-journal"
pkg-config --static --libs corral-journal | grep -E -- '-l(seccomp|unwind)' &&
	fail "--static --libs corral-journal names libseccomp or libunwind"

# ---------------------------------------- the example, shared and static
for mode in shared static; do
	stage_make $mode check_journal ||
		{ fail "check_journal ($mode) does not build"; cat "$T/$mode.log" >&2; continue; }
	P=$T/$mode/check_journal
	readelf -d "$P" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >"$T/$mode.needed"
	grep -E 'seccomp|unwind' "$T/$mode.needed" && fail "check_journal ($mode) needs the above"
	grep -qx 'libcorral\.so.*' "$T/$mode.needed" && fail "check_journal ($mode) needs libcorral.so"
	if [ $mode = shared ]; then
		grep -qx "libcorral-journal.so.$MAJOR" "$T/$mode.needed" ||
			fail "check_journal (shared) does not need libcorral-journal.so.$MAJOR: $(tr '\n' ' ' <"$T/$mode.needed")"
	else
		grep -q 'libcorral' "$T/$mode.needed" && fail "check_journal (static) needs $(grep libcorral "$T/$mode.needed")"
	fi
	# What the loader maps, dependencies' dependencies included.
	ldd "$P" >"$T/$mode.ldd" 2>&1 || fail "ldd check_journal ($mode): $(cat "$T/$mode.ldd")"
	grep -E 'seccomp|unwind' "$T/$mode.ldd" && fail "check_journal ($mode) maps the above"
	[ $mode = shared ] && { grep -q "$S$LIBDIR/libcorral-journal.so.$MAJOR" "$T/$mode.ldd" ||
		fail "check_journal (shared) does not map the staged library: $(cat "$T/$mode.ldd")"; }
done

# ------------------------------------------------- a real journal, checked
RUN_LABEL="the journal"
run -- "$CORRAL" run -j "$T/j.jsonl" -- sh -c '/bin/true; sleep 0.1 & exit 3'
expect_rc 3 "corral run"
n=$(wc -l <"$T/j.jsonl")
[ "$n" -ge 5 ] || fail "the journal has $n lines"
# The same journal with one byte of line 3 changed ("t" is a number: a digit).
awk 'NR == 3 { sub(/"t":[0-9]/, "\"t\":9") } { print }' "$T/j.jsonl" >"$T/changed.jsonl"
cmp -s "$T/j.jsonl" "$T/changed.jsonl" && fail "the copy was not changed"

for mode in shared static; do
	P=$T/$mode/check_journal
	[ -x "$P" ] || continue
	RUN_LABEL="$mode check_journal, intact"
	run -- "$P" "$T/j.jsonl"
	expect_rc 0 "check_journal on the journal corral wrote"
	expect_grep "^intact: $n lines, 1 run\\(s\\), head [0-9a-f]{64}\$" "$OUTF" "the verdict"
	expect_grep "$(tail -n 1 "$T/j.jsonl" | sed -n 's/.*"h":"\([0-9a-f]*\)".*/\1/p')" "$OUTF" "the head is the last line's digest"
	expect_grep 'exit(ed)? .*3|status 3|code 3' "$OUTF" "the summary gives the command's status"
	RUN_LABEL="$mode check_journal, changed"
	run -- "$P" "$T/changed.jsonl"
	expect_rc 1 "check_journal on a changed copy"
	expect_grep '^NOT intact: line 3: changed ' "$OUTF" "the first problem"
	RUN_LABEL="$mode check_journal, not a journal"
	run -- "$P" /etc/hostname
	expect_rc 2 "check_journal on a file that is not a journal"
done

done_test
