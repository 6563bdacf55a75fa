/*
 * test: needs ptrace (real traced children: tests/run.sh skips it where
 * its probe sees ptrace refused, as in some package build chroots)
 *
 * test_filter.c - the containment filter on real processes.
 *
 * Each test forks a child that installs the filter (guard = this test
 * process) and runs its checks; a failing check _exits with its line
 * number, so the parent's assertion names it. The test process is a child
 * subreaper: whatever a child leaves behind comes back to it, and every
 * test ends by checking that no child of ours is left. Children come from
 * test_fork() (child.h): a crash kills them, they never return into
 * cmocka's runner.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
/* After <sys/ptrace.h>. */
#include <linux/ptrace.h>

#include <cmocka.h>

#include "audit.h"
#include "child.h"
#include "filter.h"
#include "skip.h"
#include "sys.h"

/* In the child: a failed check exits with its line. */
#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "child: %s:%d: %s (errno %d)\n",     \
				__FILE__, __LINE__, #cond, errno);           \
			_exit(__LINE__ % 250 + 1);                           \
		}                                                            \
	} while (0)
/* syscall() returned -1 with errno e. */
#define FAILS(call, e) CHECK((errno = 0, (call) == -1 && errno == (e)))

static pid_t guard;  /* this test process */
static pid_t guard_pgid;

/* Status of a raw clone-like call that should have failed: reap and flag
 * a child if it did not. */
static void no_child(long r)
{
	if (r == 0)
		_exit(0); /* we are the unwanted child */
	if (r > 0) {
		waitpid((pid_t)r, NULL, __WALL);
		CHECK(!"a child was created");
	}
}

static void *thread_fn(void *arg)
{
	return arg;
}

/* fork() + exec of /bin/true, from inside the filter. */
static int run_true(void)
{
	pid_t p = fork();
	if (p == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	int st;
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A grandchild runs fn and exits with its result (0 = good). */
static int in_grandchild(int (*fn)(void))
{
	pid_t p = fork();
	if (p == 0)
		_exit(fn());
	int st;
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int try_setsid(void)
{
	return setsid() > 0 ? 0 : 1;
}

#ifdef __x86_64__
/* i386 system call nr through int 0x80 from 64-bit code. */
static long int80(long nr, unsigned long a1)
{
	long ret;
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "0"(nr), "b"(a1), "c"(0L), "d"(0L), "S"(0L), "D"(0L)
			 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

/*
 * Whether this kernel runs i386 system calls, asked the way a program
 * would: a child makes getpid (i386 nr 20) through int $0x80. Where 32-bit
 * emulation is off (ia32_emulation=0, CONFIG_IA32_EMULATION=n), int $0x80
 * raises SIGSEGV, which kills the child (test_fork: not cmocka's handler).
 * TEST_PRETEND_NO_IA32=1 (tests only) takes the probe's answer as "off"
 * after it ran, to exercise the skip path on a machine that has it.
 * Returns NULL when it works, else why not.
 */
static const char *ia32_missing(void)
{
	static char why[128];
	static int known = -1;
	if (known < 0) {
		pid_t p = test_fork();
		assert_true(p >= 0);
		if (p == 0)
			_exit(int80(20, 0) == getpid() ? 0 : 1);
		int st;
		assert_int_equal(waitpid(p, &st, 0), p);
		known = WIFEXITED(st) && WEXITSTATUS(st) == 0;
		if (WIFSIGNALED(st))
			snprintf(why, sizeof(why),
				 "int $0x80 killed the probe (signal %d): "
				 "no 32-bit emulation on this kernel",
				 WTERMSIG(st));
		else if (!known)
			snprintf(why, sizeof(why),
				 "int $0x80 getpid did not return the pid "
				 "(status %#x)", st);
		const char *pretend = getenv("TEST_PRETEND_NO_IA32");
		if (known && pretend && *pretend == '1') {
			known = 0;
			snprintf(why, sizeof(why),
				 "TEST_PRETEND_NO_IA32=1 (the probe passed)");
		}
	}
	return known ? NULL : why;
}
#endif

static void child_off(void)
{
	/* The one way to make a task ptrace does not follow: it stops at
	 * the supervisor (TRACE: ENOSYS without one), which clears the bit
	 * (eptrace.c); with a namespace flag as well it is refused. */
	no_child(syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0));
	CHECK(errno == ENOSYS);
	no_child(syscall(SYS_clone, CLONE_UNTRACED | CLONE_VM | CLONE_VFORK |
					    SIGCHLD, 0, 0, 0, 0));
	CHECK(errno == ENOSYS);
	no_child(syscall(SYS_clone, CLONE_UNTRACED | CLONE_NEWNS | SIGCHLD, 0,
			 0, 0, 0));
	CHECK(errno == EPERM);
	struct clone_args ca;
	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	errno = 0;
	no_child(syscall(SYS_clone3, &ca, sizeof(ca)));
	CHECK(errno == ENOSYS);

	/* Ordinary creation still works (glibc falls back from clone3). */
	pid_t p = fork();
	if (p == 0)
		_exit(7);
	int st = 0;
	CHECK(p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 7);
	pthread_t th;
	void *ret = NULL;
	CHECK(pthread_create(&th, NULL, thread_fn, (void *)42) == 0);
	CHECK(pthread_join(th, &ret) == 0 && ret == (void *)42);
	CHECK(run_true() == 0);

	/* No real tracing, at all: every ptrace() call stops at the
	 * supervisor, which emulates it; so do __WALL waits and the prctl
	 * options that say who may trace (ENOSYS: no tracer here). Other
	 * waits and prctl options run. */
	FAILS(ptrace(PTRACE_TRACEME, 0, NULL, NULL), ENOSYS);
	FAILS(ptrace(PTRACE_SEIZE, guard, NULL, NULL), ENOSYS);
	FAILS(waitpid(-1, NULL, WNOHANG | __WALL), ENOSYS);
	FAILS(syscall(SYS_waitid, P_ALL, 0, NULL, WEXITED | WNOHANG | __WALL,
		      NULL),
	      ENOSYS);
	FAILS(prctl(PR_SET_PTRACER, getpid(), 0, 0, 0), ENOSYS);
	FAILS(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), ENOSYS);
	FAILS(waitpid(-1, NULL, WNOHANG), ECHILD);
	CHECK(prctl(PR_SET_NAME, "filter-test", 0, 0, 0) == 0);

	/* Signals to the supervisor (it ignores SIGTERM meanwhile, in
	 * case this fails). Signal 0 where a miss would hit others. */
	CHECK(getppid() == guard);
	FAILS(kill(guard, SIGTERM), EPERM);
	FAILS(kill(-1, 0), EPERM);
	FAILS(kill(-guard_pgid, 0), EPERM);
	FAILS(syscall(SYS_tkill, guard, SIGTERM), EPERM);
	FAILS(syscall(SYS_tgkill, guard, guard, SIGTERM), EPERM);
	FAILS(syscall(SYS_rt_sigqueueinfo, guard, SIGTERM, NULL), EPERM);
	/* Garbage above the int: the kernel reads guard, so must we. */
	FAILS(syscall(SYS_kill, 0xdead00000000L | (long)guard, SIGTERM),
	      EPERM);
	FAILS(syscall(SYS_kill, 0xffffffffL, 0), EPERM); /* -1, zero-extended */
	/* ...and signals elsewhere are untouched. */
	CHECK(kill(getpid(), 0) == 0);

	FAILS(syscall(SYS_pidfd_open, guard, 0), EPERM);
	long fd = syscall(SYS_pidfd_open, getpid(), 0);
	CHECK(fd >= 0);
	close((int)fd);
	FAILS(setpgid(0, guard_pgid), EPERM);
	struct rlimit rl;
	FAILS(prlimit(guard, RLIMIT_NOFILE, NULL, &rl), EPERM);
	CHECK(prlimit(0, RLIMIT_NOFILE, NULL, &rl) == 0);
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	FAILS(sched_setaffinity(guard, sizeof(set), &set), EPERM);
	FAILS(setpriority(PRIO_PROCESS, guard, 19), EPERM);
	char c = 'x';
	FAILS(ioctl(0, TIOCSTI, &c), EPERM);
	int pp[2];
	CHECK(pipe(pp) == 0);
	FAILS(fcntl(pp[0], F_SETOWN, guard), EPERM);
	FAILS(fcntl(pp[0], F_SETOWN, -guard_pgid), EPERM);
	CHECK(fcntl(pp[0], F_SETOWN, getpid()) == 0);
	close(pp[0]);
	close(pp[1]);

	/* Not audited without --escape: setsid runs (in a grandchild, as a
	 * group leader may not call it). */
	CHECK(in_grandchild(try_setsid) == 0);
	_exit(0);
}

#ifdef __x86_64__
/* CLONE_UNTRACED through the i386 ABI (clone is nr 120 there): the filter
 * covers it too. */
static void child_off_i386(void)
{
	long r32 = int80(120, CLONE_UNTRACED | SIGCHLD);
	no_child(r32);
	CHECK(r32 == -ENOSYS); /* TRACEd, as the native call */
	/* ...and an i386 call the filter has no business with still runs. */
	CHECK(int80(20, 0) == getpid());
	_exit(0);
}
#endif

/* The capability doors (docs/threat-model.md, "A root member"). */
static void child_off_doors(void)
{
	/*
	 * perf_event_open aimed at anything but the caller: EACCES from the
	 * filter. A NULL attr tells the filter's answer from the kernel's,
	 * which would say EFAULT. pid 0 (the caller) passes, also with
	 * garbage above the int; its own pid does not (a filter cannot know
	 * it: docs/threat-model.md).
	 */
	FAILS(syscall(SYS_perf_event_open, NULL, guard, -1, -1, 0), EACCES);
	FAILS(syscall(SYS_perf_event_open, NULL, getpid(), -1, -1, 0), EACCES);
	FAILS(syscall(SYS_perf_event_open, NULL, -1, 0, -1, 0), EACCES);
	FAILS(syscall(SYS_perf_event_open, NULL, 0xffffffffL, 0, -1, 0),
	      EACCES);
	FAILS(syscall(SYS_perf_event_open, NULL, 0x80000000L, 0, -1, 0),
	      EACCES);
	FAILS(syscall(SYS_perf_event_open, NULL, 3, 0, -1, 4 /* CGROUP */),
	      EACCES);
	FAILS(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0), EFAULT);
	FAILS(syscall(SYS_perf_event_open, NULL, 0xdead00000000L, -1, -1, 0),
	      EFAULT);
	/* Capability doors with no use in a tree: refused outright. */
	FAILS(syscall(SYS_process_madvise, -1, NULL, 0, 0, 0), EPERM);
	FAILS(syscall(SYS_open_by_handle_at, -1, NULL, 0), EPERM);
	FAILS(syscall(SYS_kexec_load, 0, 0, NULL, 0), EPERM);
	FAILS(syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 0), EPERM);
	FAILS(syscall(SYS_init_module, NULL, 0, ""), EPERM);
	FAILS(syscall(SYS_finit_module, -1, "", 0), EPERM);
	FAILS(syscall(SYS_delete_module, "corral_none", 0), EPERM);

	_exit(0);
}

static void child_log_doors(void)
{
	/* perf events aimed elsewhere and fsopen are traced; pid 0 is not. */
	FAILS(syscall(SYS_perf_event_open, NULL, guard, -1, -1, 0), ENOSYS);
	FAILS(syscall(SYS_perf_event_open, NULL, -1, 0, -1, 0), ENOSYS);
	FAILS(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0), EFAULT);
	FAILS(syscall(SYS_fsopen, "fuse", 0), ENOSYS);
	FAILS(syscall(SYS_process_madvise, -1, NULL, 0, 0, 0), EPERM);
	_exit(0);
}

static void child_log_no_tracer(void)
{
	/* TRACE without a tracer: ENOSYS. */
	FAILS(setsid(), ENOSYS);
	FAILS(unshare(CLONE_NEWUTS), ENOSYS);
	FAILS(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), ENOSYS);
	FAILS(prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0), ENOSYS);
	FAILS(ptrace(PTRACE_TRACEME, 0, NULL, NULL), ENOSYS);
	FAILS(setpgid(0, 0), ENOSYS);
	errno = 0;
	no_child(syscall(SYS_clone, CLONE_NEWUTS | SIGCHLD, 0, 0, 0, 0));
	CHECK(errno == ENOSYS);
	/* UNTRACED and a namespace: refused, not traced. */
	errno = 0;
	no_child(syscall(SYS_clone, CLONE_UNTRACED | CLONE_NEWNS | SIGCHLD, 0,
			 0, 0, 0));
	CHECK(errno == EPERM);
	/* Signals are traced, probes are not. */
	FAILS(kill(getpid(), SIGCONT), ENOSYS);
	CHECK(kill(getpid(), 0) == 0);
	/* Not traced: not escape-relevant. */
	CHECK(unshare(CLONE_FILES) == 0);
	CHECK(prctl(PR_SET_NAME, "filter-test", 0, 0, 0) == 0);
	/* Containment holds in every mode. */
	FAILS(syscall(SYS_pidfd_open, guard, 0), EPERM);
	errno = 0;
	no_child(syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0));
	CHECK(errno == ENOSYS);
	CHECK(run_true() == 0);
	pthread_t th;
	CHECK(pthread_create(&th, NULL, thread_fn, NULL) == 0);
	CHECK(pthread_join(th, NULL) == 0);
	_exit(0);
}

/* Build, fork, install, run body in the child; return its wait status. */
static int run_filtered(enum corral_escape_mode mode, void (*body)(void))
{
	struct filter_params p = {
		.guard_pid = guard,
		.guard_pgid = guard_pgid,
		.escape = mode,
	};
	struct sock_fprog prog;
	assert_int_equal(filter_build(&p, &prog), 0);
	assert_true(prog.len > 0);
	pid_t pid = test_fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* Out of the supervisor's group: kill(0) must not reach it. */
		if (setpgid(0, 0))
			_exit(252);
		int r = filter_install(&prog);
		if (r) {
			fprintf(stderr, "filter_install: %s\n", strerror(-r));
			_exit(250);
		}
		body();
		_exit(251);
	}
	filter_release(&prog);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

static void assert_no_child_left(void)
{
	int st;
	errno = 0;
	assert_int_equal(waitpid(-1, &st, WNOHANG | __WALL), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_off_mode(void **state)
{
	int st = run_filtered(CORRAL_ESCAPE_OFF, child_off);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("child failed: status %#x (exit code = line %% 250 + 1)",
			 st);
	assert_no_child_left();
}

static void test_off_mode_i386(void **state)
{
#ifdef __x86_64__
	const char *why = ia32_missing();
	if (why)
		skip_because("%s", why);
	int st = run_filtered(CORRAL_ESCAPE_OFF, child_off_i386);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("child failed: status %#x (exit code = line %% 250 + 1)",
			 st);
	assert_no_child_left();
#else
	skip_because("no i386 ABI on this architecture");
#endif
}

static void test_log_mode_without_tracer(void **state)
{
	int st = run_filtered(CORRAL_ESCAPE_LOG, child_log_no_tracer);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("child failed: status %#x", st);
	assert_no_child_left();
}

static void test_capability_doors(void **state)
{
	int st = run_filtered(CORRAL_ESCAPE_OFF, child_off_doors);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("off: child failed: status %#x", st);
	st = run_filtered(CORRAL_ESCAPE_LOG, child_log_doors);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("log: child failed: status %#x", st);
	assert_no_child_left();
}

static void test_build_rejects_bad_params(void **state)
{
	struct filter_params p = {.guard_pid = 0, .guard_pgid = 1};
	struct sock_fprog prog;
	assert_int_equal(filter_build(&p, &prog), -EINVAL);
	assert_null(prog.filter);
	p = (struct filter_params){.guard_pid = 1, .guard_pgid = 0};
	assert_int_equal(filter_build(&p, &prog), -EINVAL);
	assert_int_equal(filter_install(&prog), -EINVAL);
}

/* ------------------------------------------------------------------ */
/* With a real tracer: the supervisor's side of a seccomp stop. */

enum traced_call { CALL_SETSID, CALL_KILL_GUARD, CALL_PIDFD_PROC_GUARD };

struct traced_result {
	struct audit_call call;
	int ret, err; /* what the child saw */
};

static bool no_members(pid_t pid, void *arg)
{
	return false;
}

/*
 * Fork a child that installs the LOG filter, waits on a pipe until we have
 * seized it, makes one call and reports its result through another pipe.
 * At the seccomp stop, inspect and maybe deny.
 */
static void run_traced(enum traced_call what, bool deny,
		       struct traced_result *res)
{
	struct filter_params p = {
		.guard_pid = guard,
		.guard_pgid = guard_pgid,
		.escape = CORRAL_ESCAPE_LOG,
	};
	struct sock_fprog prog;
	int go[2], back[2];
	assert_int_equal(filter_build(&p, &prog), 0);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(back), 0);
	pid_t pid = test_fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(go[1]);
		close(back[0]);
		if (filter_install(&prog))
			_exit(250);
		char c;
		if (read(go[0], &c, 1) != 1) /* seized */
			_exit(249);
		int r[2];
		errno = 0;
		if (what == CALL_SETSID)
			r[0] = (int)setsid();
		else if (what == CALL_KILL_GUARD)
			r[0] = kill(getppid(), SIGTERM);
		else {
			/* A /proc/<pid> directory works as a pidfd for
			 * pidfd_send_signal, and no filter can see whose. */
			char path[32];
			snprintf(path, sizeof(path), "/proc/%d", getppid());
			int fd = open(path, O_RDONLY | O_DIRECTORY);
			r[0] = fd < 0 ? -2
				      : (int)syscall(SYS_pidfd_send_signal, fd,
						     SIGTERM, NULL, 0);
		}
		r[1] = errno;
		if (write(back[1], r, sizeof(r)) != sizeof(r))
			_exit(248);
		_exit(0);
	}
	close(go[0]);
	close(back[1]);
	assert_int_equal(ptrace(PTRACE_SEIZE, pid, NULL,
				(void *)(PTRACE_O_TRACESECCOMP |
					 PTRACE_O_EXITKILL)),
			 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);

	bool seen = false;
	for (;;) {
		int st;
		assert_int_equal(waitpid(pid, &st, __WALL), pid);
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			assert_true(WIFEXITED(st));
			assert_int_equal(WEXITSTATUS(st), 0);
			break;
		}
		assert_true(WIFSTOPPED(st));
		int sig = 0;
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8))) {
			struct audit_tree_ops tree = {.is_member = no_members};
			assert_int_equal(audit_inspect(&sys_real, pid, &prog,
						       &tree, &res->call),
					 0);
			if (deny)
				assert_int_equal(
					audit_deny(&sys_real, pid, EPERM), 0);
			seen = true;
		} else if (st >> 16 == 0) {
			sig = WSTOPSIG(st); /* signal-delivery stop */
		}
		assert_int_equal(ptrace(PTRACE_CONT, pid, NULL,
					(void *)(long)sig),
				 0);
	}
	assert_true(seen);
	filter_release(&prog);
	int r[2];
	assert_int_equal(read(back[0], r, sizeof(r)), sizeof(r));
	close(back[0]);
	res->ret = r[0];
	res->err = r[1];
}

static void test_traced_setsid_denied(void **state)
{
	struct traced_result res;
	run_traced(CALL_SETSID, true, &res);
	assert_string_equal(res.call.name, "setsid");
	assert_string_equal(res.call.text, "setsid()");
	assert_true(res.call.escape);
	assert_false(res.call.denied);
	assert_int_equal(res.ret, -1);
	assert_int_equal(res.err, EPERM);
	assert_no_child_left();
}

static void test_traced_setsid_allowed(void **state)
{
	struct traced_result res;
	run_traced(CALL_SETSID, false, &res);
	assert_string_equal(res.call.name, "setsid");
	assert_true(res.ret > 0);
	assert_no_child_left();
}

/* In escape mode the filter TRACEs kill as a whole; audit_inspect refuses
 * the supervisor as a target even when the engine only logs. */
static void test_traced_kill_of_supervisor_refused(void **state)
{
	struct traced_result res;
	run_traced(CALL_KILL_GUARD, false, &res);
	assert_string_equal(res.call.name, "kill");
	assert_true(res.call.guard);
	assert_true(res.call.denied);
	assert_int_equal(res.call.target, guard);
	assert_int_equal(res.ret, -1);
	assert_int_equal(res.err, EPERM);
	assert_no_child_left();
}

/* The same through a /proc/<supervisor> descriptor: audit_inspect reads
 * which process the descriptor stands for. */
static void test_traced_pidfd_of_supervisor_refused(void **state)
{
	struct traced_result res;
	char want[96];
	run_traced(CALL_PIDFD_PROC_GUARD, false, &res);
	assert_string_equal(res.call.name, "pidfd_send_signal");
	snprintf(want, sizeof(want), "[pid %d]", guard);
	assert_non_null(strstr(res.call.text, want));
	assert_true(res.call.guard);
	assert_true(res.call.denied);
	assert_int_equal(res.ret, -1);
	assert_int_equal(res.err, EPERM);
	assert_no_child_left();
}

static int setup(void **state)
{
	guard = getpid();
	guard_pgid = getpgrp();
	/* If a rule failed, the signal would land here. */
	signal(SIGTERM, SIG_IGN);
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_rejects_bad_params),
		cmocka_unit_test(test_capability_doors),
		cmocka_unit_test(test_off_mode),
		cmocka_unit_test(test_off_mode_i386),
		cmocka_unit_test(test_log_mode_without_tracer),
		cmocka_unit_test(test_traced_setsid_denied),
		cmocka_unit_test(test_traced_setsid_allowed),
		cmocka_unit_test(test_traced_kill_of_supervisor_refused),
		cmocka_unit_test(test_traced_pidfd_of_supervisor_refused),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
