/*
 * events.c - the event sink: the run's clock, and every event on its way
 * to the journal and the caller's callback.
 *
 * It sits below everything that produces events (engine, ending, stacks,
 * snapshot, spawn, the loop) and calls only the journal: it decides
 * nothing. In particular a line the journal lost under --journal-strict
 * does not end the run from here (that would call up into the ending in
 * the middle of whatever emitted it): journal_take_loss() is asked by the
 * loop between batches, and by spawn before anything starts.
 */
#include "internal.h"

double run_time(const struct corral *c)
{
	return c->sys->now(c->sys->ctx) - c->lifecycle.t0;
}

void emit(struct corral *c, struct corral_event *ev)
{
	ev->t = run_time(c);
	emit_at(c, ev);
}

void emit_at(struct corral *c, struct corral_event *ev)
{
	struct events_part *evp = OWN(c, events);
	journal_event(c, ev);
	if (c->cfg.on_event) {
		/* What the callback may call: see corral.h (-EDEADLK). */
		evp->in_callback++;
		c->cfg.on_event(ev, c->cfg.on_event_arg);
		evp->in_callback--;
	}
}

struct corral_event task_event(enum corral_event_type type,
			       const struct task *t)
{
	return (struct corral_event){
		.type = type,
		.pid = t->tid,
		.tgid = t->tgid,
		.nspid = t->nspid,
		.setup = t->flags & TF_SETUP,
	};
}
