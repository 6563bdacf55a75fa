#!/usr/bin/env bash
# tests/run.sh [unit|integration|all] - run corral's tests.
#
# unit:        every $BUILD/tests/test_* binary (cmocka)
# integration: every tests/integration/*.sh except lib.sh
# all:         both (default)
#
# Each binary or script counts as passed (exit 0), skipped (exit 77) or
# failed (anything else); the output of a failed one is shown. The closing
# line is exactly "N passed, M failed, K skipped", followed by the skips,
# one a line with its reason:
#   - a script that calls skip_test (lib.sh) exits 77 after printing
#     "SKIP [name]: reason"; it counts as skipped;
#   - a script that skips a part only (skip_part) passes, and its
#     "SKIP [name / part]: reason" lines are listed too;
#   - a cmocka binary's skipped cases (skip()) are read from its
#     "[  SKIPPED ] case" lines, each with the reason the case printed as
#     "SKIP [case]: reason" (tests/unit/skip.h: skip_because); a binary
#     whose every case skipped counts as skipped, otherwise as passed with
#     its skipped cases listed. A binary may also exit 77 itself.
# The skips are also written to $TEST_SKIPS (default $BUILD/test-skips.txt),
# "name: reason" a line, which .ci/run checks against .ci/must-not-skip.
#
# In parallel: nproc + 2 at a time (most tests wait on their trees more
# than they compute). Each test is known by its wall time and CPU time of
# the last run ($BUILD/test-times.txt, "wall cpu name" a line; a fresh clone
# uses tests/times.txt, the same measured on a machine of ours). With
# TEST_MAXJOBS=M more tests, up to M, start while the rates (cpu / wall) of
# those running add up to less than nproc; a test never timed counts as
# one busy core (measured slower on 2 cores: off by default).
# The longest start first, so the longest does not start last. TEST_JOBS=N
# runs exactly N at a time (1: one at a time). Each test's output goes to
# its own file and is shown whole; results are printed in a stable order
# (the order below), each as soon as those before it are done. A script
# with a line "# test: serial (why)" runs alone, after the others: one that
# measures or fills the machine. The slowest ten are listed at the end.
#
# As root, the sandbox tests ($BUILD/tests/test_sandbox and
# tests/integration/sandbox*.sh), the adversarial tests
# (tests/integration/adv_*.sh), journal_argv.sh (an execute-only binary
# is not readable by an unprivileged tracer), journal_sink.sh (a stalled
# reader, a lost exit line) and the emulated ptrace's tests run a second
# time as an unprivileged uid with no passwd entry (tests/test-user.sh:
# no user has to exist, none is created), through setpriv, named
# "NAME (as uid N)". When that uid cannot read the tree where it is (a
# clone under /root), the runner copies it (without .git) into its own
# temporary directory, readable by all, and runs those from the copy.
# Not as root, they cannot run: the closing lines and the skip list say
# so ("unprivileged re-runs: ..."), and .ci/must-not-skip fails CI on it.
#
# Older kernels: some tests run again against build/tests/corral-testkernel,
# which pretends to a kernel without Landlock, with an older ABI, or without
# PTRACE_GET_SYSCALL_INFO (docs/testing.md), named "NAME (kernel: WHAT)".
#
# Environment: BUILD (default build), TEST_FILTER (a regex: run only the
# tests whose name matches), TEST_TIMEOUT (seconds per unit binary/script,
# default 600; a safety net against hangs), TEST_SKIPS (see above),
# TEST_JOBS (see above).

set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
mode=${1:-all}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
export BUILD
FILTER=${TEST_FILTER:-}
LIMIT=${TEST_TIMEOUT:-600}
SKIPS_FILE=${TEST_SKIPS:-$BUILD/test-skips.txt}
TIMES_FILE=$BUILD/test-times.txt
NPROC=$(nproc 2>/dev/null || echo 1)
if [ -n "${TEST_JOBS:-}" ]; then
	[[ $TEST_JOBS =~ ^[1-9][0-9]*$ ]] || { echo "TEST_JOBS must be a positive number" >&2; exit 2; }
	JOBS=$TEST_JOBS MAXJOBS=$TEST_JOBS
else
	# More than nproc + 2 by CPU (TEST_MAXJOBS) was measured slower here:
	# up to 8 on 2 cores made each test cost more CPU (534 s against 476 s
	# at 4) and the run 332 s against 309 s (docs/testing.md). Off unless
	# asked for.
	JOBS=$((NPROC + 2)) MAXJOBS=${TEST_MAXJOBS:-$((NPROC + 2))}
	[[ $MAXJOBS =~ ^[1-9][0-9]*$ ]] && [ "$MAXJOBS" -ge "$JOBS" ] || { echo "TEST_MAXJOBS must be a number >= $JOBS" >&2; exit 2; }
fi
SEED_TIMES=$ROOT/tests/times.txt

case $mode in
unit | integration | all) ;;
*)
	echo "usage: tests/run.sh [unit|integration|all]" >&2
	exit 2
	;;
esac

passed=0
failed=0
skipped=0
failed_names=()
skip_lines=()
times=()
cpus=()
dir=$(mktemp -d "${TMPDIR:-/tmp}/corral-run.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# python3 (the tests start it some thousands of times) is Debian's, the
# one `make deps` installs: a python3 earlier in PATH may be a version
# manager's shim (pyenv's costs about a second a start here, measured:
# docs/testing.md), and the tests need only the standard library.
if [ -x /usr/bin/python3 ]; then
	mkdir "$dir/bin" && ln -s /usr/bin/python3 "$dir/bin/python3" && chmod 755 "$dir" "$dir/bin"
	export PATH="$dir/bin:$PATH"
fi
PIDS=()
# Interrupted (^C, a CI's TERM): every running test is ended and cleans up
# (lib.sh's witness kills what it started) before the runner exits, so
# nothing of the run outlives it; at most timeout's -k (10 s) later.
interrupted() {
	trap '' INT TERM
	echo "interrupted: ending the running tests (their cleanup runs)" >&2
	kill -TERM ${PIDS[@]+"${PIDS[@]}"} 2>/dev/null
	wait
	exit 130
}
trap interrupted INT TERM

# skips_of NAME LOG: the skip lines of a run ("name[ / part]: reason").
skips_of() {
	local name=$1 f=$2 base inner reason c
	base=${name##*/}
	base=${base%% *}
	base=${base%.sh}
	case $name in
	unit/*)
		# skip.h: "SKIP [case]: reason" (skip_because) and "SKIP [case /
		# part]: reason" (skip_part_because); a "[  SKIPPED ] case" line
		# with no reason is listed too.
		sed -n 's/^SKIP \[\([^]]*\)\]: \(.*\)$/\1\t\2/p' "$f" | sort -u |
			while IFS=$'\t' read -r c reason; do
				printf '%s / %s: %s\n' "$name" "$c" "$reason"
			done
		for c in $(sed -n 's/^\[  SKIPPED \] \([A-Za-z_][A-Za-z0-9_]*\)$/\1/p' "$f" | sort -u); do
			grep -q "^SKIP \[$c\]: " "$f" ||
				printf '%s / %s: no reason given (skip.h: skip_because)\n' "$name" "$c"
		done
		;;
	*)
		# lib.sh: skip_test's line (exit 77) and skip_part's lines
		sed -n 's/^SKIP \[\([^]]*\)\]: \(.*\)$/\1\t\2/p' "$f" |
			while IFS=$'\t' read -r inner reason; do
				if [ "$inner" = "$base" ]; then
					printf '%s: %s\n' "$name" "$reason"
				else
					printf '%s / %s: %s\n' "$name" "${inner#"$base / "}" "$reason"
				fi
			done
		;;
	esac
}

# report I: count test I (its output in $dir/I.log, "rc seconds" in
# $dir/I.res) and print its result; the whole output of a failed one.
report() {
	local i=$1 name=${NAMES[$1]} rc dt cpu log=$dir/$1.log
	read -r rc dt cpu <"$dir/$i.res"
	times+=("$dt $name")
	cpus+=("$cpu $name")
	local s=()
	mapfile -t s < <(skips_of "$name" "$log")
	if [ "$rc" = 0 ] && [[ $name == unit/* ]] && grep -q '^\[  SKIPPED \] ' "$log" &&
		grep -q '^\[  PASSED  \] 0 test(s)\.$' "$log"; then
		rc=77 # every case of the binary skipped
	fi
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1))
		echo "PASS  $name (${dt}s)${s[0]:+, ${#s[@]} part(s) skipped}"
		skip_lines+=("${s[@]}")
	elif [ "$rc" = 77 ]; then
		skipped=$((skipped + 1))
		if [ "${#s[@]}" = 0 ]; then
			s=("$name: no reason given (exit 77 without a SKIP line)")
		fi
		echo "SKIP  $name (${dt}s): ${s[0]#"$name: "}"
		skip_lines+=("${s[@]}")
	else
		failed=$((failed + 1))
		failed_names+=("$name")
		local why="exit $rc"
		[ "$rc" = 124 ] && why="timed out after ${LIMIT}s"
		echo "FAIL  $name ($why, ${dt}s)"
		local n
		n=$(wc -l <"$log")
		if [ "$n" -gt 150 ]; then
			echo "  ... ($((n - 150)) lines cut)"
		fi
		tail -n 150 "$log" | sed 's/^/  | /'
	fi
}

# The tests: NAMES[i], CMDS[i] (a command line for eval), SERIAL[i].
NAMES=()
CMDS=()
SERIAL=()

# add NAME SERIAL CMD...: one test, unless TEST_FILTER leaves it out.
add() {
	local name=$1 serial=$2
	shift 2
	if [ -n "$FILTER" ] && ! [[ $name =~ $FILTER ]]; then
		return
	fi
	NAMES+=("$name")
	SERIAL+=("$serial")
	CMDS+=("$(printf '%q ' "$@")")
}

# serial_script FILE: does the script ask to run alone?
serial_script() { grep -q '^# test: serial' "$1"; }

# launch I: run test I in the background.
launch() {
	local i=$1
	(
		t0=$EPOCHREALTIME
		# timeout runs the test in a process group of its own: pass
		# it a TERM from the runner (interrupted), so nothing stays
		# exec: tpid is timeout itself, not a shell between (which a
		# TERM would end, leaving timeout and the test running on)
		eval "exec timeout -k 10 $LIMIT ${CMDS[$i]}" >"$dir/$i.log" 2>&1 </dev/null &
		tpid=$!
		# interrupted: end the test, then wait for its cleanup (the
		# witness kills what it started; timeout's -k bounds it)
		trap 'kill -TERM "$tpid" 2>/dev/null; wait "$tpid"; exit 130' TERM
		wait "$tpid"
		rc=$?
		# CPU: what the test and the descendants it waited for used
		# (bash's `times`, second line: "XmY.YYYs XmY.YYYs"), to tell
		# a test that waits from one that computes.
		times >"$dir/$i.cpu" # a builtin, in this shell: not in a pipe's fork
		cpu=$(awk 'NR == 2 { t = 0; for (f = 1; f <= 2; f++) { split($f, a, "m"); t += a[1] * 60 + a[2] } printf "%.1f", t }' "$dir/$i.cpu")
		echo "$rc $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') ${cpu:-0}" >"$dir/$i.res.tmp"
		mv "$dir/$i.res.tmp" "$dir/$i.res"
	) &
	PIDS+=("$!")
}

# flush: report, in order, every test done whose predecessors are.
next=0
flush() {
	while [ "$next" -lt "${#NAMES[@]}" ] && [ -e "$dir/$next.res" ]; do
		report "$next"
		next=$((next + 1))
	done
}

unit_bins() {
	local f
	for f in "$BUILD"/tests/test_*; do
		[ -f "$f" ] && [ -x "$f" ] && echo "$f"
	done
}

integration_scripts() {
	local f
	for f in "$ROOT"/tests/integration/*.sh; do
		[ -f "$f" ] || continue
		[ "${f##*/}" = lib.sh ] && continue
		echo "$f"
	done
}

# ptrace_probe: empty when this process may trace a child of its own,
# else why not. A package build's chroot or container may refuse ptrace
# (a seccomp profile, Yama scope 3, the builder itself being traced).
ptrace_probe() {
	local err
	[ -x "$BUILD/corral" ] || { echo "$BUILD/corral is not built (the probe runs it)"; return; }
	err=$("$BUILD/corral" run -q -- true 2>&1) && return
	echo "this process may not trace a child here (corral run -q -- true: ${err:-failed})"
}

if [ "$mode" != integration ]; then
	bins=$(unit_bins)
	[ -n "$bins" ] || echo "note: no unit test binaries in $BUILD/tests (make $BUILD/tests/...)"
	# A binary whose source says "test: needs ptrace" runs real traced
	# children: where the probe saw ptrace refused it is skipped (exit
	# 77), with the probe's reason (.ci/check-skips fails CI on it).
	ptrace_why=
	grep -l 'test: needs ptrace' "$ROOT"/tests/unit/test_*.c >/dev/null 2>&1 &&
		ptrace_why=$(ptrace_probe)
	for b in $bins; do
		if [ -n "$ptrace_why" ] && grep -q 'test: needs ptrace' "$ROOT/tests/unit/${b##*/}.c" 2>/dev/null; then
			add "unit/${b##*/}" 0 bash -c 'echo "SKIP [$1]: $2"; exit 77' skip "${b##*/}" "$ptrace_why"
		else
			add "unit/${b##*/}" 0 "$b"
		fi
	done
fi

if [ "$mode" != unit ]; then
	if [ ! -x "$BUILD/corral" ]; then
		echo "note: $BUILD/corral is not built: integration tests will fail"
	fi
	for s in $(integration_scripts); do
		ser=0
		serial_script "$s" && ser=1
		add "integration/${s##*/}" "$ser" bash "$s"
	done
fi

# The sandbox tests again, unprivileged: as a uid nobody uses.
CLASS_SKIPS=()
if [ "$(id -u)" = 0 ]; then
	read -r TUID TGID < <("$ROOT/tests/test-user.sh") || TUID=
else
	TUID=
	CLASS_SKIPS+=("unprivileged re-runs: not run as root (only root can run tests as another uid; make test as root runs them)")
fi
if [ -n "$TUID" ]; then
	export CORRAL_TEST_UID=$TUID CORRAL_TEST_GID=$TGID
	echo "as root: the unprivileged re-runs run as uid $TUID gid $TGID (no passwd entry: tests/test-user.sh)"
	as_uid=(setpriv --reuid="$TUID" --regid="$TGID" --clear-groups --)
	UROOT=$ROOT UBUILD=$BUILD
	if ! "${as_uid[@]}" test -r "$BUILD/corral" -a -x "$BUILD" -a -r "$ROOT/tests/integration/lib.sh"; then
		# The uid cannot reach the tree (its parents are closed): a copy
		# it can read, in the runner's own directory.
		UROOT=$dir/tree
		mkdir -p "$UROOT"
		(cd "$ROOT" && tar --exclude=./.git -cf - .) | (cd "$UROOT" && tar -xf -)
		case $BUILD in "$ROOT"/*) UBUILD=$UROOT/${BUILD#"$ROOT"/} ;; *) UBUILD=$UROOT/build-copy && cp -a "$BUILD/." "$UBUILD" ;; esac
		chmod -R a+rX "$UROOT"
		chmod 755 "$dir"
		echo "as root: uid $TUID cannot read $ROOT: its runs use a copy in $UROOT"
	fi
	as_user=()
	if [ "$mode" != integration ] && [ -x "$BUILD/tests/test_sandbox" ]; then
		as_user+=("$UBUILD/tests/test_sandbox")
	fi
	if [ "$mode" != unit ]; then
		for s in "$UROOT"/tests/integration/sandbox*.sh "$UROOT"/tests/integration/adv_*.sh \
			"$UROOT"/tests/integration/journal_argv.sh \
			"$UROOT"/tests/integration/journal_sink.sh \
			"$UROOT"/tests/integration/fuse_self_deadlock.sh \
			"$UROOT"/tests/integration/sanitizers.sh \
			"$UROOT"/tests/integration/eptrace.sh \
			"$UROOT"/tests/integration/debuggers.sh; do
			[ -f "$s" ] && as_user+=("$s")
		done
	fi
	uenv=(env -C "$UROOT" HOME=/tmp USER="uid$TUID" LOGNAME="uid$TUID" BUILD="$UBUILD" TMPDIR=/tmp)
	for x in "${as_user[@]}"; do
		case $x in
		*.sh)
			ser=0
			serial_script "$x" && ser=1
			add "integration/${x##*/} (unprivileged)" "$ser" "${as_uid[@]}" "${uenv[@]}" bash "$x"
			;;
		*) add "unit/${x##*/} (unprivileged)" 0 "${as_uid[@]}" "${uenv[@]}" "$x" ;;
		esac
	done
elif [ "$(id -u)" = 0 ]; then
	CLASS_SKIPS+=("unprivileged re-runs: tests/test-user.sh found no free uid")
fi

# The last run's times, by name: wall seconds and CPU seconds (tests/times.txt
# first, for a fresh clone; then this build's last run, which wins). An
# older file has "wall name" lines: the CPU is then unknown.
declare -A last_time=() last_cpu=()
for tf in "$SEED_TIMES" "$TIMES_FILE"; do
	[ -r "$tf" ] || continue
	while read -r d c n; do
		if [[ $c =~ ^[0-9.]+$ ]]; then
			last_time[$n]=$d last_cpu[$n]=$c
		else
			last_time["$c${n:+ $n}"]=$d
		fi
	done <"$tf"
done

# Older kernels, on this one: build/tests/corral-testkernel pretends to a
# kernel with no Landlock, an older Landlock ABI, or no
# PTRACE_GET_SYSCALL_INFO (tests/testkernel/testkernel.h), and the tests
# that prove what such a kernel still gets (docs/threat-model.md's table)
# run against it: "NAME (kernel: WHAT)".
TESTKERNEL=$BUILD/tests/corral-testkernel
if [ "$mode" != unit ]; then
	fallbacks=(
		"landlock 5|CORRAL_TESTKERNEL_LANDLOCK=5|adv_boundary adv_proc_mem adv_signal_outside adv_sigio adv_abstract"
		"landlock 1|CORRAL_TESTKERNEL_LANDLOCK=1|adv_boundary adv_proc_mem"
		"no landlock|CORRAL_TESTKERNEL_LANDLOCK=none|adv_boundary adv_proc_mem adv_forged_trace"
		"landlock disabled|CORRAL_TESTKERNEL_LANDLOCK=disabled|adv_boundary"
		"no syscall info|CORRAL_TESTKERNEL_SYSCALL_INFO=none|adv_forged_trace journal_argv"
	)
	for f in "${fallbacks[@]}"; do
		IFS='|' read -r what var tests <<<"$f"
		for t in $tests; do
			x=$ROOT/tests/integration/$t.sh
			[ -f "$x" ] || continue
			ser=0
			serial_script "$x" && ser=1
			add "integration/$t.sh (kernel: $what)" "$ser" env CORRAL="$TESTKERNEL" "$var" bash "$x"
		done
	done
	[ -x "$TESTKERNEL" ] || CLASS_SKIPS+=("older-kernel runs: $TESTKERNEL is not built (make $TESTKERNEL; make test builds it)")
	if [ ! -x "$TESTKERNEL" ] && [ "${#NAMES[@]}" -gt 0 ]; then
		echo "note: $TESTKERNEL is not built (make $TESTKERNEL): the older-kernel runs will fail"
	fi
fi

# The order to start them in: the unit binaries (seconds, and first in the
# printed order), then the other parallel ones, longest first by the last
# run's times (one not timed yet counts as long), then the serial ones.
order=()
for ((i = 0; i < ${#NAMES[@]}; i++)); do
	[ "${SERIAL[$i]}" = 1 ] && continue
	[[ ${NAMES[$i]} == unit/* ]] && order+=("$i")
done
long=()
for ((i = 0; i < ${#NAMES[@]}; i++)); do
	[ "${SERIAL[$i]}" = 1 ] && continue
	[[ ${NAMES[$i]} == unit/* ]] && continue
	long+=("${last_time[${NAMES[$i]}]:-1e9} $i")
done
if [ "${#long[@]}" -gt 0 ]; then
	mapfile -t long < <(printf '%s\n' "${long[@]}" | sort -k1,1gr -k2,2n | awk '{ print $2 }')
	order+=("${long[@]}")
fi
for ((i = 0; i < ${#NAMES[@]}; i++)); do
	[ "${SERIAL[$i]}" = 1 ] && order+=("$i")
done

# rate I: the cores test I keeps busy, in thousandths (cpu / wall of its
# last run; 1000 when never timed).
RATE=()
for ((i = 0; i < ${#NAMES[@]}; i++)); do
	n=${NAMES[$i]}
	RATE[$i]=$(awk -v w="${last_time[$n]:-}" -v c="${last_cpu[$n]:-}" \
		'BEGIN { if (w == "" || c == "" || w <= 0) print 1000; else { r = int(1000 * c / w); print (r > 1000 ? 1000 : r) } }')
done

# room_for I: may test I start now, beside those running?
room_for() {
	[ "$running" -lt "$JOBS" ] && return 0
	[ "$running" -ge "$MAXJOBS" ] && return 1
	[ $((busy + RATE[$1])) -le $((NPROC * 1000)) ]
}

# reap: wait for one test to end; count it out, report what can be.
declare -A RUNNING=()
reap() {
	local p
	wait -n -p p
	if [ -n "${p:-}" ] && [ -n "${RUNNING[$p]:-}" ]; then
		busy=$((busy - RATE[${RUNNING[$p]}]))
		unset "RUNNING[$p]"
	fi
	running=$((running - 1))
	flush
}

t_start=$EPOCHREALTIME
running=0
busy=0
peak=0
for i in ${order[@]+"${order[@]}"}; do
	if [ "${SERIAL[$i]}" = 1 ]; then
		# alone: wait for everything else first
		while [ "$running" -gt 0 ]; do reap; done
	fi
	while ! room_for "$i"; do reap; done
	launch "$i"
	RUNNING[$!]=$i
	running=$((running + 1))
	busy=$((busy + RATE[$i]))
	[ "$running" -gt "$peak" ] && peak=$running
	if [ "${SERIAL[$i]}" = 1 ]; then
		while [ "$running" -gt 0 ]; do reap; done
	fi
done
wait
flush
wall=$(awk -v a="$t_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')

if [ "${#times[@]}" -gt 0 ]; then
	# this run's times, and the last run's for the tests not run now
	for t in "${times[@]}"; do last_time[${t#* }]=${t%% *}; done
	for t in "${cpus[@]}"; do last_cpu[${t#* }]=${t%% *}; done
	for n in "${!last_time[@]}"; do echo "${last_time[$n]} ${last_cpu[$n]:-${last_time[$n]}} $n"; done |
		sort -k3 >"$TIMES_FILE.tmp" 2>/dev/null &&
		mv "$TIMES_FILE.tmp" "$TIMES_FILE"
	echo "slowest:"
	printf '%s\n' "${times[@]}" | sort -k1,1gr | head -n 10 | awk '{ d = $1; sub(/^[^ ]+ /, ""); printf "  %6.1fs  %s\n", d, $0 }'
	echo "most CPU:"
	printf '%s\n' "${cpus[@]}" | sort -k1,1gr | head -n 5 | awk '{ d = $1; sub(/^[^ ]+ /, ""); printf "  %6.1fs  %s\n", d, $0 }'
	printf '%s\n' "${cpus[@]}" | sort -k1,1gr >"$BUILD/test-cpu.txt" 2>/dev/null || true
	cpu_all=$(printf '%s\n' "${cpus[@]}" | awk '{ s += $1 } END { printf "%.0f", s }')
	echo "wall: ${wall}s for ${#NAMES[@]} tests, $JOBS to $MAXJOBS at a time (at most $peak); CPU ${cpu_all}s (user + system)"
fi

if [ "$failed" -gt 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failed_names[@]}"
fi
# Whole classes that did not run count as skips too (never silently green).
[ "$mode" = unit ] || skip_lines+=(${CLASS_SKIPS[@]+"${CLASS_SKIPS[@]}"})
printf '%s\n' "${skip_lines[@]}" | sed '/^$/d' >"$SKIPS_FILE" 2>/dev/null ||
	echo "note: cannot write $SKIPS_FILE"
echo "$passed passed, $failed failed, $skipped skipped"
if [ "${#skip_lines[@]}" -gt 0 ]; then
	echo "skipped:"
	printf '  %s\n' "${skip_lines[@]}"
fi
[ "$failed" = 0 ]
