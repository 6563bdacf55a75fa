/*
 * diff_match.c - which process of run B is which of run A. Never by pid:
 * top down from the commands, the children of two matched processes are
 * matched by what they are (diff_keys.c: their first program and argv,
 * normalised), the k-th child of a kind in A with the k-th of that kind
 * in B. What is left is matched by program path when exactly one is left
 * of that path on each side (the argv differs: "similar"). A process not
 * matched leaves its descendants unmatched: they are in a subtree only
 * one run has.
 *
 * Each sibling list is sorted once: O(n log n) over the run, a few ms for
 * thousands of processes.
 */
#include <errno.h>
#include <stdlib.h>

#include "diff.h"
#include "grow.h"

const char *const dm_names[DM__COUNT] = {
	[DM_NONE] = "none",	    [DM_ROOT] = "root",
	[DM_UNIQUE] = "unique",	    [DM_POSITION] = "position",
	[DM_COUNTS] = "counts_differ", [DM_SIMILAR] = "similar",
};

struct mctx {
	struct drun *a, *b;
	struct dsib *sa, *sb, *la, *lb;
	size_t ca, cb, cla, clb;
	int *queue; /* matched pairs to visit: a, b, a, b... */
	size_t qn, qcap;
};

static int pair(struct mctx *c, int a, int b, enum dmatch how)
{
	c->a->other[a] = b;
	c->b->other[b] = a;
	c->a->how[a] = c->b->how[b] = (uint8_t)how;
	if (GROW(c->queue, c->qcap, c->qn + 2))
		return -ENOMEM;
	c->queue[c->qn++] = a;
	c->queue[c->qn++] = b;
	return 0;
}

static int by_sim(const void *x, const void *y)
{
	const struct dsib *a = x, *b = y;
	if (a->ident != b->ident)
		return a->ident < b->ident ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* The k-th unmatched of one kind (its ident replaced by the looser key)
 * left in la/lb: pair those alone of their path on both sides. */
static int similar(struct mctx *c, size_t na, size_t nb)
{
	qsort(c->la, na, sizeof(*c->la), by_sim);
	qsort(c->lb, nb, sizeof(*c->lb), by_sim);
	size_t i = 0, j = 0;
	while (i < na && j < nb) {
		int ka = c->la[i].ident, kb = c->lb[j].ident;
		size_t i2 = i, j2 = j;
		while (i2 < na && c->la[i2].ident == ka)
			i2++;
		while (j2 < nb && c->lb[j2].ident == kb)
			j2++;
		if (ka < kb) {
			i = i2;
			continue;
		}
		if (kb < ka) {
			j = j2;
			continue;
		}
		if (i2 - i == 1 && j2 - j == 1 &&
		    pair(c, c->la[i].idx, c->lb[j].idx, DM_SIMILAR))
			return -ENOMEM;
		i = i2;
		j = j2;
	}
	return 0;
}

/* Keep an unmatched sibling for similar(), under its looser key. */
static int leftover(struct dsib **l, size_t *cap, size_t *n, int idx,
		    const struct drun *r)
{
	if (r->other[idx] >= 0)
		return 0;
	if (GROW(*l, *cap, *n + 1))
		return -ENOMEM;
	(*l)[(*n)++] = (struct dsib){.ident = r->sim[idx], .idx = idx};
	return 0;
}

/* Match the children of a (in A) with those of b (in B); -1: roots. */
static int children(struct mctx *c, int a, int b)
{
	size_t na, nb, i = 0, j = 0, nla = 0, nlb = 0;
	if (ds_children(c->a, a, &c->sa, &c->ca, &na) ||
	    ds_children(c->b, b, &c->sb, &c->cb, &nb))
		return -ENOMEM;
	while (i < na && j < nb) {
		int ka = c->sa[i].ident, kb = c->sb[j].ident;
		if (ka != kb) {
			ka < kb ? i++ : j++;
			continue;
		}
		size_t i2 = i, j2 = j;
		while (i2 < na && c->sa[i2].ident == ka)
			i2++;
		while (j2 < nb && c->sb[j2].ident == kb)
			j2++;
		enum dmatch how = i2 - i != j2 - j ? DM_COUNTS
				  : i2 - i == 1	   ? DM_UNIQUE
						   : DM_POSITION;
		for (; i < i2 && j < j2; i++, j++)
			if (c->a->other[c->sa[i].idx] < 0 &&
			    c->b->other[c->sb[j].idx] < 0 &&
			    pair(c, c->sa[i].idx, c->sb[j].idx, how))
				return -ENOMEM;
		i = i2;
		j = j2;
	}
	for (i = 0; i < na; i++)
		if (leftover(&c->la, &c->cla, &nla, c->sa[i].idx, c->a))
			return -ENOMEM;
	for (j = 0; j < nb; j++)
		if (leftover(&c->lb, &c->clb, &nlb, c->sb[j].idx, c->b))
			return -ENOMEM;
	return nla && nlb ? similar(c, nla, nlb) : 0;
}

int dm_match(struct drun *a, struct drun *b)
{
	struct mctx c = {.a = a, .b = b};
	int e = 0;
	/* the two commands, whatever they ran: a diff is of one job */
	if (a->m->nprocs && b->m->nprocs && a->m->procs[0].parent < 0 &&
	    b->m->procs[0].parent < 0)
		e = pair(&c, 0, 0,
			 a->ident[0] == b->ident[0] ? DM_UNIQUE : DM_ROOT);
	if (!e)
		e = children(&c, -1, -1);
	for (size_t q = 0; q < c.qn && !e; q += 2)
		e = children(&c, c.queue[q], c.queue[q + 1]);
	free(c.sa);
	free(c.sb);
	free(c.la);
	free(c.lb);
	free(c.queue);
	return e;
}
