/*
 * stacks.c - when to take stacks and how they reach the journal.
 *
 * The unwinding itself is unwind.c (libunwind-ptrace), reached through the
 * kernel seam (sys.h's unwind, so that scripted tests can give a stack to
 * a task that does not exist). Here: the moments
 * (--stacks: after stop-all when the tree is ended for a timeout, a signal
 * or what the command left behind; at the signal-delivery stop of a crash;
 * at an escape's seccomp stop; in a snapshot), the time budget for a large
 * tree, and the journal event. A thread whose unwind fails gets the frames
 * that could be had and the reason; corral itself never fails on it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "unwind.h"

int stacks_unwind(struct corral *c, struct task *t, struct corral_frame *frames,
		  int max, const char **err)
{
	*err = NULL;
	/* Through the kernel seam (sys.h): the unwinder is made there, at
	 * the first stack of the run. */
	int n = c->sys->unwind(c->sys->ctx, &c->unw, t->tgid, t->tid, frames,
			       max, err);
	if (n < 0) {
		if (!*err)
			*err = strerror(-n);
		n = 0;
	}
	c->res.stacks++;
	return n;
}

void stacks_one(struct corral *c, struct task *t, const char *why)
{
	struct corral_frame frames[UNWINDER_MAX_FRAMES];
	const char *err;
	int n = stacks_unwind(c, t, frames, UNWINDER_MAX_FRAMES, &err);
	struct corral_event ev = task_event(CORRAL_EV_STACK, t);
	ev.detail = why;
	ev.frames = frames;
	ev.nframes = n;
	ev.error = err;
	emit(c, &ev);
}

struct round {
	struct corral *c;
	const char *why;
	double deadline;
	unsigned long skipped;
};

static int stack_held(struct task *t, void *arg)
{
	struct round *r = arg;
	/* Only a task in a ptrace-stop can be unwound. */
	if (t->state != TS_HELD || !(t->flags & TF_SEEN_STOP))
		return 0;
	if (run_time(r->c) > r->deadline) {
		r->skipped++;
		return 0;
	}
	stacks_one(r->c, t, r->why);
	return 0;
}

/* Every thread of every member, within the budget. Tree must be held. */
void stacks_all(struct corral *c, const char *why)
{
	struct round r = {c, why, run_time(c) + c->cfg.stack_budget, 0};
	table_foreach_live(&c->tab, stack_held, &r);
	if (r.skipped) {
		char d[96];
		snprintf(d, sizeof(d),
			 "stack budget of %gs spent: %lu thread(s) skipped",
			 c->cfg.stack_budget, r.skipped);
		struct corral_event ev = {
			.type = CORRAL_EV_STACK, .detail = why, .error = d};
		emit(c, &ev);
		c->res.stacks_skipped += r.skipped;
	}
}

/* The --stacks moment for a reason the tree is ended, and its name. */
static unsigned moment(enum corral_reason r, const char **name)
{
	switch (r) {
	case CORRAL_REASON_TIMEOUT:
		*name = "timeout";
		return CORRAL_STACKS_TIMEOUT;
	case CORRAL_REASON_SIGNAL:
	case CORRAL_REASON_PARENT:
	case CORRAL_REASON_REQUEST:
		*name = "signal";
		return CORRAL_STACKS_SIGNAL;
	case CORRAL_REASON_EXITED:
		*name = "exit-left";
		return CORRAL_STACKS_EXITLEFT;
	case CORRAL_REASON_ESCAPE:
		*name = "escape";
		return CORRAL_STACKS_ESCAPE;
	default:
		*name = NULL;
		return 0;
	}
}

bool stacks_wanted(const struct corral *c)
{
	const char *name;
	return (c->cfg.stacks & moment(c->res.reason, &name)) != 0;
}

void stacks_at_ending(struct corral *c)
{
	const char *name;
	if (c->cfg.stacks & moment(c->res.reason, &name))
		stacks_all(c, name);
}

bool stacks_is_crash(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE || sig == SIGABRT;
}
