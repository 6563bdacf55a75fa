/*
 * loop.c - the loop: one step at a time, until the kernel says no tracee
 * is left; the signals corral acts on, the deadlines, the end.
 *
 * The loop takes wait statuses in batches: it collects every status the
 * kernel has (WNOHANG) before handling any, so that a task that stops
 * again as soon as it is resumed cannot starve the others (sandbox2's
 * monitor does the same). When there is nothing, it sleeps in ppoll() on a
 * signalfd that carries SIGCHLD and the signals corral acts on, with the
 * nearest deadline as the timeout. The loop ends only when waitpid()
 * says ECHILD: the kernel, not a counter, says that no tracee is left.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pollfd.h"
#include "internal.h"

static void act_on_signals(struct corral *c)
{
	int sig;
	pid_t from;
	bool member;
	while ((sig = waiter_next_signal(c, &from, &member))) {
		if (sig == SIGWINCH) {
			pty_winch(c);
			continue;
		}
		if (sig == SIGUSR2) {
			if (c->sys->parent(c->sys->ctx) != c->lifecycle.parent)
				phase_begin_ending(c, CORRAL_REASON_PARENT, 0);
			continue;
		}
		if (member) {
			/*
			 * A member signalled its supervisor (the containment
			 * filter refuses kill() at corral, but not every path
			 * can be filtered): record it, do not obey it.
			 */
			char d[96];
			snprintf(d, sizeof(d), "signal %d to corral from %d",
				 sig, from);
			struct corral_event ev = {.type = CORRAL_EV_DENIED,
						  .pid = from,
						  .detail = d};
			emit(c, &ev);
			continue;
		}
		if (sig == SIGCONT) { /* fg or bg of corral's job */
			groups_sigcont(c);
			continue;
		}
		if (sig == SIGUSR1) {
			if (!c->journal && c->cfg.live_stderr)
				live_request_print(c); /* live.c */
			else
				snapshot_request(
					c,
					c->cfg.stacks & CORRAL_STACKS_SNAPSHOT);
			continue;
		}
		phase_begin_ending(c, CORRAL_REASON_SIGNAL, sig);
	}
}

static void check_deadlines(struct corral *c)
{
	if (c->spawn.deadline > 0 && run_time(c) >= c->spawn.deadline &&
	    (c->phase.now == PH_RUN || c->phase.now == PH_GRACE)) {
		if (c->phase.now == PH_RUN)
			phase_begin_ending(c, CORRAL_REASON_TIMEOUT, 0);
		else if (c->result.res.reason != CORRAL_REASON_TIMEOUT)
			/* The limit also bounds a grace begun for another
			 * reason (say, ending what the command left). */
			phase_begin_ending(c, c->result.res.reason, 0);
	}
	ending_tick(c);
	if (c->phase.now == PH_RUN || c->phase.now == PH_GRACE)
		snapshot_tick(c);
}

static void finish(struct corral *c)
{
	if (c->spawn.finished)
		return;
	spawn_finished(c);
	phase_done(c);
	/* Another supervisor of this process may start a tree now. */
	spawn_tree_done(c);
	if (!c->engine.root_execed)
		spawn_read_error(c);
	/* bwrap gave up before the command ran: the sandbox failed. */
	if (c->spawn.sandboxed && !c->engine.command_execed &&
	    !c->result.res.exec_failed &&
	    c->result.res.reason == CORRAL_REASON_NONE)
		result_sandbox_failed(c);
	if (c->result.res.sandbox_failed)
		sandbox_explain(c); /* the reason, for the end line */
	groups_restore(c);
	plug_finish(c); /* the pty's last output, its terminal modes */
	result_end_at(c, run_time(c));
	struct corral_event ev = {.type = CORRAL_EV_END,
				  .reason = c->result.res.reason,
				  .t = run_time(c)};
	/* The journal's last lines go out and the file is checked first:
	 * under --journal-strict a journal that failed fails the run. */
	result_decide(c, journal_settle(c));
	emit_at(c, &ev);
}

/*
 * Crashes kept at their signal-delivery stop for a core (cores.c): the
 * tree is held while it is written, then everything is resumed and the
 * signals are delivered. Before anything else may resume the tree.
 */
static void crash_cores(struct corral *c)
{
	if (c->phase.holding || !cores_pending(c))
		return;
	corral_stop_all(c);
	cores_crashed(c);
	corral_resume_all(c);
}

/* How long the loop may sleep: the caller's limit and our deadlines. */
static double sleep_for(const struct corral *c, int timeout_ms)
{
	double wait = timeout_ms < 0 ? -1 : timeout_ms / 1000.0;
	double now = run_time(c), due[3];
	/* What is plugged into the sleep may want it woken (a journal's exit
	 * lines waiting for company go out when due: jsink.c). */
	double later = plug_due(c);
	if (later >= 0 && (wait < 0 || later < wait))
		wait = later;
	int n = 0;
	/* The deadlines check_deadlines() acts on in this phase, no other:
	 * a timeout already acted on must not wake the loop in its grace. */
	bool run = c->phase.now == PH_RUN, grace = c->phase.now == PH_GRACE;
	if (c->spawn.deadline > 0 &&
	    (run || (grace && c->result.res.reason != CORRAL_REASON_TIMEOUT)))
		due[n++] = c->spawn.deadline;
	if (grace)
		due[n++] = c->phase.grace_deadline;
	double snap = snapshot_due(c);
	if (snap >= 0 && (run || grace))
		due[n++] = snap;
	for (int i = 0; i < n; i++) {
		double w = due[i] > now ? due[i] - now : 0; /* passed: now */
		if (wait < 0 || w < wait)
			wait = w;
	}
	return wait;
}

/*
 * One round: sleep until the kernel may have news (only when the previous
 * round emptied its queue), take the batch, act on signals and deadlines.
 *
 * Sleeping first and only after an empty queue keeps the sequential case
 * (one event, one resume) at one ppoll, one read of the signalfd and two
 * waitpid() calls per event: every status the kernel had was taken, and a
 * new one raises a SIGCHLD that stays pending in the signalfd, so nothing
 * is missed. The kernel's ECHILD raises no signal, so the round never
 * sleeps once a drain has seen it or the table is empty.
 */
int corral_step(struct corral *c, int timeout_ms)
{
	struct loop_part *lp = OWN(c, loop);
	if (c->events.in_callback)
		return -EDEADLK;
	if (!c->spawn.root)
		return -ECHILD;
	if (c->spawn.finished)
		return 0;
	if (lp->drained && !c->waiter.saw_echild && c->tab.live > 0)
		waiter_sleep(c, sleep_for(c, timeout_ms));
	else {
		/*
		 * No sleep, so no ppoll said whether a signal came: look
		 * anyway, before the batch (one read that finds nothing is
		 * cheap next to a batch; no first status waits on it here).
		 * Otherwise a storm that keeps the kernel's queue full
		 * (every batch cut at its bound) keeps a SIGTERM to corral
		 * unread for as long as it lasts.
		 */
		waiter_look_for_signals(c);
	}
	int n = 0;
	if (c->phase.now != PH_DONE)
		n = engine_drain(c, false);
	/* A batch cut at its bound left news in the kernel: no sleep. */
	lp->drained = c->waiter.queue_empty;
	if (n == -ECHILD || c->phase.now == PH_DONE) {
		finish(c);
		return 0;
	}
	act_on_signals(c);
	if (lp->end_request) { /* asked for from a callback */
		enum corral_reason why = lp->end_request;
		lp->end_request = CORRAL_REASON_NONE;
		corral_request_end(c, why);
	}
	/* --journal-strict: a lost line ends the run (journal.c says once). */
	if (journal_take_loss(c))
		phase_begin_ending(c, CORRAL_REASON_JOURNAL, 0);
	/* Job control: may stop corral itself; once continued, what the
	 * members reported meanwhile is taken now (groups.c says why). */
	if (groups_step(c)) {
		engine_drain(c, false);
		groups_continued(c);
	}
	crash_cores(c);
	live_step(c); /* live view requests */
	check_deadlines(c);
	if (c->phase.now == PH_DONE) {
		finish(c);
		return 0;
	}
	if (lp->drained && c->phase.now == PH_RUN)
		engine_idle(c); /* nothing to handle until the kernel says */
	/* corral_fd(): readable when the next step has something to do. */
	if (c->pollfd)
		pollfd_arm(c, (lp->drained && !c->waiter.saw_echild &&
			       c->tab.live > 0 && !c->waiter.pending_sigs)
				      ? sleep_for(c, -1)
				      : 0);
	return 1;
}

int corral_wait(struct corral *c)
{
	int r;
	while ((r = corral_step(c, -1)) > 0)
		;
	return r;
}

void corral_request_end(struct corral *c, enum corral_reason why)
{
	struct loop_part *lp = OWN(c, loop);
	if (!c->spawn.root || c->spawn.finished)
		return;
	if (c->events.in_callback) { /* the engine is mid-event: later */
		lp->end_request = why;
		pollfd_arm(c, 0);
		return;
	}
	phase_begin_ending(c, why, 0);
	ending_tick(c); /* without a grace, done before returning */
}

pid_t corral_root_pid(const struct corral *c)
{
	return c->spawn.root;
}

const char *corral_error(const struct corral *c)
{
	if (!c->result.errmsg[0] && sandbox_error(c))
		return sandbox_error(c);
	return c->result.errmsg;
}

int corral_foreach_proc(struct corral *c,
			void (*fn)(const struct corral_proc_info *p, void *arg),
			void *arg)
{
	for (struct task *t = c->tab.first; t; t = t->next) {
		struct corral_proc_info p = {
			.pid = t->tid,
			.ppid = t->creator_tgid,
			.nspid = t->nspid,
			.born = t->born,
			.ended = t->ended,
			.nthreads = t->nthreads,
			.threads_seen = t->threads_seen,
			.status = t->status,
			.setup = t->flags & TF_SETUP,
			.path = t->prog ? t->prog->path : NULL,
			.argv = t->prog ? (const char *const *)t->prog->argv
					: NULL,
			.nexecs = t->nexecs,
			.argv_truncated = t->prog && t->prog->cut,
		};
		switch (t->state) {
		case TS_HELD:
			p.state = 't';
			break;
		case TS_LISTEN:
			p.state = 'T';
			break;
		case TS_DEAD:
			p.state = 'Z';
			break;
		default:
			p.state = 'R';
		}
		fn(&p, arg);
	}
	return 0;
}
