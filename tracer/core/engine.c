/*
 * engine.c - the event state machine: one wait status in, the table and
 * the journal updated, the task resumed (or held).
 *
 * The kernel's orders this has to accept (each has a scripted unit test in
 * tests/unit/test_engine.c):
 *
 *  - A new child's first stop can reach waitpid() before its parent's
 *    FORK/VFORK/CLONE event. Such a child is an "orphan": it is held
 *    stopped until its creator's event names it, so that its own events
 *    can never precede its birth in the journal. If the creator dies
 *    without reporting the event, the orphan is attributed from /proc
 *    and released when that creator is gone.
 *  - exec from a non-leader thread: the execing thread takes the leader's
 *    tid; PTRACE_GETEVENTMSG gives its former tid, which will never report
 *    an exit, so its record is dropped here. The other threads report
 *    their deaths as usual.
 *  - Group-stops under PTRACE_SEIZE arrive as PTRACE_EVENT_STOP with the
 *    stop signal; the member is put in PTRACE_LISTEN so it stays stopped
 *    until a SIGCONT, exactly as it would untraced.
 *  - ESRCH from any ptrace call: the task was killed under us. Nothing is
 *    undone; its exit status will arrive through waitpid like any other.
 *  - Events after SIGKILL (a stop queued before the kill) are consumed;
 *    tasks first seen while killing are killed on sight.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "internal.h"

static void emit_task(struct corral *c, enum corral_event_type type,
		      const struct task *t, int sig)
{
	struct corral_event ev = task_event(type, t);
	ev.sig = sig;
	emit(c, &ev);
}

struct task *engine_add_root(struct corral *c, pid_t pid)
{
	struct task *t = table_add(&c->tab, pid, pid, false);
	if (!t)
		return NULL;
	t->flags |= TF_SEEN_STOP | TF_ANNOUNCED;
	t->creator = t->creator_tgid = c->lifecycle.self;
	t->born = run_time(c);
	table_set_state(&c->tab, t, TS_RUNNING);
	if (c->spawn.sandboxed)
		t->flags |= TF_SETUP;
	result_born(c, false);
	return t;
}

static void check_max_procs(struct corral *c)
{
	if (c->cfg.max_procs && c->tab.live_procs > c->cfg.max_procs &&
	    (c->phase.now == PH_RUN || c->phase.now == PH_GRACE))
		phase_begin_ending(c, CORRAL_REASON_MAXPROCS, 0);
}

/*
 * The creator's event (or, for an orphan whose creator vanished, our best
 * knowledge of it) makes a task a member: journal its birth, then let it
 * run if its first stop has been seen.
 */
static void announce(struct corral *c, struct task *child, pid_t creator,
		     pid_t creator_tgid, enum corral_event_type type,
		     const char *detail)
{
	struct engine_part *en = OWN(c, engine);
	if (!(child->flags & TF_ANNOUNCED) && (child->flags & TF_SEEN_STOP) &&
	    en->orphans)
		en->orphans--;
	child->flags |= TF_ANNOUNCED;
	child->creator = creator;
	child->creator_tgid = creator_tgid;
	result_born(c, type == CORRAL_EV_THREAD);
	if (type == CORRAL_EV_THREAD) {
		table_make_thread(&c->tab, child, creator_tgid);
		struct task *leader = table_find(&c->tab, creator_tgid);
		if (leader) {
			leader->nthreads++;
			leader->threads_seen++;
		}
	} else {
		/* Its exec will read /proc/PID/exe: engine_idle() */
		if (c->lifecycle.want_argv &&
		    en->nwarm < sizeof(en->warm) / sizeof(en->warm[0]))
			en->warm[en->nwarm++] = child->tid;
	}
	struct corral_event ev = task_event(type, child);
	ev.ppid = creator;
	ev.detail = detail;
	emit(c, &ev);
	if (c->phase.now == PH_KILLING)
		task_kill(c, child);
	else if (child->flags & TF_SEEN_STOP)
		task_resume(c, child, 0);
	check_max_procs(c);
}

/* A stop from a tid we have never heard of: a child ahead of its creator. */
static struct task *new_orphan(struct corral *c, pid_t tid)
{
	struct engine_part *en = OWN(c, engine);
	pid_t tgid = tid, ppid = 0;
	c->sys->ids(c->sys->ctx, tid, &tgid, &ppid, NULL);
	bool thread = tgid && tgid != tid;
	struct task *t = table_add(&c->tab, tid, thread ? tgid : tid, thread);
	if (!t)
		return NULL;
	t->flags |= TF_SEEN_STOP;
	t->born = run_time(c);
	t->orphan_cand = thread ? tgid : ppid;
	table_set_state(&c->tab, t, TS_HELD);
	en->orphans++;
	if (c->phase.now == PH_KILLING) {
		task_kill(c, t);
		return t;
	}
	/*
	 * Its creator already gone from the table: no event will ever name
	 * this child, so it is announced now with what /proc told us.
	 */
	if (!t->orphan_cand || !table_find(&c->tab, t->orphan_cand))
		announce(c, t, t->orphan_cand, t->orphan_cand,
			 thread ? CORRAL_EV_THREAD : CORRAL_EV_FORK,
			 "creator's event lost");
	return t;
}

struct orphan_scan {
	struct corral *c;
	pid_t dead_tgid;
	struct task *found;
};

static int find_orphan_of(struct task *t, void *arg)
{
	struct orphan_scan *s = arg;
	if ((t->flags & TF_ANNOUNCED) || !(t->flags & TF_SEEN_STOP))
		return 0;
	if (t->orphan_cand == s->dead_tgid ||
	    !table_find(&s->c->tab, t->orphan_cand)) {
		s->found = t;
		return 1;
	}
	return 0;
}

/* A process ended: orphans it created without telling us are released. */
static void adopt_orphans(struct corral *c, pid_t dead_tgid)
{
	struct engine_part *en = OWN(c, engine);
	for (;;) {
		struct orphan_scan s = {c, dead_tgid, NULL};
		if (!en->orphans ||
		    !table_foreach_live(&c->tab, find_orphan_of, &s))
			return;
		struct task *t = s.found;
		announce(c, t, t->orphan_cand, t->orphan_cand,
			 (t->flags & TF_THREAD) ? CORRAL_EV_THREAD
						: CORRAL_EV_FORK,
			 "creator's event lost");
	}
}

static void clear_vfork_wait(struct corral *c, struct task *p)
{
	struct engine_part *en = OWN(c, engine);
	if (p->flags & TF_VFORK_WAIT) {
		p->flags &= ~TF_VFORK_WAIT;
		en->vfork_waiting--;
	}
}

static void release_vfork_parent(struct corral *c, struct task *child)
{
	if (!child->vfork_parent)
		return;
	struct task *p = table_find(&c->tab, child->vfork_parent);
	if (p)
		clear_vfork_wait(c, p);
	child->vfork_parent = 0;
}

static int emit_left(struct task *t, void *arg)
{
	struct corral *c = arg;
	/* bubblewrap's own processes are not the command's leftovers. */
	if (t->flags & (TF_THREAD | TF_SETUP))
		return 0;
	result_left(c);
	if (!t->prog && c->lifecycle.want_argv) {
		/*
		 * A fork whose creator's program is unknown (its creator's
		 * event was lost): what /proc says it runs now.
		 */
		char *block = NULL, **argv = NULL;
		if (c->sys->argv(c->sys->ctx, t->tid, &block, &argv) == 0)
			task_set_exec(t, c->sys->exe(c->sys->ctx, t->tid),
				      block, argv);
	}
	struct corral_event ev = task_event(CORRAL_EV_LEFT, t);
	ev.ppid = t->creator;
	if (t->prog) {
		ev.path = t->prog->path;
		ev.argv = (const char *const *)t->prog->argv;
	}
	emit(c, &ev);
	return 0;
}

static void task_ended(struct corral *c, struct task *t, int status)
{
	struct engine_part *en = OWN(c, engine);
	double now = run_time(c);
	struct corral_event ev = task_event(CORRAL_EV_EXIT, t);
	if (WIFSIGNALED(status)) {
		ev.sig = WTERMSIG(status);
		ev.core = WCOREDUMP(status);
	} else {
		ev.status = WEXITSTATUS(status);
	}
	if (en->wait_ru && !(t->flags & TF_THREAD)) {
		/* wait4's, for the process and the children it reaped. */
		const struct rusage *ru = en->wait_ru;
		ev.has_rusage = true;
		ev.cpu_user = (double)ru->ru_utime.tv_sec +
			      (double)ru->ru_utime.tv_usec * 1e-6;
		ev.cpu_sys = (double)ru->ru_stime.tv_sec +
			     (double)ru->ru_stime.tv_usec * 1e-6;
		ev.max_rss = ru->ru_maxrss;
	}
	emit(c, &ev);

	bool thread = t->flags & TF_THREAD;
	pid_t tgid = t->tgid;
	bool root = t->tid == c->spawn.root;
	if (!(t->flags & TF_ANNOUNCED) && (t->flags & TF_SEEN_STOP) &&
	    en->orphans)
		en->orphans--;
	release_vfork_parent(c, t);
	clear_vfork_wait(c, t);
	if (t->ept || c->eptrace.list || c->eptrace.zombies)
		eptrace_gone(c, t, status);
	if (thread) {
		struct task *leader = table_find(&c->tab, tgid);
		if (leader && leader->nthreads > 0)
			leader->nthreads--;
	} else {
		t->ended = now;
		t->status = status;
		t->nthreads = 0;
	}
	table_remove(&c->tab, t); /* a thread's record is freed here */
	if (!thread)
		table_trim_history(&c->tab, TABLE_HISTORY);

	if (root) {
		en->root_exited = true;
		result_root_exit(c, status);
		if (!c->cfg.wait_all && c->tab.live_procs > 0 &&
		    c->phase.now == PH_RUN) {
			table_foreach_live(&c->tab, emit_left, c);
			phase_begin_ending(c, CORRAL_REASON_EXITED, 0);
		}
	}
	if (en->orphans && !thread)
		adopt_orphans(c, tgid);
}

static void on_new_child(struct corral *c, struct task *t, int event)
{
	struct engine_part *en = OWN(c, engine);
	unsigned long msg = 0;
	if (sys_ptrace(c->sys, PTRACE_GETEVENTMSG, t->tid, 0, &msg) < 0)
		return; /* killed mid-event: its exit will follow */
	pid_t ct = (pid_t)msg;
	enum corral_event_type type =
		event == PTRACE_EVENT_FORK    ? CORRAL_EV_FORK
		: event == PTRACE_EVENT_VFORK ? CORRAL_EV_VFORK
					      : CORRAL_EV_CLONE;
	/*
	 * A thread or a process? The clone's flags, from the creator's
	 * registers (clone3 is refused by the containment filter); where
	 * they cannot be read, whether /proc lists the new tid in the
	 * creator's thread group (a path lookup: about twice the cost).
	 */
	if (type == CORRAL_EV_CLONE) {
		long fl = c->sys->clone_flags(c->sys->ctx, t->tid);
		if (fl >= 0 ? (fl & CLONE_THREAD) != 0
			    : c->sys->is_thread_of(c->sys->ctx, t->tgid, ct))
			type = CORRAL_EV_THREAD;
	}
	struct task *child = table_find(&c->tab, ct);
	if (child && (child->flags & TF_ANNOUNCED)) {
		/* Cannot happen for a live tid; keep going, do not corrupt. */
		task_resume(c, t, 0);
		return;
	}
	if (!child) {
		bool thread = type == CORRAL_EV_THREAD;
		child = table_add(&c->tab, ct, thread ? t->tgid : ct, thread);
		if (!child) {
			task_resume(c, t, 0);
			return;
		}
		child->born = run_time(c);
	}
	if (t->flags & TF_SETUP)
		child->flags |= TF_SETUP;
	if (type != CORRAL_EV_THREAD) {
		/* It runs what its creator runs now, until it execs. */
		const struct task *leader =
			(t->flags & TF_THREAD) ? table_find(&c->tab, t->tgid)
					       : t;
		if (leader)
			task_share_prog(child, leader);
	}
	if (c->spawn.sandboxed) {
		pid_t tg, pp;
		c->sys->ids(c->sys->ctx, ct, &tg, &pp, &child->nspid);
		if (child->nspid == ct)
			child->nspid = 0;
	}
	if (type == CORRAL_EV_VFORK) {
		child->vfork_parent = t->tid;
		if (!(t->flags & TF_VFORK_WAIT))
			en->vfork_waiting++;
		t->flags |= TF_VFORK_WAIT;
	}
	if (t->ept || c->eptrace.list)
		eptrace_new_child(c, t, child, event);
	announce(c, child, t->tid, t->tgid, type, NULL);
	task_resume(c, t, 0);
}

static void on_exec(struct corral *c, struct task *t)
{
	struct engine_part *en = OWN(c, engine);
	unsigned long former = 0;
	sys_ptrace(c->sys, PTRACE_GETEVENTMSG, t->tid, 0, &former);
	if (former && (pid_t)former != t->tid) {
		/*
		 * A non-leader thread exec'd and now wears the leader's tid.
		 * Its old tid reports nothing more: drop the record.
		 */
		struct task *f = table_find(&c->tab, (pid_t)former);
		if (f && f != t) {
			release_vfork_parent(c, f);
			clear_vfork_wait(c, f);
			if (f->ept || c->eptrace.list)
				eptrace_gone(c, f, 0);
			if (t->nthreads > 1)
				t->nthreads--;
			table_remove(&c->tab, f);
		}
	} else {
		former = 0;
	}
	release_vfork_parent(c, t);
	/*
	 * Under --sandbox everything before the command is bubblewrap's
	 * setup. bwrap itself is the root's first exec; any later exec of
	 * a setup task is the command starting inside the sandbox.
	 */
	if ((t->flags & TF_SETUP) &&
	    (t->tid != c->spawn.root || en->root_execed))
		t->flags &= ~TF_SETUP;
	if (!(t->flags & TF_SETUP))
		en->command_execed = true;
	result_exec(c);
	if (t->tid == c->spawn.root)
		en->root_execed = true;
	char *path = NULL, *block = NULL, *cwd = NULL;
	char **argv = NULL;
	if (c->lifecycle.want_argv) {
		path = c->sys->exe(c->sys->ctx, t->tid);
		/* where it runs: "which call failed, in which directory" */
		cwd = c->sys->cwd(c->sys->ctx, t->tid);
		/* From the pristine stack; else /proc (a 32-bit tracee). */
		if (c->sys->exec_argv(c->sys->ctx, t->tid, &block, &argv) < 0)
			c->sys->argv(c->sys->ctx, t->tid, &block, &argv);
	}
	t->nexecs++;
	struct corral_event ev = task_event(CORRAL_EV_EXEC, t);
	ev.former = (pid_t)former;
	ev.path = path;
	ev.argv = (const char *const *)argv;
	ev.cwd = cwd;
	/* The journal gets the whole argv; the table keeps a capped copy. */
	emit(c, &ev);
	free(cwd);
	task_set_exec(t, path, block, argv);
	if (t->ept)
		eptrace_exec(c, t);
	task_resume(c, t, 0);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

static void on_stop(struct corral *c, struct task *t, int sig)
{
	if (!(t->flags & TF_SEEN_STOP)) {
		/* The initial stop of an auto-attached child. */
		t->flags |= TF_SEEN_STOP;
		if (c->phase.now == PH_KILLING)
			task_kill(c, t);
		if (t->flags & TF_ANNOUNCED)
			task_resume(c, t, 0);
		else
			table_set_state(&c->tab, t, TS_HELD);
		return;
	}
	if (is_stop_signal(sig)) {
		t->flags |= TF_AT_GSTOP;
		if (!(t->flags & TF_GSTOPPED)) {
			t->flags |= TF_GSTOPPED;
			emit_task(c, CORRAL_EV_STOP, t, sig);
			/* ^Z: corral's own job may have to stop (groups.c) */
			groups_member_stopped(c, t, sig);
		}
		if (t->ept)
			eptrace_group_stop(c, t, sig);
	} else if (t->flags & TF_GSTOPPED) {
		/* Re-trap after PTRACE_LISTEN: the group was continued. */
		t->flags &= ~TF_GSTOPPED;
		emit_task(c, CORRAL_EV_CONT, t, 0);
	}
	/*
	 * Our PTRACE_INTERRUPT landing, or any other stop: while stop-all
	 * holds the tree task_resume() keeps it; after resume-all (a vfork
	 * parent released late reports its interrupt then) it lets it go.
	 */
	task_resume(c, t, 0);
}

static void on_signal(struct corral *c, struct task *t, int sig)
{
	emit_task(c, CORRAL_EV_SIGNAL, t, sig);
	/* Before the signal is delivered: the stack is still the crash's. */
	if ((c->cfg.stacks & CORRAL_STACKS_CRASH) && stacks_is_crash(sig))
		stacks_one(c, t, "crash");
	/* --core crash: kept at this stop until its core is written. */
	if (cores_crash(c, t, sig))
		return;
	/* Delivered unchanged: a traced command must behave as untraced. */
	task_resume(c, t, sig);
}

void engine_handle(struct corral *c, pid_t pid, int status)
{
	struct task *t = table_find(&c->tab, pid);
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		/*
		 * An unknown tid can exit: the former tid of an exec'ing
		 * thread is dropped before the kernel reaps it in rare
		 * orders. Nothing to record then.
		 */
		if (t)
			task_ended(c, t, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	if (!t) {
		t = new_orphan(c, pid);
		if (!t) /* out of memory: never leave a task stuck */
			sys_ptrace(c->sys, PTRACE_CONT, pid, 0, 0);
		return;
	}
	int sig = WSTOPSIG(status);
	unsigned event = (unsigned)status >> 16;
	/* Whatever a task reports first, it is past its initial stop. */
	if (event != PTRACE_EVENT_STOP)
		t->flags |= TF_SEEN_STOP;
	t->flags &= ~(TF_AT_GSTOP | TF_AT_SECCOMP);
	if (event == PTRACE_EVENT_SECCOMP)
		t->flags |= TF_AT_SECCOMP;
	else if (event == PTRACE_EVENT_STOP && t->ept)
		eptrace_event_stop(c, t);
	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		on_new_child(c, t, (int)event);
		break;
	case PTRACE_EVENT_EXEC:
		on_exec(c, t);
		break;
	case PTRACE_EVENT_STOP:
		on_stop(c, t, sig);
		break;
	case PTRACE_EVENT_SECCOMP:
		engine_seccomp(c, t);
		break;
	case 0:
		if (sig == (SIGTRAP | 0x80)) /* PTRACE_O_TRACESYSGOOD */
			eptrace_syscall_stop(c, t);
		else
			on_signal(c, t, sig);
		break;
	default:
		task_resume(c, t, 0);
	}
	/* A stop held for an emulated tracer: tell it (eptrace.c). */
	if (eptrace_news(c))
		eptrace_deliver(c);
}

/*
 * Take one batch of wait statuses from the waiter and handle each: the
 * only way statuses reach the engine, for the loop and for the ending's
 * waits alike.
 */
void engine_handle_waited(struct corral *c, const struct waited *w)
{
	struct engine_part *en = OWN(c, engine);
	en->wait_ru = w->has_ru ? &w->ru : NULL;
	engine_handle(c, w->pid, w->status);
	en->wait_ru = NULL;
}

/*
 * The exec of a new process reads /proc/PID/exe while the process waits
 * at its exec stop, and the first lookup of /proc/PID builds its entries:
 * about half of that readlink's cost. Built here instead, while the
 * process runs towards its exec and the loop would sleep, the exec stop
 * pays only the readlink. A process that already exec'd, or more than
 * warm[] holds in one round, is simply not warmed.
 */
void engine_idle(struct corral *c)
{
	struct engine_part *en = OWN(c, engine);
	/* A stop held for an emulated tracer outside the engine (resume-all
	 * after a stop-all): tell it. */
	if (eptrace_news(c))
		eptrace_deliver(c);
	for (unsigned i = 0; i < en->nwarm; i++) {
		struct task *t = table_find(&c->tab, en->warm[i]);
		if (t && !t->nexecs && !(t->flags & TF_KILLED))
			c->sys->warm(c->sys->ctx, t->tid);
	}
	en->nwarm = 0;
}

int engine_drain(struct corral *c, bool block)
{
	/*
	 * Woken by the signalfd: the first statuses the kernel has (up to
	 * ENGINE_EAGER_MAX) are each handled (the task resumed) as soon as
	 * taken, and the signalfd is read right after the first of them, so
	 * that neither the read nor a waitpid that finds the queue empty is
	 * between the first stop of a wake-up and its resume. Nothing is
	 * missed: a status that comes after the read raises a SIGCHLD the
	 * next sleep sees, and one that came before it is found by a
	 * waitpid made after it. So when an eager take made after the read
	 * finds the queue empty, the round is complete (the usual sequential
	 * case: one stop, one resume, one read, one empty waitpid) and no
	 * batch is collected. Bounded, so that a task that stops again at
	 * once cannot keep the others from their turn: past the bound the
	 * rest are taken as a batch.
	 */
	int first = 0;
	if (c->waiter.sigs_unread) {
		struct waited w;
		pid_t r = 0;
		while (first < ENGINE_EAGER_MAX &&
		       (r = waiter_take(c, -1, &w)) > 0) {
			engine_handle_waited(c, &w);
			first++;
			waiter_read_signals(c); /* once: after the first */
		}
		/* The read came before the take that found nothing. */
		if (r == 0 && first > 0) {
			waiter_note_empty(c);
			return first;
		}
		waiter_read_signals(c);
	}
	int n = waiter_collect(c, block);
	if (n == -ECHILD)
		return n;
	if (n <= 0)
		return first ? first : n;
	/* No drain runs inside a handler (callbacks cannot re-enter the
	 * loop: -EDEADLK), so the batch stays put while it is handled. */
	for (int i = 0; i < n; i++)
		engine_handle_waited(c, &c->waiter.batch[i]);
	return n + first;
}
