/*
 * diff_show.c - how a diff shows one process, in every output: its argv
 * (cut for a person, whole for a program), its lineage (the names from
 * the root down: pids differ between runs, names do not), and its figures
 * (how it ended, how long it ran) in our own words. Journal strings go
 * out through esc.c in the output's kind.
 */
#include <stdio.h>
#include <string.h>

#include "diff.h"

/* argv bytes shown to a person: a long `sh -c` script is cut */
#define ARGV_SHOWN 160
#define LINEAGE_MAX 32

void dshow_argv(FILE *f, const struct corral_report *m, int proc,
		enum esc_kind k)
{
	const struct rexec *x = rpt_exec_of(m, proc);
	bool json = k == ESC_JSON || k == ESC_JSON_ASCII;
	if (json) {
		if (x)
			esc_argv(f, x->argv, x->argc, k);
		else
			fputs("[]", f);
		return;
	}
	if (m->procs[proc].forks)
		fputs("(fork) ", f);
	if (x && x->argc) {
		size_t n = us_len(x->argv);
		esc_argv(f, us_sub(x->argv, 0, ARGV_SHOWN), x->argc, k);
		if (n > ARGV_SHOWN)
			fputs(" ...", f);
	} else if (x && us_ok(x->path)) {
		esc_put(f, x->path, k);
	} else {
		fputc('?', f);
	}
}

/* The ancestors of proc, root first, in a[]; their count. */
static int ancestors(const struct corral_report *m, int proc, int *a)
{
	int n = 0;
	for (int p = m->procs[proc].parent; p >= 0 && n < LINEAGE_MAX;
	     p = m->procs[p].parent)
		a[n++] = p;
	for (int i = 0; i < n / 2; i++) {
		int t = a[i];
		a[i] = a[n - 1 - i];
		a[n - 1 - i] = t;
	}
	return n;
}

void dshow_lineage(FILE *f, const struct corral_report *m, int proc,
		   enum esc_kind k)
{
	int a[LINEAGE_MAX];
	int n = ancestors(m, proc, a);
	if (k == ESC_JSON || k == ESC_JSON_ASCII) {
		/* the names from the root down to the process itself */
		fputc('[', f);
		for (int i = 0; i < n; i++) {
			esc_put(f, rpt_proc_name(m, a[i]), k);
			fputc(',', f);
		}
		esc_put(f, rpt_proc_name(m, proc), k);
		fputc(']', f);
		return;
	}
	if (!n) {
		fputs("the command", f);
		return;
	}
	for (int i = 0; i < n; i++) {
		if (i)
			fputs(" > ", f);
		esc_put(f, rpt_proc_name(m, a[i]), k);
	}
}

void dshow_figures(char *buf, size_t len, const struct corral_report *m,
		   int proc)
{
	const struct rproc *p = &m->procs[proc];
	char end[64];
	rpt_proc_end_text(m, proc, end, sizeof(end));
	int n = snprintf(buf, len, "%s", end);
	if (p->how != HOW_OK && p->how != HOW_FAILED && n >= 0 &&
	    (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " (%s)",
			      rpt_how_name(p->how));
	if (p->core && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", core dumped");
	double d = dp_duration(m, proc);
	if (d >= 0 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", ran %.3fs", d);
}

void dshow_chain(FILE *f, const struct corral_report *m, int proc,
		 enum esc_kind k)
{
	int i = 0;
	for (int e = m->procs[proc].first_exec; e >= 0;
	     e = m->execs[e].next, i++) {
		if (i == 8) {
			fputs(", ...", f);
			break;
		}
		if (i)
			fputs(", then ", f);
		esc_put(f, rpt_exec_name(&m->execs[e]), k);
	}
	if (!i)
		fputs("no program of its own", f);
}
