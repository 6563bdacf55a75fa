#!/usr/bin/env bash
# The journal out of the members' reach (issue 9): the command must not
# inherit a descriptor of the journal, whether corral opened it (-j FILE)
# or the caller handed one over (-j /dev/fd/N), or a member could append a
# forged `end` line. Witness: the member's own list of descriptors
# (/proc/self/fd) names no journal, and the journal holds exactly one end
# line after a member tried to write through descriptor 7.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture adv_attack

cat >"$T/member.sh" <<EOS
"$FIX/adv_attack" fds
(echo '{"event":"end","forged":true}' >&7) 2>/dev/null
exit 0
EOS

for how in file fd; do
	RUN_LABEL="-j $how"
	j=$T/j.$how
	if [ $how = file ]; then
		run -- "$CORRAL" run -q -j "$j" -- sh "$T/member.sh"
	else
		: >"$j"
		run -- sh -c 'exec "$0" run -q -j /dev/fd/7 -- sh "$1" 7>>"$2"' "$CORRAL" "$T/member.sh" "$j"
	fi
	expect_rc 0 "the run"
	grep -F "$j" "$OUTF" && fail "the member holds a descriptor of the journal"
	grep -q '^fd 7 ' "$OUTF" && fail "the member inherited fd 7: $(grep '^fd 7 ' "$OUTF")"
	if j_valid "$j"; then
		j_expect "$j" '.event == "end"' 1 "end lines in the journal"
		j_expect "$j" '.forged == true' 0 "forged lines in the journal"
	fi
done
RUN_LABEL=
done_test
