/*
 * test_engine.c - the event state machine under the kernel's awkward
 * orders, scripted through the mock kernel layer (mock_kernel.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <sched.h>

#include "mock_kernel.h"

#define ROOT 100
#define EV_STOP PTRACE_EVENT_STOP

static struct mock M;

/* The root has exec'd: the usual starting point. */
static struct corral *started(void)
{
	mock_init(&M);
	struct corral *c = mock_corral(&M, ROOT);
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_EXEC));
	return c;
}

static void fork_event(struct corral *c, pid_t parent, pid_t child, int ev)
{
	M.eventmsg[parent] = (unsigned long)child;
	engine_handle(c, parent, ST_STOP(SIGTRAP, ev));
}

/* Normal order: the fork event, then the child's first stop. */
static void test_fork_then_child_stop(void **state)
{
	struct corral *c = started();
	int mark = M.ncalls;
	fork_event(c, ROOT, 101, PTRACE_EVENT_FORK);
	struct task *t = table_find(&c->tab, 101);
	assert_non_null(t);
	assert_int_equal(t->state, TS_NEW);
	/* Parent resumed; the child is not stopped yet, nothing to resume. */
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 101, -1), 0);
	engine_handle(c, 101, ST_STOP(SIGSTOP, EV_STOP));
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 101, 0), 1);
	assert_int_equal(t->state, TS_RUNNING);
	assert_true(jpos(c, "\"event\":\"fork\",") >= 0);
	assert_int_equal(c->result.res.processes, 2);
	mock_free(c);
}

/* The child's first stop reaches us before its parent's fork event. */
static void test_child_stop_before_fork_event(void **state)
{
	struct corral *c = started();
	M.ids[M.nids][0] = 101, M.ids[M.nids][1] = 101, M.ids[M.nids++][2] = ROOT;
	int mark = M.ncalls;
	engine_handle(c, 101, ST_STOP(SIGSTOP, EV_STOP));
	struct task *t = table_find(&c->tab, 101);
	assert_non_null(t);
	/* Held: it must not run before its birth is journaled. */
	assert_int_equal(t->state, TS_HELD);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 101, -1), 0);
	assert_int_equal(jpos(c, "\"pid\":101"), -1);
	assert_int_equal(c->engine.orphans, 1);
	fork_event(c, ROOT, 101, PTRACE_EVENT_FORK);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 101, 0), 1);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	assert_int_equal(t->state, TS_RUNNING);
	assert_int_equal(t->creator, ROOT);
	assert_int_equal(c->engine.orphans, 0);
	/* Its exec comes after its fork line. */
	engine_handle(c, 101, ST_STOP(SIGTRAP, PTRACE_EVENT_EXEC));
	long f = jpos(c, "\"event\":\"fork\",");
	long e = jpos(c, "\"path\":\"/bin/prog101\"");
	assert_true(f >= 0 && e > f);
	mock_free(c);
}

/* The creator dies before reporting the fork: the orphan is released. */
static void test_orphan_creator_dies(void **state)
{
	struct corral *c = started();
	fork_event(c, ROOT, 101, PTRACE_EVENT_FORK);
	engine_handle(c, 101, ST_STOP(SIGSTOP, EV_STOP));
	M.ids[M.nids][0] = 102, M.ids[M.nids][1] = 102, M.ids[M.nids++][2] = 101;
	int mark = M.ncalls;
	engine_handle(c, 102, ST_STOP(SIGSTOP, EV_STOP));
	assert_int_equal(table_find(&c->tab, 102)->state, TS_HELD);
	engine_handle(c, 101, ST_KILLED(SIGKILL));
	struct task *t = table_find(&c->tab, 102);
	assert_int_equal(t->state, TS_RUNNING);
	assert_int_equal(t->creator, 101);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 102, 0), 1);
	assert_true(jpos(c, "creator's event lost") >= 0);
	assert_int_equal(c->engine.orphans, 0);
	mock_free(c);
}

/* exec from a non-leader thread: the tid change and the former tid. */
static void test_exec_from_thread(void **state)
{
	struct corral *c = started();
	M.thread_of[M.nthread_of][0] = ROOT, M.thread_of[M.nthread_of++][1] = 102;
	M.thread_of[M.nthread_of][0] = ROOT, M.thread_of[M.nthread_of++][1] = 103;
	fork_event(c, ROOT, 102, PTRACE_EVENT_CLONE);
	engine_handle(c, 102, ST_STOP(SIGSTOP, EV_STOP));
	fork_event(c, ROOT, 103, PTRACE_EVENT_CLONE);
	engine_handle(c, 103, ST_STOP(SIGSTOP, EV_STOP));
	struct task *leader = table_find(&c->tab, ROOT);
	assert_int_equal(leader->nthreads, 3);
	assert_int_equal(c->result.res.threads, 2);
	assert_true(jpos(c, "\"event\":\"thread\"") >= 0);
	/* Thread 103 dies as the exec kills it; 102 execs as ROOT. */
	engine_handle(c, 103, ST_EXIT(0));
	M.eventmsg[ROOT] = 102;
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_EXEC));
	assert_null(table_find(&c->tab, 102));
	assert_int_equal(leader->nthreads, 1);
	assert_true(jpos(c, "\"former\":102") >= 0);
	assert_int_equal(c->tab.live, 1);
	/* The former tid never reports; nothing stays behind for it. */
	engine_handle(c, ROOT, ST_EXIT(0));
	assert_int_equal(c->tab.live, 0);
	mock_free(c);
}

/* SIGSTOP under SEIZE: injected, then LISTEN, then SIGCONT. */
static void test_group_stop_listen(void **state)
{
	struct corral *c = started();
	int mark = M.ncalls;
	engine_handle(c, ROOT, ST_STOP(SIGSTOP, 0));
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, SIGSTOP), 1);
	engine_handle(c, ROOT, ST_STOP(SIGSTOP, EV_STOP));
	/* It stays stopped, as untraced: LISTEN, not CONT. */
	assert_int_equal(mock_count(&M, mark, PTRACE_LISTEN, ROOT, -1), 1);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 0);
	assert_int_equal(table_find(&c->tab, ROOT)->state, TS_LISTEN);
	assert_true(jpos(c, "\"event\":\"stop\"") >= 0);
	/* SIGCONT: the signal is delivered, then the re-trap says running. */
	engine_handle(c, ROOT, ST_STOP(SIGCONT, 0));
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, SIGCONT), 1);
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, EV_STOP));
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	assert_true(jpos(c, "\"event\":\"cont\"") >= 0);
	assert_int_equal(table_find(&c->tab, ROOT)->state, TS_RUNNING);
	mock_free(c);
}

/* Signals are injected back unchanged at signal-delivery-stops. */
static void test_signal_injected(void **state)
{
	struct corral *c = started();
	int mark = M.ncalls;
	int sigs[] = {SIGUSR1, SIGSEGV, SIGCHLD, SIGRTMIN + 2, SIGTERM};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		engine_handle(c, ROOT, ST_STOP(sigs[i], 0));
		assert_int_equal(
			mock_count(&M, mark, PTRACE_CONT, ROOT, sigs[i]), 1);
	}
	assert_true(jpos(c, "\"signal\":\"SIGRTMIN+2\"") >= 0);
	mock_free(c);
}

/* ESRCH from every call: a task killed between the event and our call. */
static void test_esrch_mid_call(void **state)
{
	struct corral *c = started();
	M.esrch[M.nesrch++] = ROOT;
	fork_event(c, ROOT, 101, PTRACE_EVENT_FORK);
	/* No event message, so no child invented. */
	assert_null(table_find(&c->tab, 101));
	engine_handle(c, ROOT, ST_STOP(SIGUSR1, 0));
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_EXEC));
	engine_handle(c, ROOT, ST_KILLED(SIGKILL));
	assert_int_equal(c->tab.live, 0);
	assert_true(c->engine.root_exited);
	assert_true(WIFSIGNALED(c->result.res.status));
	mock_free(c);
}

/* vfork: the parent is in an uninterruptible wait until the child execs. */
static void test_vfork(void **state)
{
	struct corral *c = started();
	fork_event(c, ROOT, 101, PTRACE_EVENT_VFORK);
	engine_handle(c, 101, ST_STOP(SIGSTOP, EV_STOP));
	assert_true(table_find(&c->tab, ROOT)->flags & TF_VFORK_WAIT);
	assert_true(jpos(c, "\"event\":\"vfork\"") >= 0);
	engine_handle(c, 101, ST_STOP(SIGTRAP, PTRACE_EVENT_EXEC));
	assert_false(table_find(&c->tab, ROOT)->flags & TF_VFORK_WAIT);
	mock_free(c);
}

/* Stop-all holds every stop, including children born meanwhile. */
static void test_stop_all_holds_new_children(void **state)
{
	struct corral *c = started();
	fork_event(c, ROOT, 101, PTRACE_EVENT_FORK);
	engine_handle(c, 101, ST_STOP(SIGSTOP, EV_STOP));
	/* ROOT answers the interrupt with a fork in flight; 101 stops. */
	M.eventmsg[ROOT] = 102;
	mock_wait(&M, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_FORK));
	mock_wait(&M, 101, ST_STOP(SIGTRAP, EV_STOP));
	mock_wait(&M, 102, ST_STOP(SIGSTOP, EV_STOP));
	mock_wait(&M, ROOT, ST_STOP(SIGTRAP, EV_STOP));
	M.more = true;
	int mark = M.ncalls;
	int held = corral_stop_all(c);
	assert_int_equal(held, 3);
	assert_int_equal(mock_count(&M, mark, PTRACE_INTERRUPT, ROOT, -1), 1);
	assert_int_equal(mock_count(&M, mark, PTRACE_INTERRUPT, 101, -1), 1);
	/* Nobody was let go while stopping. */
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, -1), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 102, -1), 0);
	assert_int_equal(c->tab.nstate[TS_HELD], 3);
	/* And all are let go again, with what they had pending. */
	corral_resume_all(c);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 102, 0), 1);
	assert_int_equal(c->tab.nstate[TS_RUNNING], 3);
	mock_free(c);
}

/* After SIGKILL: late stops are not resumed; newcomers are killed. */
static void test_events_after_sigkill(void **state)
{
	struct corral *c = started();
	fork_event(c, ROOT, 101, PTRACE_EVENT_FORK);
	engine_handle(c, 101, ST_STOP(SIGSTOP, EV_STOP));
	/* A stop queued before the kill, a newcomer, then the deaths. */
	mock_wait(&M, 101, ST_STOP(SIGCHLD, 0));
	mock_wait(&M, 103, ST_STOP(SIGSTOP, EV_STOP));
	mock_wait(&M, 101, ST_KILLED(SIGKILL));
	mock_wait(&M, 103, ST_KILLED(SIGKILL));
	mock_wait(&M, ROOT, ST_KILLED(SIGKILL));
	int mark = M.ncalls;
	int killed = corral_kill_all(c);
	assert_int_equal(killed, 2);
	assert_int_equal(mock_count(&M, mark, -SIGKILL, ROOT, -1), 1);
	assert_int_equal(mock_count(&M, mark, -SIGKILL, 101, -1), 1);
	assert_int_equal(mock_count(&M, mark, -SIGKILL, 103, -1), 1);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 101, -1), 0);
	/* The loop ended on ECHILD with an empty table. */
	assert_int_equal(c->tab.live, 0);
	assert_int_equal(c->phase.now, PH_DONE);
	assert_int_equal(c->result.res.survivors, 0);
	mock_free(c);
}

/* The loop ends when the kernel says ECHILD, never on a count. */
static void test_loop_ends_on_echild(void **state)
{
	mock_init(&M);
	struct corral *c = mock_corral(&M, ROOT);
	mock_wait(&M, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_EXEC));
	mock_wait(&M, ROOT, ST_EXIT(3));
	/* The table is empty here, but the kernel is not done yet. */
	M.more = true;
	assert_int_equal(engine_drain(c, false), 2);
	assert_int_equal(c->tab.live, 0);
	M.more = false;
	assert_int_equal(engine_drain(c, false), -ECHILD);
	/* corral_step() turns ECHILD into the end of the run. */
	OWN(c, lifecycle)->sigfd = -1;
	assert_int_equal(corral_step(c, 0), 0);
	assert_int_equal(c->result.res.exit_code, 3);
	assert_true(jpos(c, "\"event\":\"end\"") >= 0);
	OWN(c, spawn)->finished = true;
	corral_free(c);
}

/* The command exits while a child lives: the child is journaled as left. */
static void test_left_behind(void **state)
{
	struct corral *c = started();
	c->cfg.kill_after = 0;
	fork_event(c, ROOT, 101, PTRACE_EVENT_FORK);
	engine_handle(c, 101, ST_STOP(SIGSTOP, EV_STOP));
	mock_wait(&M, 101, ST_STOP(SIGTRAP, EV_STOP));
	mock_wait(&M, 101, ST_KILLED(SIGKILL));
	M.more = false;
	engine_handle(c, ROOT, ST_EXIT(0));
	/* Decided inside the handler, carried out between batches. */
	assert_int_equal(c->phase.now, PH_GRACE);
	ending_tick(c);
	assert_true(jpos(c, "\"event\":\"left\"") >= 0);
	assert_int_equal(c->result.res.left, 1);
	assert_int_equal(c->result.res.reason, CORRAL_REASON_EXITED);
	assert_int_equal(c->tab.live, 0);
	mock_free(c);
}

/* --max-procs ends the tree, without grace. */
static void test_max_procs(void **state)
{
	struct corral *c = started();
	c->cfg.max_procs = 2;
	fork_event(c, ROOT, 101, PTRACE_EVENT_FORK);
	assert_int_equal(c->phase.now, PH_RUN);
	mock_wait(&M, 101, ST_STOP(SIGSTOP, EV_STOP));
	mock_wait(&M, 102, ST_STOP(SIGSTOP, EV_STOP));
	mock_wait(&M, ROOT, ST_KILLED(SIGKILL));
	mock_wait(&M, 101, ST_KILLED(SIGKILL));
	mock_wait(&M, 102, ST_KILLED(SIGKILL));
	fork_event(c, ROOT, 102, PTRACE_EVENT_FORK);
	assert_int_equal(c->result.res.reason, CORRAL_REASON_MAXPROCS);
	/* No SIGTERM round for a fork bomb. */
	assert_int_equal(mock_count(&M, 0, -SIGTERM, ROOT, -1), 0);
	ending_tick(c);
	assert_int_equal(c->phase.now, PH_DONE);
	assert_int_equal(c->tab.live, 0);
	mock_free(c);
}

/* A thread is told from the clone's flags when they can be read: no /proc
 * lookup then; a clone without CLONE_THREAD is a process. */
static void test_clone_flags_from_registers(void **state)
{
	struct corral *c = started();
	M.clone_flags[M.nclone_flags][0] = ROOT;
	M.clone_flags[M.nclone_flags++][1] =
		CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD;
	fork_event(c, ROOT, 102, PTRACE_EVENT_CLONE);
	assert_int_equal(M.nthread_of_calls, 0);
	assert_true(table_find(&c->tab, 102)->flags & TF_THREAD);
	assert_true(jpos(c, "\"event\":\"thread\"") >= 0);
	M.clone_flags[0][1] = CLONE_FS | SIGCHLD; /* a process */
	fork_event(c, ROOT, 103, PTRACE_EVENT_CLONE);
	assert_false(table_find(&c->tab, 103)->flags & TF_THREAD);
	assert_true(jpos(c, "\"event\":\"clone\"") >= 0);
	assert_int_equal(M.nthread_of_calls, 0);
	mock_free(c);
}

/*
 * A new process's /proc entries are made once the loop is idle, so that
 * its exec's readlink finds them: once, and not for a thread or for a
 * process that exec'd before the loop got there.
 */
static void test_new_process_warmed_when_idle(void **state)
{
	struct corral *c = started();
	OWN(c, lifecycle)->sigfd = -1;
	int mark = M.ncalls;
	fork_event(c, ROOT, 101, PTRACE_EVENT_FORK);
	fork_event(c, ROOT, 102, PTRACE_EVENT_FORK);
	M.clone_flags[M.nclone_flags][0] = ROOT;
	M.clone_flags[M.nclone_flags++][1] =
		CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD;
	fork_event(c, ROOT, 103, PTRACE_EVENT_CLONE);
	engine_handle(c, 102, ST_STOP(SIGSTOP, EV_STOP));
	engine_handle(c, 102, ST_STOP(SIGTRAP, PTRACE_EVENT_EXEC));
	/* Not while events are handled: tasks wait for those. */
	assert_int_equal(mock_count(&M, mark, MOCK_WARM, 101, -1), 0);
	M.more = true; /* the kernel has nothing now: the step is idle */
	assert_int_equal(corral_step(c, 0), 1);
	assert_int_equal(mock_count(&M, mark, MOCK_WARM, 101, -1), 1);
	assert_int_equal(mock_count(&M, mark, MOCK_WARM, 102, -1), 0);
	assert_int_equal(mock_count(&M, mark, MOCK_WARM, 103, -1), 0);
	assert_int_equal(corral_step(c, 0), 1);
	assert_int_equal(mock_count(&M, mark, MOCK_WARM, 101, -1), 1);
	mock_free(c);
}

/* Where in the call log (from index from) req to pid was first made. */
static int call_at(int from, int req, pid_t pid)
{
	for (int i = from; i < M.ncalls; i++)
		if (M.calls[i].req == req && M.calls[i].pid == pid)
			return i;
	return -1;
}

/*
 * A wake-up with more statuses than are handled at once: the first
 * ENGINE_EAGER_MAX tasks are each resumed as soon as taken, the first of
 * them before the signalfd is read; the rest are taken as a batch after
 * that read: a SIGCHLD raised after the read would wake the next sleep,
 * so nothing can be missed.
 */
static void test_first_statuses_resumed_before_signal_read(void **state)
{
	struct corral *c = started();
	OWN(c, lifecycle)->sigfd = -1;
	const int n = ENGINE_EAGER_MAX + 2;
	for (int i = 0; i < n; i++) {
		fork_event(c, ROOT, 101 + i, PTRACE_EVENT_FORK);
		engine_handle(c, 101 + i, ST_STOP(SIGSTOP, EV_STOP));
	}
	for (int i = 0; i < n; i++)
		mock_wait(&M, 101 + i, ST_STOP(SIGCHLD, 0));
	M.more = true;
	OWN(c, loop)->drained =
		true; /* the last round emptied the queue: sleep */
	int mark = M.ncalls, any = M.nwait_any;
	assert_int_equal(corral_step(c, 0), 1);
	int read = call_at(mark, MOCK_READSIG, 0);
	assert_true(read >= 0);
	assert_int_equal(mock_count(&M, mark, MOCK_READSIG, 0, -1), 1);
	int prev = mark - 1;
	for (int i = 0; i < n; i++) {
		int at = call_at(mark, PTRACE_CONT, 101 + i);
		assert_true(at > prev); /* in the kernel's order */
		prev = at;
		assert_int_equal(M.calls[at].data, SIGCHLD);
		if (i == 0)
			assert_true(at < read);
		else
			assert_true(at > read);
	}
	/* Every status, one empty waitpid: nothing more than a batch. */
	assert_int_equal(M.nwait_any - any, n + 1);
	assert_int_equal(mock_count(&M, mark, MOCK_EMPTY, 0, -1), 1);
	assert_true(c->loop.drained);
	mock_free(c);
}

/*
 * The sequential case (one stop, nothing else): the task is resumed, then
 * the signalfd is read, then one waitpid finds the queue empty and the
 * round ends there: no second empty waitpid for a batch. Were the read
 * after that waitpid, a status between the two would be missed (its
 * SIGCHLD read and gone); the order is the proof.
 */
static void test_single_status_one_empty_waitpid(void **state)
{
	struct corral *c = started();
	OWN(c, lifecycle)->sigfd = -1;
	fork_event(c, ROOT, 101, PTRACE_EVENT_FORK);
	engine_handle(c, 101, ST_STOP(SIGSTOP, EV_STOP));
	mock_wait(&M, 101, ST_STOP(SIGCHLD, 0));
	M.more = true;
	OWN(c, loop)->drained = true;
	int mark = M.ncalls, any = M.nwait_any;
	assert_int_equal(corral_step(c, 0), 1);
	int cont = call_at(mark, PTRACE_CONT, 101);
	int read = call_at(mark, MOCK_READSIG, 0);
	int empty = call_at(mark, MOCK_EMPTY, 0);
	assert_true(cont >= 0 && read >= 0 && empty >= 0);
	assert_true(cont < read);
	assert_true(read < empty);
	assert_int_equal(M.nwait_any - any, 2);
	assert_int_equal(mock_count(&M, mark, MOCK_EMPTY, 0, -1), 1);
	assert_true(c->loop.drained);
	/* And a status that comes next is taken by the next round. */
	mock_wait(&M, 101, ST_STOP(SIGCHLD, 0));
	mark = M.ncalls;
	assert_int_equal(corral_step(c, 0), 1);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 101, SIGCHLD), 1);
	mock_free(c);
}

/* A tree of n processes besides the root, all running: 1000, 1001... */
static struct corral *running_tree(int n)
{
	struct corral *c = started();
	for (int i = 0; i < n; i++) {
		fork_event(c, ROOT, 1000 + i, PTRACE_EVENT_FORK);
		engine_handle(c, 1000 + i, ST_STOP(SIGSTOP, EV_STOP));
	}
	assert_int_equal(c->tab.nstate[TS_RUNNING], n + 1);
	return c;
}

/*
 * A burst (every member reports at once) is taken by tid once the walks
 * of waitpid(-1) cost more than a sweep would: each of those walks every
 * tracee in the real kernel.
 */
static void test_burst_swept_by_tid(void **state)
{
	struct corral *c = running_tree(200);
	M.fake_clock = true;
	M.wait_any_cost = 1e-4; /* a walk of the tracee list */
	OWN(c, waiter)->sweep_cost = 1e-6; /* a waitpid(tid) */
	for (int i = 0; i < 200; i++)
		mock_wait(&M, 1000 + i, ST_STOP(SIGTRAP, EV_STOP));
	mock_wait(&M, ROOT, ST_STOP(SIGTRAP, EV_STOP));
	M.more = true;
	int mark = M.ncalls;
	assert_int_equal(engine_drain(c, false), 201);
	assert_true(c->waiter.queue_empty);
	/* Most came from the sweep; waitpid(-1) only until it paid off. */
	assert_true(M.nwait_tid >= 150);
	assert_true(M.nwait_any <= 40);
	for (int i = 0; i < 200; i++)
		assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 1000 + i, 0), 1);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	/* No task was taken twice, none is left marked. */
	assert_int_equal(c->tab.nstate[TS_RUNNING], 201);
	for (int i = 0; i < 200; i++)
		assert_false(table_find(&c->tab, 1000 + i)->flags & TF_IN_BATCH);
	mock_free(c);
}

/* A batch is bounded in count: the rest waits, and the loop knows it. */
static void test_batch_bounded_by_count(void **state)
{
	struct corral *c = running_tree(0);
	M.fake_clock = true;
	/* 3000 statuses of the root's group-stop / continue re-traps. */
	for (int i = 0; i < 3000; i++)
		mock_wait(&M, ROOT, ST_STOP(SIGTRAP, EV_STOP));
	M.more = true;
	int first = engine_drain(c, false);
	assert_true(first > 0 && first < 3000);
	assert_false(
		c->waiter.queue_empty); /* no sleep before the next batch */
	int second = engine_drain(c, false);
	assert_int_equal(first + second, 3000);
	assert_true(c->waiter.queue_empty);
	mock_free(c);
}

/* A batch is bounded in time, so that deadlines are checked. */
static void test_batch_bounded_by_time(void **state)
{
	struct corral *c = running_tree(0);
	M.fake_clock = true;
	M.wait_any_cost = 1e-3; /* slow walks, and nothing to sweep */
	for (int i = 0; i < 100; i++)
		mock_wait(&M, ROOT, ST_STOP(SIGTRAP, EV_STOP));
	M.more = true;
	double t0 = M.clock;
	int n = engine_drain(c, false);
	assert_true(n > 0 && n < 100);
	assert_false(c->waiter.queue_empty);
	/* Collected for at most the bound plus one clock period. */
	assert_true(M.clock - t0 <= 0.010 + 16 * 1e-3);
	mock_free(c);
}

/* A flood of snapshot requests is coalesced: one now, one per interval. */
static void test_snapshots_coalesced(void **state)
{
	struct corral *c = started();
	M.fake_clock = true;
	M.clock = 10;
	OWN(c, lifecycle)->t0 = 0;
	for (int i = 0; i < 1000; i++)
		snapshot_request(c, false);
	long first = jpos(c, "\"event\":\"snapshot\"");
	assert_true(first >= 0);
	/* Nothing more within the interval, however often asked. */
	M.clock = 10.5;
	snapshot_tick(c);
	char *j = mock_journal(c);
	assert_null(strstr(j + first + 1, "\"event\":\"snapshot\""));
	free(j);
	assert_true(snapshot_due(c) > run_time(c));
	/* The last request is answered when the interval is over. */
	M.clock = 11.01;
	snapshot_tick(c);
	j = mock_journal(c);
	char *second = strstr(j + first + 1, "\"event\":\"snapshot\"");
	assert_non_null(second);
	assert_null(strstr(second + 1, "\"event\":\"snapshot\""));
	free(j);
	assert_true(snapshot_due(c) < 0);
	mock_free(c);
}

/*
 * What a snapshot says of each member comes through the seam (the mock's
 * cwd and descriptors here), not from this machine's /proc.
 */
static void test_snapshot_through_the_seam(void **state)
{
	struct corral *c = started();
	M.fake_clock = true;
	M.clock = 10;
	OWN(c, lifecycle)->t0 = 0;
	snapshot_request(c, false);
	char *j = mock_journal(c);
	char *snap = strstr(j, "\"event\":\"snapshot\"");
	assert_non_null(snap);
	char *eol = strchr(snap, '\n');
	assert_non_null(eol);
	*eol = 0;
	assert_non_null(strstr(snap, "\"pid\":100,"));
	assert_non_null(strstr(snap, "\"cwd\":\"/w/100\""));
	assert_non_null(strstr(
		snap, "\"fds\":{\"0\":\"/dev/null\",\"1\":\"pipe:[7]\"}"));
	free(j);
	mock_free(c);
}

/* An end requested at t=100 with a 2 s grace, no stacks. */
static struct corral *grace_requested(void)
{
	struct corral *c = started();
	c->cfg.stacks = 0;
	c->cfg.kill_after = 2;
	M.fake_clock = true;
	M.clock = 100;
	OWN(c, lifecycle)->t0 = 100;
	corral_request_end(c, CORRAL_REASON_REQUEST);
	return c;
}

/*
 * The cancelled ending (issue 15): an end requested with a grace, then the
 * tree stopped and resumed (by the caller, a snapshot, the stacks taken at
 * the end). Resuming used to set the phase back to "run": the grace was
 * forgotten and the tree ran on. Holding is not a phase: the grace goes on
 * and its deadline ends the tree.
 */
static void test_resume_keeps_the_ending(void **state)
{
	struct corral *c = grace_requested();
	assert_int_equal(c->phase.now, PH_GRACE);
	assert_int_equal(mock_count(&M, 0, -SIGTERM, ROOT, -1), 1);
	/* Stop-all: ROOT answers the interrupt. */
	mock_wait(&M, ROOT, ST_STOP(SIGTRAP, EV_STOP));
	M.more = true;
	assert_int_equal(corral_stop_all(c), 1);
	assert_int_equal(c->phase.now, PH_GRACE);
	int mark = M.ncalls;
	assert_int_equal(corral_resume_all(c), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	/* Still ending, with the same deadline. */
	assert_int_equal(c->phase.now, PH_GRACE);
	assert_false(c->phase.holding);
	M.clock = 101;
	ending_tick(c);
	assert_int_equal(c->phase.now, PH_GRACE); /* the grace is not over */
	assert_int_equal(mock_count(&M, mark, -SIGKILL, ROOT, -1), 0);
	/* The grace runs out: stop-all, kill-all, done. */
	M.clock = 102.5;
	mock_wait(&M, ROOT, ST_STOP(SIGTRAP, EV_STOP));
	mock_wait(&M, ROOT, ST_KILLED(SIGKILL));
	M.more = false;
	ending_tick(c);
	assert_int_equal(mock_count(&M, mark, -SIGKILL, ROOT, -1), 1);
	assert_int_equal(c->phase.now, PH_DONE);
	assert_int_equal(c->result.res.reason, CORRAL_REASON_REQUEST);
	assert_int_equal(c->tab.live, 0);
	mock_free(c);
}

/* A snapshot with stacks in the middle of a grace does not cancel it. */
static void test_snapshot_keeps_the_ending(void **state)
{
	struct corral *c = grace_requested();
	mock_wait(&M, ROOT, ST_STOP(SIGTRAP, EV_STOP));
	M.more = true;
	/* The unwinder fails on a mock task: 0 frames, never a crash. */
	assert_int_equal(corral_snapshot(c, true), 1);
	assert_int_equal(c->phase.now, PH_GRACE);
	assert_false(c->phase.holding);
	assert_int_equal(table_find(&c->tab, ROOT)->state, TS_RUNNING);
	mock_free(c);
}

/* A started tree with the clock in the test's hands (t = 0 now). */
static struct corral *started_at_zero(void)
{
	struct corral *c = started();
	c->cfg.stacks = 0;
	M.fake_clock = true;
	M.clock = 0;
	OWN(c, lifecycle)->t0 = 0;
	return c;
}

/*
 * Kill-all gives up on a member that cannot finish dying after kill_wait,
 * saying who and how long as it waits (at 1 s, 2 s, ...) and at the end.
 */
static void test_kill_wait_gives_up(void **state)
{
	struct corral *c = started_at_zero();
	c->cfg.kill_wait = 3;
	fork_event(c, ROOT, 101, PTRACE_EVENT_FORK);
	engine_handle(c, 101, ST_STOP(SIGSTOP, EV_STOP));
	mock_wait(&M, ROOT, ST_KILLED(SIGKILL)); /* 101 never goes */
	M.more = true;
	corral_kill_all(c);
	assert_int_equal(c->result.res.dying, 1);
	assert_int_equal(c->phase.now, PH_DONE);
	/* Who: 101, reported at 1 s, 2 s and when giving up at 3 s. */
	assert_int_equal(jcount(c, "\"event\":\"dying\""), 3);
	assert_true(jpos(c, "\"waited\":1.0") >= 0);
	assert_true(jpos(c, "\"waited\":3.0") >= 0);
	assert_true(jpos(c, "\"tasks\":1,\"pids\":[101]") >= 0);
	/* Given up at kill_wait, not before and not much after. */
	assert_true(M.clock >= 3 && M.clock < 3.5);
	mock_free(c);
}

/* A member that cannot be stopped costs the stop budget once. */
static void test_unstoppable_costs_budget_once(void **state)
{
	struct corral *c = started_at_zero();
	fork_event(c, ROOT, 101, PTRACE_EVENT_FORK);
	engine_handle(c, 101, ST_STOP(SIGSTOP, EV_STOP));
	mock_wait(&M, ROOT, ST_STOP(SIGTRAP, EV_STOP)); /* 101 never stops */
	M.more = true;
	corral_stop_all(c);
	assert_int_equal(c->result.res.unstopped, 1);
	double spent = M.clock;
	assert_true(spent >= 2.0); /* the budget */
	assert_true(table_find(&c->tab, 101)->flags & TF_UNSTOPPABLE);
	/* The next stop-all of the run does not wait for it again. */
	int mark = M.ncalls;
	corral_stop_all(c);
	assert_true(M.clock - spent < 0.5);
	/* It is still asked to stop. */
	assert_int_equal(mock_count(&M, mark, PTRACE_INTERRUPT, 101, -1), 1);
	mock_free(c);
}

/*
 * A crash: the stack is taken at the signal-delivery stop, before the
 * signal is delivered (after it, the frames would be the kernel's), from
 * the unwinder behind the kernel seam; then the signal goes in unchanged.
 * Without "crash" in --stacks, no unwind.
 */
static void test_crash_stack(void **state)
{
	struct corral *c = started();
	c->cfg.stacks = CORRAL_STACKS_CRASH;
	static const char *const frames[] = {"strlen", "parse", "main"};
	mock_stack(&M, ROOT, 3, frames, "max frames");
	int mark = M.ncalls;
	engine_handle(c, ROOT, ST_STOP(SIGSEGV, 0));
	int unw = mock_first(&M, mark, MOCK_UNWIND);
	int cont = mock_first(&M, mark, PTRACE_CONT);
	assert_true(unw >= 0 && cont > unw);
	assert_int_equal(M.calls[cont].data, SIGSEGV);
	long sig = jpos(c, "\"event\":\"signal\"");
	long st = jpos(c, "\"event\":\"stack\"");
	assert_true(sig >= 0 && st > sig);
	char *j = mock_journal(c);
	char *l = strstr(j, "\"event\":\"stack\"");
	assert_non_null(strstr(l, "\"why\":\"crash\""));
	assert_non_null(strstr(l, "\"func\":\"strlen\",\"off\":16"));
	assert_non_null(strstr(l, "\"func\":\"main\""));
	assert_non_null(strstr(l, "\"error\":\"max frames\""));
	free(j);
	/* Not a crash signal, or crash stacks not asked for: no unwind. */
	engine_handle(c, ROOT, ST_STOP(SIGUSR1, 0));
	c->cfg.stacks = CORRAL_STACKS_TIMEOUT;
	engine_handle(c, ROOT, ST_STOP(SIGSEGV, 0));
	assert_int_equal(M.nunwinds, 1);
	mock_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_then_child_stop),
		cmocka_unit_test(test_child_stop_before_fork_event),
		cmocka_unit_test(test_orphan_creator_dies),
		cmocka_unit_test(test_exec_from_thread),
		cmocka_unit_test(test_group_stop_listen),
		cmocka_unit_test(test_signal_injected),
		cmocka_unit_test(test_esrch_mid_call),
		cmocka_unit_test(test_vfork),
		cmocka_unit_test(test_stop_all_holds_new_children),
		cmocka_unit_test(test_events_after_sigkill),
		cmocka_unit_test(test_loop_ends_on_echild),
		cmocka_unit_test(test_left_behind),
		cmocka_unit_test(test_burst_swept_by_tid),
		cmocka_unit_test(test_clone_flags_from_registers),
		cmocka_unit_test(test_kill_wait_gives_up),
		cmocka_unit_test(test_unstoppable_costs_budget_once),
		cmocka_unit_test(test_resume_keeps_the_ending),
		cmocka_unit_test(test_snapshot_keeps_the_ending),
		cmocka_unit_test(test_snapshots_coalesced),
		cmocka_unit_test(test_snapshot_through_the_seam),
		cmocka_unit_test(test_batch_bounded_by_count),
		cmocka_unit_test(test_batch_bounded_by_time),
		cmocka_unit_test(test_max_procs),
		cmocka_unit_test(test_new_process_warmed_when_idle),
		cmocka_unit_test(test_first_statuses_resumed_before_signal_read),
		cmocka_unit_test(test_single_status_one_empty_waitpid),
		cmocka_unit_test(test_crash_stack),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
