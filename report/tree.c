/*
 * tree.c - the process tree from a journal, printed as `corral run --tree`
 * prints it at the end of a run (tracer/stacks/live.c, corral_tree_text), so
 * the two can be compared line for line: the same header, order (birth order),
 * argv quoting (tracer/base/quote.c: as a shell reads it back, bytes that are
 * not UTF-8 as $'\xHH'), "(fork)" for a process that never exec'd, the
 * same indentation limit.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "names.h"
#include "quote.h"
#include "report.h"

/* " (was a, b)": its earlier programs, as tracer/stacks/live.c says them. */
static void put_was(FILE *f, const struct corral_report *m,
		    const struct rproc *p)
{
	if (p->nexecs < 2)
		return;
	int skip = p->nexecs - 1 > 4 ? p->nexecs - 1 - 4 : 0, k = 0;
	fputs(" (was ", f);
	if (skip)
		fprintf(f, "%d more, ", skip);
	for (int e = p->first_exec; e >= 0 && e != p->last_exec;
	     e = m->execs[e].next, k++) {
		if (k < skip)
			continue;
		if (k > skip)
			fputs(", ", f);
		esc_quoted(f, rpt_exec_name(&m->execs[e]));
	}
	fputc(')', f);
}

static void put_line(FILE *f, struct sbuf *b, const struct corral_report *m,
		     int i, int depth, const bool *last)
{
	const struct rproc *p = &m->procs[i];
	sb_reset(b);
	quote_tree_branch(b, depth, last);
	sb_printf(b, "%d ", p->pid);
	/* a fork that never exec'd runs the program its creator ran when
	 * it forked: said once (rpt_exec_of) */
	const struct rexec *x = rpt_exec_of(m, i);
	if (p->setup && i == 0 && m->command_argc) {
		/* --sandbox: the run as the user sees it, their command at
		 * the root (bwrap's command line is in the journal and the
		 * HTML details) */
		sb_puts(b, "(sandbox) ");
		fwrite(b->p, 1, b->len, f);
		esc_argv(f, m->command, m->command_argc, ESC_TEXT);
	} else if (p->setup) {
		/* bubblewrap's own processes: by name */
		sb_puts(b, "(setup) ");
		fwrite(b->p, 1, b->len, f);
		esc_quoted(f, x ? rpt_exec_name(x) : us_lit("?"));
	} else {
		if (p->forks && i != 0)
			sb_puts(b, "(fork) ");
		fwrite(b->p, 1, b->len, f);
	}
	/* argv quoted as quote_argv() does (esc.c) */
	if (p->setup)
		;
	else if (x && x->argc)
		esc_argv(f, x->argv, x->argc, ESC_TEXT);
	else if (x && us_ok(x->path))
		esc_quoted(f, x->path);
	else
		fputc('?', f);
	put_was(f, m, p);
	sb_reset(b);
	sb_puts(b, " [");
	if (!p->has_exit)
		sb_puts(b, "no exit seen");
	else if (p->sig) {
		/* named as the live tree names it (tracer/stacks/live.c) */
		char nb[16];
		sb_printf(b, "killed by %s", signal_name(p->sig, nb));
		if (p->core)
			sb_puts(b, " (core dumped)");
	} else {
		sb_printf(b, "exit %d", p->status);
	}
	double end = p->has_exit ? p->ended : m->t_last;
	sb_printf(b, ", %.3fs]\n", end - p->born);
	fwrite(b->p, 1, b->len, f);
}

static const char *plural(unsigned long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The header `corral run --tree` prints (cli/run.c, print_tree). */
static void header(FILE *f, const struct corral_report *m)
{
	unsigned long np = m->nprocs, nt = m->nthreads, ne = m->n_execs;
	fprintf(f, "corral: %lu %s, %lu %s, %lu %s; ", np,
		plural(np, "process", "processes"), nt,
		plural(nt, "thread", "threads"), ne,
		plural(ne, "exec", "execs"));
	bool core = m->nprocs && m->procs[0].core;
	if (!m->has_end)
		fputs("no end line: corral was killed?", f);
	else if (us_ok(m->exec_error) || m->sandbox_failed)
		fputs("the command did not run", f);
	else if (us_ok(m->end_signal)) {
		fputs("the command was killed by ", f);
		esc_enum(f, m->end_signal, NULL, ESC_TEXT);
		fputs(core ? " (core dumped)" : "", f);
	} else
		fprintf(f, "the command exited with status %d", m->end_status);
	fputc('\n', f);
}

/* Iterative depth-first walk: a 10,000-deep chain must not blow the stack. */
int corral_report_tree(const struct corral_report *m, FILE *f)
{
	struct sbuf b = {0};
	header(f, m);
	int n = (int)m->nprocs;
	int *stack = malloc(sizeof(int) * (size_t)(n + 1));
	int *depth = malloc(sizeof(int) * (size_t)(n + 1));
	bool last[QUOTE_TREE_MAX_INDENT + 1] = {0};
	if (!stack || !depth) {
		free(stack);
		free(depth);
		sb_free(&b);
		return -12;
	}
	for (int r = 0; r < n; r++) {
		if (m->procs[r].parent >= 0)
			continue;
		int sp = 0;
		stack[sp] = r;
		depth[sp++] = 0;
		while (sp) {
			int i = stack[--sp], d = depth[sp];
			const struct rproc *p = &m->procs[i];
			if (d > 0 && d <= QUOTE_TREE_MAX_INDENT)
				last[d] = p->next_sibling < 0;
			put_line(f, &b, m, i, d, last);
			/* children pushed in reverse: printed in birth order */
			int kids = 0;
			for (int k = p->first_child; k >= 0;
			     k = m->procs[k].next_sibling)
				kids++;
			int at = sp + kids;
			for (int k = p->first_child; k >= 0;
			     k = m->procs[k].next_sibling) {
				stack[--at] = k;
				depth[at] = d + 1;
			}
			sp += kids;
		}
	}
	free(stack);
	free(depth);
	sb_free(&b);
	return ferror(f) ? -5 : 0;
}
