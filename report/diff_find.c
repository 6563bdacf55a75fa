/*
 * diff_find.c - what differs between two matched runs, process by
 * process: the processes only one run has (each subtree once, at its top),
 * the matched ones that ended otherwise or ran other programs, and the
 * timing outliers. A process is slower only when it is by more than the
 * factor and by more than the floor, and only when its own children do
 * not account for it: a parent that waited for a slow child is not
 * reported beside the child.
 */
#include <errno.h>
#include <stdlib.h>

#include "diff.h"
#include "grow.h"

int dl_add(struct dlist *l, struct dentry e)
{
	if (GROW(l->v, l->cap, l->n + 1))
		return -ENOMEM;
	l->v[l->n++] = e;
	return 0;
}

double dp_duration(const struct corral_report *m, int proc)
{
	const struct rproc *p = &m->procs[proc];
	return p->has_exit ? p->ended - p->born : -1;
}

/* The tops of the subtrees run r has and the other does not. */
static int only(const struct drun *r, struct dlist *l, bool is_a)
{
	const struct corral_report *m = r->m;
	for (size_t i = 0; i < m->nprocs; i++) {
		int p = m->procs[i].parent;
		if (r->other[i] >= 0 || (p >= 0 && r->other[p] < 0))
			continue;
		struct dentry e = {.a = is_a ? (int)i : -1,
				   .b = is_a ? -1 : (int)i};
		if (dl_add(l, e))
			return -ENOMEM;
	}
	return 0;
}

/* What differs about matched a (in A) and b (in B). */
static unsigned what_differs(const struct drun *ra, const struct drun *rb,
			     int a, int b)
{
	const struct rproc *pa = &ra->m->procs[a], *pb = &rb->m->procs[b];
	unsigned w = 0;
	if (ra->how[a] == DM_SIMILAR ||
	    (ra->how[a] == DM_ROOT && ra->ident[a] != rb->ident[b]))
		w |= DW_ARGV;
	if (pa->how != pb->how || pa->has_exit != pb->has_exit ||
	    pa->left != pb->left ||
	    (pa->has_exit && (pa->status != pb->status || pa->sig != pb->sig ||
			      pa->core != pb->core)))
		w |= DW_END;
	if (ra->chain[a] != rb->chain[b] && !(w & DW_ARGV))
		w |= DW_EXECS;
	return w;
}

/*
 * B's duration less A's for each matched process (x[]), and the most any
 * of its matched descendants gained (up[], >= 0) and lost (down[], <= 0):
 * from the end, as children come after their parents.
 */
struct excess {
	double *x, *up, *down;
};

static int excesses(const struct drun *ra, const struct drun *rb,
		    struct excess *x)
{
	size_t n = ra->m->nprocs ? ra->m->nprocs : 1;
	x->x = calloc(n, sizeof(double));
	x->up = calloc(n, sizeof(double));
	x->down = calloc(n, sizeof(double));
	if (!x->x || !x->up || !x->down)
		return -ENOMEM;
	for (size_t i = ra->m->nprocs; i-- > 0;) {
		int b = ra->other[i];
		double da = dp_duration(ra->m, (int)i);
		double db = b >= 0 ? dp_duration(rb->m, b) : -1;
		x->x[i] = da >= 0 && db >= 0 ? db - da : 0;
		int p = ra->m->procs[i].parent;
		if (p < 0 || (size_t)p >= i)
			continue;
		double u = x->x[i] > x->up[i] ? x->x[i] : x->up[i];
		double dn = x->x[i] < x->down[i] ? x->x[i] : x->down[i];
		if (u > x->up[p])
			x->up[p] = u;
		if (dn < x->down[p])
			x->down[p] = dn;
	}
	return 0;
}

static int timing(struct corral_diff *d)
{
	const struct drun *ra = &d->runs[0], *rb = &d->runs[1];
	struct excess x;
	int e = excesses(ra, rb, &x);
	double fl = d->floor > 0 ? d->floor : 0;
	for (size_t i = 0; i < ra->m->nprocs && !e; i++) {
		int b = ra->other[i];
		double da = dp_duration(ra->m, (int)i);
		double db = b >= 0 ? dp_duration(rb->m, b) : -1;
		if (b < 0 || da < 0 || db < 0)
			continue;
		double g = x.x[i];
		struct dentry en = {.a = (int)i, .b = b,
				    .ratio = da > 0 ? db / da : 0};
		/* a descendant that gained (lost) as much explains it */
		if (db > da * d->factor && g > fl && x.up[i] < g - fl)
			e = dl_add(&d->slower, en);
		else if (da > db * d->factor && -g > fl && -x.down[i] < -g - fl)
			e = dl_add(&d->faster, en);
	}
	free(x.x);
	free(x.up);
	free(x.down);
	return e;
}

int df_find(struct corral_diff *d)
{
	struct drun *ra = &d->runs[0], *rb = &d->runs[1];
	int e = dm_match(ra, rb);
	if (!e)
		e = only(ra, &d->only_a, true);
	if (!e)
		e = only(rb, &d->only_b, false);
	for (size_t i = 0; i < ra->m->nprocs && !e; i++) {
		int b = ra->other[i];
		if (b < 0)
			continue;
		d->matched++;
		d->by_how[ra->how[i]]++;
		unsigned w = what_differs(ra, rb, (int)i, b);
		if (w)
			e = dl_add(&d->changed,
				   (struct dentry){.a = (int)i, .b = b, .what = w});
	}
	if (!e)
		e = timing(d);
	if (!e) {
		df_first(d);
		df_ending(d, ra->m, rb->m);
	}
	return e;
}
