/*
 * test: needs ptrace (real traced children: tests/run.sh skips it where
 * its probe sees ptrace refused, as in some package build chroots)
 *
 * test_unwind.c - the stack unwinder (tracer/stacks/unwind.c) on real
 * processes.
 *
 * Fixtures come from $BUILD/fixtures (BUILD defaults to "build"): make
 * build/fixtures/stack_hang build/fixtures/stack_crash
 * build/fixtures/stack_hostile first.
 *
 * The walker tests (walker.c: the walk made by a forked process, waited
 * for with a deadline) end with the same ECHILD check: a walker that was
 * killed was also reaped.
 *
 * Each test starts its fixture seized before exec (the child waits on a
 * pipe until we have seized it), and ends by killing it and reaping until
 * waitpid says ECHILD; the teardown does the same if an assertion fired
 * half-way, and PTRACE_O_EXITKILL covers the test process dying.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "unwind.h"
#include "walker.h"

#include "child.h"
#include "skip.h"

#define MAXF 64

static pid_t g_child;	   /* what the running test started, 0 if none */
static int g_out = -1;	   /* the child's stdout */
static struct corral_unwinder *g_u;

static const char *build_dir(void)
{
	const char *b = getenv("BUILD");
	return b && *b ? b : "build";
}

static void fixture_path(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/fixtures/%s", build_dir(), name);
}

/*
 * fork + exec `name` with one optional argument, seized before exec: the
 * child blocks on a pipe until the parent has done PTRACE_SEIZE, so not one
 * instruction of the fixture runs untraced.
 */
static pid_t spawn_seized2(const char *name, const char *arg,
			   const char *arg2);

static pid_t spawn_seized(const char *name, const char *arg)
{
	return spawn_seized2(name, arg, NULL);
}

static pid_t spawn_seized2(const char *name, const char *arg,
			   const char *arg2)
{
	char path[PATH_MAX];
	fixture_path(name, path, sizeof(path));
	if (access(path, X_OK) != 0)
		fail_msg("%s: %s (make %s first)", path, strerror(errno), path);

	int go[2], out[2];
	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	pid_t pid = test_fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;
		ssize_t r;
		close(go[1]);
		if (dup2(out[1], 1) < 0)
			_exit(126);
		do
			r = read(go[0], &c, 1);
		while (r < 0 && errno == EINTR);
		/* EOF: the parent gave up before seizing; never run untraced. */
		if (r != 1)
			_exit(126);
		char *argv[] = {path, (char *)arg, (char *)arg2, NULL};
		execv(path, argv);
		_exit(127);
	}
	g_child = pid;
	close(go[0]);
	close(out[1]);
	g_out = out[0];
	long r = ptrace(PTRACE_SEIZE, pid, NULL, (void *)PTRACE_O_EXITKILL);
	int err = errno;
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
	if (r != 0)
		fail_msg("PTRACE_SEIZE %d: %s", pid, strerror(err));
	return pid;
}

/* Wait for "ready\n" on the child's stdout (bounded: a broken fixture
 * fails the test instead of hanging it). */
static void wait_ready(void)
{
	char buf[16];
	size_t got = 0;
	while (got < 6) {
		struct pollfd pfd = {g_out, POLLIN, 0};
		int r = poll(&pfd, 1, 60000);
		if (r < 0 && errno == EINTR)
			continue;
		assert_int_equal(r, 1);
		ssize_t n = read(g_out, buf + got, sizeof(buf) - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		assert_true(n > 0);
		got += n;
	}
	buf[got] = 0;
	assert_string_equal(buf, "ready\n");
}

/* Threads of pid, leader first. Returns the count. */
static int list_tasks(pid_t pid, pid_t *tids, int cap)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	DIR *d = opendir(path);
	assert_non_null(d);
	int n = 0;
	tids[n++] = pid;
	struct dirent *e;
	while ((e = readdir(d))) {
		pid_t t = atoi(e->d_name);
		if (t <= 0 || t == pid)
			continue;
		assert_true(n < cap);
		tids[n++] = t;
	}
	closedir(d);
	return n;
}

/*
 * Bring every thread to a ptrace-stop. The leader is already ours; the
 * workers were not auto-attached (no TRACECLONE), so seize them now.
 */
static void stop_all(pid_t pid, const pid_t *tids, int n)
{
	for (int i = 0; i < n; i++) {
		if (tids[i] != pid)
			assert_int_equal(ptrace(PTRACE_SEIZE, tids[i], NULL,
						(void *)PTRACE_O_EXITKILL),
					 0);
		assert_int_equal(ptrace(PTRACE_INTERRUPT, tids[i], NULL, NULL),
				 0);
	}
	for (int i = 0; i < n; i++) {
		int st;
		pid_t w;
		do
			w = waitpid(tids[i], &st, __WALL);
		while (w < 0 && errno == EINTR);
		assert_int_equal(w, tids[i]);
		assert_true(WIFSTOPPED(st));
		assert_int_equal(st >> 16, PTRACE_EVENT_STOP);
	}
}

/* Kill what the test started and reap until the kernel says ECHILD. */
static void kill_and_reap(void)
{
	if (g_child > 0)
		kill(g_child, SIGKILL);
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, __WALL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			break;
	}
	if (g_out >= 0)
		close(g_out);
	g_out = -1;
}

static void assert_all_gone(pid_t pid)
{
	kill_and_reap();
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, __WALL | WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	g_child = 0;
}

static int setup(void **state)
{
	g_child = 0;
	g_out = -1;
	return unwinder_new(&g_u);
}

static int teardown(void **state)
{
	kill_and_reap();
	g_child = 0;
	unwinder_free(g_u);
	g_u = NULL;
	return 0;
}

static int find_func(const struct corral_frame *f, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (f[i].func && !strcmp(f[i].func, name))
			return i;
	return -1;
}

static void print_stack(pid_t tid, const struct corral_frame *f, int n,
			const char *why)
{
	fprintf(stderr, "  tid %d (%d frames%s%s):\n", tid, n, why ? ", " : "",
		why ? why : "");
	for (int i = 0; i < n; i++)
		fprintf(stderr, "    #%d 0x%" PRIx64 " %s+0x%" PRIx64 " (%s)\n",
			i, f[i].ip, f[i].func ? f[i].func : "??", f[i].off,
			f[i].module ? f[i].module : "?");
}

/* ------------------------------------------------------------------ */

static void test_hang_threads(void **state)
{
	enum { NWORK = 8 };
	char path[PATH_MAX], real[PATH_MAX];
	fixture_path("stack_hang", path, sizeof(path));
	assert_non_null(realpath(path, real));

	pid_t pid = spawn_seized("stack_hang", "8");
	wait_ready();
	pid_t tids[NWORK + 8];
	int nt = list_tasks(pid, tids, NWORK + 8);
	assert_int_equal(nt, NWORK + 1);
	stop_all(pid, tids, nt);

	for (int i = 0; i < nt; i++) {
		struct corral_frame f[MAXF];
		const char *why = "unset";
		int n = unwinder_stack(g_u, pid, tids[i], f, MAXF, &why);
		if (n < 0)
			fail_msg("unwind %d: %s", tids[i], strerror(-n));
		if (getenv("UNWIND_VERBOSE"))
			print_stack(tids[i], f, n, why);
		/* A thread's stack ends at clone's outermost frame. */
		assert_null(why);
		if (tids[i] == pid) {
			int m = find_func(f, n, "corral_fixture_main_parked");
			assert_true(m >= 0);
			assert_true(find_func(f, n, "main") > m);
			continue;
		}
		int h = find_func(f, n, "corral_fixture_hang_here");
		if (h < 0)
			print_stack(tids[i], f, n, why);
		assert_true(h >= 0);
		assert_non_null(f[h].module);
		assert_string_equal(f[h].module, real);
		/* The callers, in order: the walk went through each frame. */
		int mid = find_func(f, n, "corral_fixture_hang_mid");
		int out = find_func(f, n, "corral_fixture_hang_outer");
		int start = find_func(f, n, "corral_fixture_thread_start");
		assert_int_equal(mid, h + 1);
		assert_int_equal(out, h + 2);
		assert_int_equal(start, h + 3);
		/* off is ip - function start, and the callers' ips are return
		 * addresses that may sit right past the function's end. */
		assert_true(f[mid].off > 0 && f[mid].off < 0x100);
	}

	/* The per-process caches did their job: the same places in 8
	 * workers were named once, the maps read once. */
	struct unwinder_stats st;
	unwinder_get_stats(g_u, &st);
	assert_int_equal(st.procs, 1);
	assert_int_equal(st.maps_reads, 1);
	assert_true(st.sym_hits > st.sym_lookups);

	/* max frames: a short walk says why it is short. */
	struct corral_frame f[2];
	const char *why = NULL;
	assert_int_equal(unwinder_stack(g_u, pid, tids[1], f, 2, &why), 2);
	assert_non_null(why);
	assert_string_equal(why, "max frames");
	assert_int_equal(unwinder_stack(g_u, pid, tids[1], f, 0, &why), 0);
	assert_string_equal(why, "max frames");

	/* Strings stay valid across forget, until the next stack call. */
	struct corral_frame g[MAXF];
	int n = unwinder_stack(g_u, pid, tids[1], g, MAXF, &why);
	assert_true(n > 0);
	unwinder_forget(g_u, pid);
	int h = find_func(g, n, "corral_fixture_hang_here");
	assert_true(h >= 0);
	assert_string_equal(g[h].module, real);
	/* And a forgotten process comes back with fresh state. */
	n = unwinder_stack(g_u, pid, tids[2], g, MAXF, &why);
	assert_true(find_func(g, n, "corral_fixture_hang_here") >= 0);
	unwinder_get_stats(g_u, &st);
	assert_int_equal(st.procs, 2);

	assert_all_gone(pid);
}

static void test_crash_segv(void **state)
{
	pid_t pid = spawn_seized("stack_crash", NULL);
	int st;
	/* Nothing else stops it: SEIZE without TRACEEXEC has no exec stop. */
	assert_int_equal(waitpid(pid, &st, __WALL), pid);
	assert_true(WIFSTOPPED(st));
	assert_int_equal(WSTOPSIG(st), SIGSEGV);
	assert_int_equal(st >> 16, 0); /* signal-delivery-stop */

	struct corral_frame f[MAXF];
	const char *why = "unset";
	int n = unwinder_stack(g_u, pid, pid, f, MAXF, &why);
	if (getenv("UNWIND_VERBOSE"))
		print_stack(pid, f, n, why);
	assert_true(n >= 4);
	assert_null(why);
	int first = 0;
	while (first < n && !f[first].func)
		first++;
	assert_true(first < n);
	assert_string_equal(f[first].func, "corral_fixture_crash_here");
	int mid = find_func(f, n, "corral_fixture_crash_mid");
	int out = find_func(f, n, "corral_fixture_crash_outer");
	int m = find_func(f, n, "main");
	assert_true(first < mid && mid < out && out < m);
	assert_all_gone(pid);
}

static void test_crash_abort(void **state)
{
	pid_t pid = spawn_seized("stack_crash", "abort");
	int st;
	assert_int_equal(waitpid(pid, &st, __WALL), pid);
	assert_true(WIFSTOPPED(st));
	assert_int_equal(WSTOPSIG(st), SIGABRT);
	assert_int_equal(st >> 16, 0);

	struct corral_frame f[MAXF];
	const char *why = "unset";
	int n = unwinder_stack(g_u, pid, pid, f, MAXF, &why);
	if (getenv("UNWIND_VERBOSE"))
		print_stack(pid, f, n, why);
	assert_true(n > 0);
	/* Through libc's abort() (named or not, libc is usually stripped). */
	int a = find_func(f, n, "corral_fixture_abort_here");
	assert_true(a > 0);
	assert_int_equal(find_func(f, n, "corral_fixture_crash_mid"), a + 1);
	assert_all_gone(pid);
}

/* Code in no file (JIT): one frame, no name, no module, and a reason. */
static void test_crash_jit(void **state)
{
#if defined(__x86_64__)
	pid_t pid = spawn_seized("stack_crash", "jit");
	int st;
	assert_int_equal(waitpid(pid, &st, __WALL), pid);
	assert_true(WIFSTOPPED(st));
	assert_int_equal(WSTOPSIG(st), SIGSEGV);

	struct corral_frame f[MAXF];
	const char *why = NULL;
	int n = unwinder_stack(g_u, pid, pid, f, MAXF, &why);
	if (getenv("UNWIND_VERBOSE"))
		print_stack(pid, f, n, why);
	assert_true(n >= 1);
	assert_null(f[0].func);
	assert_null(f[0].module);
	assert_non_null(why);
	assert_all_gone(pid);
#else
	skip_because("the JIT case is written for x86_64 only");
#endif
}

static void test_bad_threads(void **state)
{
	struct corral_frame f[MAXF];
	const char *why = "unset";

	assert_int_equal(unwinder_stack(NULL, 1, 1, f, MAXF, &why), -EINVAL);
	assert_int_equal(unwinder_stack(g_u, 1, 1, NULL, MAXF, &why), -EINVAL);
	assert_int_equal(unwinder_stack(g_u, 1, 1, f, -1, &why), -EINVAL);
	assert_int_equal(unwinder_stack(g_u, 1, 0, f, MAXF, &why), -EINVAL);

	/* No such task (above any pid_max). */
	assert_int_equal(unwinder_stack(g_u, INT_MAX, INT_MAX, f, MAXF, &why),
			 -ESRCH);
	/* A pid that existed a moment ago. */
	pid_t dead = test_fork();
	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	assert_int_equal(unwinder_stack(g_u, dead, dead, f, MAXF, &why),
			 -ESRCH);
	/* Ourselves: alive, but no tracee of ours. */
	assert_int_equal(unwinder_stack(g_u, getpid(), getpid(), f, MAXF, &why),
			 -ESRCH);

	pid_t pid = spawn_seized("stack_hang", "2");
	wait_ready();
	/* A tracee of ours, but running. */
	assert_int_equal(unwinder_stack(g_u, pid, pid, f, MAXF, &why), -ESRCH);

	pid_t tids[8];
	int nt = list_tasks(pid, tids, 8);
	assert_int_equal(nt, 3);
	stop_all(pid, tids, nt);
	/* Stopped, but named with the wrong process. */
	assert_int_equal(unwinder_stack(g_u, getpid(), tids[1], f, MAXF, &why),
			 -ESRCH);
	assert_true(unwinder_stack(g_u, pid, tids[1], f, MAXF, &why) > 0);

	/*
	 * Killed while stopped and not yet reaped: the tasks are still listed
	 * in /proc but SIGKILL took them out of the ptrace-stop, as when a
	 * thread dies in the middle of an unwind.
	 */
	assert_int_equal(kill(pid, SIGKILL), 0);
	for (int i = 0; i < nt; i++)
		assert_int_equal(
			unwinder_stack(g_u, pid, tids[i], f, MAXF, &why),
			-ESRCH);
	unwinder_forget(g_u, pid);
	assert_all_gone(pid);
}

/* The leader of pid, brought to a ptrace-stop (it is ours already). */
static void stop_leader(pid_t pid)
{
	int st;
	assert_int_equal(ptrace(PTRACE_INTERRUPT, pid, NULL, NULL), 0);
	assert_int_equal(waitpid(pid, &st, __WALL), pid);
	assert_true(WIFSTOPPED(st));
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The walker gives what the tracer's own walk gives. */
static void test_walker_same_stacks(void **state)
{
	pid_t pid = spawn_seized("stack_hang", "4");
	wait_ready();
	pid_t tids[16];
	int nt = list_tasks(pid, tids, 16);
	stop_all(pid, tids, nt);
	struct walker_stats before, after;
	walker_get_stats(&before);
	struct corral_walker *w = NULL;
	for (int i = 0; i < nt; i++) {
		struct corral_frame a[MAXF], b[MAXF];
		const char *why;
		int n = unwinder_stack(g_u, pid, tids[i], a, MAXF, &why);
		struct walk_out out;
		int m = walker_stack(&w, pid, tids[i], b, MAXF, 5.0, NULL,
				     &out);
		assert_true(n >= 4);
		assert_int_equal(m, n);
		assert_null(out.cut);
		for (int j = 0; j < n; j++) {
			assert_true(a[j].ip == b[j].ip);
			assert_true(!a[j].func == !b[j].func);
			if (a[j].func)
				assert_string_equal(a[j].func, b[j].func);
			if (a[j].module)
				assert_string_equal(a[j].module, b[j].module);
		}
	}
	walker_end(&w);
	assert_null(w);
	walker_get_stats(&after);
	assert_int_equal(after.started - before.started, 1); /* one session */
	assert_int_equal(after.killed - before.killed, 0);
	assert_all_gone(pid);
}

/*
 * A CFA expression that loops for ever (stack_hostile loop): the read
 * budget stops the walk, in the tracer and in the walker alike, with the
 * frames up to the hostile function.
 */
static void test_walker_budget(void **state)
{
	pid_t pid = spawn_seized("stack_hostile", "loop");
	wait_ready();
	stop_leader(pid);
	struct corral_frame f[MAXF];
	const char *why = NULL;
	int n = unwinder_stack(g_u, pid, pid, f, MAXF, &why);
	assert_true(n >= 1);
	assert_non_null(why);
	assert_non_null(strstr(why, "budget"));
	struct corral_walker *w = NULL;
	struct walk_out out;
	double t0 = now_s();
	n = walker_stack(&w, pid, pid, f, MAXF, 30.0, NULL, &out);
	double took = now_s() - t0;
	/* the frames' names are the walker's: looked at before it ends */
	bool here = n >= 1 &&
		    (find_func(f, n, "corral_fixture_hostile_here") >= 0 ||
		     find_func(f, n, "corral_fixture_hostile_block") >= 0);
	bool budget = out.cut && strcmp(out.cut, "budget") == 0;
	walker_end(&w);
	assert_true(n >= 1);
	assert_true(budget);
	assert_true(here);
	assert_true(took < 25.0); /* not the deadline: the budget */
	assert_all_gone(pid);
}

/*
 * A walk that never answers (stack_hostile fifo: libunwind's open() of the
 * program's path waits for a FIFO writer for ever): abandoned at the
 * deadline, the walker killed and reaped, frame 0 from the registers. Then
 * a pending signal of the stop set abandons a walk before it starts.
 */
static void test_walker_deadline_and_signal(void **state)
{
	char dir[] = "/tmp/corral-test-unwind.XXXXXX";
	assert_non_null(mkdtemp(dir));
	pid_t pid = spawn_seized2("stack_hostile", "fifo", dir);
	wait_ready();
	stop_leader(pid);
	struct walker_stats before, after;
	walker_get_stats(&before);
	struct corral_walker *w = NULL;
	struct corral_frame f[MAXF];
	struct walk_out out;
	double t0 = now_s();
	int n = walker_stack(&w, pid, pid, f, MAXF, 0.5, NULL, &out);
	double took = now_s() - t0;
	assert_int_equal(n, 1);
	assert_string_equal(out.cut, "deadline");
	assert_non_null(out.why);
	assert_true(f[0].ip != 0);
	assert_null(f[0].func);
	assert_true(took >= 0.5 && took < 10.0);
	walker_get_stats(&after);
	assert_int_equal(after.killed - before.killed, 1);
	assert_int_equal(after.lost - before.lost, 0);

	/* SIGUSR2 blocked and pending, and in the stop set: no walk. */
	sigset_t stop, old;
	sigemptyset(&stop);
	sigaddset(&stop, SIGUSR2);
	assert_int_equal(sigprocmask(SIG_BLOCK, &stop, &old), 0);
	raise(SIGUSR2);
	t0 = now_s();
	n = walker_stack(&w, pid, pid, f, MAXF, 30.0, &stop, &out);
	took = now_s() - t0;
	assert_int_equal(n, 1);
	assert_string_equal(out.cut, "signal");
	assert_true(took < 5.0);
	struct timespec zero = {0, 0};
	assert_int_equal(sigtimedwait(&stop, NULL, &zero), SIGUSR2);
	sigprocmask(SIG_SETMASK, &old, NULL);
	walker_end(&w);
	assert_all_gone(pid); /* ECHILD: the killed walker was reaped too */

	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/hostile-exe", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/hostile-exe (deleted)", dir);
	unlink(p);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hang_threads, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_crash_segv, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_crash_abort, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_crash_jit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_walker_same_stacks, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_walker_budget, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_walker_deadline_and_signal,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_threads, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
