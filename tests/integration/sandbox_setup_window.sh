#!/usr/bin/env bash
# sandbox_setup_window.sh - `corral run --sandbox -- sleep 1000` is ended at
# instants spread densely over bubblewrap's setup (corral's exec, bwrap's
# exec, its clone into new namespaces, its PID 1, the fork of the command,
# the command's exec: all within the first ~15 ms here), in three ways:
#
#   timeout   corral -t T -k 0, T spread over 1..40 ms
#   sigterm   SIGTERM to corral after a delay spread over 0..40 ms
#   sigkill   SIGKILL to corral after a delay spread over 0..40 ms
#
# After each run an independent witness must show that nothing is alive:
# as root, a fresh cgroup v2 per run (corral is launched inside it; its
# cgroup.events must say "populated 0" within a bounded wait, then it is
# removed); in every case lib.sh's marker scan (CORRAL_TEST_MARK in the
# environment, which the sandbox keeps), the only witness as non-root. What
# a failed run left is listed and killed.
#
# SW_RUNS runs per way (default 24, as root and as non-root alike: the
# marker scan costs ~10 ms a run here; `make soak` runs 300). Why 24 is
# enough for make test: the instants are not drawn at random but stratified
# (spread below), half of them over the first 10 ms, where most of bwrap's
# setup is. With 24 a way, one instant falls in every step of at most
# 0.83 ms there (0.75 ms for the timeout way, from 1 ms): any window of 1 ms
# or more in which ending the run leaves something alive is hit in every
# make test, in each way, as root and as non-root. The soak's 300 (steps of
# 67 us, and random offsets inside them over repeated runs) is for narrower
# windows. Each run's journal is classified
# (ended before bwrap's exec / during bwrap's setup / after the command's
# exec) to show where the instants landed; when no run of a way ended inside
# the setup (a loaded machine stretches it past 40 ms), the window is
# measured in a whole run and up to 24 more instants are spread over it; a
# way with still no run ending inside the setup fails: it would not test
# what it claims to.
#
# The delays below are NOT synchronisation: the point is to land at
# arbitrary instants, so a plain timed wait is what is wanted. It is a
# `read -t` on a FIFO nobody writes (a bash builtin: no fork of sleep(1),
# sub-millisecond resolution), started right after corral's exec (signals)
# or the fork that becomes corral (timeout).
. "$(dirname "$0")/lib.sh"
need_corral

RUNS=${SW_RUNS:-24}
SETTLE_US=2000000 # bounded wait for `populated 0` / the marker to vanish

if ! "$CORRAL" probe >"$T/probe" 2>&1; then
	skip_test "the sandbox is not usable here: $(tr '\n' ' ' <"$T/probe")"
fi

WS=$T/ws
mkdir -p "$WS"
# As root the sandbox runs as the workspace's owner (docs/sandbox.md, "Root
# callers"): give it to nobody, so the run takes the unprivileged spawn path.
[ "$(id -u)" = 0 ] && chown nobody "$WS"
mkfifo "$T/nap" "$T/status"
exec {NAP}<>"$T/nap" {STF}<>"$T/status"

# nap US: wait US microseconds (builtin, see above).
nap() {
	[ "$1" -gt 0 ] || return 0
	read -r -t "$(printf '%d.%06d' $(($1 / 1000000)) $(($1 % 1000000)))" -u "$NAP" _
}

# hang_report PID CG: what a hung corral and its tree are doing
hang_report() {
	local p
	for p in $1 $( [ -n "$2" ] && cat "$2/cgroup.procs" 2>/dev/null); do
		printf '  pid %s: %s [%s, wchan %s]\n' "$p" \
			"$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-100)" \
			"$(awk '{print "state " $3 ", ppid " $4}' "/proc/$p/stat" 2>/dev/null)" \
			"$(cat "/proc/$p/wchan" 2>/dev/null)" >&2
	done
	[ -r "/proc/$1/stack" ] && sed 's/^/    /' "/proc/$1/stack" >&2
	# Was the SIGTERM never read (bit 0x4000 still pending: the loop did
	# not wait on its signalfd) or read and dropped (not pending)? The two
	# causes left open by the hunt for a rare hang here need this to tell.
	grep -E '^(SigPnd|ShdPnd|SigBlk|SigIgn):' "/proc/$1/status" 2>/dev/null |
		sed 's/^/    /' >&2
	awk '{print "    utime " $14 " stime " $15 " (ticks)"}' "/proc/$1/stat" 2>/dev/null >&2
	command -v gdb >/dev/null &&
		timeout 20 gdb -p "$1" -batch -ex 'bt' 2>/dev/null | grep '^#' |
		sed 's/^/    /' >&2
}

cg_populated() { sed -n 's/^populated //p' "$1/cgroup.events" 2>/dev/null; }

declare -A STAGES

# one WAY I US: one run; US is the timeout or the signal's delay (µs).
one() {
	local way=$1 i=$2 us=$3 cg= j=$T/j.$1.$2 err=$T/err.$1.$2 rc want cpid
	local -a topt=()
	RUN_LABEL="$way #$i at $(secs $((us * 1000)))ms"
	if [ -n "$CG" ]; then
		cg=$CG/run.$way.$i
		mkdir "$cg" || {
			fail "cannot create the run's cgroup $cg"
			return
		}
	fi
	case $way in
	timeout) topt=(-t "$(printf '%d.%03dms' $((us / 1000)) $((us % 1000)))" -k 0) want=124 ;;
	sigterm) topt=(-k 100ms) want=143 ;; # the grace is part of what is tested
	sigkill) want=137 ;;
	esac

	# The launcher reports corral's pid, then its exit status, on the
	# status FIFO: no polling of a pid that may have been reaped and reused.
	(
		exec {NAP}<&- {STF}<&-
		export CORRAL_TEST_MARK=$MARK
		if [ -n "$cg" ]; then echo "$BASHPID" >"$cg/cgroup.procs" || exit 99; fi
		"$CORRAL" run -q -j "$j" "${topt[@]}" --sandbox --workspace "$WS" -- sleep 1000 9>&- &
		echo "$!" >&9
		wait "$!"
		echo "$?" >&9
	) </dev/null >"$err" 2>&1 9>&"$STF" &
	local sub=$!
	cpid= rc=
	if ! read -r -t 10 -u "$STF" cpid; then
		fail "the launcher did not start corral"
		kill -KILL "$sub" 2>/dev/null
	else
		# The instants are counted from corral's exec, not from the fork
		# of the launcher's child: a SIGTERM landing in bash between that
		# fork and the exec is caught by bash's own handler and lost, and
		# corral then runs its sleep for good (seen once under load). The
		# child's comm turns to "corral" at the exec; this spin is bounded
		# and reads a /proc file with a builtin (no fork).
		local comm= t=$EPOCHREALTIME until_exec
		until_exec=$((${t/./} + 5000000))
		while [ "$comm" != corral ]; do
			read -r comm <"/proc/$cpid/comm" 2>/dev/null || break
			t=$EPOCHREALTIME
			[ "${t/./}" -lt "$until_exec" ] || break
		done
		[ "$comm" = corral ] || note "corral's exec not seen (comm '$comm')"
		case $way in
		sigterm) nap "$us"; kill -TERM "$cpid" ;;
		sigkill) nap "$us"; kill -KILL "$cpid" ;;
		esac
		# bounded: a safety net against a hang, not a synchronisation
		if ! read -r -t 20 -u "$STF" rc; then
			fail "corral (pid $cpid) still running 20 s after it was ended: hung; its tree:"
			hang_report "$cpid" "$cg"
			cp "$j" "$T/hung.$way.$i.journal" 2>/dev/null && note "journal kept: $T/hung.$way.$i.journal"
			show_journal "$j"
			grep '"denied"' "$j" >&2 || true
			kill -KILL "$cpid"
			read -r -t 10 -u "$STF" rc
		fi
	fi
	wait "$sub"
	if [ "$rc" != "$want" ]; then
		fail "corral exit status ${rc:-none}, expected $want"
		sed 's/^/  | /' "$err" | head -n 10 >&2
	fi

	# the witness
	local left= until2=$(($(now_us) + SETTLE_US))
	if [ -n "$cg" ]; then
		while [ "$(cg_populated "$cg")" != 0 ] && [ "$(now_us)" -lt "$until2" ]; do
			nap 2000
		done
		if [ "$(cg_populated "$cg")" != 0 ]; then
			left=$(cat "$cg/cgroup.procs")
			# shellcheck disable=SC2086
			fail "witness: cgroup $cg still populated $((SETTLE_US / 1000000)) s after corral ended: $(echo $left | wc -w) process(es):"
			# shellcheck disable=SC2086
			witness_describe $left
			echo 1 >"$cg/cgroup.kill"
			local u3=$(($(now_us) + 5000000))
			while [ "$(cg_populated "$cg")" != 0 ] && [ "$(now_us)" -lt "$u3" ]; do nap 20000; done
		fi
		rmdir "$cg" 2>/dev/null || fail "cannot remove the run's cgroup $cg"
	fi
	left=$(witness_pids)
	while [ -n "$left" ] && [ "$(now_us)" -lt "$until2" ]; do
		nap 20000
		left=$(witness_pids)
	done
	if [ -n "$left" ]; then
		# shellcheck disable=SC2086
		fail "witness: $(echo $left | wc -w) process(es) carrying the marker still alive $((SETTLE_US / 1000000)) s after corral ended:"
		# shellcheck disable=SC2086
		witness_describe $left
		witness_kill
	fi

	# Where did the run end? The journal is written before each event's task
	# goes on, so it is complete up to the instant corral ended.
	local stage
	stage=$(awk '
		/"event":"exec"/ { if (/"setup":true/) b = 1; else c = 1 }
		/"event":"(fork|clone)"/ && /"setup":true/ {
			if (/"nspid":1[,}]/) p = 1; else if (/"nspid":2[,}]/) f = 1 }
		END { print c ? "command" : f ? "forked" : p ? "pid1" : b ? "bwrap" : "before" }' "$j" 2>/dev/null)
	[ -n "$stage" ] || stage=before
	STAGES[$way.$stage]=$((${STAGES[$way.$stage]:-0} + 1))

	# timeout, SIGTERM: corral ends the run itself and journals it. The one
	# exception: a SIGTERM that lands before corral has blocked its signals
	# (nothing started yet, no exec) kills it by the default action.
	if [ "$way" != sigkill ] && [ "$rc" = "$want" ]; then
		local last
		last=$(tail -n 1 "$j" 2>/dev/null)
		if [[ $last == *'"event":"end"'* ]]; then
			[[ $last == *"\"exit_code\":$want,"* && $last == *'"survivors":0'* ]] ||
				fail "journal: the end is not exit_code $want with survivors 0: $(cut -c1-250 <<<"$last")"
			[[ $last == *'"sandbox_failed"'* ]] &&
				fail "journal: a run that was ended is reported as a sandbox failure: $(cut -c1-250 <<<"$last")"
		elif [ "$way" = timeout ] || [ "$stage" != before ]; then
			fail "journal: no end event ($stage)"
			show_journal "$j"
		fi
	fi
	[ "$FAILS" -gt 0 ] && [ -s "$j" ] && [ -n "${KEEP_FAILED:-}" ] || rm -f "$j" "$err"
}

# spread I N LOW: the I-th of N instants (µs) over LOW..40 ms, densest where
# bwrap's setup is: half of them over LOW..10 ms, 30% over 10..25 ms, 20%
# over 25..40 ms; each at a random offset inside its step, so that repeated
# runs of the test also cover the instants between steps
spread() {
	local i=$1 n=$2 lo=$3 n1 n2 step
	n1=$((n / 2))
	n2=$((n * 8 / 10))
	if [ "$i" -lt "$n1" ]; then
		step=$(((10000 - lo) / n1))
		echo $((lo + i * step + RANDOM % step))
	elif [ "$i" -lt "$n2" ]; then
		step=$((15000 / (n2 - n1)))
		echo $((10000 + (i - n1) * step + RANDOM % step))
	else
		step=$((15000 / (n - n2)))
		echo $((25000 + (i - n2) * step + RANDOM % step))
	fi
}

# calibrate: WIN_LO, WIN_HI: when (µs from corral's start, the journal's
# `t`) bwrap was exec'd and when the command was, in a whole run now.
calibrate() {
	local j=$T/j.calibrate lo hi
	rm -f "$j"
	CORRAL_TEST_MARK=$MARK "$CORRAL" run -q -j "$j" --sandbox --workspace "$WS" -- true \
		</dev/null >/dev/null 2>&1 || { fail "calibration run failed"; return 1; }
	read -r lo hi < <(jq -rs '[.[] | select(.event == "exec")] |
		[(map(select(.setup == true))[0].t), (map(select(.setup != true))[0].t)] |
		map(. // 0 | . * 1000000 | floor) | @tsv' "$j")
	[ "${lo:-0}" -gt 0 ] && [ "${hi:-0}" -gt 0 ] || { fail "calibration: no bwrap or command exec in its journal"; return 1; }
	WIN_LO=$lo WIN_HI=$hi
	[ "$WIN_HI" -gt "$WIN_LO" ] || WIN_HI=$((WIN_LO + 1000))
}

# The witness must see inside the sandbox: with a sandboxed sleep running,
# it finds it (by the cgroup as root, by the marker otherwise).
RUN_LABEL="witness self-check"
start -- "$CORRAL" run -q --sandbox --workspace "$WS" -- /bin/sh -c 'echo READY; exec sleep 1000'
if await '^READY$' 20; then
	seen=
	for p in $(witness_pids); do
		[ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" = "sleep 1000 " ] && seen=$p
	done
	[ -n "$seen" ] || fail "the witness ($WITNESS) does not see the sandboxed sleep 1000"
fi
kill -TERM "$PID"
finish 20
expect_rc 143 "SIGTERM to corral (self-check)"
end_run
RUN_LABEL=
[ "$FAILS" = 0 ] || done_test

t_start=$(now_us)
for way in timeout sigterm sigkill; do
	f0=$FAILS
	w0=$(now_us)
	for ((i = 0; i < RUNS; i++)); do
		us=$(spread "$i" "$RUNS" $([ "$way" = timeout ] && echo 1000 || echo 0))
		one "$way" "$i" "$us"
	done
	RUN_LABEL=
	setup=$((${STAGES[$way.bwrap]:-0} + ${STAGES[$way.pid1]:-0} + ${STAGES[$way.forked]:-0}))
	# A loaded machine stretches the setup past the fixed spread (seen at
	# load 10: every sigkill instant before bwrap's exec or after the
	# command's). Then the window is measured now, in a whole run, and up
	# to 3 x 8 more instants are spread over it: the way still has to
	# land inside the setup, and each of these runs is checked as above.
	extra=0
	for ((round = 0; setup == 0 && round < 3; round++)); do
		calibrate || break
		note "$way: no run ended during the setup yet; in a run now, bwrap's exec came at $(secs $((WIN_LO * 1000)))ms and the command's at $(secs $((WIN_HI * 1000)))ms: 8 runs inside that"
		for ((k = 0; k < 8; k++)); do
			extra=$((extra + 1))
			one "$way" "extra.$round.$k" $((WIN_LO + (WIN_HI - WIN_LO) * k / 8 + RANDOM % ((WIN_HI - WIN_LO) / 8 + 1)))
		done
		RUN_LABEL=
		setup=$((${STAGES[$way.bwrap]:-0} + ${STAGES[$way.pid1]:-0} + ${STAGES[$way.forked]:-0}))
	done
	more=
	[ "$extra" -gt 0 ] && more=" + $extra inside the measured window"
	note "$way: $RUNS runs$more in $(secs $(($(now_us) - w0)))s, $((FAILS - f0)) failure(s); ended: before bwrap's exec ${STAGES[$way.before]:-0}, during bwrap's setup $setup (bwrap running ${STAGES[$way.bwrap]:-0}, its PID 1 up ${STAGES[$way.pid1]:-0}, the command forked ${STAGES[$way.forked]:-0}), after the command's exec ${STAGES[$way.command]:-0}"
	[ "$setup" -gt 0 ] ||
		fail "$way: no run ended during bubblewrap's setup: the instants missed the window"
done
note "witness: $WITNESS${CG:+ (a child cgroup per run)}; total $(secs $(($(now_us) - t_start)))s"
done_test
