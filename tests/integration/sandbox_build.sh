#!/usr/bin/env bash
# sandbox_build.sh - the workspace stays a place to build (docs/sandbox.md,
# "Root callers"): a small C project (two files, a Makefile, gcc, make -j2)
# builds inside the sandbox and its program runs; the objects reach the
# host. As root:
#   - the sandbox runs as the workspace's owner: the objects are owned by
#     that user on the host, never by root;
#   - a root-owned workspace is refused before anything starts (exit 125,
#     the message says what to do, the journal's end says why, nothing ran)
#     unless --sandbox-user names a user who can write it;
#   - --sandbox-user USER and UID:GID are used as given (journal start).
. "$(dirname "$0")/lib.sh"
need_corral

command -v gcc >/dev/null && command -v make >/dev/null || skip_test "gcc or make is missing"
if ! "$CORRAL" probe >"$T/probe" 2>&1; then
	skip_test "the sandbox is not usable here: $(tr '\n' ' ' <"$T/probe")"
fi

# project DIR: a small C project
project() {
	mkdir -p "$1"
	cat >"$1/main.c" <<'EOF'
#include <stdio.h>
int add(int, int);
int main(void) { printf("sum %d\n", add(40, 2)); return 0; }
EOF
	cat >"$1/add.c" <<'EOF'
int add(int a, int b) { return a + b; }
EOF
	printf 'prog: main.o add.o\n\t$(CC) -o $@ main.o add.o\n%%.o: %%.c\n\t$(CC) -O2 -c -o $@ $<\n' >"$1/Makefile"
}

# build LABEL WS [corral options]: make + run inside the sandbox
build() {
	local label=$1 ws=$2
	shift 2
	RUN_LABEL=$label
	LAST_J=$T/j.build.$RUN
	run -- "$CORRAL" run -q -j "$LAST_J" --sandbox --workspace "$ws" "$@" -- /bin/sh -c 'make -s -j2 && ./prog'
	expect_rc 0 "make and run in the sandbox"
	expect_grep '^sum 42$' "$OUTF" "the program built in the sandbox"
	local f
	for f in main.o add.o prog; do
		[ -f "$ws/$f" ] || fail "$f did not reach the host"
	done
}

owner_of() { stat -c %U "$1"; }

if [ "$(id -u)" != 0 ]; then
	project "$T/ws"
	# by number: the unprivileged re-run's uid has no passwd entry
	build "as uid $(id -u)" "$T/ws"
	expect_eq "$(stat -c %u "$T/ws/prog")" "$(id -u)" "owner of the built program"
	done_test
fi

# --- root: the workspace's owner builds ------------------------------------
U=nobody
project "$T/ws"
chown -R "$U" "$T/ws"
build "workspace owned by $U" "$T/ws"
expect_eq "$(owner_of "$T/ws/prog")" "$U" "owner of the built program (the workspace's owner)"
j_valid "$LAST_J" && j_expect "$LAST_J" ".event == \"start\" and .sandbox.user == \"$U\" and .sandbox.user_from == \"the workspace's owner\"" 1 "start: the sandbox user"

# --- root: a root-owned workspace is refused --------------------------------
project "$T/rootws"
RUN_LABEL="root-owned workspace"
j=$T/j.refused
run -- "$CORRAL" run -j "$j" --sandbox --workspace "$T/rootws" -- /bin/sh -c "touch $T/rootws/RAN $T/RAN; make"
expect_rc 125 "a root-owned workspace"
expect_grep "^corral: sandbox: workspace $T/rootws is not writable by nobody .*--sandbox-user" "$ERRF" "the message says what to do"
[ -e "$T/rootws/RAN" ] || [ -e "$T/RAN" ] && fail "the command ran"
[ -e "$T/rootws/main.o" ] && fail "the build ran"
if j_valid "$j"; then
	j_expect_end "$j" exit_code 125
	j_expect_end "$j" processes 0
	j_expect "$j" '.event == "end" and (.sandbox_error | test("not writable by nobody"))' 1 "end: sandbox_error says why"
fi

# --- root: --sandbox-user names who builds -----------------------------------
chown -R "$U" "$T/rootws"
chown root "$T/rootws" && chmod 777 "$T/rootws" # a shared directory
build "--sandbox-user $U" "$T/rootws" --sandbox-user "$U"
expect_eq "$(owner_of "$T/rootws/prog")" "$U" "owner of the program built with --sandbox-user $U"
uid=$(id -u "$U")
gid=$(id -g "$U")
rm -f "$T/rootws"/*.o "$T/rootws/prog"
build "--sandbox-user $uid:$gid" "$T/rootws" --sandbox-user "$uid:$gid"
j_valid "$LAST_J" && j_expect "$LAST_J" ".event == \"start\" and .sandbox.uid == $uid and .sandbox.gid == $gid" 1 "start: uid and gid as given"

done_test
