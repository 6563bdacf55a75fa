/* test_table.c - the process table: O(1) lookup, states, history. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "table.h"

static void test_add_find_remove(void **state)
{
	struct table t;
	assert_int_equal(table_init(&t), 0);
	/* Enough tasks to force several rehashes. */
	for (pid_t p = 1; p <= 20000; p++)
		assert_non_null(table_add(&t, p, p, false));
	assert_int_equal(t.live, 20000);
	assert_int_equal(t.live_procs, 20000);
	assert_true(t.nbuckets >= 20000);
	for (pid_t p = 1; p <= 20000; p++)
		assert_int_equal(table_find(&t, p)->tid, p);
	assert_null(table_find(&t, 20001));
	for (pid_t p = 1; p <= 20000; p += 2)
		table_remove(&t, table_find(&t, p));
	assert_int_equal(t.live, 10000);
	assert_null(table_find(&t, 1));
	assert_non_null(table_find(&t, 2));
	/* A dead process stays in the history, never in lookups. */
	size_t n = 0;
	for (struct task *k = t.first; k; k = k->next)
		n++;
	assert_int_equal(n, 20000);
	/* A reused tid is a new task. */
	struct task *again = table_add(&t, 1, 1, false);
	assert_ptr_equal(table_find(&t, 1), again);
	table_destroy(&t);
}

static void test_threads_and_states(void **state)
{
	struct table t;
	table_init(&t);
	struct task *p = table_add(&t, 10, 10, false);
	struct task *th = table_add(&t, 11, 10, true);
	assert_true(th->flags & TF_THREAD);
	assert_int_equal(t.live_procs, 1);
	assert_int_equal(t.nstate[TS_NEW], 2);
	table_set_state(&t, p, TS_RUNNING);
	table_set_state(&t, th, TS_HELD);
	assert_int_equal(t.nstate[TS_NEW], 0);
	assert_int_equal(t.nstate[TS_HELD], 1);
	/* Learned late that a "process" is a thread: off the history. */
	struct task *late = table_add(&t, 12, 12, false);
	table_make_thread(&t, late, 10);
	assert_int_equal(t.live_procs, 1);
	assert_ptr_equal(t.last, p);
	table_remove(&t, th);
	table_remove(&t, late);
	assert_int_equal(t.live, 1);
	assert_int_equal(t.nstate[TS_HELD], 0);
	table_destroy(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_find_remove),
		cmocka_unit_test(test_threads_and_states),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
