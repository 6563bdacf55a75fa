/*
 * diff_keys.c - the keys of one run's processes: what each one is (its
 * first program and argv, normalised: diff_norm.c), a looser key (its
 * program's path), the chain of programs it ran, and its siblings in key
 * order. Matching (diff_match.c) and grouping (diff_group.c) compare runs
 * by these alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "grow.h"

/* An identity: a tag byte and numbers, interned. */
static int ident_of(struct dnorm *n, char tag, int a, int b)
{
	char k[1 + 2 * sizeof(int)];
	k[0] = tag;
	memcpy(k + 1, &a, sizeof(a));
	memcpy(k + 1 + sizeof(a), &b, sizeof(b));
	return dt_intern(&n->keys, k, sizeof(k));
}

static int alloc_run(struct drun *r)
{
	size_t np = r->m->nprocs ? r->m->nprocs : 1;
	size_t nx = r->m->nexecs ? r->m->nexecs : 1;
	r->xid = calloc(nx, sizeof(int));
	r->pathid = calloc(nx, sizeof(int));
	r->ident = calloc(np, sizeof(int));
	r->sim = calloc(np, sizeof(int));
	r->chain = calloc(np, sizeof(uint64_t));
	r->other = calloc(np, sizeof(int));
	r->how = calloc(np, 1);
	r->stack = calloc(np, sizeof(int));
	r->ndesc = calloc(np, sizeof(int));
	if (!r->xid || !r->pathid || !r->ident || !r->sim || !r->chain ||
	    !r->other || !r->how || !r->stack || !r->ndesc)
		return -ENOMEM;
	return 0;
}

/* What proc p is; its looser key; the programs it ran, hashed. */
static int proc_keys(struct dnorm *n, struct drun *r, int p)
{
	const struct rproc *pr = &r->m->procs[p];
	int id;
	if (pr->first_exec >= 0) {
		id = ident_of(n, 'X', r->xid[pr->first_exec], 0);
		r->sim[p] = r->pathid[pr->first_exec];
	} else if (pr->cmd_exec >= 0) {
		/* a fork that never exec'd: what it was forked running */
		id = ident_of(n, 'F', r->xid[pr->cmd_exec], pr->forks);
		r->sim[p] = id;
	} else {
		id = ident_of(n, '?', 0, 0);
		r->sim[p] = id;
	}
	if (id < 0)
		return id;
	r->ident[p] = id;
	uint64_t h = 0;
	for (int e = pr->first_exec; e >= 0; e = r->m->execs[e].next)
		h = dt_hash(&r->xid[e], sizeof(int), h);
	r->chain[p] = h;
	r->other[p] = -1;
	r->stack[p] = -1;
	return 0;
}

int dn_run(struct dnorm *n, struct drun *r)
{
	const struct corral_report *m = r->m;
	r->passing = m->has_end && m->exit_code == 0;
	if (alloc_run(r))
		return -ENOMEM;
	struct dcache c = {0};
	int e = 0;
	for (size_t i = 0; i < m->nexecs && !e; i++)
		e = dn_exec(n, &c, m, &m->execs[i], &r->xid[i], &r->pathid[i]);
	dc_free(&c);
	for (size_t i = 0; i < m->nprocs && !e; i++)
		e = proc_keys(n, r, (int)i);
	if (e)
		return e;
	for (size_t i = 0; i < m->nmarks; i++)
		if (m->marks[i].kind == MK_STACK && m->marks[i].proc >= 0)
			r->stack[m->marks[i].proc] = (int)i;
	/* a parent is created before its children: one pass from the end */
	for (size_t i = m->nprocs; i-- > 0;) {
		int p = m->procs[i].parent;
		if (p >= 0 && (size_t)p < i)
			r->ndesc[p] += r->ndesc[i] + 1;
	}
	return 0;
}

void dr_free(struct drun *r)
{
	free(r->xid);
	free(r->pathid);
	free(r->ident);
	free(r->sim);
	free(r->chain);
	free(r->other);
	free(r->how);
	free(r->stack);
	free(r->ndesc);
}

static int by_key(const void *x, const void *y)
{
	const struct dsib *a = x, *b = y;
	if (a->ident != b->ident)
		return a->ident < b->ident ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

int ds_children(const struct drun *r, int proc, struct dsib **v, size_t *cap,
		size_t *n)
{
	const struct corral_report *m = r->m;
	*n = 0;
	int c = proc >= 0 ? m->procs[proc].first_child : 0;
	for (; c >= 0 && (size_t)c < m->nprocs;
	     c = proc >= 0 ? m->procs[c].next_sibling : c + 1) {
		if (proc < 0 && m->procs[c].parent >= 0)
			continue;
		if (GROW(*v, *cap, *n + 1))
			return -ENOMEM;
		(*v)[(*n)++] = (struct dsib){.ident = r->ident[c], .idx = c};
	}
	if (*n > 1)
		qsort(*v, *n, sizeof(**v), by_key);
	for (size_t i = 0; i < *n; i++)
		(*v)[i].ord = i && (*v)[i - 1].ident == (*v)[i].ident
				      ? (*v)[i - 1].ord + 1
				      : 0;
	return 0;
}
