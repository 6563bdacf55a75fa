/*
 * waiter.c - collect a batch of wait statuses, without acting on any.
 *
 * waitpid(-1) makes the kernel walk the tracer's whole list of tracees
 * until it finds one with something to report; the ones already reported
 * and held are walked over every time. Taking a burst of k statuses that
 * way from n tracees costs up to k * n steps in the kernel: 20,000 threads
 * that all report at once (a SIGCONT makes every thread of a seized process
 * report a PTRACE_EVENT_STOP) took tens of seconds, and deadlines were
 * checked only between batches.
 *
 * waitpid(tid) looks at one task. So the waiter takes statuses with
 * waitpid(-1) while that is cheap, and once the time a batch has spent in
 * those walks exceeds what a sweep would cost (one waitpid(tid, WNOHANG) per
 * task that may have news: every live task we did not hold), it sweeps
 * (ski rental: never more than about twice the cheaper of the two). It
 * then goes back to waitpid(-1) for what a sweep cannot know of: children
 * not yet announced, held tasks that died.
 *
 * Bounded: a batch stops collecting after BATCH_MAX statuses or
 * BATCH_TIME seconds, whichever first; what the kernel still has waits for
 * the next round, which does not sleep first. The loop checks its
 * deadlines between batches, so a deadline is acted on within BATCH_TIME
 * plus the time to handle BATCH_MAX statuses (docs/design.md, "The loop").
 * A sweep that stops at the bound resumes where it stopped next time, so
 * every task gets its turn (fairness under storms).
 *
 * And the sleep between batches (waiter_sleep): ppoll() on the signalfd
 * (SIGCHLD: the kernel may have news; the signals corral acts on are read,
 * by waiter_read_signals() once the drain has handled its first status,
 * and noted, not acted on) and on the descriptors that must be served even
 * while a stop-all or kill-all waits (the pty relay, the live socket, a
 * stalled journal reader). Serving them is I/O only: what they ask for
 * (a render, a snapshot) is done by the loop between batches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "internal.h"
#include "pollfd.h"

/* One batch: at most this many statuses... */
#define BATCH_MAX 2048
/* ...or this many seconds of collecting. */
#define BATCH_TIME 0.010
/* A sweep is considered only once a batch is this big. */
#define SWEEP_MIN 32
/* The clock is read once per this many statuses. */
#define CLOCK_EVERY 16

/*
 * Whether to ask wait4() for the resource use of a status from task t
 * (NULL: not known yet, waitpid(-1)). The kernel computes it for every
 * status reported, stops included, by walking every live thread of the
 * task's group (thread_group_cputime): with thousands of threads that
 * made each status O(threads) and a burst quadratic. So it is asked for
 * only when something reads it (an exit line, a callback's event) and
 * where it is cheap: while the tree has fewer than RUSAGE_THREADS live
 * threads, or by tid for a process (not a thread) with few threads. An
 * exit line without it has no cpu_user/cpu_sys/max_rss.
 */
#define RUSAGE_THREADS 64
static bool want_rusage(const struct corral *c, const struct task *t)
{
	if (!c->lifecycle.want_rusage)
		return false;
	if (t)
		return !(t->flags & TF_THREAD) && t->nthreads < RUSAGE_THREADS;
	return c->tab.live - c->tab.live_procs < RUSAGE_THREADS;
}

/*
 * Room for one more status, made *before* a status is taken: a status
 * taken from the kernel and then dropped (an exit, say) would be lost for
 * good. The first 64 slots are inside struct corral, so a batch can always
 * be taken without memory.
 */
static bool room(struct corral *c, size_t n)
{
	struct waiter_part *wt = OWN(c, waiter);
	if (!wt->batch) {
		wt->batch = wt->batch0;
		wt->batch_cap = sizeof(wt->batch0) / sizeof(wt->batch0[0]);
	}
	if (n < wt->batch_cap)
		return true;
	size_t cap = wt->batch_cap * 2;
	struct waited *b;
	if (wt->batch == wt->batch0) {
		b = malloc(cap * sizeof(*b));
		if (b)
			memcpy(b, wt->batch0, sizeof(wt->batch0));
	} else {
		b = realloc(wt->batch, cap * sizeof(*b));
	}
	if (!b)
		return false;
	wt->batch = b;
	wt->batch_cap = cap;
	return true;
}

static void push(struct corral *c, size_t n, pid_t p, int st,
		 const struct rusage *ru)
{
	struct waiter_part *wt = OWN(c, waiter);
	wt->batch[n].pid = p;
	wt->batch[n].status = st;
	wt->batch[n].has_ru = ru != NULL;
	if (ru)
		wt->batch[n].ru = *ru;
	/* Taken: a sweep must not wait for it again in this batch. */
	struct task *t = table_find(&c->tab, p);
	if (t)
		t->flags |= TF_IN_BATCH;
	wt->batch[n].task = t;
}

/*
 * The batch is taken: no sweep looks at the flag again until the next
 * collect, and nothing was handled meanwhile, so the records are still
 * there (no second lookup per status on the way to the engine).
 */
static int batch_taken(struct corral *c, size_t n)
{
	struct waiter_part *wt = OWN(c, waiter);
	for (size_t i = 0; i < n; i++)
		if (wt->batch[i].task)
			wt->batch[i].task->flags &= ~TF_IN_BATCH;
	return (int)n;
}

static bool may_have_news(const struct task *t)
{
	/* A held task reports nothing more but its death, which the
	 * waitpid(-1) after the sweep finds. */
	return t->state != TS_HELD && !(t->flags & TF_IN_BATCH);
}

/*
 * waitpid(tid) for every task that may have news, from where the last
 * sweep stopped. Returns false when it stopped at the batch's bound.
 */
static bool sweep(struct corral *c, size_t *n, double t_end)
{
	struct waiter_part *wt = OWN(c, waiter);
	struct table *tab = &c->tab;
	size_t nb = tab->nbuckets, calls = 0, since_check = 0;
	double t0 = run_time(c);
	bool whole = true;
	size_t k, b = wt->sweep_bucket & (nb - 1);
	for (k = 0; k < nb; k++, b = (b + 1) & (nb - 1)) {
		for (struct task *t = tab->buckets[b]; t; t = t->hnext) {
			if (!may_have_news(t))
				continue;
			if (!room(c, *n)) {
				whole = false; /* the rest stays in the kernel
						*/
				goto out;
			}
			int st;
			struct rusage ru;
			struct rusage *rp = want_rusage(c, t) ? &ru : NULL;
			pid_t r = c->sys->waitpid(c->sys->ctx, t->tid, &st,
						  __WALL | WNOHANG, rp);
			calls++;
			since_check++;
			if (r > 0)
				push(c, (*n)++, r, st, rp);
		}
		/* The bound, checked between buckets (a chain is short). */
		if (since_check >= 256) {
			since_check = 0;
			if (*n >= BATCH_MAX || run_time(c) >= t_end) {
				whole = k + 1 == nb;
				b = (b + 1) & (nb - 1);
				goto out;
			}
		}
	}
out:
	wt->sweep_bucket = b;
	if (calls)
		wt->sweep_cost = (run_time(c) - t0) / (double)calls;
	return whole;
}

pid_t waiter_take(struct corral *c, pid_t tid, struct waited *w)
{
	/* tid -1 (the drain's first statuses): no record to look up. */
	struct task *t = tid > 0 ? table_find(&c->tab, tid) : NULL;
	struct rusage *rp = want_rusage(c, t) ? &w->ru : NULL;
	pid_t r = c->sys->waitpid(c->sys->ctx, tid, &w->status,
				  __WALL | WNOHANG, rp);
	w->pid = r;
	w->has_ru = rp != NULL;
	w->task = NULL;
	return r;
}

int waiter_collect(struct corral *c, bool block)
{
	struct waiter_part *wt = OWN(c, waiter);
	size_t n = 0, since_sweep = 0;
	double t0 = run_time(c), t_mark = t0;
	double t_end = t0 + BATCH_TIME;
	wt->queue_empty = false;
	if (wt->sweep_cost <= 0)
		wt->sweep_cost = 1e-6; /* a first guess; sweeps measure it */
	for (;;) {
		if (n && n % CLOCK_EVERY == 0) {
			double now = run_time(c);
			if (n >= BATCH_MAX || now >= t_end)
				break; /* the rest waits for the next round */
			/* Candidates for a sweep: the live tasks not held. */
			size_t cand = c->tab.live - c->tab.nstate[TS_HELD];
			if (since_sweep >= SWEEP_MIN &&
			    now - t_mark > (double)cand * wt->sweep_cost) {
				if (!sweep(c, &n, t_end))
					break;
				since_sweep = 0;
				t_mark = run_time(c);
			}
		}
		if (!room(c, n))
			break; /* no memory: handle what we have first */
		int st;
		struct rusage ru;
		int opt = __WALL | ((block && n == 0) ? 0 : WNOHANG);
		struct rusage *rp = want_rusage(c, NULL) ? &ru : NULL;
		pid_t p = c->sys->waitpid(c->sys->ctx, -1, &st, opt, rp);
		if (p == 0) {
			wt->queue_empty = true;
			break;
		}
		if (p < 0) {
			if (n == 0 && p != -EINTR)
				wt->queue_empty = true;
			if (n == 0)
				return p == -ECHILD ? -ECHILD : (int)p;
			/* No tracee is left: no signal will ever say so. */
			wt->saw_echild = p == -ECHILD;
			wt->queue_empty = true;
			break;
		}
		push(c, n++, p, st, rp);
		since_sweep++;
	}
	return batch_taken(c, n);
}

/*
 * Was the sender of a signal a member when it sent it? A member may signal
 * and exit at once: if its exit was handled before the signal is read, it
 * is out of the table by then. A signal read now was sent after the
 * previous read, so a member that ended since then counts too.
 */
static bool sent_by_member(struct corral *c, pid_t from)
{
	struct waiter_part *wt = OWN(c, waiter);
	if (table_find(&c->tab, from))
		return true;
	for (struct task *t = c->tab.first; t; t = t->next)
		if (t->tgid == from && t->ended >= wt->sigread_t)
			return true;
	return false;
}

void waiter_sleep(struct corral *c, double timeout)
{
	struct waiter_part *wt = OWN(c, waiter);
	/* The signalfd, then what is plugged in (plug.c): the pty, the
	 * live view, a stalled journal reader. */
	struct pollfd pfd[1 + PLUG_FDS] = {
		{.fd = c->lifecycle.sigfd, .events = POLLIN}};
	int counts[sizeof(c->plug.list) / sizeof(c->plug.list[0])];
	int n = plug_pollfds(c, pfd + 1, counts);
	if (c->sys->poll(c->sys->ctx, pfd, 1 + (unsigned)n, timeout) <= 0)
		return;
	plug_serve(c, pfd + 1, counts);
	/* Read by the drain, after its first status (engine_drain). */
	if (pfd[0].revents)
		wt->sigs_unread = true;
}

void waiter_look_for_signals(struct corral *c)
{
	OWN(c, waiter)->sigs_unread = true;
	waiter_read_signals(c);
}

int waiter_next_signal(struct corral *c, pid_t *from, bool *member)
{
	struct waiter_part *w = OWN(c, waiter);
	if (!w->pending_sigs)
		return 0;
	int sig = __builtin_ctz(w->pending_sigs);
	w->pending_sigs &= ~(1u << sig);
	*from = w->pending_from[sig];
	*member = w->pending_member & (1u << sig);
	return sig;
}

void waiter_note_signal(struct corral *c, int sig)
{
	OWN(c, waiter)->pending_sigs |= 1u << sig;
}

void waiter_note_empty(struct corral *c)
{
	OWN(c, waiter)->queue_empty = true;
}

void waiter_free(struct corral *c)
{
	struct waiter_part *w = OWN(c, waiter);
	if (w->batch != w->batch0)
		free(w->batch);
	w->batch = NULL;
}

void waiter_read_signals(struct corral *c)
{
	struct waiter_part *wt = OWN(c, waiter);
	if (!wt->sigs_unread)
		return;
	wt->sigs_unread = false;
	struct signalfd_siginfo si[16];
	ssize_t n;
	double now = run_time(c);
	while ((n = c->sys->read_signals(c->sys->ctx, c->lifecycle.sigfd, si,
					 16)) > 0) {
		for (size_t i = 0; i < (size_t)n; i++) {
			unsigned sig = si[i].ssi_signo;
			if (sig == SIGCHLD || sig >= 32)
				continue;
			pid_t from = (pid_t)si[i].ssi_pid;
			wt->pending_sigs |= 1u << sig;
			wt->pending_from[sig] = from;
			if (from && sent_by_member(c, from))
				wt->pending_member |= 1u << sig;
			else
				wt->pending_member &= ~(1u << sig);
		}
		/*
		 * Fewer than asked for: nothing else was pending (one read per
		 * wake-up, not a second one for EAGAIN). A signal that comes
		 * later keeps the signalfd readable for the next sleep.
		 */
		if (n < 16)
			break;
	}
	wt->sigread_t = now;
	/*
	 * What was read here (SIGCHLD: news; a signal to act on) is the next
	 * step's work, and the signalfd no longer says so: corral_fd() must.
	 * A step re-arms it at its end; stop-all and kill-all called from
	 * outside a step (corral_request_end) leave it armed.
	 */
	if (c->pollfd)
		pollfd_arm(c, 0);
}
