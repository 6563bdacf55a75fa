#!/usr/bin/env bash
# sanitizers_project.sh - a real C project's own test suite, built with
# AddressSanitizer (LeakSanitizer on, as ASan has it by default on x86-64),
# passes under corral as it does untraced (issue 24): zlib, from Debian's
# source package (bookworm's zlib_1.2.13.dfsg), its `make test` (the
# example and minigzip programs, static, shared and 64-bit: each ends with
# LeakSanitizer's leak check, which stops the world through the emulated
# ptrace). Before the emulation each of them died with "LeakSanitizer has
# encountered a fatal error".
#
# The source comes from the archive in the machine's apt sources at test time (apt-get source with a
# private apt configuration in $BUILD/zlib-src: the host's apt sources are
# not touched), once per build tree; where no mirror answers the test
# skips and says so. Runs as root, plain and --sandbox (the sandbox runs as
# the test user (TEST_UID), the workspace's owner). Witnesses: the suite's own three
# "test OK" lines and exit 0, the journal's emulated attaches by
# LeakSanitizer (one check per program run at least), nothing left behind.
. "$(dirname "$0")/lib.sh"
need_corral
for c in gcc make apt-get tar bzip2; do
	command -v "$c" >/dev/null || skip_test "$c not found"
done

SRC=$BUILD/zlib-src
ORIG=zlib_1.2.13.dfsg.orig.tar.bz2
if [ ! -s "$SRC/$ORIG" ]; then
	mkdir -p "$SRC/lists/partial" "$SRC/cache" "$SRC/parts"
	# The archive this machine's apt already uses (its sources, deb822
	# or one-line), the first one that serves Debian's main: no host is
	# written in the repository, and a machine behind its own mirror
	# fetches from that mirror.
	uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null)
	[ -n "$uri" ] || uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:/) { if ($i !~ /security/) { print $i; exit } break } }' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null)
	[ -n "$uri" ] || skip_test "no Debian archive in this machine's apt sources"
	printf '%s\n' 'Types: deb-src' "URIs: $uri" 'Suites: bookworm' \
		'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
		>"$SRC/parts/src.sources"
	apt=(apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$SRC/parts"
		-o Dir::State::Lists="$SRC/lists" -o Dir::Cache="$SRC/cache"
		-o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)")
	(cd "$SRC" && timeout 300 "${apt[@]}" update && timeout 300 "${apt[@]}" source --download-only zlib=1:1.2.13.dfsg-1) \
		>"$T/apt.log" 2>&1
	[ -s "$SRC/$ORIG" ] ||
		skip_test "zlib's source package could not be fetched from $uri (this machine's apt sources): $(tail -n 2 "$T/apt.log" | tr '\n' ' ' | cut -c1-200)"
fi

# The workspace: the sandbox has its own /tmp; as root it runs as the
# workspace's owner, the test user (TEST_UID), who must be able to write the tree.
WS=$T/ws
mkdir -p "$WS/z"
tar -xjf "$SRC/$ORIG" -C "$WS/z" --strip-components=1 || fail "the source does not unpack"
# -O0: what is tested is LeakSanitizer's stop of the world, not zlib's
# speed; the optimiser was half of this test's CPU (12 s against 6 s here).
(
	cd "$WS/z" &&
		CFLAGS="-g -O0 -fsanitize=address -fno-omit-frame-pointer" LDFLAGS="-fsanitize=address" ./configure &&
		make -j"$(nproc)"
) >"$T/build.log" 2>&1 || skip_test "zlib does not build with -fsanitize=address here: $(tail -n 3 "$T/build.log" | tr '\n' ' ' | cut -c1-200)"

# Untraced first: the suite passes, and LeakSanitizer works here (another
# tracer, or a kernel that refuses ptrace, breaks it with or without corral).
(cd "$WS/z" && make test) >"$T/untraced" 2>&1 ||
	skip_test "zlib's make test fails untraced here: $(tail -n 3 "$T/untraced" | tr '\n' ' ' | cut -c1-200)"
[ "$(grep -c 'test OK \*\*\*' "$T/untraced")" = 3 ] ||
	skip_test "zlib's make test says other than three 'test OK' untraced"

SANDBOX=1
"$CORRAL" probe >"$T/probe" 2>&1 || SANDBOX=
if [ "$(id -u)" = 0 ]; then
	chown -R "$TEST_UID:$TEST_GID" "$WS"
fi
chmod -R a+rX "$WS"

for mode in plain sandbox; do
	RUN_LABEL=$mode
	opts=()
	if [ "$mode" = sandbox ]; then
		[ -n "$SANDBOX" ] || { note "no sandbox here: plain only"; continue; }
		opts=(--sandbox --workspace "$WS")
	fi
	j=$T/j.$mode
	run -- "$CORRAL" run -q -j "$j" "${opts[@]}" -- make -C "$WS/z" test
	expect_rc 0 "zlib's make test under corral"
	expect_eq "$(grep -c 'test OK \*\*\*' "$OUTF")" 3 "the suite's 'test OK' lines"
	if grep -q 'does not work under ptrace\|LeakSanitizer has encountered a fatal error' "$OUTF" "$ERRF"; then
		fail "LeakSanitizer could not stop the world"
		show_run
	fi
	if j_valid "$j"; then
		n=$(j_count "$j" '.event == "ptrace" and .action == "attach"')
		[ "$n" -ge 3 ] || fail "emulated attaches: $n, expected LeakSanitizer's, at least one a program (3 or more)"
		expect_eq "$(j_count "$j" '.event == "ptrace" and .action == "refused"')" 0 "refused attaches"
		j_expect_end "$j" survivors 0
	fi
done
RUN_LABEL=
done_test
