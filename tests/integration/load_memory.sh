#!/usr/bin/env bash
# corral's memory is bounded by what is alive plus a bounded history
# (issue 16.2): a process keeps at most 1 KiB of its argv in corral's table
# (the journal's exec event has all of it), a huge journal line does not
# keep its buffer, and ended processes beyond 20,000 are dropped. Once, 100
# execs of 5.5 MB of arguments drove corral to 537 MB.
#
# 1. 60 execs of 2 MiB of arguments each: corral's peak RSS (VmHWM, read
#    from /proc while the last member waits) stays under 64 MiB, where
#    keeping every argv would take 120 MiB.
# 2. The journal still has the whole argv of an exec.
# 3. Allocation failure: corral's address space is limited (prlimit) so
#    that reading a 2 MiB argv cannot succeed; the run still ends with its
#    end line and the exit status it gives.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture bigargv

# Under `make asan` corral runs on AddressSanitizer's allocator: it keeps
# freed memory in a quarantine (256 MiB) and reserves terabytes of shadow
# address space, so neither a peak RSS nor an address-space limit says
# anything about corral's own allocations there. Parts 1 and 3 measure
# those; part 2 (the journal's content) runs in every build.
asan=false
ldd "$CORRAL" 2>/dev/null | grep -q 'libasan' && asan=true

# 1. the bound
if ! $asan; then
RUN_LABEL="60 execs of 2 MiB argv"
start -- "$CORRAL" run -q -j /dev/null -- "$FIX/bigargv" -p 60 2048
if await '^DONE 60$' 120; then
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$PID/status")
	note "corral's VmHWM after 60 x 2 MiB execs: ${hwm} kB"
	[ -n "$hwm" ] && [ "$hwm" -lt $((64 * 1024)) ] ||
		fail "corral's peak RSS ${hwm} kB: not under 64 MiB"
	kill -TERM "$PID"
fi
finish 60
expect_rc 143 "SIGTERM after the execs"
end_run
else
	skip_part "ASan build: the peak RSS bound (part 1) is not measured"
fi

# 2. the whole argv is in the journal
RUN_LABEL="journal keeps the whole argv"
j=$T/j.argv
run -- "$CORRAL" run -q -j "$j" -- "$FIX/bigargv" 2 2048
expect_rc 0 "2 execs of 2 MiB"
if j_valid "$j"; then
	# 32 arguments of 64 KiB - 1 'a's each, after /bin/true
	j_check "$j" '[.[] | select(.event == "exec" and .path == "/usr/bin/true" or .event == "exec" and .path == "/bin/true") | (.argv | length == 33 and (.[1:] | map(length) | add) == 32 * 65535)] | length == 2 and all' ||
		fail "an exec line does not carry the whole 2 MiB argv"
fi

# 3. out of memory while reading argv: the end line is not lost
if $asan; then
	skip_part "ASan build: the address-space limit (part 3) is not tried"
	done_test
fi
RUN_LABEL="allocation failure"
j=$T/j.oom
in=$T/in.oom
mkfifo "$in"
exec {W}<>"$in"
start -i "$in" -- "$CORRAL" run -q -j "$j" -- "$FIX/bigargv" -w 5 2048
if await '^WAITING$' 20; then
	vsz=$(awk '/^VmSize:/ { print $2 }' "/proc/$PID/status")
	# room for what corral has, not for a 2 MiB argv read
	prlimit --pid "$PID" --as=$(((vsz + 1024) * 1024)) ||
		fail "prlimit failed"
	echo go >&"$W"
fi
finish 60
exec {W}>&-
expect_rc 0 "5 execs with corral short of memory"
if j_valid "$j"; then
	j_expect_end "$j" exit_code 0
	j_expect_end "$j" execs 6
	# the limit bit: those execs' argv could not be read
	[ "$(j_count "$j" '.event == "exec" and .argv == null')" -ge 1 ] ||
		fail "every argv was read: the memory limit did not bite"
fi
end_run

done_test
