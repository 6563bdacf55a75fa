/*
 * child.h - fork in a cmocka test without the child ever coming back into
 * cmocka's runner.
 *
 * While a case runs, cmocka catches SIGSEGV, SIGILL, SIGFPE, SIGBUS and
 * SIGSYS and longjmps back into its runner; a forked child inherits that,
 * so a child that crashed (int $0x80 where 32-bit emulation is off raises
 * SIGSEGV) would go on running the rest of the file's cases in a second
 * process, with duplicated, failing summaries. test_fork() puts the
 * default actions back in the child: a crash kills it, and its parent sees
 * the signal. The child itself must end with _exit() and never use an
 * assert_* macro (those longjmp into the runner too).
 */
#ifndef CORRAL_TEST_CHILD_H
#define CORRAL_TEST_CHILD_H

#include <signal.h>
#include <unistd.h>

static inline pid_t test_fork(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		static const int crash[] = {SIGSEGV, SIGILL, SIGFPE, SIGBUS,
					    SIGSYS};
		for (size_t i = 0; i < sizeof(crash) / sizeof(crash[0]); i++)
			signal(crash[i], SIG_DFL);
	}
	return pid;
}

#endif
