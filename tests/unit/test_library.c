/*
 * test: needs ptrace (real traced children: tests/run.sh skips it where
 * its probe sees ptrace refused, as in some package build chroots)
 *
 * test_library.c - the library API (include/corral.h) with real processes:
 * events through the callback, the loop driven step by step, the tree
 * query, ending on request, stop-all/resume-all, and corral_free() on a
 * live tree. Each test checks afterwards that nothing it started is alive.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corral.h"

/* As a caller does: room for the types it knows, and more (docs/api.md:
 * a newer library may send a type this header does not name). */
#define SEEN_TYPES 64

struct seen {
	int count[SEEN_TYPES];
	pid_t pids[256];
	int npids;
};

static void on_event(const struct corral_event *ev, void *arg)
{
	struct seen *s = arg;
	if ((unsigned)ev->type < SEEN_TYPES)
		s->count[ev->type]++;
	if ((ev->type == CORRAL_EV_FORK || ev->type == CORRAL_EV_VFORK ||
	     ev->type == CORRAL_EV_CLONE || ev->type == CORRAL_EV_EXEC) &&
	    s->npids < 256)
		s->pids[s->npids++] = ev->pid;
}

static struct corral *start(const char *const *argv, struct seen *s,
			    void (*tweak)(struct corral_config *))
{
	struct corral_config cfg;
	corral_config_init(&cfg);
	cfg.argv = argv;
	cfg.watch_parent = false;
	cfg.stacks = 0;
	cfg.on_event = on_event;
	cfg.on_event_arg = s;
	if (tweak)
		tweak(&cfg);
	struct corral *c;
	char err[256];
	assert_int_equal(corral_new(&cfg, &c, err, sizeof(err)), 0);
	assert_int_equal(corral_spawn(c), 0);
	return c;
}

/* Alive: it exists and is not a zombie waiting for some reaper. */
static bool alive(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* Nothing the test started is alive, and no child is left to reap. */
static void nothing_left(const struct seen *s)
{
	for (int i = 0; i < s->npids; i++)
		assert_false(alive(s->pids[i]));
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_callback_and_result(void **state)
{
	static const char *const argv[] = {
		"/bin/sh", "-c", "/bin/true; /bin/true; exit 7", NULL};
	struct seen s = {0};
	struct corral *c = start(argv, &s, NULL);
	assert_int_equal(corral_wait(c), 0);
	struct corral_result r;
	corral_result(c, &r);
	assert_int_equal(r.exit_code, 7);
	assert_int_equal(r.reason, CORRAL_REASON_NONE);
	assert_int_equal(r.execs, 3);
	assert_int_equal(r.survivors, 0);
	assert_int_equal(s.count[CORRAL_EV_START], 1);
	assert_int_equal(s.count[CORRAL_EV_EXEC], 3);
	assert_int_equal(s.count[CORRAL_EV_END], 1);
	assert_int_equal(s.count[CORRAL_EV_EXIT], (int)r.processes);
	corral_free(c);
	nothing_left(&s);
}

struct procs {
	int n, ended, with_argv;
};

static void count_proc(const struct corral_proc_info *p, void *arg)
{
	struct procs *x = arg;
	x->n++;
	x->ended += p->ended >= 0;
	x->with_argv += p->argv && p->argv[0];
}

/* Driven step by step (the iterator style), then the tree is queried. */
static void test_steps_and_tree(void **state)
{
	static const char *const argv[] = {
		"/bin/sh", "-c", "/bin/true & /bin/true & wait", NULL};
	struct seen s = {0};
	struct corral *c = start(argv, &s, NULL);
	int steps = 0, r;
	while ((r = corral_step(c, 100)) > 0)
		steps++;
	assert_int_equal(r, 0);
	assert_true(steps >= 1);
	struct procs x = {0};
	corral_foreach_proc(c, count_proc, &x);
	assert_int_equal(x.n, 3);
	assert_int_equal(x.ended, 3);
	assert_int_equal(x.with_argv, 3);
	corral_free(c);
	nothing_left(&s);
}

/* Ending on request: every member is gone when corral says so. */
static void no_grace(struct corral_config *cfg)
{
	cfg->kill_after = 0;
}

static void test_request_end(void **state)
{
	static const char *const argv[] = {
		"/bin/sh", "-c",
		"trap '' TERM; (trap '' TERM; setsid /bin/sleep 100 &) ; "
		"/bin/sleep 100 & echo ready; wait",
		NULL};
	struct seen s = {0};
	struct corral *c = start(argv, &s, no_grace);
	/*
	 * Run until both sleeps have exec'd (events, not time): sh, setsid,
	 * the sleep setsid becomes, and the other sleep are four execs. With
	 * three, the second sleep may not exist yet and only sh and one sleep
	 * are there to be killed.
	 */
	while (s.count[CORRAL_EV_EXEC] < 4)
		assert_int_equal(corral_step(c, -1), 1);
	corral_request_end(c, CORRAL_REASON_REQUEST);
	assert_int_equal(corral_wait(c), 0);
	struct corral_result r;
	corral_result(c, &r);
	assert_int_equal(r.reason, CORRAL_REASON_REQUEST);
	assert_true(r.killed >= 3);
	assert_int_equal(r.survivors, 0);
	corral_free(c);
	nothing_left(&s);
}

static void dump(const struct corral_proc_info *p, void *arg)
{
	fprintf(stderr, "  %d ppid %d state %c ended %g %s\n", p->pid, p->ppid,
		p->state, p->ended, p->argv && p->argv[0] ? p->argv[0] : "-");
}

/* Stop-all holds the tree; resume-all lets it finish normally. */
static void test_stop_resume(void **state)
{
	static const char *const argv[] = {
		"/bin/sh", "-c", "/bin/sleep 0.2 & /bin/sleep 0.2; wait; exit 3",
		NULL};
	struct seen s = {0};
	struct corral *c = start(argv, &s, NULL);
	while (s.count[CORRAL_EV_EXEC] < 3)
		assert_int_equal(corral_step(c, -1), 1);
	/* sh may sit in vfork's wait (not stoppable, and harmless). */
	int held = corral_stop_all(c);
	if (held < 2)
		corral_foreach_proc(c, dump, NULL);
	assert_true(held >= 2 && held <= 3);
	assert_int_equal(corral_snapshot(c, false), 3);
	assert_int_equal(corral_resume_all(c), 0);
	assert_int_equal(corral_wait(c), 0);
	struct corral_result r;
	corral_result(c, &r);
	assert_int_equal(r.exit_code, 3);
	assert_int_equal(s.count[CORRAL_EV_SNAPSHOT], 1);
	corral_free(c);
	nothing_left(&s);
}

static void short_grace(struct corral_config *cfg)
{
	cfg->kill_after = 0.3;
}

/*
 * An end requested with a grace, then the tree stopped and resumed (as a
 * snapshot or a live view does): the ending is not cancelled, the grace
 * runs out and the tree is killed. The command would end by itself only
 * after 5 s, and ignores SIGTERM: killed >= 1 says the ending did it.
 */
static void test_resume_keeps_the_ending(void **state)
{
	static const char *const argv[] = {
		"/bin/sh", "-c", "trap '' TERM; /bin/sleep 5 & echo; wait", NULL};
	struct seen s = {0};
	struct corral *c = start(argv, &s, short_grace);
	while (s.count[CORRAL_EV_EXEC] < 2)
		assert_int_equal(corral_step(c, -1), 1);
	corral_request_end(c, CORRAL_REASON_REQUEST);
	assert_true(corral_stop_all(c) >= 1);
	assert_int_equal(corral_resume_all(c), 0);
	assert_int_equal(corral_wait(c), 0);
	struct corral_result r;
	corral_result(c, &r);
	assert_int_equal(r.reason, CORRAL_REASON_REQUEST);
	assert_true(r.killed >= 1);
	assert_int_equal(r.survivors, 0);
	corral_free(c);
	nothing_left(&s);
}

/* Freeing a supervisor with a live tree ends the tree. */
static void test_free_kills(void **state)
{
	static const char *const argv[] = {
		"/bin/sh", "-c", "/bin/sleep 100 & /bin/sleep 100", NULL};
	struct seen s = {0};
	struct corral *c = start(argv, &s, NULL);
	while (s.count[CORRAL_EV_EXEC] < 3)
		assert_int_equal(corral_step(c, -1), 1);
	corral_free(c);
	nothing_left(&s);
}

/*
 * A signal of the supervisor's set that arrives after its last read (here:
 * once the end line is written) is consumed by corral_free(), not
 * delivered with its default action; the caller's disposition and mask
 * are given back as they were.
 */
static void test_free_consumes_late_signals(void **state)
{
	static const char *const argv[] = {"/bin/sh", "-c", "exit 5", NULL};
	struct sigaction before, after;
	sigaction(SIGUSR1, NULL, &before);
	sigset_t mask_before, mask_after;
	sigprocmask(SIG_SETMASK, NULL, &mask_before);
	struct seen s = {0};
	struct corral *c = start(argv, &s, NULL);
	assert_int_equal(corral_wait(c), 0);
	struct corral_result r;
	corral_result(c, &r);
	assert_int_equal(r.exit_code, 5);
	/* Late: pending, blocked by the supervisor, default action "die". */
	assert_true(before.sa_handler == SIG_DFL);
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGTERM);
	corral_free(c); /* this test process must survive this */
	sigset_t pend;
	sigpending(&pend);
	assert_int_equal(sigismember(&pend, SIGUSR1), 0);
	assert_int_equal(sigismember(&pend, SIGTERM), 0);
	sigaction(SIGUSR1, NULL, &after);
	assert_true(after.sa_handler == SIG_DFL);
	sigprocmask(SIG_SETMASK, NULL, &mask_after);
	assert_int_equal(sigismember(&mask_after, SIGUSR1),
			 sigismember(&mask_before, SIGUSR1));
	assert_int_equal(sigismember(&mask_after, SIGTERM),
			 sigismember(&mask_before, SIGTERM));
	nothing_left(&s);
}

/* Bad input is refused before anything starts. */
static void test_refused(void **state)
{
	struct corral_config cfg;
	corral_config_init(&cfg);
	struct corral *c = (struct corral *)1;
	char err[256];
	static const char *const missing[] = {"/nonexistent/cmd", NULL};
	cfg.argv = missing;
	assert_int_equal(corral_new(&cfg, &c, err, sizeof(err)), -ENOENT);
	assert_null(c);
	static const char *const noexec[] = {"/etc/passwd", NULL};
	cfg.argv = noexec;
	assert_int_equal(corral_new(&cfg, &c, err, sizeof(err)), -EACCES);
	static const char *const ok[] = {"/bin/true", NULL};
	cfg.argv = ok;
	cfg.journal_path = "/nonexistent/dir/journal";
	assert_int_equal(corral_new(&cfg, &c, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "journal"));
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_callback_and_result),
		cmocka_unit_test(test_steps_and_tree),
		cmocka_unit_test(test_request_end),
		cmocka_unit_test(test_stop_resume),
		cmocka_unit_test(test_free_kills),
		cmocka_unit_test(test_resume_keeps_the_ending),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_free_consumes_late_signals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
