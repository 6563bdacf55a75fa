#!/usr/bin/env bash
# A member answers its own calls with a SECCOMP_RET_USER_NOTIF filter and a
# listener thread that lets them continue: USER_NOTIF outranks TRACE, so
# the calls would never stop at corral (issue 9, attack 2, other side).
# With the escape audit on, corral's filter refuses
# seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER) with
# EPERM (ERRNO outranks anything a member's filter says): no listener, no
# USER_NOTIF. Without the audit (--escape off) there are no TRACE rules to
# hide from and corral's EPERM rules outrank USER_NOTIF: allowed there.
# Witnesses: setsid is refused under deny, ends the tree under kill;
# corral, asked to SIGSTOP itself, still sees the member exit and exits
# (the member ends right after its attempt: a stopped corral would never
# exit, and the run's deadline would say "hung").
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture adv_attack

for boundary in auto seccomp; do
	# auto is the default: not named, so the test runs on builds that
	# predate --boundary too
	bopt=()
	[ "$boundary" = auto ] || bopt=(--boundary="$boundary")
	for mode in log deny kill; do
		RUN_LABEL="boundary $boundary, escape $mode"
		j=$T/j.$boundary.$mode
		run -- "$CORRAL" run -q -j "$j" "${bopt[@]}" --escape "$mode" -- \
			"$FIX/adv_attack" notif setsid
		expect_grep '^notif: EPERM$' "$OUTF" "a USER_NOTIF listener is refused"
		case $mode in
		log) expect_rc 0 "log"; expect_grep '^setsid: ok$' "$OUTF" "setsid runs under log" ;;
		deny) expect_rc 0 "deny"; expect_grep '^setsid: EPERM$' "$OUTF" "setsid refused under deny" ;;
		kill) expect_rc 123 "kill: the tree is ended at setsid" ;;
		esac
		j_valid "$j" && j_expect "$j" ".event == \"escape\" and .call == \"setsid()\" and .verdict == \"$mode\"" 1 \
			"setsid reached the audit"

		RUN_LABEL="boundary $boundary, escape $mode, SIGSTOP corral"
		run -- "$CORRAL" run -q "${bopt[@]}" --escape "$mode" -- \
			sh -c 'exec "$0" notif kill $PPID STOP' "$FIX/adv_attack"
		expect_rc 0 "corral saw the member end and exited (it was not stopped)"
		expect_grep '^kill: EPERM$' "$OUTF" "kill(corral, SIGSTOP) refused"
	done
	RUN_LABEL="boundary $boundary, escape off"
	run -- "$CORRAL" run -q "${bopt[@]}" -- \
		sh -c 'exec "$0" notif kill $PPID STOP' "$FIX/adv_attack"
	expect_grep '^notif: ok$' "$OUTF" "without the audit a listener is allowed"
	expect_rc 0 "corral exited with the member (its EPERM rule outranks USER_NOTIF)"
	expect_grep '^kill: EPERM$' "$OUTF" "kill(corral, SIGSTOP) refused"
done
RUN_LABEL=
done_test
