#!/usr/bin/env bash
# bench/ab.sh - two corral binaries side by side on the same workloads, in
# the same invocation: A B A B ..., the ratio A/B taken pair by pair (a
# machine whose speed drifts moves both halves of a pair alike), reported
# as the median ratio with its min and max. For a refactor that must not
# change behaviour or cost (issue 27: before and after, docs/bench.md).
#
#   bench/ab.sh A_CORRAL B_CORRAL [RUNS]      (RUNS pairs a workload, default 11)
#   AB_ONLY=REGEX bench/ab.sh ...             (only the workloads whose name matches)
#
# Workloads (bench programs, make bench-progs): an exec loop (the events of
# fork, exec and exit), a thread wave (clone and exit only), a tree of
# sleepers ended by --timeout (stop-all and kill-all), and the same exec
# loop with a journal (the writer). Each is `corral run -q [...] -- W`;
# wall time from bash's clock around the whole process, CPU (user +
# system of corral and the tree) from getrusage of the children (bash's
# `times`). Needs only bash and awk.
set -u
[ $# -ge 2 ] || { echo "usage: bench/ab.sh A_CORRAL B_CORRAL [RUNS]" >&2; exit 2; }
A=$1 B=$2 RUNS=${3:-11}
for x in "$A" "$B"; do
	[ -x "$x" ] || { echo "bench/ab.sh: $x is not executable" >&2; exit 2; }
done
BUILD=${BUILD:-build}
W=$BUILD/bench
for p in forkexec threads tree; do
	[ -x "$W/$p" ] || { echo "bench/ab.sh: $W/$p missing: make bench-progs" >&2; exit 2; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/corral-ab.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# one CORRAL WORKLOAD-ARGS...: "wall cpu" of one run, in seconds. Run in a
# command substitution: `times` (a builtin, into a file: no further
# subshell) then counts exactly the corral this subshell waited for.
one() {
	local c=$1 t0 t1
	shift
	rm -f "$TMP/j"
	t0=$EPOCHREALTIME
	"$c" run -q "$@" >/dev/null 2>&1 </dev/null
	t1=$EPOCHREALTIME
	times >"$TMP/times"
	awk -v a="$t0" -v b="$t1" 'NR == 2 { t = 0
		for (i = 1; i <= 2; i++) { split($i, x, "m"); sub(/s$/, "", x[2]); t += x[1] * 60 + x[2] }
		printf "%.4f %.4f\n", b - a, t }' "$TMP/times"
}

# ab NAME ARGS...: RUNS pairs (one warm-up pair first), the medians
ab() {
	local name=$1 i ra rb
	shift
	[[ $name =~ ${AB_ONLY:-.} ]] || return 0
	one "$A" "$@" >/dev/null
	one "$B" "$@" >/dev/null
	: >"$TMP/pairs"
	for ((i = 0; i < RUNS; i++)); do
		ra=$(one "$A" "$@")
		rb=$(one "$B" "$@")
		echo "$ra $rb" >>"$TMP/pairs"
	done
	awk -v name="$name" '
	function med(x, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
		return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
	}
	{ n++; aw[n] = $1; ac[n] = $2; bw[n] = $3; bc[n] = $4; rw[n] = $1 / $3; rc[n] = ($4 > 0 ? $2 / $4 : 1) }
	END {
		lo = 1e9; hi = 0
		for (i = 1; i <= n; i++) { if (rw[i] < lo) lo = rw[i]; if (rw[i] > hi) hi = rw[i] }
		printf "| %s | %.3f | %.3f | %.3f [%.3f..%.3f] | %.3f | %.3f | %.3f |\n",
			name, med(aw, n), med(bw, n), med(rw, n), lo, hi, med(ac, n), med(bc, n), med(rc, n)
	}' "$TMP/pairs"
}

echo "A = $A"
echo "B = $B"
echo "$RUNS pairs a workload, A B alternated; medians (ratio: min..max of the pairs)"
echo
echo "| workload | A wall s | B wall s | A/B wall | A cpu s | B cpu s | A/B cpu |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
ab "exec loop, 1000 /bin/true" -- "$W/forkexec" 1000
ab "threads, 5000 in waves of 200" -- "$W/threads" -t 5000 -w 200
ab "tree of 500 sleepers, -t 0.5" -t 0.5 -k 1 -- "$W/tree" -n 500
ab "exec loop 1000, journal" -j "$TMP/j" -- "$W/forkexec" 1000
