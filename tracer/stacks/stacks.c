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
#include "walker.h"

int stacks_unwind(struct corral *c, struct task *t, struct corral_frame *frames,
		  int max, double limit, const char **err, const char **cut)
{
	*err = NULL;
	*cut = NULL;
	/* Through the kernel seam (sys.h): the walk session (walker.c) is
	 * made there, at the first stack of a round. */
	struct walk_out out = {0};
	int n = c->sys->unwind(c->sys->ctx, &c->walker, t->tgid, t->tid, frames,
			       max, limit, &c->lifecycle.stop_walks, &out);
	if (n < 0) {
		*err = strerror(-n);
		n = 0;
	} else {
		*err = out.why;
		*cut = out.cut;
	}
	result_stack(c);
	return n;
}

void stacks_end(struct corral *c)
{
	c->sys->unwind_end(c->sys->ctx, &c->walker);
}

/* At most this many processes whose walk was abandoned are remembered in
 * a round; past that, their other threads are tried (and bounded) too. */
#define ROUND_ABANDONED 16

struct round {
	struct corral *c;
	stacks_fn fn;
	void *arg;
	double deadline;
	bool signalled; /* a signal cut a walk: no more walks */
	pid_t abandoned[ROUND_ABANDONED];
	unsigned nabandoned;
	struct stacks_skips *skips;
};

static bool was_abandoned(const struct round *r, pid_t tgid)
{
	for (unsigned i = 0; i < r->nabandoned; i++)
		if (r->abandoned[i] == tgid)
			return true;
	return false;
}

static int stack_held(struct task *t, void *arg)
{
	struct round *r = arg;
	/* Only a task in a ptrace-stop can be unwound. */
	if (t->state != TS_HELD || !(t->flags & TF_SEEN_STOP))
		return 0;
	if (r->signalled) {
		r->skips->signal++;
		return 0;
	}
	double left = r->deadline - run_time(r->c);
	if (left <= 0) {
		r->skips->budget++;
		return 0;
	}
	/*
	 * A process whose walk had to be abandoned would most likely hold up
	 * every one of its threads the same way: one try per round.
	 */
	if (was_abandoned(r, t->tgid)) {
		r->skips->abandoned++;
		return 0;
	}
	struct corral_frame frames[UNWINDER_MAX_FRAMES];
	const char *err, *cut;
	int n = stacks_unwind(r->c, t, frames, UNWINDER_MAX_FRAMES,
			      left < STACK_WALK_LIMIT ? left : STACK_WALK_LIMIT,
			      &err, &cut);
	r->fn(r->c, t, frames, n, err, cut, r->arg);
	if (cut && !strcmp(cut, "signal"))
		r->signalled = true;
	else if (cut && !strcmp(cut, "deadline") &&
		 r->nabandoned < ROUND_ABANDONED)
		r->abandoned[r->nabandoned++] = t->tgid;
	return 0;
}

void stacks_round(struct corral *c, stacks_fn fn, void *arg,
		  struct stacks_skips *skips)
{
	*skips = (struct stacks_skips){0};
	struct round r = {.c = c,
			  .fn = fn,
			  .arg = arg,
			  .deadline = run_time(c) + c->cfg.stack_budget,
			  .skips = skips};
	table_foreach_live(&c->tab, stack_held, &r);
	stacks_end(c);
	result_stacks_skipped(c,
			      skips->budget + skips->signal + skips->abandoned);
}

void stacks_skips_text(const struct corral *c, const struct stacks_skips *s,
		       char *buf, size_t len, const char **cut)
{
	/* The round's own deadline first: it is the one the user set. */
	if (s->budget) {
		snprintf(buf, len,
			 "stack budget of %gs spent: %lu thread(s) skipped",
			 c->cfg.stack_budget, s->budget + s->abandoned);
		*cut = "deadline";
	} else if (s->signal) {
		snprintf(buf, len,
			 "a signal to corral cut the round: %lu thread(s) "
			 "skipped",
			 s->signal + s->abandoned);
		*cut = "signal";
	} else {
		snprintf(buf, len,
			 "%lu thread(s) of processes whose walk was abandoned "
			 "skipped",
			 s->abandoned);
		*cut = "deadline";
	}
}

static void stack_event(struct corral *c, struct task *t,
			const struct corral_frame *frames, int n,
			const char *err, const char *cut, void *arg)
{
	struct corral_event ev = task_event(CORRAL_EV_STACK, t);
	ev.detail = arg;
	ev.frames = frames;
	ev.nframes = n;
	ev.error = err;
	ev.cut = cut;
	emit(c, &ev);
}

void stacks_one(struct corral *c, struct task *t, const char *why)
{
	struct corral_frame frames[UNWINDER_MAX_FRAMES];
	const char *err, *cut;
	int n = stacks_unwind(c, t, frames, UNWINDER_MAX_FRAMES,
			      STACK_WALK_LIMIT, &err, &cut);
	/* The frames' strings belong to the session: out before its end. */
	stack_event(c, t, frames, n, err, cut, (void *)why);
	stacks_end(c);
}

/* Every thread of every member, within the budget. Tree must be held. */
void stacks_all(struct corral *c, const char *why)
{
	struct stacks_skips s;
	stacks_round(c, stack_event, (void *)why, &s);
	if (s.budget || s.signal || s.abandoned) {
		char d[128];
		const char *cut;
		stacks_skips_text(c, &s, d, sizeof(d), &cut);
		struct corral_event ev = {.type = CORRAL_EV_STACK,
					  .detail = why,
					  .error = d,
					  .cut = cut};
		emit(c, &ev);
	}
}

/* The --stacks moment for a reason the tree is ended, and its name. */
unsigned stacks_moment(enum corral_reason r, const char **name)
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
	return (c->cfg.stacks & stacks_moment(c->result.res.reason, &name)) !=
	       0;
}

void stacks_at_ending(struct corral *c)
{
	const char *name;
	if (c->cfg.stacks & stacks_moment(c->result.res.reason, &name))
		stacks_all(c, name);
}

bool stacks_is_crash(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE || sig == SIGABRT;
}
