/*
 * test_seccomp_event.c - the engine at PTRACE_EVENT_SECCOMP stops, on the
 * mock kernel (mock_kernel.h): a call is judged by the arch, number and
 * arguments PTRACE_GET_SYSCALL_INFO reports, run through corral's own
 * filter, never by the stop's data; what cannot be judged is refused
 * (the registers are rewritten before the task is resumed) and recorded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "mock_kernel.h"
/* After <sys/ptrace.h> (mock_kernel.h). */
#include <linux/audit.h>
#include <linux/ptrace.h>

#include "filter.h"

#define ROOT 100

static struct mock M;
static struct ptrace_syscall_info SI;

static struct corral *started(enum corral_escape_mode mode)
{
	mock_init(&M);
	struct corral *c = mock_corral(&M, ROOT);
	c->cfg.escape = mode;
	c->cfg.stacks = 0;
	struct filter_params fp = {
		.guard_pid = getpid(),
		.guard_pgid = getpgrp(),
		.escape = mode,
	};
	assert_int_equal(filter_build(&fp, &c->filter), 0);
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_EXEC));
	M.syscall_info = &SI;
	M.syscall_info_len = sizeof(SI);
	return c;
}

static void stop_at(struct corral *c, uint32_t arch, long nr, uint64_t a0,
		    uint32_t data)
{
	memset(&SI, 0, sizeof(SI));
	SI.op = PTRACE_SYSCALL_INFO_SECCOMP;
	SI.arch = arch;
	SI.seccomp.nr = (uint64_t)nr;
	SI.seccomp.args[0] = a0;
	SI.seccomp.ret_data = data;
	M.eventmsg[ROOT] = data; /* what GETEVENTMSG would say: not read */
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
}

#ifdef __x86_64__
#define NATIVE AUDIT_ARCH_X86_64
#define REFUSED(mark) mock_count(&M, (mark), PTRACE_SETREGS, ROOT, -1)
#endif

#ifdef NATIVE
/* A member's TRACE filter stops setsid with data 0xfff (no such rule):
 * under deny it is still refused, and recorded as setsid. */
static void test_forged_data_judged(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_DENY);
	int mark = M.ncalls;
	stop_at(c, NATIVE, SYS_setsid, 0, 0xfff);
	assert_int_equal(REFUSED(mark), 1);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	assert_true(jpos(c, "\"call\":\"setsid()\",\"verdict\":\"deny\"") >= 0);
	assert_int_equal(c->res.escapes, 1);
	mock_free(c);
}

/* The same filter stops getppid, which corral lets run, with the data of
 * corral's kill rule: resumed untouched, nothing recorded. */
static void test_not_ours_resumed(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_DENY);
	int mark = M.ncalls;
	stop_at(c, NATIVE, SYS_getppid, 0, FILTER_RULE_KILL);
	assert_int_equal(REFUSED(mark), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	assert_true(jpos(c, "\"event\":\"escape\"") < 0);
	assert_int_equal(c->res.escapes, 0);
	mock_free(c);
}

/* An architecture corral's filter does not know: refused even under log,
 * recorded with why, and the task resumed (into the failed call). */
static void test_unknown_arch_refused(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_LOG);
	int mark = M.ncalls;
	stop_at(c, 0x12345678, SYS_setsid, 0, 1);
	assert_int_equal(REFUSED(mark), 1);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	assert_true(jpos(c, "cannot judge") >= 0);
	assert_true(jpos(c, "\"verdict\":\"deny\"") >= 0);
	mock_free(c);
}

/* No syscall information (the info call wrote nothing): refused. */
static void test_no_info_refused(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_LOG);
	M.syscall_info = NULL;
	int mark = M.ncalls;
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
	assert_int_equal(REFUSED(mark), 1);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	assert_true(jpos(c, "cannot judge") >= 0);
	mock_free(c);
}

/* The task died at the stop: nothing to refuse or resume. */
static void test_task_gone(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_LOG);
	M.esrch[M.nesrch++] = ROOT;
	int mark = M.ncalls;
	stop_at(c, NATIVE, SYS_setsid, 0, 1);
	assert_int_equal(REFUSED(mark), 0);
	assert_true(jpos(c, "\"event\":\"escape\"") < 0);
	M.nesrch = 0;
	mock_free(c);
}
#endif

int main(void)
{
	(void)mock_wait; /* mock_kernel.h helpers this file does not need */
	(void)mock_journal;
	const struct CMUnitTest tests[] = {
#ifdef NATIVE
		cmocka_unit_test(test_forged_data_judged),
		cmocka_unit_test(test_not_ours_resumed),
		cmocka_unit_test(test_unknown_arch_refused),
		cmocka_unit_test(test_no_info_refused),
		cmocka_unit_test(test_task_gone),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
