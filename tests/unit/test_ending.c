/*
 * test_ending.c - the timeout and the grace, scripted through the loop
 * (corral_step) on the mock kernel and its clock: which signals reach
 * which tasks in which order, what the journal says, when the run ends.
 * Time passes only when the test or the loop's sleep says so; nothing here
 * depends on how fast the machine is.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "mock_tree.h"

/*
 * --timeout 5 --kill-after 2, and a tree that ignores SIGTERM: the loop
 * sleeps until 5, says why it ends, sends SIGTERM then SIGCONT to every
 * member process (not to threads: the process's signal is theirs), sleeps
 * out the grace, then stops every task, kills every process, and ends when
 * the kernel says no tracee is left.
 */
static void test_timeout_grace_runs_out(void **state)
{
	struct corral *c = tree_at_zero();
	c->cfg.kill_after = 2;
	c->cfg.timeout = 5;
	OWN(c, spawn)->deadline = 5;
	int mark = M.ncalls;
	assert_int_equal(corral_step(c, -1), 1);
	/* Woken by the deadline, not before and not after. */
	assert_true(M.clock == 5.0);
	assert_int_equal(c->phase.now, PH_GRACE);
	assert_true(
		jline_has(c, "\"event\":\"ending\"", "\"reason\":\"timeout\""));
	assert_term_round(mark, SIGTERM);
	/* Nothing is stopped or killed during the grace. */
	assert_int_equal(mock_count(&M, mark, PTRACE_INTERRUPT, ROOT, -1), 0);
	assert_int_equal(mock_count(&M, mark, -SIGKILL, ROOT, -1), 0);
	int grace_end = M.ncalls;

	/* The members ignore it: the next sleep lasts the whole grace. */
	assert_int_equal(corral_step(c, -1), 0);
	assert_true(M.clock == 7.0);
	assert_stop_then_kill(grace_end);
	/* No second SIGTERM round. */
	assert_int_equal(mock_count(&M, grace_end, -SIGTERM, ROOT, -1), 0);
	assert_int_equal(c->phase.now, PH_DONE);
	assert_int_equal(c->tab.live, 0);
	assert_true(c->spawn.finished);
	assert_int_equal(c->result.res.exit_code, CORRAL_EXIT_TIMEOUT);
	assert_int_equal(c->result.res.killed, NPROCS);
	long ending = jpos(c, "\"event\":\"ending\"");
	long end = jpos(c, "\"event\":\"end\"");
	assert_true(ending >= 0 && end > ending);
	assert_int_equal(jcount(c, "\"event\":\"ending\""), 1);
	char *l = jline(c, "\"event\":\"end\"");
	assert_non_null(l);
	assert_non_null(strstr(l, "\"exit_code\":124"));
	assert_non_null(strstr(l, "\"reason\":\"timeout\""));
	assert_non_null(strstr(l, "\"killed\":3"));
	assert_non_null(strstr(l, "\"survivors\":0"));
	assert_non_null(strstr(l, "\"grace\":2.0"));
	free(l);
	/* Every task's death is journaled, after the ending line. */
	assert_true(jpos(c, "\"event\":\"exit\",\"t\":7.000000,\"pid\":104") >
		    ending);
	assert_int_equal(jcount(c, "\"event\":\"exit\""), NPROCS + NTHREADS);
	mock_free(c);
}

/*
 * The tree ends within the grace (on -s SIGQUIT, the signal chosen to end
 * it): no stop-all, no SIGKILL, and the end line says how long the grace
 * lasted.
 */
static void test_tree_ends_within_grace(void **state)
{
	struct corral *c = tree_at_zero();
	c->cfg.kill_after = 10;
	c->cfg.end_signal = SIGQUIT;
	OWN(c, spawn)->deadline = 5;
	int mark = M.ncalls;
	assert_int_equal(corral_step(c, -1), 1);
	assert_term_round(mark, SIGQUIT);
	assert_int_equal(mock_count(&M, mark, -SIGTERM, ROOT, -1), 0);
	/* A second later the members die of it. */
	M.clock = 6;
	tree_dies_of(SIGQUIT);
	/* One batch takes the deaths, the next round the kernel's ECHILD;
	 * neither sleeps out the grace. */
	assert_int_equal(corral_step(c, -1), 1);
	assert_int_equal(c->tab.live, 0);
	assert_int_equal(corral_step(c, -1), 0);
	assert_true(M.clock == 6.0);
	for (pid_t p = 100; p <= 104; p++) {
		assert_int_equal(mock_count(&M, mark, PTRACE_INTERRUPT, p, -1),
				 0);
		assert_int_equal(mock_count(&M, mark, -SIGKILL, p, -1), 0);
	}
	assert_int_equal(c->result.res.exit_code, CORRAL_EXIT_TIMEOUT);
	assert_int_equal(c->result.res.killed, 0);
	assert_true(jline_has(c, "\"event\":\"end\"", "\"grace\":1.0"));
	assert_true(jline_has(c, "\"event\":\"end\"", "\"killed\":0"));
	assert_true(jline_has(c,
			      "\"event\":\"exit\",\"t\":6.000000,\"pid\":100",
			      "\"signal\":\"SIGQUIT\""));
	mock_free(c);
}

/*
 * A second request to end, during the grace, cancels what is left of it:
 * the tree is stopped and killed at once. The reason stays the first one,
 * and there is one ending line.
 */
static void test_second_request_cancels_grace(void **state)
{
	struct corral *c = tree_at_zero();
	c->cfg.kill_after = 10;
	corral_request_end(c, CORRAL_REASON_REQUEST);
	assert_int_equal(c->phase.now, PH_GRACE);
	assert_term_round(0, SIGTERM);
	int mark = M.ncalls;
	/* One second into the grace: ^C (SIGINT from outside the tree). */
	M.clock = 1;
	mock_signal(&M, SIGINT, 4242);
	assert_int_equal(corral_step(c, -1), 0);
	assert_true(M.clock == 1.0);
	assert_stop_then_kill(mark);
	assert_int_equal(c->phase.now, PH_DONE);
	assert_int_equal(c->result.res.reason, CORRAL_REASON_REQUEST);
	assert_int_equal(jcount(c, "\"event\":\"ending\""), 1);
	assert_true(
		jline_has(c, "\"event\":\"end\"", "\"reason\":\"request\""));
	assert_true(jline_has(c, "\"event\":\"end\"", "\"grace\":1.0"));
	/* The command died of SIGKILL: 128 + 9. */
	assert_int_equal(c->result.res.exit_code, 128 + SIGKILL);
	mock_free(c);
}

/*
 * The timeout also bounds a grace begun for another reason: the command
 * exited and left members behind (a grace of 10 s), the timeout at 3 s
 * cuts it.
 */
static void test_timeout_cuts_a_grace(void **state)
{
	struct corral *c = tree_at_zero();
	c->cfg.kill_after = 10;
	OWN(c, spawn)->deadline = 3;
	M.clock = 1;
	mock_exit(&M, 102, ST_EXIT(0));
	mock_exit(&M, ROOT, ST_EXIT(0));
	assert_int_equal(corral_step(c, -1), 1);
	assert_int_equal(c->phase.now, PH_GRACE);
	assert_int_equal(c->result.res.reason, CORRAL_REASON_EXITED);
	/* What it left is journaled, then told to end. */
	assert_true(jpos(c, "\"event\":\"left\",\"t\":1.000000,\"pid\":101") >=
		    0);
	assert_true(jpos(c, "\"event\":\"left\",\"t\":1.000000,\"pid\":103") >=
		    0);
	assert_int_equal(mock_count(&M, 0, -SIGTERM, 101, -1), 1);
	assert_int_equal(mock_count(&M, 0, -SIGTERM, 103, -1), 1);
	int mark = M.ncalls;
	assert_int_equal(corral_step(c, -1), 0);
	assert_true(M.clock == 3.0);
	assert_int_equal(mock_count(&M, mark, -SIGKILL, 101, -1), 1);
	assert_int_equal(mock_count(&M, mark, -SIGKILL, 103, -1), 1);
	assert_int_equal(mock_count(&M, mark, -SIGKILL, 104, -1), 0);
	assert_int_equal(c->result.res.reason, CORRAL_REASON_EXITED);
	assert_int_equal(c->result.res.exit_code,
			 0); /* the command's own status */
	assert_true(jline_has(c, "\"event\":\"end\"", "\"grace\":2.0"));
	mock_free(c);
}

/*
 * The cancelled ending (issue 15), through the loop: the caller ends the
 * tree with a grace, then stops and resumes it (as a snapshot with stacks
 * does). The grace goes on from where it was and its end kills the tree.
 */
static void test_stop_resume_in_grace_still_ends(void **state)
{
	struct corral *c = tree_at_zero();
	c->cfg.kill_after = 2;
	corral_request_end(c, CORRAL_REASON_REQUEST);
	M.clock = 0.5;
	assert_int_equal(corral_stop_all(c), NPROCS + NTHREADS);
	assert_int_equal(corral_resume_all(c), 0);
	assert_int_equal(c->phase.now, PH_GRACE);
	assert_false(c->phase.holding);
	int mark = M.ncalls;
	/* The loop sleeps out what is left of the grace (1.5 s), then ends
	 * the tree. */
	assert_int_equal(corral_step(c, -1), 0);
	assert_true(M.clock == 2.0);
	assert_int_equal(c->phase.now, PH_DONE);
	for (int i = 0; i < NPROCS; i++)
		assert_int_equal(
			mock_count(&M, mark, -SIGKILL, TREE_PROCS[i], -1), 1);
	assert_true(
		jline_has(c, "\"event\":\"end\"", "\"reason\":\"request\""));
	mock_free(c);
}

/*
 * --stacks at a timeout: every task is stopped, each thread's stack goes
 * in the journal (through the kernel seam's unwinder: a scripted one
 * here), a thread whose unwind fails gets a line that says why, and only
 * then is the tree resumed and told to end: the stacks show what it was
 * doing when time ran out, not its SIGTERM handler.
 */
static void test_stacks_at_timeout(void **state)
{
	struct corral *c = tree_at_zero();
	c->cfg.stacks = CORRAL_STACKS_TIMEOUT;
	c->cfg.kill_after = 2;
	OWN(c, spawn)->deadline = 5;
	static const char *const waiting[] = {"read", "wait_input", "main"};
	static const char *const worker[] = {"futex_wait", "worker"};
	for (pid_t p = 100; p <= 103; p++)
		mock_stack(&M, p, p == 102 ? 2 : 3, p == 102 ? worker : waiting,
			   NULL);
	/* 104 has no stack to give: its unwind fails. */
	int mark = M.ncalls;
	assert_int_equal(corral_step(c, -1), 1);
	assert_int_equal(c->phase.now, PH_GRACE);
	int first_term = call_at(mark, -SIGTERM, ROOT);
	assert_true(first_term > 0);
	for (pid_t p = 100; p <= 104; p++) {
		int intr = call_at(mark, PTRACE_INTERRUPT, p);
		int unw = call_at(mark, MOCK_UNWIND, p);
		int cont = call_at(mark, PTRACE_CONT, p);
		/* Stopped, unwound, resumed, then the SIGTERM round. */
		assert_true(intr >= 0 && unw > intr && cont > unw);
		assert_true(unw < first_term);
		assert_int_equal(mock_count(&M, mark, MOCK_UNWIND, p, -1), 1);
	}
	assert_int_equal(M.nunwinds, NPROCS + NTHREADS);
	assert_int_equal(jcount(c, "\"event\":\"stack\""), 5);
	assert_true(jpos(c, "\"event\":\"stack\"") >
		    jpos(c, "\"event\":\"ending\""));
	assert_true(jline_has(
		c, "\"event\":\"stack\",\"t\":5.000000,\"pid\":101",
		"\"why\":\"timeout\",\"frames\":[{\"ip\":\"0x401000\","
		"\"func\":\"read\",\"off\":16,\"module\":\"/bin/prog\"},"));
	assert_true(jline_has(c,
			      "\"event\":\"stack\",\"t\":5.000000,\"pid\":101",
			      "\"func\":\"main\""));
	assert_true(jline_has(c,
			      "\"event\":\"stack\",\"t\":5.000000,\"pid\":102",
			      "\"func\":\"worker\""));
	/* The failed one: no frames, and the reason. */
	assert_true(jline_has(c,
			      "\"event\":\"stack\",\"t\":5.000000,\"pid\":104",
			      "\"frames\":[],\"error\":\"No such process\""));
	assert_int_equal(c->result.res.stacks, 5);
	/* The tree runs its grace: nothing held. */
	assert_false(c->phase.holding);
	assert_int_equal(c->tab.nstate[TS_RUNNING], NPROCS + NTHREADS);
	mock_free(c);
}

/*
 * Stacks of a large tree are bounded by --stack-budget: once it is spent
 * the rest are skipped and one line says how many. The grace is the
 * members' time, not the stacks': it starts when they are told to end.
 */
static void test_stack_budget_spent(void **state)
{
	struct corral *c = tree_at_zero();
	c->cfg.stacks = CORRAL_STACKS_TIMEOUT;
	c->cfg.stack_budget = 1.0;
	c->cfg.kill_after = 2;
	OWN(c, spawn)->deadline = 5;
	static const char *const f[] = {"main"};
	for (pid_t p = 100; p <= 104; p++)
		mock_stack(&M, p, 1, f, NULL);
	M.unwind_cost = 0.375; /* 5.0, 5.375, 5.75: then 6.125 > 6 */
	assert_int_equal(corral_step(c, -1), 1);
	assert_int_equal(M.nunwinds, 3);
	assert_int_equal(c->result.res.stacks_skipped, 2);
	assert_int_equal(jcount(c, "\"why\":\"timeout\",\"frames\":[{"), 3);
	assert_true(jline_has(c, "stack budget of 1s spent",
			      "2 thread(s) skipped"));
	/* SIGTERM at 6.125; the grace runs 2 s from there. */
	assert_true(M.clock == 6.125);
	M.unwind_cost = 0;
	assert_int_equal(corral_step(c, -1), 0);
	assert_true(M.clock == 8.125);
	assert_true(
		jline_has(c, "\"event\":\"end\"", "\"reason\":\"timeout\""));
	mock_free(c);
}

/*
 * --journal-strict: a line the journal could not write ends the run, with
 * reason journal, in the next round of the loop (emit() only counts the
 * loss; deciding is the loop's, between batches). The sink starts refusing
 * (its memfd sealed against growth) and a member's next event is lost.
 */
static void test_journal_strict_loss_ends(void **state)
{
	struct corral *c = tree_start(true);
	c->cfg.kill_after = 2;
	assert_int_equal(fcntl(c->cfg.journal_fd, F_ADD_SEALS, F_SEAL_GROW), 0);
	int mark = M.ncalls;
	mock_wait(&M, 103, ST_STOP(SIGUSR1, 0)); /* a signal: one line */
	assert_int_equal(corral_step(c, -1), 1);
	assert_int_equal(c->result.res.reason, CORRAL_REASON_JOURNAL);
	assert_int_equal(c->phase.now, PH_GRACE);
	assert_true(M.clock == 0.0); /* not at a deadline: at once */
	/* The member got its signal (after the line's attempt), then the
	 * ending's SIGTERM round. */
	assert_true(mock_count(&M, mark, PTRACE_CONT, 103, SIGUSR1) == 1);
	assert_term_round(mark, SIGTERM);
	/* Once: the ending's own lost lines do not begin it again. */
	assert_int_equal(corral_step(c, -1), 0);
	assert_int_equal(c->result.res.reason, CORRAL_REASON_JOURNAL);
	assert_int_equal(c->phase.now, PH_DONE);
	assert_true(c->result.res.journal_lost >=
		    3); /* signal, ending, exits... */
	assert_int_equal(c->result.res.exit_code, CORRAL_EXIT_INTERNAL);
	mock_free(c);
}

/*
 * The journal reports, result.c decides: a journal that lost a line under
 * --journal-strict says so (journal_settle()) and leaves the exit status
 * alone; result_decide() makes it 125.
 */
static void test_journal_reports_result_decides(void **state)
{
	struct corral *c = tree_start(true);
	assert_int_equal(fcntl(c->cfg.journal_fd, F_ADD_SEALS, F_SEAL_GROW), 0);
	mock_wait(&M, 103, ST_STOP(SIGUSR1, 0)); /* a line, lost */
	engine_drain(c, false);
	OWN(c, result)->res.exit_code = 7;
	assert_true(journal_settle(c));
	assert_int_equal(c->result.res.exit_code, 7);
	assert_true(c->result.res.journal_lost >= 1);
	assert_false(journal_settle(c)); /* once */
	result_decide(c, true);
	assert_int_equal(c->result.res.exit_code, CORRAL_EXIT_INTERNAL);
	mock_free(c);
}

/*
 * Members that cannot die (issue 22): thread 104 waits for an answer from
 * the FUSE server whose device its own process holds (connection 39), so
 * SIGKILL does not end it. When --kill-wait runs out, kill-all aborts
 * that connection, journals it, and the task dies: nothing is left.
 */
static struct corral *fuse_stuck(bool held)
{
	struct corral *c = tree_at_zero();
	c->cfg.kill_wait = 3;
	M.tasks[mock_task_index(&M, 104)].fuse_wait = 39;
	if (held) {
		/* The thread and its process share the table: one abort. */
		M.fuse_held[M.nfuse_held][0] = 101;
		M.fuse_held[M.nfuse_held++][1] = 39;
		M.fuse_held[M.nfuse_held][0] = 104;
		M.fuse_held[M.nfuse_held++][1] = 39;
	}
	return c;
}

static void test_fuse_abort_ends_the_dying(void **state)
{
	struct corral *c = fuse_stuck(true);
	int mark = M.ncalls;
	corral_kill_all(c);
	assert_int_equal(mock_count(&M, mark, MOCK_FUSE_ABORT, 0, 39), 1);
	assert_int_equal(mock_count(&M, mark, MOCK_FUSE_ABORT, 0, -1), 1);
	/* Only once --kill-wait ran out, and it ended at once. */
	assert_true(M.clock >= 3 && M.clock < 3.5);
	assert_true(jline_has(c, "\"event\":\"fuse_abort\"", "\"conn\":39"));
	assert_true(jline_has(c, "\"event\":\"fuse_abort\"", "\"aborted\":true"));
	assert_int_equal(c->tab.live, 0);
	assert_int_equal(c->result.res.dying, 0);
	assert_int_equal(c->result.res.survivors, 0);
	assert_int_equal(jcount(c, "\"event\":\"survivor\""), 0);
	assert_int_not_equal(exit_code(c), CORRAL_EXIT_DYING);
	mock_free(c);
}

/* The abort fails (no fusectl, not root): the task is a survivor, named. */
static void test_fuse_abort_fails_survivor_named(void **state)
{
	struct corral *c = fuse_stuck(true);
	M.fuse_abort_err = -EPERM;
	corral_kill_all(c);
	assert_true(M.clock >= 3 && M.clock < 3.5); /* no second wait */
	assert_true(jline_has(c, "\"event\":\"fuse_abort\"", "\"aborted\":false"));
	assert_true(jline_has(c, "\"event\":\"fuse_abort\"",
			      "\"error\":\"Operation not permitted\""));
	assert_int_equal(c->result.res.dying, 1);
	assert_int_equal(c->result.res.survivors, 1);
	char *l = jline(c, "\"event\":\"survivor\"");
	assert_non_null(l);
	assert_non_null(strstr(l, "\"pid\":104,\"tgid\":101,\"state\":\"D\","
				  "\"wchan\":\"request_wait_answer\""));
	free(l);
	assert_int_equal(exit_code(c), CORRAL_EXIT_DYING);
	mock_free(c);
}

/* Stuck elsewhere (a server outside the tree): nothing to abort, and the
 * task still counts. */
static void test_dying_without_fuse_is_a_survivor(void **state)
{
	struct corral *c = fuse_stuck(false);
	int mark = M.ncalls;
	corral_kill_all(c);
	assert_int_equal(mock_count(&M, mark, MOCK_FUSE_ABORT, 0, -1), 0);
	assert_int_equal(jcount(c, "\"event\":\"fuse_abort\""), 0);
	assert_int_equal(c->result.res.dying, 1);
	assert_int_equal(c->result.res.survivors, 1);
	assert_int_equal(exit_code(c), CORRAL_EXIT_DYING);
	mock_free(c);
}

int main(void)
{
	(void)mock_free;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuse_abort_ends_the_dying),
		cmocka_unit_test(test_fuse_abort_fails_survivor_named),
		cmocka_unit_test(test_dying_without_fuse_is_a_survivor),
		cmocka_unit_test(test_timeout_grace_runs_out),
		cmocka_unit_test(test_tree_ends_within_grace),
		cmocka_unit_test(test_second_request_cancels_grace),
		cmocka_unit_test(test_timeout_cuts_a_grace),
		cmocka_unit_test(test_stop_resume_in_grace_still_ends),
		cmocka_unit_test(test_stacks_at_timeout),
		cmocka_unit_test(test_stack_budget_spent),
		cmocka_unit_test(test_journal_strict_loss_ends),
		cmocka_unit_test(test_journal_reports_result_decides),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
