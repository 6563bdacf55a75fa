#!/usr/bin/env bash
# A member blinds the escape audit with a seccomp filter of its own that
# answers SECCOMP_RET_TRACE with data of its choosing (issue 9, attack 2):
# the kernel reports the newest filter's data at the stop, so corral used
# to see a rule id it did not know (or the wrong one) and resumed the call
# unjudged. corral now judges the call by the kernel's (arch, nr, args)
# through its own filter. In --escape log, deny and kill, under the
# default boundary and under --boundary=seccomp (the audit alone).
# Witnesses: setsid is refused under deny and ends the tree under kill;
# corral, asked to SIGSTOP itself, still exits when the member ends right
# after (stopped, it never would: the run's deadline says "hung"); the journal
# records each call with its real name.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture adv_attack

# A kernel without PTRACE_GET_SYSCALL_INFO (before Linux 5.3; pretended by
# build/tests/corral-testkernel, docs/testing.md): corral cannot judge any
# call its filter or the member's TRACEs, so it refuses each one (ENOSYS, an
# escape event with verdict deny, "cannot judge"), in every mode: fail
# closed, and the forged filter gains nothing.
if [ "${CORRAL_TESTKERNEL_SYSCALL_INFO:-}" = none ]; then
	for boundary in auto seccomp; do
		for data in 0xfff 2; do
			for mode in log deny kill; do
				RUN_LABEL="no syscall info, boundary $boundary, data $data, escape $mode"
				j=$T/j.$boundary.$data.$mode
				run -- "$CORRAL" run -q -j "$j" --boundary="$boundary" --escape "$mode" -- \
					"$FIX/adv_attack" forge "$data" setsid getppid
				expect_rc 0 "nothing judged, nothing killed"
				expect_grep '^setsid: ENOSYS$' "$OUTF" "setsid refused"
				expect_grep '^getppid: ENOSYS$' "$OUTF" "the member's TRACEd getppid refused"
				if j_valid "$j"; then
					j_expect "$j" '.event == "escape" and .verdict == "deny" and (.why | startswith("cannot judge"))' 2 \
						"both calls recorded as refused unjudged"
					j_expect "$j" '.event == "escape" and .verdict != "deny"' 0 "no other verdict"
					j_expect_end "$j" survivors 0
				fi
			done
			RUN_LABEL="no syscall info, boundary $boundary, data $data, SIGSTOP corral"
			j=$T/j.$boundary.$data.self
			run -- "$CORRAL" run -q -j "$j" --boundary="$boundary" --escape log -- \
				sh -c 'exec "$0" forge "$1" kill $PPID STOP' "$FIX/adv_attack" "$data"
			expect_rc 0 "corral exited with the member (it was not stopped)"
			expect_grep '^kill: ENOSYS$' "$OUTF" "kill(corral, SIGSTOP) refused unjudged"
		done
	done
	done_test
fi

# 0xfff: a rule id corral does not have; 2: corral's setpgid rule (a
# collision that used to make the decoder give up with EPROTO).
for boundary in auto seccomp; do
	# auto is the default: not named, so the test runs on builds that
	# predate --boundary too
	bopt=()
	[ "$boundary" = auto ] || bopt=(--boundary="$boundary")
	for data in 0xfff 2; do
		for mode in log deny kill; do
			RUN_LABEL="boundary $boundary, data $data, escape $mode"
			j=$T/j.$boundary.$data.$mode
			run -- "$CORRAL" run -q -j "$j" "${bopt[@]}" --escape "$mode" -- \
				"$FIX/adv_attack" forge "$data" setsid getppid
			case $mode in
			log)
				expect_rc 0 "forged data, log"
				expect_grep '^setsid: ok$' "$OUTF" "setsid runs under log"
				;;
			deny)
				expect_rc 0 "forged data, deny"
				expect_grep '^setsid: EPERM$' "$OUTF" "setsid refused under deny"
				;;
			kill)
				expect_rc 123 "forged data, kill: the tree is ended at setsid"
				grep -q '^getppid' "$OUTF" && fail "the member went on after setsid under --escape kill"
				;;
			esac
			[ "$mode" != kill ] && expect_grep '^getppid: ok$' "$OUTF" \
				"a call corral has no rule for (stopped by the member's filter) runs"
			if j_valid "$j"; then
				j_expect "$j" ".event == \"escape\" and .call == \"setsid()\" and .verdict == \"$mode\"" 1 \
					"the setsid escape, judged and recorded"
				j_expect "$j" '.event == "escape" and (.call | test("getppid|syscall"))' 0 \
					"getppid is not recorded as an escape"
				j_expect_end "$j" survivors 0
			fi
		done
		# corral itself: SIGSTOP with forged data must still be refused.
		RUN_LABEL="boundary $boundary, data $data, SIGSTOP corral"
		j=$T/j.$boundary.$data.self
		run -- "$CORRAL" run -q -j "$j" "${bopt[@]}" --escape log -- \
			sh -c 'exec "$0" forge "$1" kill $PPID STOP' "$FIX/adv_attack" "$data"
		expect_rc 0 "corral exited with the member (it was not stopped)"
		expect_grep '^kill: EPERM$' "$OUTF" "kill(corral, SIGSTOP) under a forged filter"
		j_valid "$j" && j_expect "$j" '.event == "escape" and .verdict == "deny" and (.call | startswith("kill("))' 1 \
			"the refused kill is recorded"
	done
done
RUN_LABEL=
done_test
