#!/usr/bin/env bash
# sandbox_git.sh - the sandbox cannot plant code that the host runs later
# without asking (docs/sandbox.md, "What the host executes later"):
#   - default (--sandbox-git=ro): writing a hook into .git/hooks, setting
#     core.fsmonitor or core.hooksPath, editing an existing .envrc or
#     .vscode/ fail inside; the host's repository is unchanged afterwards
#     (config and hooks compared byte for byte) and the host's own `git
#     status` runs no planted code; reading the repository still works;
#   - a .git file (a linked worktree's "gitdir: ...") cannot be rewritten;
#   - --sandbox-git=hooks-ro: `git commit` works inside, hooks and config
#     still cannot be changed;
#   - --sandbox-git=rw: the config can be changed (the documented opt-out);
#   - --bind WS/.vscode opens one protected path again.
# The rest of the workspace stays writable throughout.
. "$(dirname "$0")/lib.sh"
need_corral

command -v git >/dev/null || skip_test "git is missing"
if ! "$CORRAL" probe >"$T/probe" 2>&1; then
	skip_test "the sandbox is not usable here: $(tr '\n' ' ' <"$T/probe")"
fi

WS=$T/ws
mkdir -p "$WS"
export GIT_CONFIG_NOSYSTEM=1 HOME=$T/home # no user's config in the way
mkdir -p "$HOME"
G=(git -c user.name=corral -c user.email=corral@example.invalid -c safe.directory='*')
(
	cd "$WS" &&
		"${G[@]}" init -q . &&
		echo one >file &&
		"${G[@]}" add file &&
		"${G[@]}" commit -q -m one
) || fail "cannot make the test repository"
echo 'export FOO=1' >"$WS/.envrc"
mkdir -p "$WS/.vscode"
echo '{}' >"$WS/.vscode/settings.json"
# As root the sandbox runs as the workspace's owner: nobody here.
[ "$(id -u)" = 0 ] && chown -R nobody "$WS"

# snapshot: what the host would run later
snap() {
	(
		cd "$WS" && sha256sum .git/config .envrc .vscode/settings.json
		ls -la .git/hooks .vscode | grep -v ' \.\.\?$'
	) 2>&1
}
BEFORE=$(snap)

# The attack, from inside; one "what: ok|failed" line per attempt.
ATTACK='
try() { what=$1; shift; if "$@" >/dev/null 2>&1; then echo "$what: ok"; else echo "$what: failed"; fi; }
G="git -c safe.directory=*"
try hook sh -c "printf \"#!/bin/sh\ntouch $1/PWNED\n\" >.git/hooks/post-checkout && chmod +x .git/hooks/post-checkout"
try fsmonitor $G config core.fsmonitor "touch $1/PWNED"
try hookspath $G config core.hooksPath /tmp
try envrc sh -c "echo \"touch $1/PWNED\" >>.envrc"
try vscode sh -c "echo {} >.vscode/tasks.json"
try status $G status --porcelain
try log $G log --oneline
try workspace sh -c "echo built >out.txt"
'
# attack LABEL [corral options]
attack() {
	RUN_LABEL=$1
	shift
	rm -f "$T/PWNED" "$WS/out.txt"
	run -- "$CORRAL" run -q --sandbox --workspace "$WS" "$@" -- /bin/sh -c "$ATTACK" sh "$T"
	expect_rc 0 "the attack script"
}

expect_line() { expect_grep "^$1\$" "$OUTF" "${2:-$1}"; }

# host_git_runs_nothing: the host's git, as a user would run it next
host_git_runs_nothing() {
	(cd "$WS" && "${G[@]}" status >/dev/null 2>&1 && "${G[@]}" checkout -q . 2>/dev/null)
	[ -e "$T/PWNED" ] && fail "the host's git ran code planted by the sandbox ($T/PWNED exists)"
	rm -f "$T/PWNED"
}

# --- default: .git read-only -----------------------------------------------
attack "default"
for w in hook fsmonitor hookspath envrc vscode; do
	expect_line "$w: failed" "$w must fail by default"
done
expect_line "status: ok" "git status still works in a read-only .git"
expect_line "log: ok" "git log works"
expect_line "workspace: ok" "the workspace stays writable"
[ -f "$WS/out.txt" ] || fail "the workspace write did not reach the host"
expect_eq "$(snap)" "$BEFORE" "the host's .git config, hooks, .envrc, .vscode after the run"
host_git_runs_nothing

# --- a commit fails by default (documented), works with hooks-ro -----------
COMMIT='echo two >>file && git -c safe.directory=* -c user.name=c -c user.email=c@x.invalid commit -q -am two && echo COMMITTED'
RUN_LABEL="commit, default"
run -- "$CORRAL" run -q --sandbox --workspace "$WS" -- /bin/sh -c "$COMMIT"
[ "$RC" != 0 ] || fail "git commit succeeded with .git read-only"
RUN_LABEL="commit, hooks-ro"
run -- "$CORRAL" run -q --sandbox --workspace "$WS" --sandbox-git=hooks-ro -- /bin/sh -c "$COMMIT"
expect_rc 0 "git commit with --sandbox-git=hooks-ro"
expect_grep '^COMMITTED$' "$OUTF" "the commit"
expect_eq "$(cd "$WS" && "${G[@]}" log --format=%s -1)" two "the host sees the commit"
BEFORE=$(snap)
attack "hooks-ro" --sandbox-git=hooks-ro
for w in hook fsmonitor hookspath envrc vscode; do
	expect_line "$w: failed" "$w must fail with hooks-ro"
done
expect_line "workspace: ok"
expect_eq "$(snap)" "$BEFORE" "the host's .git config, hooks, .envrc, .vscode after hooks-ro"
host_git_runs_nothing

# --- rw: the user's explicit choice -----------------------------------------
attack "rw" --sandbox-git=rw
expect_line "fsmonitor: ok" "--sandbox-git=rw lets the config change"
expect_line "envrc: failed" ".envrc stays protected with --sandbox-git=rw"
(cd "$WS" && git config --unset core.fsmonitor; git config --unset core.hooksPath; rm -f .git/hooks/post-checkout) 2>/dev/null

# --- --bind opens one protected path ---------------------------------------
attack "--bind .vscode" --bind "$WS/.vscode"
expect_line "vscode: ok" "--bind WS/.vscode makes it writable again"
expect_line "hook: failed" ".git stays protected"

# --- a .git file (linked worktree) ------------------------------------------
WT=$T/wt
(cd "$WS" && "${G[@]}" worktree add -q "$WT" 2>/dev/null) || fail "cannot add a worktree"
[ "$(id -u)" = 0 ] && chown -R nobody "$WT"
GITFILE=$(cat "$WT/.git")
RUN_LABEL="gitfile"
run -- "$CORRAL" run -q --sandbox --workspace "$WT" -- /bin/sh -c 'echo "gitdir: /tmp/evil" >.git && echo REWRITTEN'
grep -q REWRITTEN "$OUTF" && fail "the .git file of a worktree was rewritten"
expect_eq "$(cat "$WT/.git")" "$GITFILE" "the worktree's .git file after the run"

done_test
