/*
 * test_landlock.c - the boundary a run gets for each Landlock ABI (pure),
 * and the ptrace-only domain of ABI 1..5 entered for real on this kernel:
 * /proc/<outside>/mem is refused, and so is mount (why --sandbox runs
 * without it there).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "child.h"
#include "landlock.h"
#include "skip.h"

static void plan(int abi, enum corral_boundary want, bool sb, int r,
		 const char *name, unsigned scopes)
{
	struct landlock_plan p;
	char err[256] = "";
	assert_int_equal(landlock_plan_abi(abi, want, sb, &p, err, sizeof(err)),
			 r);
	if (r < 0) {
		assert_non_null(strstr(err, "--boundary=landlock"));
		return;
	}
	assert_string_equal(landlock_boundary_name(&p), name);
	assert_int_equal(p.active ? p.scopes : 0, scopes);
}

static void test_plans(void **state)
{
	const unsigned all = CORRAL_SCOPE_PTRACE | CORRAL_SCOPE_SIGNAL |
			     CORRAL_SCOPE_ABSTRACT_UNIX;
	/* ABI 6 and later: the full scoping, sandbox or not */
	for (int abi = 6; abi <= 8; abi++) {
		plan(abi, CORRAL_BOUNDARY_AUTO, false, 0, "landlock", all);
		plan(abi, CORRAL_BOUNDARY_AUTO, true, 0, "landlock", all);
		plan(abi, CORRAL_BOUNDARY_LANDLOCK, true, 0, "landlock", all);
		plan(abi, CORRAL_BOUNDARY_SECCOMP, false, 0, "seccomp", 0);
	}
	/* ABI 1..5: ptrace-only, not under bubblewrap; landlock refused */
	for (int abi = 1; abi <= 5; abi++) {
		plan(abi, CORRAL_BOUNDARY_AUTO, false, 0, "landlock-ptrace",
		     CORRAL_SCOPE_PTRACE);
		plan(abi, CORRAL_BOUNDARY_AUTO, true, 0, "seccomp", 0);
		plan(abi, CORRAL_BOUNDARY_LANDLOCK, false, -EOPNOTSUPP, NULL, 0);
		plan(abi, CORRAL_BOUNDARY_SECCOMP, false, 0, "seccomp", 0);
	}
	/* no Landlock */
	plan(-ENOSYS, CORRAL_BOUNDARY_AUTO, false, 0, "seccomp", 0);
	plan(-EOPNOTSUPP, CORRAL_BOUNDARY_LANDLOCK, false, -EOPNOTSUPP, NULL,
	     0);
}

/* In a child: enter plan p, then report what the kernel allows. */
static void test_ptrace_only_domain(void **state)
{
	int abi = landlock_abi();
	if (abi < 1)
		skip_because("no Landlock on this kernel (landlock_create_ruleset "
			     "version: %d)", abi);
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	pid_t outside = getpid();
	pid_t pid = test_fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct landlock_plan p = {.abi = 1, .active = true,
					  .scopes = CORRAL_SCOPE_PTRACE};
		int res[4] = {-1, -1, -1, 0};
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		res[0] = landlock_enter(&p);
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/mem", outside);
		int fd = open(path, O_RDWR);
		res[1] = fd < 0 ? errno : 0;
		/* mount in a user namespace of our own: the domain refuses */
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0)
			res[2] = mount("none", "/tmp", "tmpfs", 0, NULL) < 0
					 ? errno
					 : 0;
		else {
			res[2] = -2; /* no user namespaces here */
			res[3] = errno;
		}
		if (write(pfd[1], res, sizeof(res)) != sizeof(res))
			_exit(2);
		_exit(0);
	}
	close(pfd[1]);
	int res[4];
	assert_int_equal(read(pfd[0], res, sizeof(res)), sizeof(res));
	close(pfd[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(res[0], 0);
	assert_true(res[1] == EACCES || res[1] == EPERM);
	if (res[2] != -2)
		assert_int_equal(res[2], EPERM);
	else
		skip_part_because("userns", "unshare(CLONE_NEWUSER) failed "
			"(%s): the mount refusal is not checked", strerror(res[3]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plans),
		cmocka_unit_test(test_ptrace_only_domain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
