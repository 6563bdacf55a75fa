/*
 * phase.c - the run's phase and the hold, with one owner.
 *
 * c->phase.now says where the run is (run, grace, killing, done) and only
 * ever moves forward; c->phase.holding says that every stop is kept
 * (stop-all, and kill-all for good). Both are written here and nowhere else,
 * and so is the one decision that follows from them: whether a task at a stop
 * is resumed, kept, or killed on sight (task_resume).
 *
 * Keeping them apart is what makes an ending impossible to cancel: stop-all
 * and resume-all take and release the hold without touching the phase, so
 * a caller (or a snapshot, or the stacks taken at the end) that stops and
 * resumes the tree in the middle of a grace leaves the grace, and its
 * deadline, as they were. Only kill-all holds for good.
 *
 * This file is low in the layers (below the engine, which resumes every
 * stop through it, and below the ending, which drives the phase forward):
 * it waits for nothing and calls only the event sink and the kernel seam.
 */
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>

#include "internal.h"

/*
 * Deciding the end never stops or kills on the spot: it is often decided
 * in the middle of handling a batch of events (a fork past --max-procs, an
 * escape), where a nested wait would trample the batch. Stop-all and
 * kill-all run from ending_tick() (ending.c), called by the loop between
 * batches; no grace is a grace that is already over.
 */
void phase_begin_ending(struct corral *c, enum corral_reason why, int sig)
{
	struct phase_part *ph = OWN(c, phase);
	if (ph->now == PH_GRACE) {
		/* Asked again while waiting: no more grace. */
		ph->grace_deadline = run_time(c);
		return;
	}
	if (ph->now != PH_RUN)
		return;
	result_ending(c, why, sig, run_time(c));
	struct corral_event ev = {
		.type = CORRAL_EV_ENDING,
		.reason = why,
		.sig = sig,
	};
	emit(c, &ev);
	/*
	 * A fork bomb or a caught escape gets no grace: the point is to stop
	 * it now, not to let it clean up.
	 */
	bool grace = c->cfg.kill_after > 0 && why != CORRAL_REASON_MAXPROCS &&
		     why != CORRAL_REASON_ESCAPE;
	ph->now = PH_GRACE;
	ph->ending_started = false;
	ph->grace_len = grace ? c->cfg.kill_after : 0;
	ph->grace_start = run_time(c);
	ph->grace_deadline = ph->grace_start + ph->grace_len;
}

/* ending_tick() took the first step (stacks, SIGTERM): once per ending. */
void phase_ending_started(struct corral *c)
{
	struct phase_part *ph = OWN(c, phase);
	ph->ending_started = true;
}

/* The grace is the members' time, not our stacks': it starts at SIGTERM. */
void phase_grace_restart(struct corral *c)
{
	struct phase_part *ph = OWN(c, phase);
	if (ph->now == PH_GRACE && ph->grace_deadline > ph->grace_start)
		ph->grace_deadline = run_time(c) + ph->grace_len;
}

void phase_hold(struct corral *c)
{
	struct phase_part *ph = OWN(c, phase);
	ph->holding = true;
}

int phase_release(struct corral *c)
{
	struct phase_part *ph = OWN(c, phase);
	if (ph->now >= PH_KILLING)
		return -EBUSY;
	ph->holding = false;
	return 0;
}

void phase_kill(struct corral *c)
{
	struct phase_part *ph = OWN(c, phase);
	ph->now = PH_KILLING;
	ph->holding = true;
}

/* The kernel said no tracee is left (or kill-all gave up on the dying). */
void phase_done(struct corral *c)
{
	struct phase_part *ph = OWN(c, phase);
	if (ph->now == PH_GRACE) /* the tree ended within the grace */
		result_grace_took(c, run_time(c) - ph->grace_start);
	ph->now = PH_DONE;
}

void task_kill(struct corral *c, struct task *t)
{
	if (t->flags & TF_KILLED)
		return;
	t->flags |= TF_KILLED;
	c->sys->tgkill(c->sys->ctx, t->tgid, t->tid, SIGKILL);
}

/*
 * The emulated ptrace (eptrace.c) keeps a task held while its emulated
 * tracer has it stopped, and a tracer parked in a wait. A stop of a task
 * whose tracer asked for one (PTRACE_ATTACH, PTRACE_INTERRUPT), or a
 * signal about to be delivered to an emulated tracee, becomes its
 * emulated stop here, whatever stop it is: any real ptrace-stop holds the
 * task where it stands; eptrace_deliver() then tells the tracer.
 */
static bool ept_holds(struct corral *c, struct task *t, int sig)
{
	struct ept *e = t->ept;
	if (!e)
		return false;
	if (e->parked)
		return true;
	if (e->pass)
		return false;
	if (e->tracer && !e->stopped && (e->want || sig)) {
		e->stopped = true;
		e->step = false; /* its step is done (or cut short) */
		e->kind = sig ? EK_SIGNAL : e->want;
		e->sig = sig ? sig : e->want_sig;
		if (!sig) {
			e->want = EK_NONE;
			e->want_sig = 0;
		}
		e->arrived = true;
		OWN(c, phase)->ept_held++;
	}
	return e->stopped;
}

void task_resume(struct corral *c, struct task *t, int sig)
{
	const struct phase_part *ph = &c->phase;
	if (ept_holds(c, t, sig)) {
		if (t->state != TS_HELD)
			table_set_state(&c->tab, t, TS_HELD);
		if (ph->now == PH_KILLING)
			task_kill(c, t);
		return;
	}
	if (ph->holding) {
		/* Stop-all: every stop is kept; the signal goes in later. */
		if (t->state != TS_HELD)
			table_set_state(&c->tab, t, TS_HELD);
		if (sig)
			t->pending_sig = sig;
		if (ph->now == PH_KILLING)
			task_kill(c, t);
		return;
	}
	long r;
	/* LISTEN is only valid in a group-stop; any other stop gets CONT. */
	if (t->flags & TF_AT_GSTOP) {
		r = sys_ptrace(c->sys, PTRACE_LISTEN, t->tid, 0, 0);
		table_set_state(&c->tab, t, TS_LISTEN);
	} else {
		/* The emulated ptrace's own resumes (eptrace.c): its wait
		 * trap being installed, an emulated tracer's PTRACE_SYSCALL
		 * or PTRACE_SINGLESTEP. */
		struct ept *e = t->ept;
		int req = !e			       ? PTRACE_CONT
			  : e->step		       ? PTRACE_SINGLESTEP
			  : e->syscall_trace || e->inj ? PTRACE_SYSCALL
						       : PTRACE_CONT;
		r = sys_ptrace(c->sys, req, t->tid, 0, (void *)(long)sig);
		table_set_state(&c->tab, t, TS_RUNNING);
	}
	/*
	 * -ESRCH: killed while stopped (or not in a stop any more). Its
	 * exit will be reported; until then it is "running" to us.
	 */
	(void)r;
	t->pending_sig = 0;
	if (t->ept)
		t->ept->pass = false;
}
