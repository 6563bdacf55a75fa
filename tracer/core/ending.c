/*
 * ending.c - ending the tree: grace, stop-all, kill-all.
 *
 * 1. Grace (optional): SIGTERM (then SIGCONT, so that stopped members can
 *    act on it, as timeout(1) does) to every member process, not just the
 *    first one; events are taken as usual until the grace runs out or the
 *    tree is gone.
 * 2. Stop-all: PTRACE_INTERRUPT every member and hold every stop; tasks
 *    born meanwhile are held at their first stop. Once every member is in
 *    a ptrace-stop nothing of the tree runs, so the set cannot change.
 * 3. Kill-all: SIGKILL every member, then consume events until waitpid
 *    says ECHILD: the kernel itself confirms that no tracee is left.
 *
 * The phase (c->phase.now) and the hold (c->phase.holding) are phase.c's: this
 * file drives them forward through its functions and writes neither itself. It
 * sits above the engine: its waits take statuses through the waiter (waiter.c)
 * and hand them to the engine, as the loop does.
 *
 * Stop-all is what makes kill-all exact under a fork storm: without it,
 * a member could fork between our reading of the table and its SIGKILL.
 * (It would still be caught - it is a tracee, seen and killed on sight,
 * and PTRACE_O_EXITKILL is the last resort - but stopping first gives a
 * consistent picture of the tree for stacks and for the journal.)
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/ptrace.h>

#include "grow.h"
#include "internal.h"

/* A stop-all cannot wait forever on a task stuck in the kernel. */
#define STOP_BUDGET 2.0

static int term_one(struct task *t, void *arg)
{
	struct corral *c = arg;
	if (t->flags & TF_THREAD)
		return 0;
	/* -s/--signal chooses the first signal (SIGQUIT for a JVM's
	 * thread dump, SIGINT for a Python traceback...). */
	c->sys->kill(c->sys->ctx, t->tid,
		     c->cfg.end_signal > 0 ? c->cfg.end_signal : SIGTERM);
	c->sys->kill(c->sys->ctx, t->tid, SIGCONT);
	return 0;
}

static void finish_now(struct corral *c)
{
	double t = run_time(c);
	result_grace_took(c, t - c->phase.grace_start);
	corral_stop_all(c);
	result_stop_took(c, run_time(c) - t);
	corral_kill_all(c);
}

/*
 * The first step of ending, run from the loop: the stacks (and --core's
 * cores) of what the tree was doing when the end was decided (before SIGTERM changes it: a program
 * that dies of SIGTERM in the grace would otherwise leave no stack), then
 * SIGTERM to every member and the grace.
 */
static void start_ending(struct corral *c)
{
	phase_ending_started(c);
	bool grace = c->phase.grace_len > 0;
	bool stacks = stacks_wanted(c), cores = cores_wanted(c);
	if (stacks || cores) {
		corral_stop_all(c);
		if (stacks)
			stacks_at_ending(c);
		/* Cores after stacks: their budget runs while the tree is
		 * held, and the stacks are the cheap answer. */
		if (cores)
			cores_at_ending(c);
		/* Without a grace the tree stays held for kill-all. */
		if (grace)
			corral_resume_all(c);
	}
	if (grace) {
		table_foreach_live(&c->tab, term_one, c);
		phase_grace_restart(c);
	}
}

void ending_tick(struct corral *c)
{
	if (c->phase.now != PH_GRACE)
		return;
	if (!c->phase.ending_started)
		start_ending(c);
	if (c->phase.now == PH_GRACE && run_time(c) >= c->phase.grace_deadline)
		finish_now(c);
}

/*
 * Waiting for many specific tasks. waitpid(-1) makes the kernel walk the
 * whole list of tracees on every call, including the ones already stopped
 * and reported: stopping or killing n members that way costs O(n^2) (2.7 s
 * for 10,000 sleepers). waitpid(tid) looks at that one task. So stop-all
 * and kill-all sweep the members they are waiting for by tid, and use
 * waitpid(-1) only for what they do not know yet (children born
 * meanwhile), once per sweep.
 */
struct tids {
	pid_t *v;
	size_t n, cap;
};

static void tids_push(struct tids *s, pid_t tid)
{
	if (GROW(s->v, s->cap, s->n + 1))
		return; /* the waitpid(-1) drain still finds it */
	s->v[s->n++] = tid;
}

/* Take what each listed task has to report; drop those done(). */
static size_t sweep(struct corral *c, struct tids *s,
		    bool (*done)(struct corral *c, pid_t tid))
{
	size_t progress = 0, k = 0;
	for (size_t i = 0; i < s->n; i++) {
		pid_t tid = s->v[i];
		if (!done(c, tid)) {
			struct waited w;
			pid_t r = waiter_take(c, tid, &w);
			if (r > 0) {
				engine_handle_waited(c, &w);
				progress++;
			}
			if (r >= 0 && !done(c, tid)) {
				s->v[k++] = tid;
				continue;
			}
		}
	}
	s->n = k;
	return progress;
}

static bool stopped(struct corral *c, pid_t tid)
{
	struct task *t = table_find(&c->tab, tid);
	return !t || t->state == TS_HELD;
}

static bool gone(struct corral *c, pid_t tid)
{
	return !table_find(&c->tab, tid);
}

struct interrupt_arg {
	struct corral *c;
	struct tids *wait;
};

static int interrupt_one(struct task *t, void *arg)
{
	struct interrupt_arg *a = arg;
	if (t->state == TS_RUNNING || t->state == TS_LISTEN)
		sys_ptrace(a->c->sys, PTRACE_INTERRUPT, t->tid, 0, 0);
	if (t->state != TS_HELD)
		tids_push(a->wait, t->tid);
	return 0;
}

static int count_unstopped(struct task *t, void *arg)
{
	/*
	 * A vfork parent sits in an uninterruptible wait until its child
	 * execs or exits; with the child held it cannot run either. A task
	 * that a stop-all of this run already could not stop is not waited
	 * for again (it is still interrupted, and held if it stops).
	 */
	if (t->state != TS_HELD &&
	    !(t->flags & (TF_VFORK_WAIT | TF_UNSTOPPABLE)))
		++*(size_t *)arg;
	return 0;
}

static size_t unstopped(struct corral *c)
{
	struct ending_part *en = OWN(c, ending);
	size_t left = c->tab.live - c->tab.nstate[TS_HELD];
	/* Exact count (a table walk) only when vfork waits, or tasks known
	 * to be unstoppable, may explain it. */
	if (left && left <= c->engine.vfork_waiting + en->unstoppable) {
		left = 0;
		table_foreach_live(&c->tab, count_unstopped, &left);
	}
	return left;
}

static int mark_unstoppable(struct task *t, void *arg)
{
	struct corral *c = arg;
	struct ending_part *en = OWN(c, ending);
	if (t->state != TS_HELD && !(t->flags & TF_VFORK_WAIT) &&
	    !(t->flags & TF_UNSTOPPABLE)) {
		t->flags |= TF_UNSTOPPABLE;
		en->unstoppable++;
	}
	return 0;
}

int corral_stop_all(struct corral *c)
{
	if (c->events.in_callback) /* corral.h: not from a callback */
		return -EDEADLK;
	double t0 = run_time(c);
	phase_hold(c);
	struct tids wait = {0};
	struct interrupt_arg ia = {c, &wait};
	table_foreach_live(&c->tab, interrupt_one, &ia);
	for (;;) {
		size_t progress = sweep(c, &wait, stopped);
		size_t left = unstopped(c);
		if (!left)
			break;
		double rest = t0 + STOP_BUDGET - run_time(c);
		if (rest <= 0) {
			/*
			 * Stuck in the kernel: the next stop-all of this run
			 * (the one before kill-all, after the stacks') does
			 * not spend its budget on them again.
			 */
			result_unstopped(c, left);
			table_foreach_live(&c->tab, mark_unstoppable, c);
			break;
		}
		int n = engine_drain(c, false); /* the newborn */
		if (n == -ECHILD)
			break;
		if (n == 0 && progress == 0)
			waiter_sleep(c, rest);
	}
	free(wait.v);
	return (int)c->tab.nstate[TS_HELD];
}

static int resume_one(struct task *t, void *arg)
{
	struct corral *c = arg;
	if (t->state == TS_HELD && (t->flags & TF_SEEN_STOP) &&
	    (t->flags & TF_ANNOUNCED))
		task_resume(c, t, t->pending_sig);
	return 0;
}

/*
 * Let the tree run again. The phase is not touched: resuming in the middle
 * of a grace leaves the grace, and its deadline, as they were. Once
 * kill-all has begun nothing is resumed.
 */
int corral_resume_all(struct corral *c)
{
	if (c->events.in_callback) /* corral.h: not from a callback */
		return -EDEADLK;
	int r = phase_release(c); /* -EBUSY once kill-all has begun */
	if (r < 0)
		return r;
	table_foreach_live(&c->tab, resume_one, c);
	return 0;
}

struct kill_arg {
	struct corral *c;
	struct tids *wait;
};

static int kill_one(struct task *t, void *arg)
{
	struct kill_arg *a = arg;
	struct corral *c = a->c;
	tids_push(a->wait, t->tid);
	if (t->flags & TF_KILLED)
		return 0;
	t->flags |= TF_KILLED;
	/* One SIGKILL per process takes all its threads. */
	if (!(t->flags & TF_THREAD)) {
		c->sys->kill(c->sys->ctx, t->tid, SIGKILL);
		result_killed(c);
	} else if (!table_find(&c->tab, t->tgid)) {
		c->sys->tgkill(c->sys->ctx, t->tgid, t->tid, SIGKILL);
	}
	return 0;
}

/*
 * The tasks of the tree still there at the end: counted as survivors and
 * each named in the journal (pid, state, where it waits), whether kill-all
 * lost track of them (a record left after ECHILD) or gave up on them.
 */
#define SURVIVORS_LISTED 100

static int count_survivor(struct task *t, void *arg)
{
	struct corral *c = arg;
	if (c->sys->kill(c->sys->ctx, t->tid, 0) != 0)
		return 0;
	if (result_survivor(c) >= SURVIVORS_LISTED)
		return 0;
	char wchan[64], state[2] = {0};
	state[0] = c->sys->task_state(c->sys->ctx, t->tid, wchan,
				      sizeof(wchan));
	struct corral_event ev = task_event(CORRAL_EV_SURVIVOR, t);
	ev.state = state[0] ? state : "?";
	ev.wchan = wchan;
	emit(c, &ev);
	return 0;
}

/*
 * Members that cannot die may be waiting for a FUSE server whose device a
 * member holds (their own file table, often): abort those connections.
 * A connection whose device a member holds is the tree's: that member can
 * already answer or withhold every request of it. Each abort is journaled.
 * Returns how many connections were aborted.
 */
#define FUSE_CONNS_MAX 64

struct fuse_scan {
	struct corral *c;
	unsigned conn[FUSE_CONNS_MAX];
	pid_t holder[FUSE_CONNS_MAX];
	int n;
};

static int scan_fuse(struct task *t, void *arg)
{
	struct fuse_scan *f = arg;
	unsigned got[16];
	int k = f->c->sys->fuse_conns(f->c->sys->ctx, t->tid, got, 16);
	for (int i = 0; i < k && f->n < FUSE_CONNS_MAX; i++) {
		bool dup = false;
		for (int j = 0; j < f->n; j++)
			dup |= f->conn[j] == got[i];
		if (!dup) {
			f->conn[f->n] = got[i];
			f->holder[f->n++] = t->tgid;
		}
	}
	return 0;
}

static int abort_member_fuse(struct corral *c)
{
	struct fuse_scan f = {.c = c};
	table_foreach_live(&c->tab, scan_fuse, &f);
	int aborted = 0;
	for (int i = 0; i < f.n; i++) {
		int r = c->sys->fuse_abort(c->sys->ctx, f.conn[i]);
		struct corral_event ev = {
			.type = CORRAL_EV_FUSE_ABORT,
			.pid = f.holder[i],
			.conn = f.conn[i],
			.error = r ? strerror(-r) : NULL,
		};
		emit(c, &ev);
		aborted += r == 0;
	}
	return aborted;
}

struct dying {
	struct sbuf pids;
	unsigned long tasks, listed;
};

static int list_dying(struct task *t, void *arg)
{
	struct dying *d = arg;
	d->tasks++;
	/* Processes by pid, at most 100: a line stays small. */
	if (!(t->flags & TF_THREAD) && d->listed < 100) {
		sb_printf(&d->pids, d->listed ? ",%d" : "%d", t->tid);
		d->listed++;
	}
	return 0;
}

/* Who is still dying and since when: one journal line. */
static unsigned long report_dying(struct corral *c, double waited)
{
	struct dying d = {0};
	sb_putc(&d.pids, '[');
	table_foreach_live(&c->tab, list_dying, &d);
	sb_putc(&d.pids, ']');
	struct corral_event ev = {
		.type = CORRAL_EV_DYING,
		.waited = waited,
		.count = d.tasks,
		.raw = d.pids.oom ? NULL : d.pids.p,
	};
	emit(c, &ev);
	sb_free(&d.pids);
	return d.tasks;
}

/* First report of members still dying, then every time the wait doubles. */
#define DYING_FIRST 1.0

/*
 * SIGKILL every member, then take events until the kernel says no tracee
 * is left (ECHILD). A task may take long to finish dying (an exit that
 * discards a large file's extents, a FUSE request nobody answers): the
 * journal says who and for how long as corral waits. When cfg.kill_wait
 * runs out, the FUSE connections members serve are aborted (fuse.h; a
 * task waiting on its own server would never die) and the tasks get
 * another wait of at most FUSE_WAIT; then corral gives up on what is left
 * (res.dying, exit status CORRAL_EXIT_DYING): those tasks are survivors,
 * each named in the journal. They cannot return to user space, but nothing
 * says they will ever finish.
 */
#define FUSE_WAIT 2.0
int corral_kill_all(struct corral *c)
{
	if (c->events.in_callback) /* corral.h: not from a callback */
		return -EDEADLK;
	double t0 = run_time(c);
	unsigned long before = c->result.res.killed;
	phase_kill(c);
	struct tids wait = {0};
	struct kill_arg ka = {c, &wait};
	table_foreach_live(&c->tab, kill_one, &ka);
	double report = t0 + DYING_FIRST;
	double give_up = c->cfg.kill_wait > 0 ? t0 + c->cfg.kill_wait : -1;
	bool fuse_tried = false;
	for (;;) {
		/* The known members by tid (waitpid(-1) walks every tracee),
		 * then what is not known yet (killed on sight). */
		size_t progress = wait.n ? sweep(c, &wait, gone) : 0;
		int n = engine_drain(c, false);
		if (n == -ECHILD)
			break;
		if (n < 0 && n != -EINTR && n != -ENOMEM)
			break;
		if (progress || n > 0)
			continue;
		double now = run_time(c);
		if (give_up >= 0 && now >= give_up && !fuse_tried) {
			fuse_tried = true;
			if (abort_member_fuse(c) > 0) {
				double more = c->cfg.kill_wait < FUSE_WAIT
						      ? c->cfg.kill_wait
						      : FUSE_WAIT;
				give_up = now + more;
				continue;
			}
		}
		if (give_up >= 0 && now >= give_up) {
			result_dying(c, report_dying(c, now - t0));
			break;
		}
		if (now >= report) {
			report_dying(c, now - t0);
			report = t0 + 2 * (report - t0);
		}
		double next = report;
		if (give_up >= 0 && give_up < next)
			next = give_up;
		waiter_sleep(c, next - now);
	}
	free(wait.v);
	table_foreach_live(&c->tab, count_survivor, c);
	result_kill_took(c, run_time(c) - t0);
	phase_done(c);
	return (int)(c->result.res.killed - before);
}
