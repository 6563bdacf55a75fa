/*
 * diff_json.c - a diff of two runs for programs (docs/diff.md, "JSON"):
 * one object whose keys are stable, in this order: a, b, differs,
 * first_divergence, only_a, only_b, changed, slower, faster, ending,
 * matched, options. Every entry about a process carries its argv, its
 * lineage (names from the root down) and each side's figures ("a", "b":
 * null for the side that lacks it). Journal strings through esc.c.
 */
#include <string.h>

#include "diff.h"
#include "names.h"

static const char *const chain_names[] = {"none", "intact", "broken",
					  "unchecked", "pipe"};

void dj_run(FILE *f, const struct corral_report *m)
{
	fputs("{\"journal\":", f);
	esc_put(f, m->name, ESC_JSON);
	const char *why = dv_trouble(m);
	fputs(",\"verify\":", f);
	esc_put(f, us_lit(why), ESC_JSON);
	fprintf(f, ",\"chain\":\"%s\",\"result\":",
		chain_names[m->chain >= 0 && m->chain < 5 ? m->chain : 0]);
	esc_json_open(f);
	words_result(&(struct words){f, ESC_JSON, true}, m);
	esc_json_close(f);
	fprintf(f, ",\"exit_code\":%d,\"passing\":%s,\"processes\":%zu}",
		m->has_end ? m->exit_code : -1,
		m->has_end && !m->exit_code ? "true" : "false", m->nprocs);
}

static void stack(FILE *f, const struct corral_report *m, int mark)
{
	const struct rmark *k = &m->marks[mark];
	fputs(",\"stack\":{\"why\":", f);
	esc_put(f, k->extra, ESC_JSON);
	fputs(",\"frames\":", f);
	esc_put(f, k->text, ESC_JSON);
	fputc('}', f);
}

static void usage(FILE *f, const struct corral_report *m, int proc)
{
	double cpu, rss;
	if (!dp_usage(m, proc, &cpu, &rss))
		return;
	if (cpu >= 0) {
		fputs(",\"cpu\":", f);
		out_num(f, cpu);
	}
	if (rss >= 0) {
		fputs(",\"max_rss_kb\":", f);
		out_num(f, rss);
	}
}

/* One side's figures of a process, or null. */
void dj_figures(FILE *f, const struct drun *r, int proc)
{
	if (proc < 0) {
		fputs("null", f);
		return;
	}
	const struct corral_report *m = r->m;
	const struct rproc *p = &m->procs[proc];
	char end[64], nb[16];
	rpt_proc_end_text(m, proc, end, sizeof(end));
	fprintf(f, "{\"pid\":%d,\"argv\":", p->pid);
	dshow_argv(f, m, proc, ESC_JSON);
	fprintf(f, ",\"how\":\"%s\",\"end\":\"%s\"", rpt_how_name(p->how), end);
	if (p->has_exit && p->sig)
		fprintf(f, ",\"signal\":\"%s\",\"core_dumped\":%s",
			signal_name(p->sig, nb), p->core ? "true" : "false");
	else if (p->has_exit)
		fprintf(f, ",\"status\":%d", p->status);
	fputs(",\"born\":", f);
	out_num(f, p->born - m->t_start);
	fputs(",\"duration\":", f);
	double d = dp_duration(m, proc);
	d >= 0 ? out_num(f, d) : (void)fputs("null", f);
	usage(f, m, proc);
	fputs(",\"execs\":[", f);
	int i = 0;
	for (int e = p->first_exec; e >= 0; e = m->execs[e].next, i++) {
		if (i)
			fputc(',', f);
		esc_argv(f, m->execs[e].argv, m->execs[e].argc, ESC_JSON);
	}
	fputc(']', f);
	if (r->stack[proc] >= 0)
		stack(f, m, r->stack[proc]);
	fputc('}', f);
}

static void what(FILE *f, unsigned w)
{
	fputs(",\"what\":[", f);
	const char *sep = "";
	if (w & DW_ARGV) {
		fputs("\"argv\"", f);
		sep = ",";
	}
	if (w & DW_END) {
		fprintf(f, "%s\"end\"", sep);
		sep = ",";
	}
	if (w & DW_EXECS)
		fprintf(f, "%s\"execs\"", sep);
	fputc(']', f);
}

static void entry(FILE *f, const struct corral_diff *d, const struct dentry *e,
		  bool first)
{
	const struct drun *ra = &d->runs[0], *rb = &d->runs[1];
	const struct drun *r = e->a >= 0 ? ra : rb;
	int p = e->a >= 0 ? e->a : e->b;
	fputs(first ? "{\"argv\":" : ",{\"argv\":", f);
	dshow_argv(f, r->m, p, ESC_JSON);
	fputs(",\"lineage\":", f);
	dshow_lineage(f, r->m, p, ESC_JSON);
	fputs(",\"match\":", f);
	if (e->a >= 0 && e->b >= 0)
		fprintf(f, "\"%s\"", dm_names[ra->how[e->a]]);
	else
		fprintf(f, "null,\"descendants\":%d", r->ndesc[p]);
	if (e->what)
		what(f, e->what);
	if (e->ratio > 0) {
		fputs(",\"ratio\":", f);
		out_num(f, e->ratio);
	}
	fputs(",\"a\":", f);
	dj_figures(f, ra, e->a);
	fputs(",\"b\":", f);
	dj_figures(f, rb, e->b);
	fputc('}', f);
}

static void list(FILE *f, const struct corral_diff *d, const char *key,
		 const struct dlist *l)
{
	fprintf(f, ",\"%s\":[", key);
	for (size_t i = 0; i < l->n; i++)
		entry(f, d, &l->v[i], !i);
	fputc(']', f);
}

static void first(FILE *f, const struct corral_diff *d)
{
	static const char *const kinds[] = {"fork", "exec", "exit"};
	const struct dfirst *x = &d->first;
	fputs(",\"first_divergence\":", f);
	if (!d->has_first) {
		fputs("null", f);
		return;
	}
	const struct drun *r = &d->runs[x->side];
	fprintf(f, "{\"side\":\"%s\",\"event\":\"%s\",\"t\":",
		x->side ? "b" : "a", kinds[x->kind]);
	out_num(f, x->t);
	fputs(",\"argv\":", f);
	if (x->kind == 1)
		esc_argv(f, r->m->execs[x->exec].argv, r->m->execs[x->exec].argc,
			 ESC_JSON);
	else
		dshow_argv(f, r->m, x->proc, ESC_JSON);
	fputs(",\"lineage\":", f);
	dshow_lineage(f, r->m, x->proc, ESC_JSON);
	int o = r->other[x->proc];
	fputs(",\"a\":", f);
	dj_figures(f, &d->runs[0], x->side ? o : x->proc);
	fputs(",\"b\":", f);
	dj_figures(f, &d->runs[1], x->side ? x->proc : o);
	fputc('}', f);
}

static void ending(FILE *f, const struct corral_diff *d)
{
	fputs(",\"ending\":[", f);
	for (size_t i = 0; i < d->nending; i++) {
		const struct dend *e = &d->ending[i];
		fprintf(f, "%s{\"key\":\"%s\",\"a\":", i ? "," : "", e->key);
		if (e->str) {
			esc_put(f, e->sa, ESC_JSON);
			fputs(",\"b\":", f);
			esc_put(f, e->sb, ESC_JSON);
		} else {
			fprintf(f, "%ld,\"b\":%ld", e->na, e->nb);
		}
		fputc('}', f);
	}
	fputc(']', f);
}

void dout_json(const struct corral_diff *d, FILE *f)
{
	fputs("{\"a\":", f);
	dj_run(f, d->runs[0].m);
	fputs(",\"b\":", f);
	dj_run(f, d->runs[1].m);
	fprintf(f, ",\"differs\":%s", corral_diff_differs(d) ? "true" : "false");
	first(f, d);
	list(f, d, "only_a", &d->only_a);
	list(f, d, "only_b", &d->only_b);
	list(f, d, "changed", &d->changed);
	list(f, d, "slower", &d->slower);
	list(f, d, "faster", &d->faster);
	ending(f, d);
	fprintf(f, ",\"matched\":{\"count\":%zu", d->matched);
	for (int h = DM_ROOT; h < DM__COUNT; h++)
		fprintf(f, ",\"%s\":%zu", dm_names[h], d->by_how[h]);
	fputs("},\"options\":{\"factor\":", f);
	out_num(f, d->factor);
	fputs(",\"floor\":", f);
	out_num(f, d->floor);
	fputs("}}\n", f);
}
