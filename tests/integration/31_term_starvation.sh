#!/usr/bin/env bash
# Starvation: 300 members forking and signalling one another as fast as they
# can while the timeout fires; corral must still end the tree in time.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture storm

for n in 300; do
	RUN_LABEL="storm -s $n"
	j=$T/j.$n
	start -- "$CORRAL" run -q -j "$j" --timeout 3 -k 1 -- "$FIX/storm" -s "$n"
	# the timeout may fire before all workers are up: the storm is raging
	# either way, so not being READY is not a failure here
	AWAIT_SOFT=1 await "^READY $n\$" 3
	finish 60
	expect_rc 124 "--timeout 3 on storm -s $n"
	expect_within $((3 + 1 + 5)) "--timeout 3 -k 1 (from start)"
	if j_parse "$j"; then
		j_expect_end "$j" reason timeout
		j_expect_end "$j" survivors 0
	fi
	end_run
	note "storm -s $n ended in ${ELAPSED}s, journal $(wc -l <"$j") lines"
done

# the same storm ended by SIGTERM
TERM_CASE="storm -s 300" TERM_WAYS=sigterm term_three '^READY 300$' -- "$FIX/storm" -s 300

done_test
