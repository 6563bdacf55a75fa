/*
 * test_exec_argv.c - the exec handler's two argv readers (sys.h): the one
 * from the new image's stack (exec_argv) when it answers, /proc (argv) only
 * when it says it cannot (a 32-bit tracee, EPERM, ESRCH). The journal's exec
 * line and the table's copy come from whichever answered, whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "mock_kernel.h"

#define ROOT 100

static struct mock M;
static int n_stack, n_proc, stack_err;

/* The stack reader: argv {"from", "", "the stack"}, or stack_err. */
static int stack_argv(void *ctx, pid_t tid, char **block, char ***argv)
{
	n_stack++;
	if (stack_err)
		return stack_err;
	static const char s[] = "from\0\0the stack";
	*block = malloc(sizeof(s));
	memcpy(*block, s, sizeof(s));
	*argv = calloc(4, sizeof(char *));
	(*argv)[0] = *block;
	(*argv)[1] = *block + 5;
	(*argv)[2] = *block + 6;
	return 0;
}

static int proc_argv(void *ctx, pid_t tid, char **block, char ***argv)
{
	n_proc++;
	return m_argv(ctx, tid, block, argv);
}

static struct corral *exec_root(int err)
{
	mock_init(&M);
	M.sys.exec_argv = stack_argv;
	M.sys.argv = proc_argv;
	n_stack = n_proc = 0;
	stack_err = err;
	struct corral *c = mock_corral(&M, ROOT);
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_EXEC));
	return c;
}

/* The stack answered: /proc is not asked, the line has the stack's argv. */
static void test_stack_answers(void **state)
{
	struct corral *c = exec_root(0);
	assert_int_equal(n_stack, 1);
	assert_int_equal(n_proc, 0);
	assert_true(jpos(c, "\"argv\":[\"from\",\"\",\"the stack\"]") > 0);
	/* and the task went on, once */
	assert_int_equal(mock_count(&M, 0, PTRACE_CONT, ROOT, -1), 1);
	struct task *t = table_find(&c->tab, ROOT);
	assert_non_null(t);
	assert_non_null(t->prog);
	assert_non_null(t->prog->argv);
	assert_string_equal(t->prog->argv[2], "the stack");
	assert_null(t->prog->argv[3]);
	mock_free(c);
}

/* Each way the stack reader gives up falls back to /proc, once. */
static void test_stack_gives_up(void **state)
{
	const int errs[] = {-ENOEXEC, -EPERM, -ESRCH, -EIO, -ENOSYS};
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		struct corral *c = exec_root(errs[i]);
		assert_int_equal(n_stack, 1);
		assert_int_equal(n_proc, 1);
		char *j = mock_journal(c);
		assert_non_null(strstr(j, "\"argv\":[\"prog100\"]"));
		assert_null(strstr(j, "the stack"));
		free(j);
		mock_free(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stack_answers),
		cmocka_unit_test(test_stack_gives_up),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
