#!/usr/bin/env bash
# Forensics: the escape audit (--escape log|deny|kill, docs/threat-model.md).
#
# fx_escape makes one named call and prints its result and whether it had an
# effect. For each escape-relevant call:
#   log   exactly one `escape` event, with the call text and its arguments,
#         verdict "log", its stack; the call ran (its natural result);
#   deny  one event, verdict "deny"; the member got EPERM and nothing changed;
#   kill  one event, verdict "kill"; corral exits 123, the call never
#         completed and nothing of the tree is left.
# Signals are aimed at a process started OUTSIDE corral (fx_escape target),
# which must receive them under log and not under deny/kill (nor under log
# when the tree is in a Landlock domain with signal scoping: the kernel then
# refuses what the audit logged).
# Calls that are not escapes are never refused; PR_SET_PDEATHSIG and
# PR_SET_DUMPABLE are reported "for the record" (threat-model.md): one event,
# verdict "allow". A no-op setpgid into the group the member is
# already in is not an escape: an interactive bash must survive
# --escape=kill.
# Ordinary tools run unchanged under --escape=log: a job-control shell
# (bash -i, set -m), make, python's subprocess with start_new_session.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture fx_escape
FXE=$(readlink -f "$FIX/fx_escape")
IS_ROOT=
[ "$(id -u)" = 0 ] && IS_ROOT=1

# ------------------------------------------------ the target outside the tree
# Not in the witness (it is not started through corral and carries no
# marker); this script ends it: EOF on its stdin, and a kill on exit.
TBG=
TW=
TR=
on_exit() {
	[ -n "$TW" ] && exec {TW}>&-
	[ -n "$TBG" ] && kill -KILL "$TBG" 2>/dev/null
	cleanup
}
trap on_exit EXIT

mkfifo "$T/tin" "$T/tout"
env -u CORRAL_TEST_MARK "$FIX/fx_escape" target <"$T/tin" >"$T/tout" 2>/dev/null &
TBG=$!
exec {TW}>"$T/tin" {TR}<"$T/tout"
IFS=' ' read -r -t 10 -u "$TR" w TP TG || { fail "target: no READY line"; exit 1; }
[ "$w" = READY ] && [ "$TP" = "$TBG" ] || { fail "target: bad READY line '$w $TP $TG'"; exit 1; }

# t_next: the next line of the target (deadline 10 s) in TLINE
t_next() {
	TLINE=
	IFS= read -r -t 10 -u "$TR" TLINE || { fail "target: no line within 10s"; return 1; }
}

# t_got SIGNO WHAT: the target received SIGNO (its next line)
t_got() {
	t_next && expect_eq "$TLINE" "GOT $1" "$2: the outside process received signal $1"
}

# t_not_got WHAT: the target did not receive anything from the tree. A
# SIGUSR2 (12) is sent now from here: the target handles pending standard
# signals lowest number first, so a SIGHUP (1) or SIGUSR1 (10) sent from the
# tree would come out first if it had been sent.
t_not_got() {
	kill -USR2 "$TP"
	t_next && expect_eq "$TLINE" "GOT 12" "$1: the outside process received nothing from the tree (next signal seen)"
}

# ------------------------------------------------ helpers
# esc MODE ARGS...: corral --escape=MODE on fx_escape ARGS; J = journal
esc() {
	local mode=$1
	shift
	J=$T/j.$RUN.$mode
	run -- "$CORRAL" run -q -j "$J" --escape="$mode" -- "$FIX/fx_escape" "$@"
	j_valid "$J"
}

# out_has REGEX WHAT: a line of fx_escape's output matches
out_has() { expect_grep "$1" "$OUTF" "$2"; }

# one_escape CALL VERDICT [COUNT_ALL]: exactly one escape event, for the
# fixture, with call text CALL (exact) and VERDICT; COUNT_ALL escape events
# in all (default 1).
one_escape() {
	local call=$1 v=$2 all=${3:-1} fp
	fp=$(jq -r 'select(.event == "exec") | .pid' "$J" | head -n 1)
	j_expect "$J" '.event == "escape"' "$all" "escape events in all"
	j_expect "$J" ".event == \"escape\" and .call == $(j_str "$call") and .verdict == \"$v\" and .pid == $fp and .tgid == $fp" 1 \
		"one escape event '$call' verdict $v" || j_sel "$J" '.event == "escape"' | cut -c1-300 >&2
}

# one_escape_re PREFIX VERDICT [COUNT_ALL]: one escape event whose call
# starts with PREFIX, and VERDICT (for calls whose arguments are checked
# separately)
one_escape_re() {
	local pre=$1 v=$2 all=${3:-1}
	j_expect "$J" '.event == "escape"' "$all" "escape events in all"
	j_expect "$J" ".event == \"escape\" and (.call | startswith($(j_str "$pre"))) and .verdict == \"$v\"" 1 \
		"one escape event '$pre...' verdict $v" || j_sel "$J" '.event == "escape"' | cut -c1-300 >&2
}

# call_names PREFIX STRING WHAT: the escape event's call text (starting with
# PREFIX) contains STRING (a path argument, as text, not an address)
call_names() {
	local got
	got=$(jq -r --arg p "$1" 'select(.event == "escape" and (.call | startswith($p))) | .call' "$J" | head -n 1)
	case $got in
	*"$2"*) ;;
	*) fail "$3: the call text does not name '$2': got '$got'" ;;
	esac
}

# deny_result CALL: fx_escape printed EPERM for CALL
deny_result() { out_has "^$1 ret=-1 errno=EPERM\$" "$1 under deny: EPERM"; }

mounted() { grep -q " $1 " /proc/self/mountinfo; }

mkdir -p "$T/mnt" "$T/root"

# ------------------------------------------------ log and deny, call by call
for mode in log deny; do
	RUN_LABEL="$mode setsid"
	if esc $mode setsid; then
		one_escape "setsid()" $mode
		if [ $mode = log ]; then
			out_has '^setsid ret=0 errno=0$' "setsid ran"
			out_has '^effect=yes' "setsid took effect"
			# the stack of the escape names where it came from
			j_expect "$J" ".event == \"escape\" and ([.frames[] | select(.func == \"main\" and .module == \"$FXE\")] | length) == 1" 1 \
				"escape event's stack has fx_escape's main"
		else
			deny_result setsid
			out_has '^effect=no' "denied setsid had no effect"
		fi
	fi

	RUN_LABEL="$mode setpgid foreign"
	if esc $mode setpgid "$TG"; then
		one_escape "setpgid(0, $TG)" $mode
		if [ $mode = log ]; then
			out_has '^setpgid ret=0 errno=0$' "setpgid into the outside group ran"
		else
			deny_result setpgid
			out_has '^effect=no' "denied setpgid left the group unchanged"
		fi
	fi

	for ns in user ns uts,ipc; do
		RUN_LABEL="$mode unshare $ns"
		esc $mode unshare $ns || continue
		case $ns in
		user) one_escape "unshare(CLONE_NEWUSER)" $mode ;;
		ns) one_escape "unshare(CLONE_NEWNS)" $mode ;;
		uts,ipc)
			one_escape_re "unshare(" $mode
			j_expect "$J" '.event == "escape" and (.call | test("^unshare\\((CLONE_NEWIPC\\|CLONE_NEWUTS|CLONE_NEWUTS\\|CLONE_NEWIPC)\\)$"))' 1 "unshare call names both flags"
			;;
		esac
		if [ $mode = deny ]; then
			deny_result unshare
			out_has '^effect=no' "denied unshare: same namespace"
		elif [ -n "$IS_ROOT" ] || [ $ns = user ]; then
			out_has '^unshare ret=0 errno=0$' "unshare ran"
			out_has '^effect=yes' "unshare gave a new namespace"
		fi
	done

	RUN_LABEL="$mode clone(CLONE_NEWUTS)"
	if esc $mode clone uts; then
		one_escape_re "clone(" $mode
		j_expect "$J" '.event == "escape" and (.call | test("^clone\\(.*CLONE_NEWUTS"))' 1 "clone call names CLONE_NEWUTS"
		if [ $mode = deny ]; then
			deny_result clone
			j_expect "$J" '.event == "clone" or .event == "fork"' 0 "no child under deny"
		elif [ -n "$IS_ROOT" ]; then
			out_has '^effect=yes child [0-9]+ status 0$' "the namespaced child ran"
			# exit signal SIGCHLD: the kernel reports it as a fork
			j_expect "$J" '.event == "clone" or .event == "fork"' 1 "the namespaced child is a member (fork/clone event)"
		fi
	fi

	RUN_LABEL="$mode setns"
	if esc $mode setns /proc/self/ns/uts; then
		fd=$(sed -n 's/^fd=//p' "$OUTF")
		one_escape "setns($fd, 0)" $mode
		if [ $mode = deny ]; then deny_result setns; elif [ -n "$IS_ROOT" ]; then out_has '^setns ret=0 errno=0$' "setns ran"; fi
	fi

	RUN_LABEL="$mode ptrace(PTRACE_TRACEME)"
	if esc $mode traceme; then
		one_escape "ptrace(PTRACE_TRACEME)" $mode
		# already traced by corral: the kernel says EPERM too under log
		out_has '^traceme ret=-1 errno=EPERM$' "PTRACE_TRACEME fails"
	fi

	RUN_LABEL="$mode ptrace(PTRACE_ATTACH)"
	nopid=2147483000 # no such process: a real attach would stop it
	if esc $mode attach $nopid; then
		one_escape "ptrace(PTRACE_ATTACH, $nopid)" $mode
		if [ $mode = log ]; then out_has '^attach ret=-1 errno=ESRCH$' "attach went to the kernel (ESRCH)"; else deny_result attach; fi
	fi

	RUN_LABEL="$mode prctl(PR_SET_CHILD_SUBREAPER)"
	if esc $mode subreaper; then
		one_escape "prctl(PR_SET_CHILD_SUBREAPER, 1)" $mode
		if [ $mode = log ]; then
			out_has '^effect=yes' "subreaper set"
		else
			deny_result subreaper
			out_has '^effect=no' "denied: not a subreaper"
		fi
	fi

	for who in any "$TP"; do
		RUN_LABEL="$mode prctl(PR_SET_PTRACER, $who)"
		esc $mode ptracer "$who" || continue
		if [ "$who" = any ]; then
			one_escape "prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY)" $mode
		else
			one_escape "prctl(PR_SET_PTRACER, $TP)" $mode
		fi
		# without Yama the kernel answers EINVAL
		if [ $mode = log ]; then out_has '^ptracer ret=(0 errno=0|-1 errno=EINVAL)$' "PR_SET_PTRACER went to the kernel"; else deny_result ptracer; fi
	done

	RUN_LABEL="$mode mount"
	if esc $mode mount "$T/mnt"; then
		if [ $mode = log ]; then
			one_escape_re "mount(" log 2
			one_escape_re "umount2(" log 2
			if [ -n "$IS_ROOT" ] && [ "$(j_start "$J" boundary)" = landlock-ptrace ]; then
				# Landlock ABI < 6: the domain the tree gets refuses
				# mount to its members (docs/threat-model.md)
				out_has '^mount ret=-1 errno=EPERM$' "mount refused by the ptrace-only Landlock domain"
			elif [ -n "$IS_ROOT" ]; then
				out_has '^mount ret=0 errno=0$' "mount ran"
				out_has '^effect=yes' "a tmpfs was mounted"
			fi
			call_names "umount2(" "$T/mnt" "umount2 event"
		else
			one_escape_re "mount(" deny
			deny_result mount
			out_has '^effect=no' "denied mount: nothing mounted"
		fi
		call_names "mount(" "$T/mnt" "mount event"
		call_names "mount(" "tmpfs" "mount event (file system type)"
	fi
	mounted "$T/mnt" && { fail "$T/mnt still mounted"; umount "$T/mnt"; }

	RUN_LABEL="$mode chroot"
	if esc $mode chroot "$T/root"; then
		one_escape_re "chroot(" $mode
		call_names "chroot(" "$T/root" "chroot event"
		if [ $mode = deny ]; then
			deny_result chroot
			out_has '^effect=no' "denied chroot: same root"
		elif [ -n "$IS_ROOT" ]; then
			out_has '^effect=yes' "chroot changed the root"
		fi
	fi

	RUN_LABEL="$mode pivot_root"
	# paths that do not exist: a pivot_root that worked would move the root
	# of the host's mount namespace
	nx=/nonexistent-fxt-$$
	if esc $mode pivot_root "$nx/new" "$nx/old"; then
		one_escape_re "pivot_root(" $mode
		call_names "pivot_root(" "$nx/new" "pivot_root event"
		if [ $mode = log ]; then out_has '^pivot_root ret=-1 errno=ENOENT$' "pivot_root went to the kernel (ENOENT)"; else deny_result pivot_root; fi
	fi

	RUN_LABEL="$mode kill outside"
	if esc $mode kill "$TP" 10; then
		one_escape "kill($TP, SIGUSR1)" $mode
		if [ $mode = log ] && [ "$(j_start "$J" boundary)" = landlock ]; then
			# logged, then refused by the kernel: Landlock's signal
			# scoping (docs/threat-model.md, adv_signal_outside.sh)
			out_has '^kill ret=-1 errno=EPERM$' "kill refused by the Landlock boundary"
			t_not_got "kill under log, Landlock boundary"
		elif [ $mode = log ]; then
			out_has '^kill ret=0 errno=0$' "kill ran"
			t_got 10 "kill under log"
		else
			deny_result kill
			t_not_got "kill under deny"
		fi
	fi

	RUN_LABEL="$mode kill outside group"
	if esc $mode kill "-$TG" 10; then
		one_escape "kill(-$TG, SIGUSR1)" $mode
		if [ $mode = log ] && [ "$(j_start "$J" boundary)" = landlock ]; then
			t_not_got "kill of the group under log, Landlock boundary"
		elif [ $mode = log ]; then t_got 10 "kill of the group under log"; else
			deny_result kill
			t_not_got "kill of the group under deny"
		fi
	fi

	RUN_LABEL="$mode tgkill outside"
	if esc $mode tgkill "$TP" "$TP" 1; then
		one_escape "tgkill($TP, $TP, SIGHUP)" $mode
		if [ $mode = log ] && [ "$(j_start "$J" boundary)" = landlock ]; then
			t_not_got "tgkill under log, Landlock boundary"
		elif [ $mode = log ]; then t_got 1 "tgkill under log"; else
			deny_result tgkill
			t_not_got "tgkill under deny"
		fi
	fi

	# not escapes: reported for the record, never refused
	RUN_LABEL="$mode prctl(PR_SET_PDEATHSIG)"
	if esc $mode pdeathsig; then
		out_has '^pdeathsig ret=0 errno=0$' "PR_SET_PDEATHSIG is never refused"
		one_escape "prctl(PR_SET_PDEATHSIG, SIGKILL)" allow
	fi
	RUN_LABEL="$mode prctl(PR_SET_DUMPABLE)"
	if esc $mode dumpable; then
		out_has '^dumpable ret=0 errno=0$' "PR_SET_DUMPABLE is never refused"
		one_escape "prctl(PR_SET_DUMPABLE, 0)" allow
	fi
	RUN_LABEL="$mode setpgid(0, 0)"
	if esc $mode setpgid-own; then
		out_has '^setpgid-own ret=0 errno=0$' "a group of its own is never refused"
		j_expect "$J" '.event == "escape" and .verdict != "allow"' 0 "setpgid(0, 0) judged an escape"
	fi
done

# ------------------------------------------------ kill mode
# A tree (two sleepers) whose last process makes the call: exit 123, the call
# never completes, nothing is left.
kill_case() {
	local what=$1
	shift
	RUN_LABEL="kill $what"
	J=$T/j.$RUN.kill
	run -- "$CORRAL" run -q -j "$J" --escape=kill -- \
		sh -c 'sleep 60 & sleep 60 & exec "$0" "$@"' "$FIX/fx_escape" "$@"
	expect_rc 123 "--escape=kill, $what"
	if grep -q ' ret=' "$OUTF"; then
		fail "$what: the call returned to the member under kill: $(grep ' ret=' "$OUTF")"
	fi
	j_valid "$J" || return 1
	j_expect "$J" '.event == "escape" and .verdict == "kill"' 1 "one escape event with verdict kill"
	j_expect "$J" '.event == "escape"' 1 "escape events in all"
	j_expect_end "$J" reason escape
	j_expect_end "$J" exit_code 123
	j_expect_end "$J" survivors 0
	j_expect_end "$J" processes 3
}
kill_case setsid setsid
kill_case "unshare user" unshare user
kill_case mount mount "$T/mnt"
mounted "$T/mnt" && { fail "kill mount: $T/mnt is mounted"; umount "$T/mnt"; }
kill_case chroot chroot "$T/root"
kill_case "setpgid foreign" setpgid "$TG"
kill_case "kill outside" kill "$TP" 10
t_not_got "kill under --escape=kill"
kill_case "tgkill outside" tgkill "$TP" "$TP" 1
t_not_got "tgkill under --escape=kill"

# ------------------------------------------------ not escapes, under kill
# signal probes, signals inside the tree, a group inside the tree, and the
# no-op setpgid into the group the member already has: never ended.
RUN_LABEL="kill mode, not escapes"
J=$T/j.notesc
run -- "$CORRAL" run -q -j "$J" --escape=kill -- sh -c '
	"$0" kill 0 0
	"$0" kill "$1" 0
	sleep 60 & s=$!
	"$0" kill $s 15
	wait $s; echo "member killed: $?"
	"$0" ptracer $$' "$FIX/fx_escape" "$TP"
expect_rc 0 "--escape=kill, calls that are not escapes"
expect_grep '^member killed: 143$' "$OUTF" "a signal inside the tree was delivered"
j_valid "$J" && j_expect "$J" '.event == "escape" and .verdict != "allow"' 0 "escape verdicts other than allow"

RUN_LABEL="kill mode, setpgid into its own group"
J=$T/j.samegrp
run -- "$CORRAL" run -q -j "$J" --escape=kill -- "$FIX/fx_escape" setpgid "$(ps -o pgid= $$ | tr -d ' ')"
expect_rc 0 "--escape=kill, setpgid(0, <the group it is in>)"
out_has '^setpgid ret=0 errno=0$' "no-op setpgid ran"
j_valid "$J" && j_expect "$J" '.event == "escape" and .verdict != "allow"' 0 "escape verdicts other than allow"

RUN_LABEL="kill mode, bash -i"
J=$T/j.bashi
run -- "$CORRAL" run -q -j "$J" --escape=kill -- bash --norc --noprofile -ic 'echo interactive'
expect_rc 0 "bash -i under --escape=kill"
expect_grep '^interactive$' "$OUTF" "bash -i output"
j_valid "$J" && j_expect "$J" '.event == "escape" and .verdict != "allow"' 0 "escape verdicts other than allow"

# ------------------------------------------------ ordinary tools under log
RUN_LABEL="log: bash -i job control"
J=$T/j.tool.bashi
run -- "$CORRAL" run -q -j "$J" --escape=log -- bash --norc --noprofile -ic \
	'sleep 1 | cat & wait; (echo one; echo two) | tac & wait; echo "jobs done"'
expect_rc 0 "bash -ic with background pipelines"
expect_eq "$(tr '\n' ' ' <"$OUTF")" "two one jobs done " "bash -ic output"
j_valid "$J" && j_expect_end "$J" survivors 0

RUN_LABEL="log: set -m script"
J=$T/j.tool.setm
printf '%s\n' 'set -m' 'sleep 1 | cat &' 'printf "b\na\n" | sort | tr "\n" , &' 'wait' 'echo " waited"' >"$T/jobs.sh"
run -- "$CORRAL" run -q -j "$J" --escape=log -- bash "$T/jobs.sh"
expect_rc 0 "set -m script"
expect_eq "$(cat "$OUTF")" "a,b, waited" "set -m script output"
j_valid "$J" && j_expect "$J" '.event == "escape" and .verdict != "allow"' 0 "escape events of a job-control script"

RUN_LABEL="log: make"
J=$T/j.tool.make
mkdir -p "$T/mk"
printf 'all: b.txt\n\t@cat b.txt\nb.txt: a.txt\n\t@tr a-z A-Z <a.txt >b.txt\na.txt:\n\t@echo made by make >a.txt\n' >"$T/mk/Makefile"
# --no-print-directory: under an outer make (make test) a sub-make says where it is.
run -- "$CORRAL" run -q -j "$J" --escape=log -- make -s --no-print-directory -C "$T/mk"
expect_rc 0 "make"
expect_eq "$(cat "$OUTF")" "MADE BY MAKE" "make output"
j_valid "$J" && j_expect "$J" '.event == "escape" and .verdict != "allow"' 0 "escape events of make"

RUN_LABEL="log: python subprocess start_new_session"
J=$T/j.tool.py
run -- "$CORRAL" run -q -j "$J" --escape=log -- /usr/bin/python3 -c \
	'import subprocess; r = subprocess.run(["echo", "child ok"], start_new_session=True, check=True, capture_output=True, text=True); print(r.stdout.strip())'
expect_rc 0 "python subprocess with start_new_session"
expect_eq "$(cat "$OUTF")" "child ok" "python output"
if j_valid "$J"; then
	j_expect "$J" '.event == "escape" and .verdict != "allow"' 1 "escape events of python"
	j_expect "$J" '.event == "escape" and .call == "setsid()" and .verdict == "log"' 1 "python's setsid logged"
fi

RUN_LABEL="log, --stacks never"
J=$T/j.nostack
run -- "$CORRAL" run -q -j "$J" --escape=log --stacks never -- "$FIX/fx_escape" setsid
j_valid "$J" && j_expect "$J" '.event == "escape" and ((.frames // []) | length) == 0' 1 "escape event without a stack"

RUN_LABEL=
# the target is still alive and was never touched by a denied call
kill -0 "$TP" 2>/dev/null || fail "the outside target died"
exec {TW}>&-
TW=
wait "$TBG" 2>/dev/null
TBG=

done_test
