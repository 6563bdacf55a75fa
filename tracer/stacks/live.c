/*
 * live.c - the tree as text: `corral run --tree` at the end, and the live
 * view of a running corral (SIGUSR1 to stderr, `corral ps PID` over a unix
 * socket).
 *
 * The text comes from the table, never from a /proc walk: the tree with
 * its lineage, what each process runs (its last exec; /proc/PID/cmdline
 * only for a live member whose argv was not recorded), its state and how
 * long it has lived.
 *
 * The live view is served from the supervisor's loop, which must never
 * block on a reader: a terminal can be stopped (^S) and a client can stop
 * reading. So stderr is written through a non-blocking descriptor of its
 * own (a new open of /proc/self/fd/2: the command's shared file status
 * flags are untouched) and what does not fit is dropped; socket clients
 * are served with non-blocking accept, read and write, their output is
 * bounded, at most LIVE_CLIENTS are served at once and the oldest is
 * dropped for a new one. A request is rendered between batches
 * (live_step), never inside the poll, so a request cannot nest a stop-all
 * inside a stop-all. Renders with stacks stop the tree: at most one per
 * LIVE_MIN_GAP seconds, like SIGUSR1 prints; requests in between are
 * coalesced (a SIGUSR1 flood costs one print per interval).
 *
 * The socket is abstract ("\0corral/live/PID"): nothing to clean up when
 * corral is SIGKILLed, and it lives in corral's network namespace (a
 * sandbox with its own network cannot reach it). Who may ask: a process
 * of the same uid (or root) that is not a member of the tree (SO_PEERCRED).
 * The client checks that the socket belongs to the pid it asked for, so a
 * squatter cannot answer in corral's name.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "live_io.h"
#include "names.h"
#include "quote.h"
#include "unwind.h"

#define LIVE_MIN_GAP 1.0 /* seconds between two renders with stacks */

/* ------------------------------------------------------------ rendering */

struct node {
	struct task *t;
	int parent;	 /* index, -1: a root */
	int child, next; /* first child, next sibling (birth order) */
	int lastchild;
	char **argv; /* read from /proc for this render, or NULL */
	char *block;
};

/* pid -> index of the latest process with that pid seen so far. */
struct pidmap {
	pid_t *k;
	int *v;
	size_t cap;
};

static int pm_slot(const struct pidmap *m, pid_t pid)
{
	size_t i = ((size_t)pid * 2654435761u) & (m->cap - 1);
	while (m->k[i] && m->k[i] != pid)
		i = (i + 1) & (m->cap - 1);
	return (int)i;
}

static const char *state_text(const struct task *t)
{
	if (t->flags & TF_GSTOPPED)
		return "stopped";
	if (t->state == TS_HELD)
		return "held by corral";
	return "running";
}

static void put_how(struct sbuf *b, const struct task *t, double now)
{
	char nb[16];
	if (t->ended < 0) {
		sb_puts(b, state_text(t));
		if (t->nthreads > 1)
			sb_printf(b, ", %d threads", t->nthreads);
		sb_printf(b, ", %.3fs", now - t->born);
		return;
	}
	if (WIFSIGNALED(t->status))
		sb_printf(b, "killed by %s%s",
			  signal_name(WTERMSIG(t->status), nb),
			  WCOREDUMP(t->status) ? " (core dumped)" : "");
	else
		sb_printf(b, "exit %d", WEXITSTATUS(t->status));
	sb_printf(b, ", %.3fs", t->ended - t->born);
}

static const char *const *node_argv(const struct node *n)
{
	if (n->t->prog && n->t->prog->argv)
		return (const char *const *)n->t->prog->argv;
	return (const char *const *)n->argv;
}

/* " (was a, b)": the programs it ran before its last exec. */
static void put_was(struct sbuf *b, const struct was *w)
{
	if (!w || !w->n)
		return;
	sb_puts(b, " (was ");
	if (w->dropped)
		sb_printf(b, "%u more, ", w->dropped);
	for (unsigned i = 0; i < w->n; i++) {
		if (i)
			sb_puts(b, ", ");
		quote_arg(b, w->name[i]);
	}
	sb_putc(b, ')');
}

static void put_line(struct corral *c, struct sbuf *b, struct node *v, int i,
		     int depth, const bool *last, double now)
{
	quote_tree_branch(b, depth, last);
	struct node *n = &v[i];
	sb_printf(b, "%d ", n->t->tid);
	const char *const *av = node_argv(n);
	if ((n->t->flags & TF_SETUP) && n->t->tid == c->spawn.root &&
	    c->cfg.argv && c->cfg.argv[0]) {
		/* --sandbox: the run as the user sees it, their command at
		 * the root (bwrap's command line is in the journal) */
		sb_puts(b, "(sandbox) ");
		quote_argv(b, (const char *const *)c->cfg.argv);
	} else if (n->t->flags & TF_SETUP) {
		/* bubblewrap's own processes: by name */
		const char *nm = prog_name(n->t->prog);
		char cut[TABLE_WAS_NAME + 1];
		snprintf(cut, sizeof(cut), "%s", nm ? nm : "?");
		sb_puts(b, "(setup) ");
		quote_arg(b, cut);
	} else {
		if (n->t->nexecs == 0 && n->t->tid != c->spawn.root) {
			/* A fork that never exec'd runs the program its
			 * creator ran when it forked: said once. Unknown (its
			 * creator's event was lost, or no argv is kept): the
			 * nearest ancestor's. */
			sb_puts(b, "(fork) ");
			for (int p = n->parent; !av && p >= 0; p = v[p].parent)
				av = node_argv(&v[p]);
		}
		if (av && av[0])
			quote_argv(b, av);
		else if (n->t->prog && n->t->prog->path)
			quote_arg(b, n->t->prog->path);
		else
			sb_putc(b, '?');
	}
	put_was(b, n->t->was);
	sb_puts(b, " [");
	put_how(b, n->t, now);
	sb_puts(b, "]\n");
}

/* Iterative depth-first walk: a 10,000-deep chain must not blow the stack. */
static void put_forest(struct corral *c, struct sbuf *b, struct node *v, int n,
		       double now)
{
	int *stack = malloc(sizeof(int) * (size_t)(n + 1));
	int *depth = malloc(sizeof(int) * (size_t)(n + 1));
	bool last[QUOTE_TREE_MAX_INDENT + 1] = {0};
	if (!stack || !depth) {
		b->oom = true;
		free(stack);
		free(depth);
		return;
	}
	for (int r = 0; r < n; r++) {
		if (v[r].parent != -1) /* a child, or not drawn (< -1) */
			continue;
		int sp = 0;
		stack[sp] = r;
		depth[sp++] = 0;
		while (sp) {
			int i = stack[--sp], d = depth[sp];
			if (d > 0 && d <= QUOTE_TREE_MAX_INDENT)
				last[d] = v[v[i].parent].lastchild == i;
			put_line(c, b, v, i, d, last, now);
			/* Children pushed in reverse: printed in birth order.
			 */
			int kids = 0;
			for (int k = v[i].child; k >= 0; k = v[k].next)
				kids++;
			int at = sp + kids;
			for (int k = v[i].child; k >= 0; k = v[k].next) {
				stack[--at] = k;
				depth[at] = d + 1;
			}
			sp += kids;
		}
	}
	free(stack);
	free(depth);
}

static void stack_text(struct corral *c, struct task *t,
		       const struct corral_frame *f, int n, const char *err,
		       const char *cut, void *arg)
{
	struct sbuf *b = arg;
	sb_printf(b, "stack of %d (process %d):\n", t->tid, t->tgid);
	for (int i = 0; i < n; i++) {
		sb_printf(b, "  #%-2d 0x%llx ", i, (unsigned long long)f[i].ip);
		if (f[i].func) {
			quote_text(b, f[i].func);
			sb_printf(b, "+0x%llx", (unsigned long long)f[i].off);
		} else {
			sb_putc(b, '?');
		}
		if (f[i].module) {
			sb_puts(b, " (");
			quote_text(b, f[i].module);
			sb_putc(b, ')');
		}
		sb_putc(b, '\n');
	}
	if (err) {
		sb_puts(b, "  (");
		quote_text(b, err);
		sb_puts(b, ")\n");
	}
	if (cut)
		sb_printf(b, "  (truncated: %s)\n", cut);
}

static void put_stacks(struct corral *c, struct sbuf *b)
{
	bool hold = c->phase.now == PH_RUN;
	if (!hold) {
		sb_puts(b, "(no stacks: the tree is being ended)\n");
		return;
	}
	corral_stop_all(c);
	struct stacks_skips s;
	stacks_round(c, stack_text, b, &s);
	corral_resume_all(c);
	if (s.budget || s.signal || s.abandoned) {
		char d[128];
		const char *cut;
		stacks_skips_text(c, &s, d, sizeof(d), &cut);
		sb_printf(b, "(%s)\n", d);
	}
}

static int render(struct corral *c, unsigned flags, struct sbuf *b)
{
	bool live = flags & CORRAL_TREE_LIVE;
	double now = run_time(c);
	int n = 0;
	for (struct task *t = c->tab.first; t; t = t->next)
		n++;
	struct node *v = calloc((size_t)n + 1, sizeof(*v));
	struct pidmap m = {0};
	m.cap = 64;
	while (m.cap < (size_t)n * 2)
		m.cap *= 2;
	m.k = calloc(m.cap, sizeof(*m.k));
	m.v = calloc(m.cap, sizeof(*m.v));
	if (!v || !m.k || !m.v) {
		free(v);
		free(m.k);
		free(m.v);
		return -ENOMEM;
	}
	/* Parents are born before their children: the latest process with
	 * the creator's pid at the time of the birth is the parent. */
	int i = 0;
	for (struct task *t = c->tab.first; t; t = t->next, i++) {
		v[i] = (struct node){.t = t,
				     .parent = -1,
				     .child = -1,
				     .next = -1,
				     .lastchild = -1};
		int s = pm_slot(&m, t->creator_tgid);
		if (m.k[s] == t->creator_tgid && t->creator_tgid)
			v[i].parent = m.v[s];
		s = pm_slot(&m, t->tid);
		m.k[s] = t->tid;
		m.v[s] = i;
	}
	if (live) {
		/* Only the living: an ended parent hands its live
		 * descendants to its nearest live ancestor. */
		for (i = 0; i < n; i++) {
			int p = v[i].parent;
			while (p >= 0 && v[p].t->ended >= 0)
				p = v[p].parent;
			v[i].parent = p;
		}
	}
	int *tail = malloc(sizeof(int) * ((size_t)n + 1));
	if (!tail) {
		free(v);
		free(m.k);
		free(m.v);
		return -ENOMEM;
	}
	int nlive = 0;
	for (i = 0; i < n; i++) {
		tail[i] = -1;
		if (v[i].t->ended < 0)
			nlive++;
		if (live && v[i].t->ended >= 0) {
			v[i].parent = -2; /* not drawn */
			continue;
		}
		if (live && !node_argv(&v[i]) && !c->lifecycle.want_argv)
			c->sys->argv(c->sys->ctx, v[i].t->tid, &v[i].block,
				     &v[i].argv);
		int p = v[i].parent;
		if (p < 0)
			continue;
		if (tail[p] < 0)
			v[p].child = i;
		else
			v[tail[p]].next = i;
		tail[p] = i;
		v[p].lastchild = i;
	}
	free(tail);
	if (live) {
		sb_printf(b, "corral %d: %d live process%s, running %.3fs",
			  c->lifecycle.self, nlive, nlive == 1 ? "" : "es",
			  now);
		if (c->spawn.deadline > 0 && c->phase.now == PH_RUN)
			sb_printf(b, ", timeout in %.3fs",
				  c->spawn.deadline - now);
		if (c->phase.now != PH_RUN)
			sb_printf(b, ", ending (%s)",
				  corral_reason_name(c->result.res.reason));
		sb_putc(b, '\n');
	}
	put_forest(c, b, v, n, now);
	for (i = 0; i < n; i++) {
		free(v[i].block);
		free(v[i].argv);
	}
	free(v);
	free(m.k);
	free(m.v);
	if (live && (flags & CORRAL_TREE_STACKS))
		put_stacks(c, b);
	return b->oom ? -ENOMEM : 0;
}

/*
 * `corral ps --json PID`: the live processes as one JSON object, from the
 * table (what the tree shows): pid, ppid, state, threads, age, setup,
 * fork (never exec'd: argv is its creator's at the fork), path, argv.
 */
static void render_json(struct corral *c, struct sbuf *b)
{
	double now = run_time(c);
	sb_printf(b, "{\"corral\":%d,\"running\":%.6f,\"phase\":\"%s\"",
		  c->lifecycle.self, now,
		  c->phase.now == PH_RUN
			  ? "run"
			  : corral_reason_name(c->result.res.reason));
	if (c->spawn.deadline > 0 && c->phase.now == PH_RUN)
		sb_printf(b, ",\"timeout_in\":%.6f", c->spawn.deadline - now);
	sb_puts(b, ",\"processes\":[");
	int n = 0;
	for (struct task *t = c->tab.first; t; t = t->next) {
		if (t->ended >= 0)
			continue;
		sb_printf(b,
			  "%s{\"pid\":%d,\"ppid\":%d,\"state\":\"%s\","
			  "\"threads\":%d,\"age\":%.6f,\"setup\":%s,"
			  "\"fork\":%s",
			  n++ ? "," : "", t->tid, t->creator_tgid,
			  state_text(t), t->nthreads, now - t->born,
			  (t->flags & TF_SETUP) ? "true" : "false",
			  t->nexecs ? "false" : "true");
		if (t->prog && t->prog->path) {
			sb_puts(b, ",\"path\":");
			sb_json_str(b, t->prog->path, strlen(t->prog->path));
		}
		if (t->prog && t->prog->argv) {
			sb_puts(b, ",\"argv\":");
			sb_json_strv(b, (const char *const *)t->prog->argv);
		} else {
			/* argv not recorded (no journal): /proc, as the tree */
			char *block = NULL, **argv = NULL;
			if (c->sys->argv(c->sys->ctx, t->tid, &block, &argv) ==
				    0 &&
			    argv) {
				sb_puts(b, ",\"argv\":");
				sb_json_strv(b, (const char *const *)argv);
			}
			free(block);
			free(argv);
		}
		sb_putc(b, '}');
	}
	sb_puts(b, "]}\n");
}

int corral_tree_text(struct corral *c, unsigned flags, char **out)
{
	struct sbuf b = {0};
	*out = NULL;
	/* Stacks stop the tree: not from inside a callback (corral.h). */
	if ((flags & CORRAL_TREE_STACKS) && c->events.in_callback)
		return -EDEADLK;
	int r = render(c, flags, &b);
	if (r < 0) {
		sb_free(&b);
		return r;
	}
	sb_put(&b, "", 0);
	if (b.oom) {
		sb_free(&b);
		return -ENOMEM;
	}
	*out = b.p;
	return (int)b.len;
}

/* Render for whoever asked, between batches (see the top of the file). */
void live_step(struct corral *c)
{
	struct live *l = c->live;
	if (!l)
		return;
	double now = run_time(c);
	if (l->print_wanted) {
		l->print_wanted = false;
		if (now - l->last_print < LIVE_MIN_GAP) {
			l->coalesced++;
		} else {
			l->last_print = now;
			unsigned f = CORRAL_TREE_LIVE;
			if ((c->cfg.stacks & CORRAL_STACKS_SNAPSHOT) &&
			    now - l->last_stacks >= LIVE_MIN_GAP) {
				f |= CORRAL_TREE_STACKS;
				l->last_stacks = now;
			}
			struct sbuf b = {0};
			/* A fresh line: the command's output may end mid-line.
			 */
			sb_putc(&b, '\n');
			render(c, f, &b);
			if (l->coalesced)
				sb_printf(&b,
					  "(%lu more request(s) coalesced)\n",
					  l->coalesced);
			l->coalesced = 0;
			if (b.len > LIVE_MAX_OUT) {
				b.len = LIVE_MAX_OUT;
				sb_puts(&b, "\n(truncated)\n");
			}
			live_write_nonblocking(2, b.p, b.len);
			sb_free(&b);
		}
	}
	for (int i = 0; i < LIVE_CLIENTS; i++) {
		struct client *k = &l->cl[i];
		if (k->st != CL_RENDER)
			continue;
		if (k->json) {
			render_json(c, &k->out);
			k->st = CL_WRITE;
			live_client_write(k);
			continue;
		}
		unsigned f = CORRAL_TREE_LIVE;
		if (k->stacks) {
			if (now - l->last_stacks >= LIVE_MIN_GAP) {
				f |= CORRAL_TREE_STACKS;
				l->last_stacks = run_time(c);
			} else {
				sb_puts(&k->out, "(stacks were taken less than "
						 "1s ago: not again yet)\n");
			}
		}
		render(c, f, &k->out);
		if (k->out.len > LIVE_MAX_OUT) {
			k->out.len = LIVE_MAX_OUT;
			sb_puts(&k->out, "\n(truncated)\n");
		}
		k->st = CL_WRITE;
		live_client_write(k); /* most answers fit at once */
	}
}
