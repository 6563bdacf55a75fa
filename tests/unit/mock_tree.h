/*
 * mock_tree.h - a small tree on the mock kernel, for the scripted tests of
 * the loop (test_ending.c, test_loop_signals.c): two processes with a
 * thread each and a grandchild, every task modelled (mock_task()), so that
 * the mock kernel answers interrupts and SIGKILL the way the kernel does.
 *
 *   100 (root) ─┬─ 102 (thread of 100)
 *               └─ 101 ─┬─ 104 (thread of 101)
 *                       └─ 103
 */
#ifndef MOCK_TREE_H
#define MOCK_TREE_H

#include <sched.h>

#include "mock_kernel.h"

#define ROOT	100
#define EV_STOP PTRACE_EVENT_STOP

static const pid_t TREE_PROCS[] = {100, 101, 103};
static const pid_t TREE_THREADS[] = {102, 104};
#define NPROCS	 3
#define NTHREADS 2

static struct mock M;

/* tid is born of creator (an event, then its first stop), and runs. */
static inline void tree_child(struct corral *c, pid_t creator, pid_t tid,
			      bool thread)
{
	int ev = PTRACE_EVENT_FORK;
	if (thread) {
		/* The clone's flags say thread (read from the registers). */
		M.clone_flags[M.nclone_flags][0] = creator;
		M.clone_flags[M.nclone_flags++][1] =
			CLONE_VM | CLONE_SIGHAND | CLONE_THREAD;
		ev = PTRACE_EVENT_CLONE;
	}
	M.eventmsg[creator] = (unsigned long)tid;
	engine_handle(c, creator, ST_STOP(SIGTRAP, ev));
	engine_handle(c, tid, ST_STOP(SIGSTOP, EV_STOP));
	mock_task(&M, tid, thread ? creator : tid);
	if (thread)
		M.nclone_flags--; /* the creator's next clone is a fork */
}

/*
 * The tree above, running, the clock in the test's hands at t = 0, no
 * stacks (the tests of stacks ask for them), and the loop in the state
 * it is in once a batch emptied the kernel's queue.
 */
static inline struct corral *tree_start(bool journal_strict)
{
	mock_init(&M);
	M.journal_strict = journal_strict;
	M.fake_clock = true;
	M.clock = 0;
	struct corral *c = mock_corral(&M, ROOT);
	OWN(c, lifecycle)->t0 = 0;
	c->cfg.stacks = 0;
	c->cfg.handle_signals = true;
	mock_task(&M, ROOT, ROOT);
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_EXEC));
	tree_child(c, ROOT, 101, false);
	tree_child(c, ROOT, 102, true);
	tree_child(c, 101, 103, false);
	tree_child(c, 101, 104, true);
	assert_int_equal(c->tab.nstate[TS_RUNNING], NPROCS + NTHREADS);
	assert_int_equal(c->result.res.processes, NPROCS);
	assert_int_equal(c->result.res.threads, NTHREADS);
	OWN(c, loop)->drained = true;
	return c;
}

static inline struct corral *tree_at_zero(void)
{
	return tree_start(false);
}

/* Index of the first call of req to pid from index from, -1 if none. */
static inline int call_at(int from, int req, pid_t pid)
{
	for (int i = from; i < M.ncalls; i++)
		if (M.calls[i].req == req && M.calls[i].pid == pid)
			return i;
	return -1;
}

/* The journal line that contains needle (caller frees), NULL if none. */
static inline char *jline(struct corral *c, const char *needle)
{
	char *j = mock_journal(c);
	char *p = strstr(j, needle);
	char *r = NULL;
	if (p) {
		while (p > j && p[-1] != '\n')
			p--;
		r = strndup(p, strcspn(p, "\n"));
	}
	free(j);
	return r;
}

/* Does the journal line with needle also say what? */
static inline bool jline_has(struct corral *c, const char *needle,
			     const char *what)
{
	char *l = jline(c, needle);
	bool r = l && strstr(l, what);
	free(l);
	return r;
}

/*
 * Every member process got sig and then SIGCONT (in that order), from
 * index from on; no thread got either.
 */
static inline void assert_term_round(int from, int sig)
{
	for (int i = 0; i < NPROCS; i++) {
		pid_t p = TREE_PROCS[i];
		assert_int_equal(mock_count(&M, from, -sig, p, -1), 1);
		assert_int_equal(mock_count(&M, from, -SIGCONT, p, -1), 1);
		assert_true(call_at(from, -sig, p) <
			    call_at(from, -SIGCONT, p));
	}
	for (int i = 0; i < NTHREADS; i++) {
		assert_int_equal(
			mock_count(&M, from, -sig, TREE_THREADS[i], -1), 0);
		assert_int_equal(
			mock_count(&M, from, -SIGCONT, TREE_THREADS[i], -1), 0);
	}
}

/*
 * Stop-all then kill-all, from index from on: every task interrupted once,
 * all of them before the first SIGKILL; one SIGKILL per process, none to a
 * thread (the process's takes it).
 */
static inline void assert_stop_then_kill(int from)
{
	int first_kill = M.ncalls;
	for (int i = 0; i < NPROCS; i++) {
		pid_t p = TREE_PROCS[i];
		assert_int_equal(mock_count(&M, from, -SIGKILL, p, -1), 1);
		int k = call_at(from, -SIGKILL, p);
		if (k < first_kill)
			first_kill = k;
	}
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(
			mock_count(&M, from, -SIGKILL, TREE_THREADS[i], -1), 0);
	const pid_t all[] = {100, 101, 102, 103, 104};
	for (int i = 0; i < 5; i++) {
		assert_int_equal(
			mock_count(&M, from, PTRACE_INTERRUPT, all[i], -1), 1);
		assert_true(call_at(from, PTRACE_INTERRUPT, all[i]) <
			    first_kill);
		/* Held from its interrupt on: never let go. */
		assert_int_equal(
			mock_count(&M, call_at(from, PTRACE_INTERRUPT, all[i]),
				   PTRACE_CONT, all[i], -1),
			0);
	}
}

/* The members die of sig (threads first, as the kernel reports them). */
static inline void tree_dies_of(int sig)
{
	mock_exit(&M, 104, ST_KILLED(sig));
	mock_exit(&M, 103, ST_KILLED(sig));
	mock_exit(&M, 101, ST_KILLED(sig));
	mock_exit(&M, 102, ST_KILLED(sig));
	mock_exit(&M, ROOT, ST_KILLED(sig));
}

#endif
