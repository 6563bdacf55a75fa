/*
 * diff_out.c - a diff of two runs for a person: text for a terminal,
 * Markdown for a CI job summary. Most useful first: a journal that fails
 * verify, the first divergence, the processes only one run has, the ones
 * that ended otherwise, the timing outliers, the endings, and how the
 * processes were matched. Every journal string through esc.c; our words
 * hold no Markdown of their own but headings, tables and "<br>".
 */
#include <string.h>

#include "diff.h"

struct octx {
	const struct corral_diff *d;
	FILE *f;
	bool md;
};

enum sect { S_ONLY_A, S_ONLY_B, S_CHANGED, S_SLOWER, S_FASTER };

static enum esc_kind kind(const struct octx *c)
{
	return c->md ? ESC_MD_TABLE : ESC_TEXT;
}

static const struct corral_report *run(const struct octx *c, int side)
{
	return c->d->runs[side].m;
}

static void trouble(const struct octx *c)
{
	for (int s = 0; s < 2; s++) {
		const char *why = dv_trouble(run(c, s));
		if (!why)
			continue;
		fprintf(c->f, c->md ? "> warning: %s (" : "warning: %s (",
			s ? "B" : "A");
		esc_put(c->f, run(c, s)->name, kind(c));
		fprintf(c->f,
			c->md ? ") fails `corral verify`: %s\n\n"
			      : ") fails corral verify: %s\n",
			why);
	}
}

static void head(const struct octx *c)
{
	FILE *f = c->f;
	const struct corral_report *a = run(c, 0), *b = run(c, 1);
	if (c->md) {
		fputs("### corral diff\n\n", f);
		trouble(c);
		fputs("| | A (reference) | B |\n|---|---|---|\n| journal | ", f);
		esc_put(f, a->name, ESC_MD_TABLE);
		fputs(" | ", f);
		esc_put(f, b->name, ESC_MD_TABLE);
		fputs(" |\n| result | ", f);
		words_result(&(struct words){f, ESC_MD_TABLE, false}, a);
		fputs(" | ", f);
		words_result(&(struct words){f, ESC_MD_TABLE, false}, b);
		fprintf(f, " |\n| processes | %zu | %zu |\n\n", a->nprocs,
			b->nprocs);
		return;
	}
	trouble(c);
	for (int s = 0; s < 2; s++) {
		fprintf(f, "%s ", s ? "B" : "A");
		esc_put(f, run(c, s)->name, ESC_TEXT);
		fputs(": ", f);
		words_result(&(struct words){f, ESC_TEXT, false}, run(c, s));
		fprintf(f, "; %zu processes\n", run(c, s)->nprocs);
	}
}

static void first(const struct octx *c)
{
	const struct dfirst *x = &c->d->first;
	const struct corral_report *m = run(c, x->side);
	static const char *const what[] = {"fork", "exec", "exit"};
	if (!c->d->has_first)
		return;
	fprintf(c->f, "first divergence: in %s at %.3fs, the %s of ",
		x->side ? "B" : "A", x->t, what[x->kind]);
	dshow_argv(c->f, m, x->proc, c->md ? ESC_MD : ESC_TEXT);
	fputs(" (in ", c->f);
	dshow_lineage(c->f, m, x->proc, c->md ? ESC_MD : ESC_TEXT);
	int o = c->d->runs[x->side].other[x->proc];
	const char *why = x->kind == 0 ? "not in the other run"
			  : x->kind == 1 ? "the other run ran another program "
					   "at this step, or none"
			  : o >= 0	 ? "it ended otherwise in the other run"
					 : "";
	fprintf(c->f, "): %s\n%s", why, c->md ? "\n" : "");
}

static void side_figures(const struct octx *c, int side, int proc)
{
	char b[160];
	if (proc < 0) {
		fputs(c->md ? "-" : "none", c->f);
		return;
	}
	dshow_figures(b, sizeof(b), run(c, side), proc);
	fputs(b, c->f);
}

/* What is said of entry e in section s beyond its figures. */
static void extra(const struct octx *c, const struct dentry *e, enum sect s)
{
	FILE *f = c->f;
	const char *nl = c->md ? "<br>" : "\n      ";
	if (s == S_ONLY_A || s == S_ONLY_B) {
		int p = s == S_ONLY_A ? e->a : e->b;
		int nd = c->d->runs[s == S_ONLY_B].ndesc[p];
		if (nd)
			fprintf(f, ", and %d descendant%s", nd,
				nd == 1 ? "" : "s");
		return;
	}
	if (s == S_SLOWER || s == S_FASTER) {
		fprintf(f, " (x%.2f)", e->ratio);
		return;
	}
	if (e->what & DW_ARGV) {
		fprintf(f, "%sB ran ", nl);
		dshow_argv(f, run(c, 1), e->b, kind(c));
	}
	if (e->what & DW_EXECS) {
		fprintf(f, "%sA ran ", nl);
		dshow_chain(f, run(c, 0), e->a, kind(c));
		fprintf(f, "%sB ran ", nl);
		dshow_chain(f, run(c, 1), e->b, kind(c));
	}
}

static void entry(const struct octx *c, const struct dentry *e, enum sect s)
{
	FILE *f = c->f;
	int side = e->a >= 0 ? 0 : 1, p = side ? e->b : e->a;
	const struct corral_report *m = run(c, side);
	fputs(c->md ? "| " : "  ", f);
	dshow_argv(f, m, p, kind(c));
	fputs(c->md ? " | " : "\n      in ", f);
	dshow_lineage(f, m, p, kind(c));
	fputs(c->md ? " | " : "; A: ", f);
	side_figures(c, 0, e->a);
	fputs(c->md ? " | " : "; B: ", f);
	side_figures(c, 1, e->b);
	extra(c, e, s);
	if (c->md)
		fputs(" |", f);
	else if (e->a >= 0 && e->b >= 0)
		fprintf(f, "%smatched: %s", s == S_CHANGED ? "\n      " : "; ",
			dm_names[c->d->runs[0].how[e->a]]);
	fputc('\n', f);
}

static void section(const struct octx *c, const char *title,
		    const struct dlist *l, enum sect s)
{
	if (!l->n)
		return;
	if (c->md)
		fprintf(c->f,
			"#### %s (%zu)\n\n| process | in | A | B |\n"
			"|---|---|---|---|\n",
			title, l->n);
	else
		fprintf(c->f, "%s (%zu):\n", title, l->n);
	for (size_t i = 0; i < l->n; i++)
		entry(c, &l->v[i], s);
	if (c->md)
		fputc('\n', c->f);
}

static void end_value(const struct octx *c, const struct dend *e, int side)
{
	if (!e->str) {
		fprintf(c->f, "%ld", side ? e->nb : e->na);
		return;
	}
	struct ustr u = side ? e->sb : e->sa;
	if (!us_ok(u))
		fputs(c->md ? "-" : "none", c->f);
	else if (!strcmp(e->key, "reason") || !strcmp(e->key, "ending"))
		esc_enum(c->f, u, esc_reasons, kind(c));
	else if (!strcmp(e->key, "signal"))
		esc_enum(c->f, u, NULL, kind(c));
	else
		esc_put(c->f, u, kind(c));
}

static void ending(const struct octx *c)
{
	const struct corral_diff *d = c->d;
	if (!d->nending)
		return;
	if (c->md)
		fprintf(c->f, "#### ending (%zu)\n\n| | A | B |\n|---|---|---|\n",
			d->nending);
	else
		fprintf(c->f, "ending (%zu):\n", d->nending);
	for (size_t i = 0; i < d->nending; i++) {
		fprintf(c->f, c->md ? "| `%s` | " : "  %s: A ",
			d->ending[i].key);
		end_value(c, &d->ending[i], 0);
		fputs(c->md ? " | " : ", B ", c->f);
		end_value(c, &d->ending[i], 1);
		fputs(c->md ? " |\n" : "\n", c->f);
	}
	if (c->md)
		fputc('\n', c->f);
}

static void tally(const struct octx *c)
{
	const struct corral_diff *d = c->d;
	fprintf(c->f, "%s%zu processes matched (A %zu, B %zu):",
		corral_diff_differs(d) ? "" : "no difference: ", d->matched,
		run(c, 0)->nprocs, run(c, 1)->nprocs);
	const char *sep = " ";
	for (int h = DM_ROOT; h < DM__COUNT; h++)
		if (d->by_how[h]) {
			fprintf(c->f, "%s%zu %s", sep, d->by_how[h],
				dm_names[h]);
			sep = ", ";
		}
	fputc('\n', c->f);
}

void dout_text(const struct corral_diff *d, FILE *f,
	       enum corral_report_format fmt)
{
	struct octx c = {.d = d, .f = f, .md = fmt == CORRAL_REPORT_MD};
	char title[96];
	head(&c);
	first(&c);
	section(&c, "only in A", &d->only_a, S_ONLY_A);
	section(&c, "only in B", &d->only_b, S_ONLY_B);
	section(&c, "changed", &d->changed, S_CHANGED);
	snprintf(title, sizeof(title),
		 "slower in B (more than %gx and %.3fs)", d->factor, d->floor);
	section(&c, title, &d->slower, S_SLOWER);
	snprintf(title, sizeof(title),
		 "faster in B (more than %gx and %.3fs)", d->factor, d->floor);
	section(&c, title, &d->faster, S_FASTER);
	ending(&c);
	tally(&c);
}
