/*
 * diff_first.c - the first divergence: of the forks, execs and exits of
 * both runs, in the order each run had them (times from its own start),
 * the first whose counterpart in the other run differs or is missing. A
 * fork whose child is only in one run, an exec of a matched process whose
 * counterpart ran another program (or none) at that step, an exit of a
 * matched process that ended otherwise. Usually where to start reading.
 */
#include "diff.h"

static void consider(struct corral_diff *d, int side, int kind, int proc,
		     int exec, double t)
{
	const struct corral_report *m = d->runs[side].m;
	double rel = t - m->t_start;
	if (d->has_first && rel >= d->first.t)
		return;
	d->has_first = true;
	d->first = (struct dfirst){
		.side = side, .kind = kind, .proc = proc, .exec = exec, .t = rel};
}

/* The step at which the exec chains of matched a and b part, if any. */
static void chains(struct corral_diff *d, int a, int b)
{
	const struct drun *ra = &d->runs[0], *rb = &d->runs[1];
	int ea = ra->m->procs[a].first_exec, eb = rb->m->procs[b].first_exec;
	while (ea >= 0 || eb >= 0) {
		if (ea < 0 || eb < 0 || ra->xid[ea] != rb->xid[eb]) {
			if (ea >= 0)
				consider(d, 0, 1, a, ea, ra->m->execs[ea].t);
			if (eb >= 0)
				consider(d, 1, 1, b, eb, rb->m->execs[eb].t);
			return;
		}
		ea = ra->m->execs[ea].next;
		eb = rb->m->execs[eb].next;
	}
}

/* The forks of the subtrees only one run has (their tops). */
static void forks(struct corral_diff *d, const struct dlist *l, int side)
{
	for (size_t i = 0; i < l->n; i++) {
		int p = side ? l->v[i].b : l->v[i].a;
		consider(d, side, 0, p, -1, d->runs[side].m->procs[p].born);
	}
}

void df_first(struct corral_diff *d)
{
	const struct drun *ra = &d->runs[0], *rb = &d->runs[1];
	forks(d, &d->only_a, 0);
	forks(d, &d->only_b, 1);
	for (size_t i = 0; i < d->changed.n; i++) {
		const struct dentry *e = &d->changed.v[i];
		if (e->what & (DW_ARGV | DW_EXECS))
			chains(d, e->a, e->b);
		if (!(e->what & DW_END))
			continue;
		const struct rproc *pa = &ra->m->procs[e->a];
		const struct rproc *pb = &rb->m->procs[e->b];
		if (pa->has_exit)
			consider(d, 0, 2, e->a, -1, pa->ended);
		if (pb->has_exit)
			consider(d, 1, 2, e->b, -1, pb->ended);
	}
}
