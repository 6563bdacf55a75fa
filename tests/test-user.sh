#!/usr/bin/env bash
# tests/test-user.sh - prints "UID GID": the unprivileged identity the tests
# use as root, with no system state: the first uid of 64200..64299 that has
# no passwd entry, no group entry of the same number and no process
# running as it (a uid nobody uses). tests/run.sh exports it as
# CORRAL_TEST_UID/CORRAL_TEST_GID; a test run alone asks here itself
# (lib.sh). Files a test gives it live in the test's own temporary
# directory and go with it. CORRAL_TEST_UID set in the environment wins.
set -u
if [ -n "${CORRAL_TEST_UID:-}" ]; then
	echo "$CORRAL_TEST_UID ${CORRAL_TEST_GID:-$CORRAL_TEST_UID}"
	exit 0
fi
for u in $(seq 64200 64299); do
	getent passwd "$u" >/dev/null && continue
	getent group "$u" >/dev/null && continue
	[ -z "$(ps -o pid= -U "$u" 2>/dev/null)" ] || continue
	echo "$u $u"
	exit 0
done
echo "tests/test-user.sh: no free uid in 64200..64299" >&2
exit 1
