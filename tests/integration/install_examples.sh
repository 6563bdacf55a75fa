#!/usr/bin/env bash
# The examples (examples/, installed with the docs) are built the way a
# third party would: from a staged install (DESTDIR, PREFIX=/usr, a
# multiarch LIBDIR), with the installed examples/Makefile and nothing but
# pkg-config (PKG_CONFIG_SYSROOT_DIR points it at the stage), linked with
# libcorral.so and, separately, with libcorral.a (pkg-config --static); no
# warning with -Wall -Wextra -Werror. Each build runs and does what its
# comment promises, nothing left behind (witness). A program that defines
# its own functions with the library's internal names (signal_name,
# table_find) links and runs both ways: nothing internal is interposed.
# The .pc also relocates with pkg-config --define-prefix.
# Beside the others: make install in an up-to-date build writes only under
# DESTDIR (the Makefile: corral.pc goes straight to its place).
. "$(dirname "$0")/lib.sh"
stage_install

pkg-config --exists corral || { fail "pkg-config does not find corral in the stage"; done_test; }
expect_eq "$(pkg-config --modversion corral)" \
	"$(sed -n 's/^#define CORRAL_VERSION "\(.*\)"/\1/p' "$ROOT/include/corral/common.h")" "pkg-config --modversion"
pkg-config --cflags corral | grep -q -- "-I$S/usr/include" ||
	fail "cflags do not point at the stage: $(pkg-config --cflags corral)"
pkg-config --static --libs corral | grep -q -- '-lseccomp' ||
	fail "--static --libs lacks libseccomp: $(pkg-config --static --libs corral)"
pkg-config --static --libs corral | grep -q -- '-lunwind-ptrace' ||
	fail "--static --libs lacks libunwind-ptrace: $(pkg-config --static --libs corral)"

# Build with the installed Makefile: shared (rpath to the stage: the only
# thing taken from elsewhere than pkg-config is where to run from), static.
for mode in shared static; do
	stage_make $mode ||
		{ fail "examples ($mode) do not build"; cat "$T/$mode.log" >&2; continue; }
	for ex in run_timeout watch_exec poll_loop; do
		if [ $mode = static ]; then
			readelf -d "$T/$mode/$ex" | grep -q 'NEEDED.*libcorral' &&
				fail "$ex (static) needs libcorral.so"
		else
			readelf -d "$T/$mode/$ex" | grep -q 'NEEDED.*libcorral\.so\.0\]' ||
				fail "$ex (shared) does not need libcorral.so.0"
		fi
	done
done

for mode in shared static; do
	B=$T/$mode
	[ -x "$B/poll_loop" ] || continue

	# run_timeout: the limit ends the whole tree, a setsid'd daemon too.
	RUN_LABEL="$mode run_timeout, timeout"
	run -- "$B/run_timeout" 0.3 sh -c 'setsid sleep 100 & sleep 100'
	expect_rc 124 "run_timeout 0.3"
	expect_grep 'reason=timeout .*survivors=0' "$ERRF" "timeout summary"
	RUN_LABEL="$mode run_timeout, exit status"
	run -- "$B/run_timeout" 10 sh -c 'exit 3'
	expect_rc 3 "run_timeout: the command's status"
	expect_grep 'exit=3 reason=none' "$ERRF" "summary"
	RUN_LABEL="$mode run_timeout, not found"
	run -- "$B/run_timeout" 10 /nonexistent/cmd
	expect_rc 127 "run_timeout: not found"

	# watch_exec: one line per exec, each with its program.
	RUN_LABEL="$mode watch_exec"
	run -- "$B/watch_exec" sh -c '/bin/true; /bin/echo hello; exit 5'
	expect_rc 5 "watch_exec: the command's status"
	expect_eq "$(grep -c '^exec ' "$OUTF")" 3 "exec lines"
	expect_grep '^exec [0-9]+: /(usr/)?bin/true /bin/true$' "$OUTF" "exec of true"
	expect_grep '^exec [0-9]+: /(usr/)?bin/echo /bin/echo hello$' "$OUTF" "exec of echo"
	expect_grep '^hello$' "$OUTF" "the command's own output"

	# poll_loop, stdin at EOF: runs to the end, woken only when needed.
	RUN_LABEL="$mode poll_loop, to the end"
	run -- "$B/poll_loop" sh -c '/bin/true & wait; sleep 0.3; exit 4'
	expect_rc 4 "poll_loop: the command's status"
	w=$(sed -n 's/.*wakeups=\([0-9]*\).*/\1/p' "$ERRF")
	[ -n "$w" ] && [ "$w" -lt 100 ] || fail "poll_loop woke $w times (spinning?)"

	# poll_loop, "stop" on its control channel once the command runs.
	RUN_LABEL="$mode poll_loop, stop"
	rm -f "$T/ctl"
	mkfifo "$T/ctl"
	exec {W}<>"$T/ctl"
	start -i "$T/ctl" -- "$B/poll_loop" sh -c 'echo started; setsid sleep 100 & exec sleep 100'
	await '^started'
	echo stop >&"$W"
	finish
	end_run
	exec {W}>&-
	expect_rc 143 "poll_loop stop: SIGTERM ended the command"
	expect_grep 'reason=request' "$ERRF" "poll_loop: ended on request"
done

# Internal names of the library do not leak into or out of a program.
cat >"$T/names.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <corral.h>
/* Same names as functions inside libcorral: must not be interposed. */
const char *signal_name(int sig) { (void)sig; return "NOT-A-SIGNAL"; }
void *table_find(void *t, int pid) { (void)t; (void)pid; return 0; }
int main(void)
{
	static const char *const argv[] = {"/bin/sh", "-c", "kill -TERM $$", NULL};
	struct corral_config cfg;
	corral_config_init(&cfg);
	cfg.argv = argv;
	cfg.journal_fd = 1;
	struct corral *c;
	char err[256];
	if (corral_new(&cfg, &c, err, sizeof(err)) || corral_spawn(c) || corral_wait(c))
		return 1;
	struct corral_result r;
	corral_result(c, &r);
	corral_free(c);
	return r.exit_code;
}
EOF
for mode in shared static; do
	if [ $mode = static ]; then
		libs=$(pkg-config --static --libs corral | sed 's/-lcorral/-l:libcorral.a/')
	else
		libs="$(pkg-config --libs corral) -Wl,-rpath,$S$LIBDIR"
	fi
	# shellcheck disable=SC2046,SC2086
	cc -std=gnu11 -Wall -Werror $SAN $(pkg-config --cflags corral) -o "$T/names_$mode" "$T/names.c" $libs ||
		{ fail "a program with the library's internal names does not link ($mode)"; continue; }
	RUN_LABEL="$mode internal names"
	run -- "$T/names_$mode"
	expect_rc 143 "names ($mode)"
	grep -q NOT-A-SIGNAL "$OUTF" && fail "the program's signal_name() was used by the library ($mode)"
	expect_grep '"event":"exit".*"sig(nal)?":"?(SIGTERM|TERM|15)' "$OUTF" "the journal names the signal ($mode)"
done

# Relocation: the same .pc under another prefix, with --define-prefix.
unset PKG_CONFIG_SYSROOT_DIR
R=$T/reloc
env -u MAKEFLAGS -u MAKELEVEL make -s -C "$ROOT" BUILD="$BUILD" DESTDIR="$R" \
	PREFIX=/opt/corral LDCONFIG= install >"$T/make2.log" 2>&1 || fail "make install PREFIX=/opt/corral failed"
export PKG_CONFIG_LIBDIR=$R/opt/corral/lib/pkgconfig:$(pkg-config --variable pc_path pkg-config)
pkg-config --define-prefix --libs corral | grep -q -- "-L$R/opt/corral/lib -lcorral" ||
	fail "--define-prefix: $(pkg-config --define-prefix --libs corral)"
pkg-config --define-prefix --cflags corral | grep -q -- "-I$R/opt/corral/include" ||
	fail "--define-prefix: $(pkg-config --define-prefix --cflags corral)"

done_test
