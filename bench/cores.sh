#!/usr/bin/env bash
# bench/cores.sh - the cost of --core (docs/bench.md, "Cores").
#
#   BUILD=build bench/cores.sh [ROUNDS]     (default 3; needs jq)
#
# 1. One member with 1 GiB resident (core_scene big 1024: every page
#    written, nothing sparse), ended by SIGTERM with --core signal: the
#    time from the `ending` event to its `core` event (stop-all + the core),
#    the core's size, and MB/s.
# 2. 100 members (sleep), ended by SIGTERM once all are started, with
#    --core signal: the time from `ending` to the last `core` event, and
#    per core.
# 3. 100 members of 2 threads each (core_scene hang 1).
# --stacks never, so that the times are the cores' alone. Cores go to
# $TMPDIR (default /tmp); the files are removed after each round.
set -eu
BUILD=${BUILD:-build}
ROUNDS=${1:-3}
CORRAL=$BUILD/corral
SCENE=$(readlink -f "$BUILD/fixtures/core_scene")
T=$(mktemp -d "${TMPDIR:-/tmp}/corral-bench-cores.XXXXXX")
trap 'rm -rf "$T"' EXIT

span() { # J: seconds from ending to the last core event, cores, bytes
	jq -rs '([.[] | select(.event == "ending")][0].t) as $e
		| [.[] | select(.event == "core" and .path)] as $c
		| "\(($c | map(.t) | max) - $e) \($c | length) \($c | map(.size) | add)"' "$1"
}

echo "# 1 GiB resident, one member"
for r in $(seq "$ROUNDS"); do
	rm -rf "$T/c" "$T/j"
	mkfifo "$T/ready"
	"$CORRAL" run -q -j "$T/j" --stacks never --core signal --core-budget 2G,120s \
		--core-dir "$T/c" -- "$SCENE" big 1024 >"$T/ready" &
	pid=$!
	read -r _ <"$T/ready"
	kill -TERM "$pid"
	wait "$pid" || true
	rm -f "$T/ready"
	read -r s n b <<<"$(span "$T/j")"
	awk -v s="$s" -v b="$b" 'BEGIN { printf "  round: %.3f s, %.0f MiB, %.0f MB/s\n", s, b / 1048576, b / s / 1e6 }'
	rm -rf "$T/c"
done

for what in sleep scene; do
	echo "# 100 members ($what)"
	for r in $(seq "$ROUNDS"); do
		rm -rf "$T/c" "$T/j"
		if [ $what = sleep ]; then
			cmd='for i in $(seq 100); do sleep 60 & done; echo ready; wait'
		else
			cmd='for i in $(seq 100); do '"$SCENE"' hang 1 >/dev/null & done; echo ready; wait'
		fi
		mkfifo "$T/ready"
		"$CORRAL" run -q -j "$T/j" -k 0 --stacks never --core signal \
			--core-budget 8G,120s --core-dir "$T/c" -- sh -c "$cmd" >"$T/ready" &
		pid=$!
		read -r _ <"$T/ready"
		kill -TERM "$pid"
		wait "$pid" || true
		rm -f "$T/ready"
		read -r s n b <<<"$(span "$T/j")"
		awk -v s="$s" -v n="$n" -v b="$b" 'BEGIN { printf "  round: %.3f s for %d cores (%.1f ms each), %.0f MiB in all\n", s, n, s * 1000 / n, b / 1048576 }'
		rm -rf "$T/c"
	done
done
