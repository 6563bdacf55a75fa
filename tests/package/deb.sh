#!/usr/bin/env bash
# tests/package/deb.sh (make check-deb; .ci/run runs it after make test):
# the Debian packages. `dpkg-buildpackage -b -us -uc` on a copy of the tree
# builds corral, libcorral0, libcorral-dev, libcorral-journal0 and
# libcorral-journal-dev, running the unit tests
# (dh_auto_test) and without -Werror; lintian reports no error
# (its output is shown); the packages install on this machine; the
# installed corral runs a command, the README's links resolve among the
# installed docs, the bash completion completes, an installed example builds with the
# system's pkg-config (shared and static) and runs, the journal-only
# example with libcorral-journal (no libseccomp, no libunwind, with only
# the journal packages' headers); removing and purging
# the packages leaves none of their files behind and the library out of
# the linker's cache.
#
# It installs packages system-wide: root only (skipped otherwise, with a
# message), one run at a time on a machine (flock), and it refuses to run
# when the packages are already installed (it would remove them).
. "$(dirname "$0")/../integration/lib.sh"

PKGS_BUILT=(corral libcorral0 libcorral-dev libcorral-journal0 libcorral-journal-dev)
[ "$(id -u)" = 0 ] || skip_test "needs root to install packages (dpkg -i); run as root, as CI does"
for tool in dpkg-buildpackage dh lintian pkg-config; do
	command -v "$tool" >/dev/null ||
		{ fail "$tool is missing (make deps installs it: Makefile DEBS)"; done_test; }
done

exec {LOCK}>/run/lock/corral-check-deb.lock
flock -w 900 "$LOCK" || { fail "another check-deb run holds the lock"; done_test; }

for p in "${PKGS_BUILT[@]}"; do
	if dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		fail "package $p is already installed here; not touching it (dpkg -r $p first)"
		done_test
	fi
done

INSTALLED=
deb_cleanup() {
	[ -n "$INSTALLED" ] && dpkg --purge "${PKGS_BUILT[@]}" >/dev/null 2>&1
	INSTALLED=
}
trap 'deb_cleanup; cleanup' EXIT

# ------------------------------------------------------------------ build
SRC=$T/src
mkdir -p "$SRC"
(cd "$ROOT" && tar --exclude=./build --exclude='./build-*' --exclude=./.git -cf - .) |
	tar -xf - -C "$SRC"
# Without the caller's BUILD (lib.sh exports it, absolute): the Makefile
# would take it and the package be made of the caller's build tree ("make:
# Nothing to be done for 'all'") instead of a build of the copy.
(cd "$SRC" && env -u BUILD -u MAKEFLAGS -u MAKELEVEL dpkg-buildpackage -b -us -uc) >"$T/build.log" 2>&1 ||
	{ fail "dpkg-buildpackage failed"; tail -n 40 "$T/build.log" >&2; done_test; }
VERSION=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
ARCH=$(dpkg --print-architecture)
DEBS=()
for p in "${PKGS_BUILT[@]}"; do
	f=$T/${p}_${VERSION}_$ARCH.deb
	[ -f "$f" ] || { fail "$p was not built ($f)"; continue; }
	DEBS+=("$f")
done
[ "${#DEBS[@]}" = "${#PKGS_BUILT[@]}" ] || done_test

# contents DEB: the paths it holds (files and links)
contents() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|'; }
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
SOV=$(sed -n 's/^#define CORRAL_VERSION "\(.*\)"/\1/p' "$ROOT/include/corral/common.h")
want() { # want DEB PATH...
	local deb=$1 f
	shift
	for f in "$@"; do
		contents "$deb" | grep -qxF "$f" || fail "${deb##*/} lacks $f"
	done
}
want "${DEBS[0]}" /usr/bin/corral /usr/share/man/man1/corral.1.gz /usr/share/doc/corral/copyright \
	/usr/share/bash-completion/completions/corral /usr/share/doc/corral/README.md \
	/usr/share/doc/corral/docs/design.md
# The package build ran the unit tests (dh_auto_test) and compiled without
# -Werror (hardening's -Werror=format-security is another flag).
grep -qE '^[0-9]+ passed, 0 failed, [0-9]+ skipped$' "$T/build.log" ||
	fail "the package build did not run the unit tests (dh_auto_test): $(grep -E 'passed|failed' "$T/build.log" | tail -3)"
grep -qE '^(cc|gcc) .*-std=gnu11' "$T/build.log" || fail "no compiler line in the build log"
grep -E '^(cc|gcc) .*-Werror( |$)' "$T/build.log" | head -2 | grep . &&
	fail "the package build compiles with -Werror (above)"
want "${DEBS[1]}" "/usr/lib/$MA/libcorral.so.$SOV" "/usr/lib/$MA/libcorral.so.0"
want "${DEBS[2]}" /usr/include/corral.h /usr/include/corral/supervisor.h /usr/include/corral/probe.h \
	"/usr/lib/$MA/libcorral.a" "/usr/lib/$MA/libcorral.so" \
	"/usr/lib/$MA/pkgconfig/corral.pc" /usr/share/doc/libcorral-dev/examples/run_timeout.c \
	/usr/share/doc/libcorral-dev/examples/check_journal.c /usr/share/doc/libcorral-dev/examples/Makefile
want "${DEBS[3]}" "/usr/lib/$MA/libcorral-journal.so.$SOV" "/usr/lib/$MA/libcorral-journal.so.0"
want "${DEBS[4]}" /usr/include/corral/common.h /usr/include/corral/journal.h /usr/include/corral/report.h \
	"/usr/lib/$MA/libcorral-journal.a" "/usr/lib/$MA/libcorral-journal.so" \
	"/usr/lib/$MA/pkgconfig/corral-journal.pc"
contents "${DEBS[3]}" | grep -q 'include\|\.a$\|bin/' && fail "libcorral-journal0 holds more than the library"
dpkg-deb -I "${DEBS[3]}" symbols | grep -q 'CORRAL_JOURNAL_0' ||
	fail "libcorral-journal0 has no symbols file for CORRAL_JOURNAL_0"
# The journal library's package pulls neither libseccomp nor libunwind.
for i in 3 4; do
	dpkg-deb -f "${DEBS[$i]}" Depends | grep -E 'seccomp|unwind|libcorral0|libcorral-dev' &&
		fail "${DEBS[$i]##*/} depends on the above"
done
contents "${DEBS[1]}" | grep -q 'include\|\.a$\|bin/' && fail "libcorral0 holds more than the library"
expect_eq "$(dpkg-deb -f "${DEBS[1]}" Package)" libcorral0 "the library package's name"
dpkg-deb -I "${DEBS[1]}" shlibs | grep -q '^libcorral 0 libcorral0' ||
	fail "libcorral0 has no shlibs entry: $(dpkg-deb -I "${DEBS[1]}" shlibs 2>&1)"
dpkg-deb -I "${DEBS[1]}" symbols | grep -q 'CORRAL_0' ||
	fail "libcorral0 has no symbols file for CORRAL_0"

# ---------------------------------------------------------------- lintian
lintian --tag-display-limit 0 "$T"/*.changes >"$T/lintian.log" 2>&1
echo "---- lintian (errors fail the test, the rest is reported)"
grep -v 'running with root privileges' "$T/lintian.log" || true
echo "---- end of lintian ($(grep -c '^E: ' "$T/lintian.log") errors, $(grep -c '^W: ' "$T/lintian.log") warnings)"
grep -q '^E: ' "$T/lintian.log" && fail "lintian reports errors (above)"

# ---------------------------------------------------------------- install
INSTALLED=1
dpkg -i "${DEBS[@]}" >"$T/dpkg.log" 2>&1 ||
	{ fail "dpkg -i failed"; cat "$T/dpkg.log" >&2; done_test; }
for p in "${PKGS_BUILT[@]}"; do
	dpkg -L "$p" >>"$T/files.all"
done
ldconfig -p | grep -q "libcorral.so.0 .*/lib/$MA/libcorral.so.0" ||
	fail "libcorral.so.0 is not in the linker's cache after install"
ldconfig -p | grep -q "libcorral-journal.so.0 .*/lib/$MA/libcorral-journal.so.0" ||
	fail "libcorral-journal.so.0 is not in the linker's cache after install"

# Every link of the installed README resolves (the docs are not compressed).
grep -oE '\]\([^)#]+\)' /usr/share/doc/corral/README.md | sed 's/^](//; s/)$//' |
	grep -v '://' | sort -u >"$T/links"
[ "$(wc -l <"$T/links")" -ge 5 ] || fail "found only $(wc -l <"$T/links") links in the installed README.md"
while read -r l; do
	[ -e "/usr/share/doc/corral/$l" ] || fail "the installed README.md links $l: not there"
done <"$T/links"
bash --norc --noprofile -c '. /usr/share/bash-completion/completions/corral &&
	COMP_WORDS=(corral r) COMP_CWORD=1 && _corral && echo "${COMPREPLY[*]}"' >"$T/comp" 2>&1
expect_eq "$(tr ' ' '\n' <"$T/comp" | sort | tr '\n' ' ')" "report run " "the installed completion of 'corral r'"

RUN_LABEL="installed corral"
run -- /usr/bin/corral run -- true
expect_rc 0 "corral run -- true"
run -- /usr/bin/corral run -j "$T/j" -- sh -c 'sleep 100 & exit 7'
expect_rc 7 "corral run: the command's status"
expect_eq "$(j_end "$T/j" survivors)" 0 "survivors"

# An example, from the installed files, with the system's pkg-config only.
EX=/usr/share/doc/libcorral-dev/examples
for mode in shared static; do
	mkdir -p "$T/ex-$mode"
	static=
	[ $mode = static ] && static=1
	env -u MAKEFLAGS -u MAKELEVEL make -s -C "$T/ex-$mode" -f "$EX/Makefile" VPATH="$EX" \
		STATIC=$static CFLAGS="-O2 -Wall -Wextra -Werror" run_timeout >"$T/ex.log" 2>&1 ||
		{ fail "the installed example does not build ($mode)"; cat "$T/ex.log" >&2; continue; }
	RUN_LABEL="installed example ($mode)"
	run -- "$T/ex-$mode/run_timeout" 0.3 sh -c 'setsid sleep 100 & sleep 100'
	expect_rc 124 "run_timeout 0.3 ($mode)"
	expect_grep 'reason=timeout .*survivors=0' "$ERRF" "run_timeout summary ($mode)"
done
readelf -d "$T/ex-shared/run_timeout" 2>/dev/null | grep -q 'NEEDED.*libcorral.so.0' ||
	fail "the shared example does not use the installed libcorral.so.0"

# The journal-only example, with the system's pkg-config corral-journal, on
# a journal the installed corral wrote.
for mode in shared static; do
	static=
	[ $mode = static ] && static=1
	env -u MAKEFLAGS -u MAKELEVEL make -s -C "$T/ex-$mode" -f "$EX/Makefile" VPATH="$EX" \
		STATIC=$static CFLAGS="-O2 -Wall -Wextra -Werror" check_journal >"$T/ex.log" 2>&1 ||
		{ fail "the installed check_journal does not build ($mode)"; cat "$T/ex.log" >&2; continue; }
	readelf -d "$T/ex-$mode/check_journal" | grep -E 'NEEDED.*(seccomp|unwind|libcorral\.so)' &&
		fail "check_journal ($mode) needs the above"
	RUN_LABEL="installed check_journal ($mode)"
	run -- "$T/ex-$mode/check_journal" "$T/j"
	expect_rc 0 "check_journal ($mode) on the installed corral's journal"
	expect_grep '^intact: ' "$OUTF" "check_journal ($mode)"
done
readelf -d "$T/ex-shared/check_journal" 2>/dev/null | grep -q 'NEEDED.*libcorral-journal.so.0' ||
	fail "the shared check_journal does not use the installed libcorral-journal.so.0"

# ----------------------------------------------------------------- remove
dpkg -r "${PKGS_BUILT[@]}" >"$T/dpkg-r.log" 2>&1 || { fail "dpkg -r failed"; cat "$T/dpkg-r.log" >&2; }
dpkg --purge "${PKGS_BUILT[@]}" >>"$T/dpkg-r.log" 2>&1 || { fail "dpkg --purge failed"; cat "$T/dpkg-r.log" >&2; }
INSTALLED=
for p in "${PKGS_BUILT[@]}"; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'installed' &&
		fail "$p is still installed after dpkg -r/--purge"
done
n=0
while read -r f; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	[ -d "$f" ] && continue # shared directories (/usr/bin...) stay
	fail "left after removal: $f"
	n=$((n + 1))
done <"$T/files.all"
for d in /usr/share/doc/corral /usr/share/doc/libcorral0 /usr/share/doc/libcorral-dev \
	/usr/share/doc/libcorral-journal0 /usr/share/doc/libcorral-journal-dev /usr/include/corral; do
	[ -e "$d" ] && fail "left after removal: $d"
done
ldconfig -p | grep -q 'libcorral\(-journal\)\?\.so' && fail "libcorral is still in the linker's cache"

done_test
