#!/usr/bin/env bash
# make install / make uninstall (README, docs/api.md): the tree is checked
# file by file (paths, modes, symlinks), the shared library has its SONAME
# and exports exactly the functions include/ declares (corral_*, version
# node CORRAL_0), the installed libcorral.a defines nothing else either,
# every directory variable is honoured, each public header compiles alone,
# the installed corral runs, and
# uninstall leaves nothing behind.
# Beside the others: make install in an up-to-date build writes only under
# DESTDIR (the Makefile: corral.pc goes straight to its place).
. "$(dirname "$0")/lib.sh"
need_corral

VERSION=$(sed -n 's/^#define CORRAL_VERSION "\(.*\)"/\1/p' "$ROOT/include/corral/common.h")
MAJOR=${VERSION%%.*}
MULTIARCH=$(cc -print-multiarch 2>/dev/null)
LIBDIR=/usr/lib${MULTIARCH:+/$MULTIARCH}

# inst DESTDIR VAR=VALUE...: make install (or uninstall with UN=un)
inst() {
	local dest=$1
	shift
	env -u MAKEFLAGS -u MAKELEVEL make -s -C "$ROOT" BUILD="$BUILD" \
		DESTDIR="$dest" LDCONFIG= "$@" "${UN:-}install" >"$T/make.log" 2>&1 || {
		fail "make ${UN:-}install $* failed"
		cat "$T/make.log" >&2
	}
}

# listing DIR: "mode path [-> target]" for everything under DIR, sorted
listing() {
	(cd "$1" && find . -mindepth 1 \( -type f -o -type l \) -printf '%m %p -> %l\n' |
		sed 's/ -> $//; s|^\([0-7]*\) \./|\1 /|' | sort -k2)
}

# ------------------------------------------------ a packager's install
S=$T/stage
inst "$S" PREFIX=/usr LIBDIR="$LIBDIR"
DOCS=$(cd "$ROOT" && ls README.md docs/*.md docs/report-timeline.png docs/corral.1 | sort)
EXAMPLES=$(cd "$ROOT/examples" && ls | sort)
HEADERS=$(cd "$ROOT/include" && ls corral.h corral/*.h | sort)
[ "$(echo "$HEADERS" | wc -l)" -ge 6 ] || fail "found only these headers: $HEADERS"
{
	echo "755 /usr/bin/corral"
	for h in $HEADERS; do echo "644 /usr/include/$h"; done
	echo "644 $LIBDIR/libcorral.a"
	echo "777 $LIBDIR/libcorral.so -> libcorral.so.$MAJOR"
	echo "777 $LIBDIR/libcorral.so.$MAJOR -> libcorral.so.$VERSION"
	echo "644 $LIBDIR/libcorral.so.$VERSION"
	echo "644 $LIBDIR/pkgconfig/corral.pc"
	echo "644 $LIBDIR/libcorral-journal.a"
	echo "777 $LIBDIR/libcorral-journal.so -> libcorral-journal.so.$MAJOR"
	echo "777 $LIBDIR/libcorral-journal.so.$MAJOR -> libcorral-journal.so.$VERSION"
	echo "644 $LIBDIR/libcorral-journal.so.$VERSION"
	echo "644 $LIBDIR/pkgconfig/corral-journal.pc"
	for f in $DOCS; do echo "644 /usr/share/doc/corral/$f"; done
	echo "644 /usr/share/bash-completion/completions/corral"
	for f in $EXAMPLES; do echo "644 /usr/share/doc/corral/examples/$f"; done
	echo "644 /usr/share/man/man1/corral.1"
} | sort -k2 >"$T/want"
listing "$S" >"$T/got"
diff -u "$T/want" "$T/got" >"$T/tree.diff" ||
	{ fail "installed tree differs from the expected one:"; cat "$T/tree.diff" >&2; }

# Every link of the installed README resolves in the installed tree.
grep -oE '\]\([^)#]+\)' "$S/usr/share/doc/corral/README.md" | sed 's/^](//; s/)$//' |
	grep -v '://' | sort -u >"$T/links"
[ "$(wc -l <"$T/links")" -ge 5 ] || fail "found only $(wc -l <"$T/links") links in README.md"
while read -r l; do
	[ -e "$S/usr/share/doc/corral/$l" ] || fail "README.md links $l: not installed"
done <"$T/links"
# bash-completion's own loader finds it by the command's name
cmp -s "$S/usr/share/bash-completion/completions/corral" "$ROOT/completion/corral.bash" ||
	fail "installed completion differs from completion/corral.bash"

SO=$S$LIBDIR/libcorral.so.$VERSION
soname=$(readelf -d "$SO" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
expect_eq "$soname" "libcorral.so.$MAJOR" "SONAME"
# The binary links the library statically: it does not need the .so.
readelf -d "$S/usr/bin/corral" | grep -q 'NEEDED.*libcorral' &&
	fail "/usr/bin/corral needs libcorral.so"
for h in $HEADERS; do
	cmp -s "$S/usr/include/$h" "$ROOT/include/$h" || fail "installed $h differs"
	# Each header stands alone, in strict C99 and in C++ too (a third
	# party's flags).
	printf '#include <%s>\nint main(void) { return 0; }\n' "$h" >"$T/hdr.c"
	cc -std=c99 -pedantic -Wall -Wextra -Werror -I"$S/usr/include" -fsyntax-only "$T/hdr.c" ||
		fail "$h does not compile alone with -std=c99 -pedantic"
	if command -v c++ >/dev/null; then
		c++ -x c++ -Wall -Wextra -Werror -I"$S/usr/include" -fsyntax-only "$T/hdr.c" ||
			fail "$h does not compile alone as C++"
	fi
done
printf '#include <corral.h>\nint main(void) { struct corral_config c; corral_config_init(&c); return c.size == 0; }\n' >"$T/hdr.c"
cc -std=c99 -pedantic -Wall -Wextra -Werror -I"$S/usr/include" -fsyntax-only "$T/hdr.c" ||
	fail "a program of corral.h does not compile with -std=c99 -pedantic"
cmp -s "$S/usr/share/man/man1/corral.1" "$ROOT/docs/corral.1" || fail "installed man page differs"

# declared HEADER...: the functions these headers declare
declared() {
	(cd "$ROOT/include" && cat "$@") | grep -E '^[a-z][a-z_ ]*[ *](corral_[a-z0-9_]+)\(' |
		grep -v '^static' | sed -E 's/.*[ *](corral_[a-z0-9_]+)\(.*/\1/' | sort -u
}
# Exports: exactly the functions the headers declare, all in CORRAL_0.
declared $HEADERS >"$T/declared"
nm -D --defined-only "$SO" | awk '{ print $3 }' | sort >"$T/exported"
grep -qx 'CORRAL_0' "$T/exported" || fail "no version node CORRAL_0"
grep -v '^CORRAL_0$' "$T/exported" | sed 's/@@CORRAL_0$//' >"$T/exported.names"
[ "$(wc -l <"$T/declared")" -ge 20 ] || fail "found only $(wc -l <"$T/declared") declarations in include/"
diff -u "$T/declared" "$T/exported.names" >"$T/exports.diff" ||
	{ fail "exports differ from the headers' declarations (- declared, + exported):"; cat "$T/exports.diff" >&2; }
grep -v '@@CORRAL_0$' "$T/exported" | grep -v '^CORRAL_0$' | grep . &&
	fail "symbols outside version node CORRAL_0 (above)"
# The static library: every global it defines is public too (internal
# symbols are made local, so a program's own names cannot clash).
nm -g --defined-only "$S$LIBDIR/libcorral.a" | awk 'NF == 3 { print $3 }' |
	sort >"$T/static.names"
diff -u "$T/declared" "$T/static.names" >"$T/static.diff" ||
	{ fail "libcorral.a's globals differ from the headers' declarations:"; cat "$T/static.diff" >&2; }

# corral.pc: version, paths, what static linking needs.
PC=$S$LIBDIR/pkgconfig/corral.pc
expect_grep "^Version: $VERSION\$" "$PC" "corral.pc version"
expect_grep '^prefix=/usr$' "$PC" "corral.pc prefix"
expect_grep "^libdir=\\\$\\{prefix\\}${LIBDIR#/usr}\$" "$PC" "corral.pc libdir"
expect_grep '^Requires.private: .*libseccomp' "$PC" "corral.pc Requires.private"
expect_grep '^Requires.private: .*libunwind-ptrace' "$PC" "corral.pc Requires.private"
expect_grep '^Libs: -L\$\{libdir\} -lcorral$' "$PC" "corral.pc Libs"
JPC=$S$LIBDIR/pkgconfig/corral-journal.pc
expect_grep "^Version: $VERSION\$" "$JPC" "corral-journal.pc version"
expect_grep '^Libs: -L\$\{libdir\} -lcorral-journal$' "$JPC" "corral-journal.pc Libs"
grep -E '^Requires.*(seccomp|unwind)' "$JPC" && fail "corral-journal.pc requires libseccomp or libunwind"

# debian/control follows PKGS: the package providing each .pc is a
# Build-Depends and a Depends of libcorral-dev (its static link needs it);
# likewise JPKGS and libcorral-journal-dev, whose Depends must name nothing
# that brings libseccomp or libunwind.
for dev in libcorral-dev libcorral-journal-dev; do
	only=
	[ $dev = libcorral-journal-dev ] && only=JPKGS_ONLY=1
	for pc in $(env -u MAKEFLAGS -u MAKELEVEL make -s -C "$ROOT" $only print-pkgs); do
		f=$(pkg-config --path "$pc" 2>/dev/null) || { fail "pkg-config does not know $pc (PKGS)"; continue; }
		deb=$(dpkg -S "$f" 2>/dev/null | head -n 1 | cut -d: -f1)
		[ -n "$deb" ] || { note "$f belongs to no Debian package: not checked"; continue; }
		python3 - "$ROOT/debian/control" "$deb" "$pc" "$dev" <<'PY' || fail "debian/control does not follow PKGS (above)"
import re, sys
ctl, deb, pc, devname = sys.argv[1:]
paras = [p for p in open(ctl).read().split("\n\n") if p.strip()]
def field(p, name):
    m = re.search(r"^%s:(.*(?:\n[ \t].*)*)" % name, p, re.M)
    return {re.split(r"[ (:]", d.strip())[0] for d in m.group(1).split(",")} if m else set()
src = paras[0]
dev = next(p for p in paras if re.search(r"^Package: %s$" % devname, p, re.M))
bad = ["%s lacks %s (provides %s.pc, in PKGS)" % (w, deb, pc)
       for w, ok in (("Build-Depends", deb in field(src, "Build-Depends")),
                     ("%s Depends" % devname, deb in field(dev, "Depends"))) if not ok]
if devname == "libcorral-journal-dev":
    bad += ["%s Depends on %s (libseccomp or libunwind with it)" % (devname, d)
            for d in field(dev, "Depends")
            if re.search(r"seccomp|unwind|^libcorral0$|^libcorral-dev$", d)]
for w in bad:
    print("debian/control: %s" % w, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	done
done

# The installed CLI runs (statically linked with the library).
RUN_LABEL="installed corral"
run -- "$S/usr/bin/corral" --version
expect_rc 0 "corral --version"
expect_grep "^corral $VERSION\$" "$OUTF" "--version"
run -- "$S/usr/bin/corral" run -j "$T/j" -- sh -c 'sleep 100 & exit 6'
expect_rc 6 "installed corral run"
[ "$(j_end "$T/j" killed)" = 1 ] || [ "$(j_end "$T/j" left)" = 1 ] ||
	fail "the left-behind sleep was not ended"

UN=un inst "$S" PREFIX=/usr LIBDIR="$LIBDIR"
left=$(listing "$S")
[ -z "$left" ] || { fail "uninstall left files:"; echo "$left" >&2; }

# ------------------------------------- every directory variable honoured
S2=$T/stage2
VARS=(PREFIX=/p BINDIR=/x/bin LIBDIR=/x/lib INCLUDEDIR=/x/inc MANDIR=/x/man
	DOCDIR=/x/doc PKGCONFIGDIR=/x/pc COMPLETIONDIR=/x/bc)
inst "$S2" "${VARS[@]}"
[ -e "$S2/p" ] && fail "something was installed under PREFIX although every directory was given: $(find "$S2/p" | head -3)"
for f in /x/bin/corral /x/lib/libcorral.so.$VERSION /x/lib/libcorral.so.$MAJOR \
	/x/lib/libcorral.so /x/lib/libcorral.a /x/inc/corral.h /x/inc/corral/journal.h /x/man/man1/corral.1 \
	/x/lib/libcorral-journal.so.$VERSION /x/lib/libcorral-journal.so /x/lib/libcorral-journal.a /x/pc/corral-journal.pc \
	/x/doc/README.md /x/doc/docs/design.md /x/doc/examples/run_timeout.c /x/pc/corral.pc \
	/x/bc/corral; do
	[ -e "$S2$f" ] || fail "$f not installed"
done
# Outside PREFIX, the .pc has absolute paths.
expect_grep '^libdir=/x/lib$' "$S2/x/pc/corral.pc" "libdir outside PREFIX"
expect_grep '^libdir=/x/lib$' "$S2/x/pc/corral-journal.pc" "corral-journal.pc: libdir outside PREFIX"
expect_grep '^includedir=/x/inc$' "$S2/x/pc/corral.pc" "includedir outside PREFIX"
UN=un inst "$S2" "${VARS[@]}"
left=$(listing "$S2")
[ -z "$left" ] || { fail "uninstall (custom dirs) left files:"; echo "$left" >&2; }

done_test
