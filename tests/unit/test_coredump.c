/*
 * test_coredump.c - coredump_prepare() (tracer/stacks/coredump.c) where it
 * fails before the file is planned: a process that is gone, corral itself. Its
 * success is compared with the kernel's own core in
 * integration/forensics_cores.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "coredump.h"

/* A pid that is no process: a child, reaped. */
static pid_t gone_pid(void)
{
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0)
		_exit(0);
	assert_int_equal(waitpid(p, NULL, 0), p);
	return p;
}

/* Failing closes nothing of the caller's: fd 0 stays open (a coredump
 * whose /proc/PID/mem was never opened has no descriptor to close). */
static void test_gone(void **state)
{
	pid_t tids[1] = {gone_pid()};
	struct coredump_req r = {.pid = tids[0], .tids = tids, .ntids = 1};
	struct coredump *d = (struct coredump *)1;
	unsigned skipped = 1;
	char err[128] = "";
	int fd0 = fcntl(0, F_GETFD);
	assert_int_equal(coredump_prepare(&r, &d, &skipped, err, sizeof(err)),
			 -ENOENT);
	assert_null(d);
	assert_int_equal(skipped, 0);
	assert_non_null(strstr(err, "/stat"));
	assert_int_equal(fcntl(0, F_GETFD), fd0);
}

static void test_self(void **state)
{
	pid_t tids[1] = {getpid()};
	struct coredump_req r = {.pid = tids[0], .tids = tids, .ntids = 1};
	struct coredump *d = NULL;
	unsigned skipped = 0;
	char err[128] = "";
	assert_int_equal(coredump_prepare(&r, &d, &skipped, err, sizeof(err)),
			 -EPERM);
	assert_null(d);
	assert_string_equal(err, "refused: that is corral itself");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gone),
		cmocka_unit_test(test_self),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
