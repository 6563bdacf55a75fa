/*
 * table.c - process table: chained hash by tid plus birth-order list.
 *
 * Lookups happen on every ptrace event, so they must not depend on the size
 * of the tree: the hash doubles when the load factor passes 1, keeping
 * chains short. Tids are dense small integers, so the hash is a simple
 * multiplicative one.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "table.h"

static size_t slot(const struct table *t, pid_t tid)
{
	/* Fibonacci hashing: spreads consecutive tids over the buckets. */
	return ((uint32_t)tid * 2654435769u) & (t->nbuckets - 1);
}

int table_init(struct table *t)
{
	memset(t, 0, sizeof(*t));
	t->nbuckets = 256;
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	return t->buckets ? 0 : -ENOMEM;
}

static void prog_put(struct prog *g)
{
	if (!g || --g->refs)
		return;
	free(g->path);
	free(g->argv);
	free(g->argblock);
	free(g);
}

static void free_was(struct was *w)
{
	if (!w)
		return;
	for (unsigned i = 0; i < w->n; i++)
		free(w->name[i]);
	free(w);
}

static void free_task(struct task *task)
{
	prog_put(task->prog);
	free_was(task->was);
	free(task);
}

void table_destroy(struct table *t)
{
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct task *n;
		for (struct task *k = t->buckets[i]; k; k = n) {
			n = k->hnext;
			/* Live processes are also on the birth list. */
			if (k->flags & TF_THREAD)
				free_task(k);
		}
	}
	struct task *n;
	for (struct task *k = t->first; k; k = n) {
		n = k->next;
		free_task(k);
	}
	free(t->buckets);
	memset(t, 0, sizeof(*t));
}

struct task *table_find(const struct table *t, pid_t tid)
{
	for (struct task *k = t->buckets[slot(t, tid)]; k; k = k->hnext)
		if (k->tid == tid)
			return k;
	return NULL;
}

static void grow(struct table *t)
{
	size_t n = t->nbuckets * 2;
	struct task **b = calloc(n, sizeof(*b));
	if (!b)
		return; /* longer chains, still correct */
	struct task **old = t->buckets;
	size_t oldn = t->nbuckets;
	t->buckets = b;
	t->nbuckets = n;
	for (size_t i = 0; i < oldn; i++) {
		struct task *next;
		for (struct task *k = old[i]; k; k = next) {
			next = k->hnext;
			size_t s = slot(t, k->tid);
			k->hnext = b[s];
			b[s] = k;
		}
	}
	free(old);
}

struct task *table_add(struct table *t, pid_t tid, pid_t tgid, bool thread)
{
	struct task *k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->tid = tid;
	k->tgid = tgid;
	k->state = TS_NEW;
	k->ended = -1;
	k->nthreads = 1;
	k->threads_seen = 1;
	if (thread) {
		k->flags |= TF_THREAD;
		k->nthreads = k->threads_seen = 0;
	} else {
		if (t->last)
			t->last->next = k;
		else
			t->first = k;
		t->last = k;
		t->live_procs++;
	}
	if (t->live >= t->nbuckets)
		grow(t);
	size_t s = slot(t, tid);
	k->hnext = t->buckets[s];
	t->buckets[s] = k;
	t->live++;
	t->nstate[TS_NEW]++;
	return k;
}

static void unhash(struct table *t, struct task *task)
{
	struct task **pp = &t->buckets[slot(t, task->tid)];
	while (*pp && *pp != task)
		pp = &(*pp)->hnext;
	if (*pp) {
		*pp = task->hnext;
		t->live--;
	}
	task->hnext = NULL;
}

void table_set_state(struct table *t, struct task *task, enum task_state s)
{
	t->nstate[task->state]--;
	t->nstate[s]++;
	task->state = s;
}

void table_remove(struct table *t, struct task *task)
{
	table_set_state(t, task, TS_DEAD);
	t->nstate[TS_DEAD]--; /* the dead are not counted, only the live */
	unhash(t, task);
	if (task->flags & TF_THREAD) {
		free_task(task);
		return;
	}
	t->live_procs--;
	t->dead_procs++;
}

void table_make_thread(struct table *t, struct task *task, pid_t tgid)
{
	task->tgid = tgid;
	if (task->flags & TF_THREAD)
		return;
	/* Take it off the birth list: it is not a process. */
	struct task *prev = NULL;
	for (struct task *k = t->first; k; prev = k, k = k->next) {
		if (k != task)
			continue;
		if (prev)
			prev->next = k->next;
		else
			t->first = k->next;
		if (t->last == k)
			t->last = prev;
		break;
	}
	task->next = NULL;
	task->flags |= TF_THREAD;
	task->nthreads = task->threads_seen = 0;
	t->live_procs--;
}

/*
 * A copy of argv in one block of at most TABLE_ARGV_KEEP bytes of strings
 * plus the pointer array; NULL when out of memory.
 */
static char **cut_argv(char **argv, char **block)
{
	size_t n = 0, bytes = 0;
	for (; argv[n]; n++) {
		size_t l = strlen(argv[n]) + 1;
		if (bytes + l > TABLE_ARGV_KEEP) {
			n++; /* this one, cut short */
			break;
		}
		bytes += l;
	}
	char *b = malloc(TABLE_ARGV_KEEP + 1);
	char **v = malloc((n + 1) * sizeof(*v));
	if (!b || !v) {
		free(b);
		free(v);
		return NULL;
	}
	size_t off = 0;
	for (size_t i = 0; i < n; i++) {
		size_t room = TABLE_ARGV_KEEP - off;
		size_t l = strnlen(argv[i], room);
		memcpy(b + off, argv[i], l);
		b[off + l] = 0;
		v[i] = b + off;
		off += l + 1;
		if (off >= TABLE_ARGV_KEEP)
			off = TABLE_ARGV_KEEP; /* the last one ends the block */
	}
	v[n] = NULL;
	*block = b;
	return v;
}

static bool argv_fits(char **argv)
{
	size_t bytes = 0;
	for (size_t i = 0; argv[i]; i++) {
		bytes += strlen(argv[i]) + 1;
		if (bytes > TABLE_ARGV_KEEP)
			return false;
	}
	return true;
}

static const char *base(const char *s)
{
	const char *b = strrchr(s, '/');
	return b ? b + 1 : s;
}

const char *prog_name(const struct prog *g)
{
	if (!g)
		return NULL;
	if (g->argv && g->argv[0] && *base(g->argv[0]))
		return base(g->argv[0]);
	if (g->path && *base(g->path))
		return base(g->path);
	return NULL;
}

/* Keep the name of the program a process leaves by exec'ing. */
static void remember(struct task *p, const struct prog *old)
{
	const char *name = prog_name(old);
	struct was *w = p->was;
	if (!w && !(w = p->was = calloc(1, sizeof(*w))))
		return;
	char *n = strndup(name ? name : "?", TABLE_WAS_NAME);
	if (!n)
		return;
	if (w->n == TABLE_WAS_KEEP) {
		free(w->name[0]);
		memmove(w->name, w->name + 1, sizeof(w->name[0]) * (w->n - 1));
		w->n--;
		w->dropped++;
	}
	w->name[w->n++] = n;
}

void task_set_exec(struct task *p, char *path, char *argblock, char **argv)
{
	bool cut = false;
	if (argv && !argv_fits(argv)) {
		char *b = NULL;
		char **v = cut_argv(argv, &b);
		free(argv);
		free(argblock);
		argv = v;
		argblock = b;
		cut = true;
	}
	/* The program it leaves, when it was its own (not its fork's) and
	 * known by name. */
	if (p->nexecs > 1 && prog_name(p->prog))
		remember(p, p->prog);
	prog_put(p->prog);
	p->prog = NULL;
	/* Nothing recorded (no journal: corral reads no argv at an exec):
	 * no program, so that readers go to /proc as for an unknown one. */
	if (!path && !argv)
		return;
	p->prog = calloc(1, sizeof(*p->prog));
	if (!p->prog) {
		free(path);
		free(argblock);
		free(argv);
		return;
	}
	*p->prog = (struct prog){.refs = 1,
				 .cut = cut,
				 .path = path,
				 .argv = argv,
				 .argblock = argblock};
}

void task_share_prog(struct task *child, const struct task *creator)
{
	if (!creator->prog || child->prog)
		return;
	child->prog = creator->prog;
	child->prog->refs++;
}

void table_trim_history(struct table *t, size_t max)
{
	struct task *prev = NULL, *k = t->first;
	while (t->dead_procs > max && k) {
		struct task *next = k->next;
		if (k->state != TS_DEAD) {
			prev = k;
			k = next;
			continue;
		}
		if (prev)
			prev->next = next;
		else
			t->first = next;
		if (t->last == k)
			t->last = prev;
		free_task(k);
		t->dead_procs--;
		t->dropped++;
		k = next;
	}
}

int table_foreach_live(struct table *t, int (*fn)(struct task *, void *),
		       void *arg)
{
	for (size_t i = 0; i < t->nbuckets; i++) {
		for (struct task *k = t->buckets[i]; k; k = k->hnext) {
			int r = fn(k, arg);
			if (r)
				return r;
		}
	}
	return 0;
}
