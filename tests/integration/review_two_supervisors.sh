#!/usr/bin/env bash
# Two supervisors in one process (include/corral.h "Children"): each loop
# reaps with waitpid(-1, __WALL), which takes the statuses of every tracee of
# the process, so two trees supervised at once take each other's events
# (before: both trees stuck in stops nobody resumed, until their timeouts).
# A program driving two with corral_fd() in one poll loop must be told at
# corral_spawn() (-EBUSY, a message); the first tree runs to its end
# untouched; once it finished, the second object can spawn and run.
# Objects made up front and freed in any order: freeing the first must not
# unblock SIGCHLD under the second (before: its run timed out), and each
# command starts with the host's signal mask and SIGPIPE disposition, the
# second run too (before: SIGPIPE ignored, corral's signals blocked).
. "$(dirname "$0")/lib.sh"
SAN=
nm -u "$BUILD/libcorral.a" 2>/dev/null | grep -q __asan_init && SAN="-fsanitize=address,undefined"
need_corral
[ -e "$BUILD/libcorral.so" ] || { fail "no $BUILD/libcorral.so"; done_test; }

cat >"$T/two.c" <<'C'
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <corral.h>

static int run_to_end(struct corral *c)
{
	int r;
	do {
		struct pollfd p = {.fd = corral_fd(c), .events = POLLIN};
		poll(&p, 1, -1);
		r = corral_step(c, 0);
	} while (r > 0);
	struct corral_result res;
	corral_result(c, &res);
	printf("exit=%d reason=%s execs=%lu\n", res.exit_code,
	       corral_reason_name(res.reason), res.execs);
	return r;
}

int main(void)
{
	/* the host's own mask and ignored signals, for the test to compare */
	char line[256];
	FILE *st = fopen("/proc/self/status", "r");
	while (st && fgets(line, sizeof(line), st))
		if (!strncmp(line, "SigBlk:", 7) || !strncmp(line, "SigIgn:", 7))
			printf("host %s", line);
	if (st)
		fclose(st);
	const char *a1[] = {"sh", "-c", "for i in 1 2 3 4 5; do /bin/true; done; exit 3", NULL};
	/* grep itself, not through sh: dash clears the signal mask it
	 * starts with, which hid a host's blocked signal (perf record's
	 * workload starts with SIGWINCH blocked) */
	const char *a2[] = {"grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status", NULL};
	struct corral *c[2];
	char err[256];
	for (int i = 0; i < 2; i++) {
		struct corral_config cfg;
		corral_config_init(&cfg);
		cfg.argv = i ? a2 : a1;
		cfg.timeout = 30; /* a safety net: the runs take milliseconds */
		if (corral_new(&cfg, &c[i], err, sizeof(err)) < 0) {
			printf("new: %s\n", err);
			return 1;
		}
	}
	int r = corral_spawn(c[0]);
	printf("spawn first: %d\n", r);
	r = corral_spawn(c[1]);
	printf("spawn second while the first runs: %s\n", r < 0 ? strerror(-r) : "0");
	if (r == 0) { /* what a poll loop over both would do */
		int live[2] = {1, 1};
		while (live[0] || live[1]) {
			struct pollfd p[2] = {{.fd = live[0] ? corral_fd(c[0]) : -1, .events = POLLIN},
					      {.fd = live[1] ? corral_fd(c[1]) : -1, .events = POLLIN}};
			poll(p, 2, -1);
			for (int i = 0; i < 2; i++)
				if (live[i] && p[i].revents && corral_step(c[i], 0) <= 0)
					live[i] = 0;
		}
		for (int i = 0; i < 2; i++) {
			struct corral_result res;
			corral_result(c[i], &res);
			printf("both: exit=%d reason=%s\n", res.exit_code,
			       corral_reason_name(res.reason));
		}
		return 0;
	}
	printf("message: %s\n", corral_error(c[1]));
	run_to_end(c[0]);
	corral_free(c[0]);
	r = corral_spawn(c[1]);
	printf("spawn second after the first: %d\n", r);
	if (r == 0)
		run_to_end(c[1]);
	corral_free(c[1]);
	return 0;
}
C
# shellcheck disable=SC2086
cc -std=gnu11 -Wall -Werror $SAN -I"$ROOT/include" -o "$T/two" "$T/two.c" \
	-L"$BUILD" -lcorral -Wl,-rpath,"$BUILD" || { fail "two.c does not build"; done_test; }

RUN_LABEL="two supervisors in one process"
run -- "$T/two"
expect_rc 0 "the program"
expect_grep '^spawn first: 0$' "$OUTF" "the first spawn"
expect_grep '^spawn second while the first runs: Device or resource busy$' "$OUTF" \
	"the second spawn while the first tree runs"
expect_grep '^message: another supervisor of this process has a running tree' "$OUTF" "why"
expect_grep '^exit=3 reason=none execs=6$' "$OUTF" "the first tree runs to its end, every exec seen"
expect_grep '^spawn second after the first: 0$' "$OUTF" "a spawn once the first finished"
expect_grep '^exit=0 reason=none execs=1$' "$OUTF" "the second tree runs to its end"
for k in SigBlk SigIgn; do
	host=$(sed -n "s/^host $k:[[:space:]]*//p" "$OUTF")
	cmd=$(sed -n "s/^$k:[[:space:]]*//p" "$OUTF")
	[ -n "$host" ] || fail "the host's $k is missing"
	expect_eq "$cmd" "$host" "the second command's $k (SigIgn: SIGPIPE not ignored) against the host's"
done
[ "$FAILS" = 0 ] || show_run

done_test
