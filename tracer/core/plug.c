/*
 * plug.c - the descriptors the loop's sleep serves, plugged in.
 *
 * The pty relay, the live view's socket and writer, and a journal whose
 * reader stalled each have descriptors that must be served even while a
 * stop-all or kill-all waits, and never block. Each offers one small table
 * of operations (struct io_plug: its descriptors, serving them, when it
 * wants to be woken, its last I/O, its close), added when the object is
 * made (supervisor_alloc); the waiter's sleep, corral_fd() and the loop go
 * through this file and name none of them. Adding a fourth is a table and
 * one plug_add().
 *
 * I/O only: what a descriptor asks for (a render, a snapshot) is done by
 * the loop between batches. At the bottom of the layers: it calls its
 * plugs through their tables, nothing by name.
 */
#include "internal.h"

void plug_add(struct corral *c, const struct io_plug *p)
{
	struct plug_part *pl = OWN(c, plug);
	if (pl->n < sizeof(pl->list) / sizeof(pl->list[0]))
		pl->list[pl->n++] = p;
}

int plug_pollfds(struct corral *c, struct pollfd *p, int *counts)
{
	const struct plug_part *pl = &c->plug;
	int n = 0;
	for (unsigned i = 0; i < pl->n; i++) {
		int k = pl->list[i]->pollfds(c, p + n);
		if (counts)
			counts[i] = k;
		n += k;
	}
	return n;
}

void plug_serve(struct corral *c, const struct pollfd *p, const int *counts)
{
	const struct plug_part *pl = &c->plug;
	for (unsigned i = 0; i < pl->n; i++) {
		if (counts[i])
			pl->list[i]->serve(c, p, counts[i]);
		p += counts[i];
	}
}

double plug_due(const struct corral *c)
{
	const struct plug_part *pl = &c->plug;
	double due = -1;
	for (unsigned i = 0; i < pl->n; i++) {
		double d = pl->list[i]->due ? pl->list[i]->due(c) : -1;
		if (d >= 0 && (due < 0 || d < due))
			due = d;
	}
	return due;
}

void plug_finish(struct corral *c)
{
	const struct plug_part *pl = &c->plug;
	for (unsigned i = 0; i < pl->n; i++)
		if (pl->list[i]->finish)
			pl->list[i]->finish(c);
}

void plug_close(struct corral *c)
{
	const struct plug_part *pl = &c->plug;
	for (unsigned i = 0; i < pl->n; i++)
		pl->list[i]->close(c);
}
