/*
 * test_loop_signals.c - signals to corral, scripted through the loop
 * (corral_step): the mock's sleep (ppoll) reports the signalfd ready and
 * its read gives the signals and their senders. What corral does with each
 * is checked in the journal and in the calls it made to the mock kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "mock_tree.h"

/* Run the loop until the run ends; how many rounds it took. */
static int run_out(struct corral *c)
{
	int rounds = 1, r;
	while ((r = corral_step(c, -1)) > 0 && rounds < 100)
		rounds++;
	assert_int_equal(r, 0);
	return rounds;
}

/*
 * SIGTERM, SIGINT or SIGHUP from outside the tree (the user, a service
 * manager): the tree is ended for that signal, with the grace, and corral
 * exits 128 + N as a shell expects of a program killed by N.
 */
static void test_signal_from_outside_ends(void **state)
{
	const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		int sig = sigs[i];
		struct corral *c = tree_at_zero();
		c->cfg.kill_after = 5;
		int mark = M.ncalls;
		mock_signal(&M, sig, 4242);
		assert_int_equal(corral_step(c, -1), 1);
		assert_int_equal(c->phase.now, PH_GRACE);
		assert_int_equal(c->result.res.reason, CORRAL_REASON_SIGNAL);
		assert_int_equal(c->result.res.term_signal, sig);
		char want[64];
		snprintf(want, sizeof(want), "\"signal\":\"%s\"",
			 sig == SIGTERM	 ? "SIGTERM"
			 : sig == SIGINT ? "SIGINT"
					 : "SIGHUP");
		assert_true(jline_has(c, "\"event\":\"ending\"",
				      "\"reason\":\"signal\""));
		assert_true(jline_has(c, "\"event\":\"ending\"", want));
		/* The members get the end signal (SIGTERM), not sig. */
		assert_term_round(mark, SIGTERM);
		M.clock = 0.5;
		tree_dies_of(SIGTERM);
		run_out(c);
		assert_int_equal(c->result.res.exit_code, 128 + sig);
		snprintf(want, sizeof(want), "\"exit_code\":%d", 128 + sig);
		assert_true(jline_has(c, "\"event\":\"end\"", want));
		assert_int_equal(c->result.res.killed, 0);
		mock_free(c);
	}
}

/*
 * A member signals corral (a path the containment filter could not
 * refuse): one `denied` line names it, and the signal is not obeyed.
 */
static void test_signal_from_member_denied(void **state)
{
	struct corral *c = tree_at_zero();
	int mark = M.ncalls;
	mock_signal(&M, SIGTERM, 103);
	assert_int_equal(corral_step(c, -1), 1);
	assert_int_equal(c->phase.now, PH_RUN);
	assert_int_equal(c->result.res.reason, CORRAL_REASON_NONE);
	assert_true(jline_has(c, "\"event\":\"denied\"", "\"pid\":103"));
	assert_true(jline_has(c, "\"event\":\"denied\"",
			      "signal 15 to corral from 103"));
	assert_int_equal(jpos(c, "\"event\":\"ending\""), -1);
	/* Nobody was signalled, nothing stopped. */
	for (pid_t p = 100; p <= 104; p++) {
		assert_int_equal(mock_count(&M, mark, -SIGTERM, p, -1), 0);
		assert_int_equal(mock_count(&M, mark, PTRACE_INTERRUPT, p, -1),
				 0);
	}
	/* A thread's signal is its process's: also a member. */
	mock_signal(&M, SIGINT, 104);
	assert_int_equal(corral_step(c, -1), 1);
	assert_int_equal(c->phase.now, PH_RUN);
	assert_int_equal(jcount(c, "\"event\":\"denied\""), 2);
	mock_free(c);
}

/*
 * A member that signalled corral and exited at once: its exit may be
 * handled before the signal is read. A member that ended since the
 * previous read of the signals still counts; one that ended before it
 * does not (its pid may be another process's by now).
 */
static void test_signal_from_member_gone(void **state)
{
	struct corral *c = tree_at_zero();
	c->cfg.kill_after = 5;
	/* A first read of the signals at t = 1 (a SIGUSR1). */
	M.clock = 1;
	mock_signal(&M, SIGUSR1, 4242);
	assert_int_equal(corral_step(c, -1), 1);
	/* 103 exits at t = 2 and its exit is handled in this round... */
	M.clock = 2;
	mock_exit(&M, 103, ST_EXIT(0));
	assert_int_equal(corral_step(c, -1), 1);
	assert_null(table_find(&c->tab, 103));
	/* ...then its SIGTERM is read: a member's, not obeyed. */
	M.clock = 3;
	mock_signal(&M, SIGTERM, 103);
	assert_int_equal(corral_step(c, -1), 1);
	assert_int_equal(c->phase.now, PH_RUN);
	assert_true(jline_has(c, "\"event\":\"denied\"", "\"pid\":103"));
	/*
	 * Later (that read is the previous one now), pid 103 is someone
	 * else's: a signal from it is from outside, and obeyed.
	 */
	M.clock = 4;
	mock_signal(&M, SIGTERM, 103);
	assert_int_equal(corral_step(c, -1), 1);
	assert_int_equal(c->phase.now, PH_GRACE);
	assert_int_equal(c->result.res.reason, CORRAL_REASON_SIGNAL);
	assert_int_equal(jcount(c, "\"event\":\"denied\""), 1);
	mock_free(c);
}

/*
 * SIGUSR2 is the parent-death signal: the tree is ended (reason parent,
 * exit 128 + SIGHUP) when corral's parent changed, and nothing happens
 * when it did not (anyone may send SIGUSR2).
 */
static void test_parent_death(void **state)
{
	struct corral *c = tree_at_zero();
	c->cfg.watch_parent = true;
	c->cfg.kill_after = 5;
	assert_int_equal(c->lifecycle.parent,
			 50);		/* as the seam said at the start */
	mock_signal(&M, SIGUSR2, 4242); /* anyone may send it */
	assert_int_equal(corral_step(c, -1), 1);
	assert_int_equal(c->phase.now, PH_RUN);
	assert_int_equal(jpos(c, "\"event\":\"ending\""), -1);
	/* The shell dies: corral is reparented (to init, or a subreaper). */
	M.ppid = 1;
	int mark = M.ncalls;
	mock_signal(&M, SIGUSR2, 0);
	assert_int_equal(corral_step(c, -1), 1);
	assert_int_equal(c->phase.now, PH_GRACE);
	assert_true(
		jline_has(c, "\"event\":\"ending\"", "\"reason\":\"parent\""));
	assert_term_round(mark, SIGTERM);
	tree_dies_of(SIGTERM);
	run_out(c);
	assert_int_equal(c->result.res.exit_code, 128 + SIGHUP);
	assert_true(jline_has(c, "\"event\":\"end\"", "\"reason\":\"parent\""));
	mock_free(c);
}

/*
 * SIGUSR1 asks for a snapshot (the journal gets the live tree); a flood of
 * them is coalesced: one at once, then one when the interval (1 s) is
 * over, taken by the loop's own sleep, however many were asked for.
 */
static void test_sigusr1_snapshots_coalesced(void **state)
{
	struct corral *c = tree_at_zero();
	M.clock = 10;
	mock_signal(&M, SIGUSR1, 4242);
	assert_int_equal(corral_step(c, -1), 1);
	assert_int_equal(jcount(c, "\"event\":\"snapshot\""), 1);
	char *l = jline(c, "\"event\":\"snapshot\"");
	assert_non_null(l);
	/* Every member process, no thread. */
	char root[64]; /* corral is the root's parent */
	snprintf(root, sizeof(root), "\"pid\":100,\"ppid\":%d,", getpid());
	assert_non_null(strstr(l, root));
	assert_non_null(strstr(l, "\"pid\":101,\"ppid\":100,"));
	assert_non_null(strstr(l, "\"pid\":103,\"ppid\":101,"));
	assert_null(strstr(l, "\"pid\":102"));
	assert_null(strstr(l, "\"pid\":104"));
	free(l);
	/* 50 more within the interval: nothing now... */
	for (int i = 0; i < 50; i++) {
		M.clock = 10.25 + i / 256.0; /* exact in binary */
		mock_signal(&M, SIGUSR1, 4242);
		assert_int_equal(corral_step(c, -1), 1);
	}
	assert_int_equal(jcount(c, "\"event\":\"snapshot\""), 1);
	/* ...and one when it is over: the loop sleeps until then. */
	assert_int_equal(corral_step(c, -1), 1);
	assert_true(M.clock == 11.0);
	assert_int_equal(jcount(c, "\"event\":\"snapshot\""), 2);
	assert_true(jpos(c, "\"event\":\"snapshot\",\"t\":11.000000") >= 0);
	/* Nothing more was asked: the next sleep has no deadline (the
	 * mock's sleep without one leaves the clock alone). */
	assert_true(snapshot_due(c) < 0);
	/* Snapshots stop nothing and end nothing. */
	assert_int_equal(mock_count(&M, 0, PTRACE_INTERRUPT, ROOT, -1), 0);
	assert_int_equal(c->phase.now, PH_RUN);
	mock_free(c);
}

/*
 * A storm that never lets the kernel's queue empty: every batch is cut at
 * its bound, so the loop never sleeps, and no ppoll says the signalfd is
 * readable. A SIGTERM to corral must still be read and acted on at the
 * next round, not when (if ever) the storm pauses. (It was read only after
 * a sleep: under a fork storm on a loaded machine, 31_term_starvation saw
 * seconds between the signal and the ending.)
 */
static void test_signal_read_while_the_queue_never_empties(void **state)
{
	struct corral *c = tree_at_zero();
	c->cfg.kill_after = 5;
	/* Every waitpid(-1) costs 1 ms: a batch is cut by its 10 ms bound
	 * with the queue still full. Two members stop on a signal again and
	 * again (SIGUSR1 delivery stops, re-injected). */
	M.wait_any_cost = 0.001;
	for (int i = 0; i < 400; i++)
		mock_wait(&M, i % 2 ? 101 : 103, ST_STOP(SIGUSR1, 0));
	assert_int_equal(corral_step(c, -1), 1); /* woken, first batch */
	assert_false(c->waiter.queue_empty);
	assert_int_equal(c->phase.now, PH_RUN);
	mock_signal(&M, SIGTERM, 4242);
	assert_int_equal(corral_step(c, -1), 1);
	assert_false(c->waiter.queue_empty); /* still no sleep */
	assert_int_equal(c->phase.now, PH_GRACE);
	assert_int_equal(c->result.res.reason, CORRAL_REASON_SIGNAL);
	assert_int_equal(c->result.res.term_signal, SIGTERM);
	assert_true(jline_has(c, "\"event\":\"ending\"", "\"signal\":\"SIGTERM\""));
	mock_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signal_from_outside_ends),
		cmocka_unit_test(test_signal_from_member_denied),
		cmocka_unit_test(test_signal_from_member_gone),
		cmocka_unit_test(test_parent_death),
		cmocka_unit_test(test_sigusr1_snapshots_coalesced),
		cmocka_unit_test(test_signal_read_while_the_queue_never_empties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
