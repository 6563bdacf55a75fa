/*
 * html.c - one self-contained HTML page: the template report/timeline.html
 * (embedded at build time as a C string, see the Makefile) with the run's
 * data put where the template says CORRAL_DATA, as JSON. Strings in the
 * data escape '<', '>' and '&', so no journal content can close the
 * <script> element it sits in.
 */
#include <string.h>

#include "report.h"

static const char template_html[] =
#include "timeline_html.inc"
	;

/* Programs of one process listed in its details (the last ones). */
#define HTML_CHAIN 8

#define MARKER "/*CORRAL_DATA*/null"

static void proc_row(const struct corral_report *m, FILE *f, int i)
{
	const struct rproc *p = &m->procs[i];
	const struct rexec *x = rpt_exec_of(m, i);
	char how[64];
	rpt_proc_end_text(m, i, how, sizeof(how));
	fprintf(f, "[%d,%d,", p->pid, p->parent);
	out_num(f, p->born);
	fputc(',', f);
	if (p->has_exit)
		out_num(f, p->ended);
	else
		fputs("-1", f);
	fprintf(f, ",%d,", p->how);
	esc_put(f, rpt_proc_name(m, i), ESC_JSON);
	fputc(',', f);
	if (x)
		esc_argv(f, x->argv, x->argc, ESC_JSON);
	else
		fputs("[]", f);
	fputc(',', f);
	esc_put(f, x ? x->path : us_lit(NULL), ESC_JSON);
	fprintf(f, ",%d,\"%s\",%d,%d,%s,%d,%d,%lu,", p->nspid, how, p->nthreads,
		p->nexecs, p->exit_extra ? p->exit_extra : "null", p->setup,
		p->forks, p->line);
	esc_put(f, p->core_file_, ESC_JSON); /* --core: its core, or null */
	fputc(',', f);
	esc_put(f, x ? x->cwd : us_lit(NULL), ESC_JSON); /* where it exec'd */
	/* the programs it ran, oldest first (the last HTML_CHAIN): [t, argv] */
	fputs(",[", f);
	int skip = p->nexecs > HTML_CHAIN ? p->nexecs - HTML_CHAIN : 0, k = 0;
	bool first = true;
	for (int e = p->first_exec; e >= 0; e = m->execs[e].next, k++) {
		if (k < skip)
			continue;
		fputs(first ? "[" : ",[", f);
		first = false;
		out_num(f, m->execs[e].t);
		fputc(',', f);
		esc_argv(f, m->execs[e].argv, m->execs[e].argc, ESC_JSON);
		fputc(']', f);
	}
	fprintf(f, "],%d]", skip);
}

static void data(const struct corral_report *m, FILE *f)
{
	fputs("{\"summary\":", f);
	corral_report_summary(m, f, CORRAL_REPORT_JSON);
	fputs(",\"t1\":", f);
	out_num(f, m->has_end ? m->end_t : m->t_last);
	fputs(",\"ending\":", f);
	if (m->has_ending)
		out_num(f, m->ending_t);
	else
		fputs("null", f);
	fputs(",\"procs\":[", f);
	for (size_t i = 0; i < m->nprocs; i++) {
		if (i)
			fputs(",\n", f);
		proc_row(m, f, (int)i);
	}
	fputs("],\"marks\":[", f);
	bool first = true;
	for (size_t i = 0; i < m->nmarks; i++) {
		const struct rmark *k = &m->marks[i];
		if (k->kind == MK_CONT)
			continue;
		fprintf(f, "%s[%d,", first ? "" : ",\n", k->proc);
		first = false;
		out_num(f, k->t);
		fprintf(f, ",%d,%d,", k->kind, k->tid);
		esc_put(f, k->text, ESC_JSON);
		fputc(',', f);
		esc_put(f, k->extra, ESC_JSON);
		fprintf(f, ",%lu]", k->line);
	}
	fputs("]}", f);
}

int corral_report_html(const struct corral_report *m, FILE *f)
{
	const char *at = strstr(template_html, MARKER);
	if (!at)
		return -22; /* a template without the marker: a build bug */
	fwrite(template_html, 1, (size_t)(at - template_html), f);
	data(m, f);
	fputs(at + strlen(MARKER), f);
	return ferror(f) ? -5 : 0;
}
