/*
 * diff_ending.c - the two runs' endings side by side: corral's exit code
 * and the command's status, why the tree was ended, what was left, killed
 * or survived, the escapes and denied calls; and the facts about a
 * journal a diff says on top (does it pass `corral verify`?), and a
 * process's resource use where its exit line has it.
 */
#include <string.h>

#include "diff.h"

static void num(struct corral_diff *d, const char *key, long a, long b)
{
	if (a == b || d->nending >= DIFF_ENDS)
		return;
	d->ending[d->nending++] =
		(struct dend){.key = key, .na = a, .nb = b};
}

static bool same(struct ustr a, struct ustr b)
{
	size_t na, nb;
	const char *pa = us_key_bytes(a, &na), *pb = us_key_bytes(b, &nb);
	if (!pa || !pb)
		return pa == pb;
	return na == nb && !memcmp(pa, pb, na);
}

static void str(struct corral_diff *d, const char *key, struct ustr a,
		struct ustr b)
{
	if (same(a, b) || d->nending >= DIFF_ENDS)
		return;
	d->ending[d->nending++] =
		(struct dend){.key = key, .str = true, .sa = a, .sb = b};
}

void df_ending(struct corral_diff *d, const struct corral_report *a,
	       const struct corral_report *b)
{
	num(d, "end_line", a->has_end, b->has_end);
	num(d, "exit_code", a->exit_code, b->exit_code);
	num(d, "status", a->end_status, b->end_status);
	str(d, "signal", a->end_signal, b->end_signal);
	str(d, "reason", a->end_reason, b->end_reason);
	str(d, "ending",
	    a->has_ending ? us_or(a->ending_reason, "?") : us_lit(NULL),
	    b->has_ending ? us_or(b->ending_reason, "?") : us_lit(NULL));
	str(d, "exec_error", a->exec_error, b->exec_error);
	num(d, "sandbox_failed", a->sandbox_failed, b->sandbox_failed);
	num(d, "left", a->end_left, b->end_left);
	num(d, "killed", a->end_killed, b->end_killed);
	num(d, "survivors", a->end_survivors, b->end_survivors);
	num(d, "escapes", (long)a->n_escapes, (long)b->n_escapes);
	num(d, "denied", (long)a->n_denied, (long)b->n_denied);
	num(d, "crashed", (long)a->how_count[HOW_CRASHED],
	    (long)b->how_count[HOW_CRASHED]);
}

const char *dv_trouble(const struct corral_report *m)
{
	/* what `corral verify` fails (docs/journal.md), as the report
	 * reads it: a broken chain, a file changed under corral, a cut */
	if (m->chain == CHAIN_BROKEN)
		return "lines were changed, removed or reordered (its digest "
		       "chain is broken)";
	if (m->end_intact == 0)
		return "corral found it changed on disk before the end line";
	if (m->cut)
		return "its last line is cut";
	if (!m->has_end)
		return "it has no end line (corral was killed, or the run "
		       "was cut)";
	if (m->chain == CHAIN_UNCHECKED)
		return "its digest chain cannot be checked without the key "
		       "(--key)";
	return NULL;
}

bool dp_usage(const struct corral_report *m, int proc, double *cpu,
	      double *rss_kb)
{
	/* the exit line's keys the model keeps as JSON (cpu_user,
	 * cpu_sys, max_rss): written by the model, so parsed back here */
	const char *x = m->procs[proc].exit_extra;
	struct jreader r;
	bool got = false;
	*cpu = *rss_kb = -1;
	if (!x)
		return false;
	jr_open_mem(&r, x, strlen(x));
	if (jr_next(&r) == JR_OK && r.doc.nn) {
		const struct jnode *o = &r.doc.n[0];
		double u = 0, s = 0;
		bool hu = jd_num(&r.doc, o, "cpu_user", &u);
		bool hs = jd_num(&r.doc, o, "cpu_sys", &s);
		if (hu || hs) {
			*cpu = u + s;
			got = true;
		}
		if (jd_num(&r.doc, o, "max_rss", rss_kb))
			got = true;
	}
	jr_close(&r);
	return got;
}
