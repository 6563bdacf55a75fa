/*
 * summary.c - what a person debugging a run wants first: the command, how
 * and when it ended, counts, the longest-running and slowest-to-end
 * processes, what was left behind, killed or crashed (with lineage),
 * escapes and stacks. Text for a terminal, Markdown for a CI step
 * summary, JSON for programs.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "report.h"

#define LIST_MAX 20 /* entries per list; the rest is counted */
#define TOP_N	 5

struct ctx {
	const struct corral_report *m;
	FILE *f;
	enum corral_report_format fmt;
};

/* ---------------------------------------------------------- helpers */

/*
 * Every journal string goes out through esc.c in the kind of this output:
 * a terminal's text, a Markdown code span (in a table cell, without '|'),
 * or JSON.
 */
static enum esc_kind kind(const struct ctx *c, bool table)
{
	if (c->fmt == CORRAL_REPORT_JSON)
		return ESC_JSON;
	if (c->fmt == CORRAL_REPORT_MD)
		return table ? ESC_MD_TABLE : ESC_MD;
	return ESC_TEXT;
}

static void put(const struct ctx *c, struct ustr u, bool table)
{
	esc_put(c->f, u, kind(c, table));
}

static void argv_of(const struct ctx *c, int proc)
{
	const struct rexec *x = rpt_exec_of(c->m, proc);
	if (c->fmt == CORRAL_REPORT_JSON) {
		if (x)
			esc_argv(c->f, x->argv, x->argc, ESC_JSON);
		else
			fputs("[]", c->f);
		return;
	}
	if (c->m->procs[proc].forks)
		fputs("(fork) ", c->f);
	/* argv quoted as a shell reads it back, as the tree prints it */
	if (x && x->argc)
		esc_argv(c->f, x->argv, x->argc, kind(c, false));
	else if (x && us_ok(x->path))
		put(c, x->path, false);
	else
		fputc('?', c->f);
}

static void lineage(const struct ctx *c, int proc)
{
	/* root first: collect up to 16 ancestors */
	int chain[16], n = 0;
	for (int p = c->m->procs[proc].parent; p >= 0 && n < 16;
	     p = c->m->procs[p].parent)
		chain[n++] = p;
	if (c->fmt == CORRAL_REPORT_JSON) {
		fputc('[', c->f);
		for (int i = n; i-- > 0;)
			fprintf(c->f, "%d%s", c->m->procs[chain[i]].pid,
				i ? "," : "");
		fputc(']', c->f);
		return;
	}
	for (int i = n; i-- > 0;) {
		fprintf(c->f, "%d ", c->m->procs[chain[i]].pid);
		put(c, rpt_proc_name(c->m, chain[i]), false);
		fputs(" > ", c->f);
	}
	fprintf(c->f, "%d ", c->m->procs[proc].pid);
	put(c, rpt_proc_name(c->m, proc), false);
}

/* Indexes of the TOP_N procs with the largest key(). */
static int top(const struct corral_report *m,
	       double (*key)(const struct corral_report *, int), int *out)
{
	double kv[TOP_N];
	int n = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		double k = key(m, (int)i);
		if (k < 0)
			continue;
		int pos = n;
		while (pos > 0 && kv[pos - 1] < k)
			pos--;
		if (pos >= TOP_N)
			continue;
		int last = n < TOP_N ? n : TOP_N - 1;
		for (int j = last; j > pos; j--) {
			kv[j] = kv[j - 1];
			out[j] = out[j - 1];
		}
		kv[pos] = k;
		out[pos] = (int)i;
		if (n < TOP_N)
			n++;
	}
	return n;
}

static double life(const struct corral_report *m, int i)
{
	const struct rproc *p = &m->procs[i];
	double end = p->has_exit ? p->ended : m->t_last;
	return end - p->born;
}

static double to_end(const struct corral_report *m, int i)
{
	const struct rproc *p = &m->procs[i];
	if (p->ending_at < 0 || !p->has_exit)
		return -1;
	return p->ended - p->ending_at;
}

static void heading(const struct ctx *c, const char *title, size_t count)
{
	if (c->fmt == CORRAL_REPORT_MD)
		fprintf(c->f, "\n### %s (%zu)\n\n", title, count);
	else
		fprintf(c->f, "\n%s (%zu):\n", title, count);
}

static void bullet(const struct ctx *c)
{
	fputs(c->fmt == CORRAL_REPORT_MD ? "- " : "  ", c->f);
}

static void more(const struct ctx *c, size_t n)
{
	if (n > LIST_MAX) {
		bullet(c);
		fprintf(c->f, "... and %zu more\n", n - LIST_MAX);
	}
}

/* A row of the summary's table; its text is ours (numbers and words),
 * journal strings go between row_begin() and row_end() through esc.c. */
static void row_begin(const struct ctx *c, const char *key)
{
	if (c->fmt == CORRAL_REPORT_MD)
		fprintf(c->f, "| %s | ", key);
	else
		fprintf(c->f, "  %-10s ", key);
}

static void row_end(const struct ctx *c)
{
	fputs(c->fmt == CORRAL_REPORT_MD ? " |\n" : "\n", c->f);
}

static void row(const struct ctx *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void row(const struct ctx *c, const char *key, const char *fmt, ...)
{
	va_list ap;
	row_begin(c, key);
	va_start(ap, fmt);
	vfprintf(c->f, fmt, ap);
	va_end(ap);
	row_end(c);
}

/* An enumerated value: as is when it is one corral writes, else quoted. */
static void put_enum(const struct ctx *c, struct ustr u, const char *const *set,
		     bool table)
{
	esc_enum(c->f, u, set, kind(c, table));
}

/* The result in words (words.c): what the shell saw, why, what the
 * command did. */
static void result_row(const struct ctx *c)
{
	row_begin(c, "result");
	words_result(&(struct words){c->f, kind(c, true), false}, c->m);
	row_end(c);
}

/* ------------------------------------------------------------ text/md */

static void proc_line(const struct ctx *c, int i, bool with_lineage)
{
	const struct rproc *p = &c->m->procs[i];
	char how[64];
	rpt_proc_end_text(c->m, i, how, sizeof(how));
	bullet(c);
	fprintf(c->f, "%d ", p->pid);
	argv_of(c, i);
	fprintf(c->f, " [%s", how);
	if (p->has_exit)
		fprintf(c->f, " at %.3fs", p->ended);
	fputc(']', c->f);
	if (us_ok(p->core_file_)) { /* --core: where its core file is */
		fputs(c->fmt == CORRAL_REPORT_MD ? " <br>core: "
						 : "\n      core: ",
		      c->f);
		esc_put(c->f, p->core_file_, kind(c, false));
		if (us_ok(p->core_cut_)) {
			fputs(" (cut short: ", c->f);
			esc_put(c->f, p->core_cut_, kind(c, false));
			fputc(')', c->f);
		}
	}
	if (with_lineage && p->parent >= 0) {
		fputs(c->fmt == CORRAL_REPORT_MD ? " <br>lineage: "
						 : "\n      lineage: ",
		      c->f);
		lineage(c, i);
	}
	fputc('\n', c->f);
}

static void list_how(const struct ctx *c, const char *title, int how)
{
	size_t n = c->m->how_count[how], k = 0;
	if (!n)
		return;
	heading(c, title, n);
	for (size_t i = 0; i < c->m->nprocs && k < LIST_MAX; i++)
		if (c->m->procs[i].how == how) {
			proc_line(c, (int)i, true);
			k++;
		}
	more(c, n);
}

/*
 * What failed, first: crashed, failed (a non-zero status, a signal not
 * sent by corral), ended by corral, left behind, in that order, each in
 * birth order; at most LIST_MAX, the rest counted. One pass per outcome
 * over the processes: linear in the run's size.
 */
static const int fail_order[] = {HOW_CRASHED, HOW_FAILED, HOW_KILLED, HOW_LEFT};
#define NFAIL (sizeof(fail_order) / sizeof(fail_order[0]))

static size_t fail_count(const struct corral_report *m)
{
	size_t n = 0;
	for (size_t k = 0; k < NFAIL; k++)
		n += m->how_count[fail_order[k]];
	return n;
}

/* Fill out[] with up to max process indexes, failures first. */
static size_t fail_list(const struct corral_report *m, int *out, size_t max)
{
	size_t n = 0;
	for (size_t k = 0; k < NFAIL && n < max; k++) {
		if (!m->how_count[fail_order[k]])
			continue;
		for (size_t i = 0; i < m->nprocs && n < max; i++)
			if (m->procs[i].how == fail_order[k])
				out[n++] = (int)i;
	}
	return n;
}

/* Where it ran: its last exec's cwd, or (a fork) its creator's then. */
static struct ustr cwd_of(const struct corral_report *m, int proc)
{
	const struct rexec *x = rpt_exec_of(m, proc);
	return x ? x->cwd : us_lit(NULL);
}

static void list_failed(const struct ctx *c)
{
	const struct corral_report *m = c->m;
	size_t n = fail_count(m);
	if (!n)
		return;
	int idx[LIST_MAX];
	size_t k = fail_list(m, idx, LIST_MAX);
	if (c->fmt == CORRAL_REPORT_MD)
		fprintf(c->f, "\n### What failed (%zu)\n\n", n);
	else
		fprintf(c->f, "\nwhat failed (%zu):\n", n);
	for (size_t j = 0; j < k; j++) {
		int i = idx[j];
		const struct rproc *p = &m->procs[i];
		char how[64];
		rpt_proc_end_text(m, i, how, sizeof(how));
		bullet(c);
		fprintf(c->f, "%s: %d ", rpt_how_name(p->how), p->pid);
		argv_of(c, i);
		fprintf(c->f, " [%s", how);
		if (p->has_exit)
			fprintf(c->f, " at %.3fs", p->ended);
		fprintf(c->f, ", ran %.3fs]", life(m, i));
		const char *nl =
			c->fmt == CORRAL_REPORT_MD ? " <br>" : "\n      ";
		struct ustr cwd = cwd_of(m, i);
		if (us_ok(cwd)) {
			fprintf(c->f, "%scwd: ", nl);
			put(c, cwd, false);
		}
		if (us_ok(p->core_file_)) {
			fprintf(c->f, "%score: ", nl);
			put(c, p->core_file_, false);
		}
		if (p->parent >= 0) {
			fprintf(c->f, "%slineage: ", nl);
			lineage(c, i);
		}
		fputc('\n', c->f);
	}
	if (n > k) {
		bullet(c);
		fprintf(c->f, "... and %zu more\n", n - k);
	}
}

/* "#0 func+0x1f (/lib/libc.so.6) 0x7f..." -> "func", or "?? (libc.so.6)" */
static void frame_short(const struct ctx *c, struct ustr s)
{
	size_t sp = us_cspn(s, 0, " ");
	if (sp == us_len(s) || !us_prefix(s, "#")) {
		put(c, s, false);
		return;
	}
	struct ustr p = us_sub(s, sp + 1, us_len(s));
	struct ustr fn = us_sub(p, 0, us_cspn(p, 0, "+ \n"));
	put(c, fn, false);
	if (us_eq(fn, "??")) {
		size_t o = us_cspn(p, 0, "("), e = us_cspn(p, o, ")");
		if (o < us_len(p) && e < us_len(p)) {
			fputs(" (", c->f);
			put(c, us_base(us_sub(p, o + 1, e - o - 1)), false);
			fputc(')', c->f);
		}
	}
}

static void list_marks(const struct ctx *c, const char *title, int kind,
		       size_t n)
{
	if (!n)
		return;
	heading(c, title, n);
	size_t k = 0;
	for (size_t i = 0; i < c->m->nmarks && k < LIST_MAX; i++) {
		const struct rmark *mk = &c->m->marks[i];
		if (mk->kind != kind || mk->proc < 0)
			continue;
		k++;
		bullet(c);
		fprintf(c->f, "%.3fs %d ", mk->t, c->m->procs[mk->proc].pid);
		if (mk->tid > 0 && mk->tid != c->m->procs[mk->proc].pid)
			fprintf(c->f, "(thread %d) ", mk->tid);
		put(c, rpt_proc_name(c->m, mk->proc), false);
		size_t pos = 0;
		struct ustr first;
		if (!us_line(mk->text, &pos, &first))
			first = us_lit("");
		if (kind == MK_PTRACE) {
			fputs(": ", c->f);
			put(c, first, false);
		} else if (kind == MK_ESCAPE) {
			fputs(": ", c->f);
			put(c, first, false);
			fputs(" -> ", c->f);
			put_enum(c, mk->extra, esc_verdicts, false);
		} else {
			fputs(" (", c->f);
			put_enum(c, mk->extra, esc_whys, false);
			fputs("): ", c->f);
			/* the innermost frames say where it was */
			pos = 0;
			struct ustr l;
			for (int lines = 0;
			     lines < 4 && us_line(mk->text, &pos, &l);
			     lines++) {
				if (lines)
					fputs(" < ", c->f);
				frame_short(c, l);
			}
		}
		fputc('\n', c->f);
	}
	more(c, n);
}

/* The table's first rows: which journal, what was run, where, for how long
 * and with what result. */
static void text_head(const struct ctx *c)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	fputs(c->fmt == CORRAL_REPORT_MD ? "## corral report: "
					 : "corral report: ",
	      f);
	put(c, m->name, false);
	fputs(c->fmt == CORRAL_REPORT_MD ? "\n\n| | |\n| --- | --- |\n" : "\n",
	      f);
	row_begin(c, "journal");
	fprintf(f, "schema %d, corral ", m->schema);
	put(c, m->version, true);
	fprintf(f, ", %lu lines%s", m->lines,
		m->cut ? ", cut at the end"
		       : (m->has_end ? "" : ", no end line"));
	row_end(c);
	row_begin(c, "command");
	esc_argv(f, m->command, m->command_argc, kind(c, true));
	row_end(c);
	if (us_ok(m->wall)) {
		row_begin(c, "started");
		put(c, m->wall, true);
		if (us_ok(m->host)) {
			fputs(" on ", f);
			put(c, m->host, true);
		}
		row_end(c);
	}
	if (us_ok(m->cwd)) {
		row_begin(c, "cwd");
		put(c, m->cwd, true);
		row_end(c);
	}
	row(c, "duration", "%.6fs%s", m->has_end ? m->duration : m->t_last,
	    m->has_end ? "" : " (up to the last line)");
	result_row(c);
	if (m->timeout > 0)
		row(c, "timeout", "%gs", m->timeout);
}

/* The counts of members by how they ended, and of events. */
static void text_counts(const struct ctx *c)
{
	const struct corral_report *m = c->m;
	char setup[96] = "";
	if (m->n_setup) /* --sandbox: bubblewrap's own, ended as designed */
		snprintf(
			setup, sizeof(setup),
			" (%lu of them the sandbox's setup, ended as designed)",
			m->n_setup);
	row(c, "counts",
	    "%zu processes, %zu threads, %lu execs; %lu exited 0%s, %lu "
	    "failed, "
	    "%lu left behind, %lu ended by corral, %lu crashed%s",
	    m->nprocs, m->nthreads, m->n_execs, m->how_count[HOW_OK], setup,
	    m->how_count[HOW_FAILED], m->how_count[HOW_LEFT],
	    m->how_count[HOW_KILLED], m->how_count[HOW_CRASHED],
	    m->how_count[HOW_UNKNOWN] ? ", some with no exit seen" : "");
	row(c, "events",
	    "%lu signals, %lu stops, %lu escapes, %lu stacks, "
	    "%lu denied",
	    m->n_signals, m->n_stops, m->n_escapes, m->n_stacks, m->n_denied);
	if (m->n_cores)
		row(c, "cores", "%lu core file(s): see the processes below",
		    m->n_cores);
}

/* What the journal's end says was not ended: aborted FUSE connections,
 * survivors (json_leftovers' rows). */
static void text_leftovers(const struct ctx *c)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	for (size_t i = 0; i < m->nfuse; i++) {
		const struct rfuse *fu = &m->fuse[i];
		row_begin(c, "fuse abort");
		fprintf(f, "connection %ld (its device held by %d): %s",
			fu->conn, fu->pid,
			fu->aborted ? "aborted" : "not aborted: ");
		if (!fu->aborted)
			put(c, fu->error, true);
		row_end(c);
	}
	for (size_t i = 0; i < m->nsurvivors; i++) {
		const struct rsurvivor *s = &m->survivors[i];
		row_begin(c, "survivor");
		fprintf(f, "%d (process %d), state ", s->pid, s->tgid);
		put(c, s->state, true);
		if (us_ok(s->wchan)) {
			fputs(", waiting in ", f);
			put(c, s->wchan, true);
		}
		row_end(c);
	}
}

/* How the tree was ended, and whether the journal itself came through:
 * lines lost, the file changed on disk, its digest chain. */
static void text_ending(const struct ctx *c)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	if (m->has_ending) {
		/* "the tree was ended from 0.3s because the timeout
		 * expired: grace ..." (the journal's "ending" event) */
		row_begin(c, "ending");
		words_ending(&(struct words){f, kind(c, true), false}, m, true);
		fprintf(f,
			": grace %.6fs, stop %.6fs, kill %.6fs; %ld "
			"SIGKILLed, %ld survivors",
			m->phase_grace, m->phase_stop, m->phase_kill,
			m->end_killed, m->end_survivors);
		row_end(c);
	}
	if (m->has_end && (m->end_journal_errors || m->end_journal_lost))
		row(c, "lost",
		    "%ld journal lines never written, %ld failed "
		    "writes",
		    m->end_journal_lost, m->end_journal_errors);
	if (m->has_end && m->end_intact == 0)
		row(c, "tampered",
		    "corral found its journal changed on disk "
		    "before the end line (corral verify names "
		    "the line)");
	switch (m->chain) {
	case CHAIN_INTACT:
		row(c, "chain", "intact: every line's digest checked");
		break;
	case CHAIN_BROKEN:
		row_begin(c, "chain");
		fprintf(f,
			"BROKEN: %zu line(s) altered, removed or reordered; ",
			m->nbad);
		esc_put(f, us_lit(m->chain_why), kind(c, true));
		row_end(c);
		break;
	case CHAIN_UNCHECKED:
		row(c, "chain", "not checked: no key (--key FILE)");
		break;
	case CHAIN_PIPE:
		if (m->schema >= 2)
			row(c, "chain",
			    "not checked: read from a pipe "
			    "(corral verify)");
		break;
	}
}

/* One of the top lists: the TOP_N members with the most of by(); with_end
 * adds how each ended (json_top's text). */
static void text_top(const struct ctx *c, const char *title,
		     double (*by)(const struct corral_report *, int),
		     bool with_end)
{
	const struct corral_report *m = c->m;
	int idx[TOP_N];
	int n = top(m, by, idx);
	if (!n)
		return;
	heading(c, title, (size_t)n);
	for (int i = 0; i < n; i++) {
		bullet(c);
		fprintf(c->f, "%.3fs %d ", by(m, idx[i]), m->procs[idx[i]].pid);
		argv_of(c, idx[i]);
		if (with_end) {
			char how[64];
			rpt_proc_end_text(m, idx[i], how, sizeof(how));
			fprintf(c->f, " [%s]", how);
		}
		fputc('\n', c->f);
	}
}

/* The lines the chain found altered, as they were read. */
static void text_altered(const struct ctx *c)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	if (!m->altered_lines)
		return;
	heading(c, "altered lines (shown as read)", m->altered_lines);
	size_t k = 0;
	for (size_t i = 0; i < m->nmarks && k < LIST_MAX; i++) {
		const struct rmark *mk = &m->marks[i];
		if (mk->kind != MK_ALTERED)
			continue;
		k++;
		bullet(c);
		fprintf(f, "line %lu: ", mk->line);
		esc_put(f, mk->text, kind(c, false));
		if (mk->proc >= 0) {
			fprintf(f, ", about %d ", m->procs[mk->proc].pid);
			argv_of(c, mk->proc);
		}
		fputc('\n', f);
	}
	more(c, m->altered_lines);
}

/* What the reader noticed in the journal (the list's last section). */
static void text_notes(const struct ctx *c)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	if (!m->nnotes)
		return;
	heading(c, "notes", m->nnotes + m->notes_dropped);
	for (size_t i = 0; i < m->nnotes; i++) {
		bullet(c);
		if (m->notes[i].line)
			fprintf(f, "line %lu: ", m->notes[i].line);
		esc_put(f, m->notes[i].msg, kind(c, false));
		fputc('\n', f);
	}
	if (m->notes_dropped) {
		bullet(c);
		fprintf(f, "... and %lu more\n", m->notes_dropped);
	}
}

/* The run's table (what ran, the counts, what was not ended, the ending and
 * the journal's own state), then the lists of members and marks. */
static void summary_text(const struct ctx *c)
{
	text_head(c);
	text_counts(c);
	text_leftovers(c);
	text_ending(c);
	list_failed(c);
	text_top(c, "longest running", life, false);
	text_top(c, "slowest to end after the ending began", to_end, true);
	list_how(c, "no exit seen", HOW_UNKNOWN);
	list_marks(c, "escapes", MK_ESCAPE, c->m->n_escapes);
	list_marks(c, "stacks", MK_STACK, c->m->n_stacks);
	list_marks(c, "emulated ptrace (who traced whom)", MK_PTRACE,
		   c->m->n_ptrace);
	text_altered(c);
	text_notes(c);
}

/* ---------------------------------------------------------------- json */

static void jkey(FILE *f, const char *k, bool *first)
{
	fprintf(f, "%s\"%s\":", *first ? "" : ",", k);
	*first = false;
}

static void jstr(FILE *f, struct ustr s)
{
	esc_put(f, s, ESC_JSON);
}

static void json_proc(const struct ctx *c, int i, bool first)
{
	const struct rproc *p = &c->m->procs[i];
	char how[64];
	rpt_proc_end_text(c->m, i, how, sizeof(how));
	fprintf(c->f, "%s{\"pid\":%d,\"argv\":", first ? "" : ",", p->pid);
	argv_of(c, i);
	fprintf(c->f, ",\"how\":\"%s\",\"end\":\"%s\",\"born\":",
		rpt_how_name(p->how), how);
	out_num(c->f, p->born);
	if (p->has_exit) {
		fputs(",\"ended\":", c->f);
		out_num(c->f, p->ended);
		if (p->sig) {
			char nb[16];
			fprintf(c->f, ",\"signal\":\"%s\",\"core_dumped\":%s",
				signal_name(p->sig, nb),
				p->core ? "true" : "false");
		} else {
			fprintf(c->f, ",\"status\":%d", p->status);
		}
	}
	fputs(",\"duration\":", c->f);
	out_num(c->f, life(c->m, i));
	fprintf(c->f, ",\"fork\":%s", p->forks ? "true" : "false");
	fputs(",\"cwd\":", c->f);
	esc_put(c->f, cwd_of(c->m, i), ESC_JSON);
	fputs(",\"lineage\":", c->f);
	lineage(c, i);
	if (us_ok(p->core_file_)) {
		fputs(",\"core\":", c->f);
		esc_put(c->f, p->core_file_, ESC_JSON);
	}
	fputc('}', c->f);
}

static void json_how(const struct ctx *c, const char *key, int how, bool *first)
{
	jkey(c->f, key, first);
	fputc('[', c->f);
	size_t k = 0;
	for (size_t i = 0; i < c->m->nprocs && k < LIST_MAX; i++)
		if (c->m->procs[i].how == how)
			json_proc(c, (int)i, !k++);
	fputc(']', c->f);
}

/* "failures": what failed, first (list_failed's order), at most
 * LIST_MAX; "failures_more": how many more. */
static void json_failures(const struct ctx *c, bool *first)
{
	int idx[LIST_MAX];
	size_t n = fail_count(c->m), k = fail_list(c->m, idx, LIST_MAX);
	jkey(c->f, "failures", first);
	fputc('[', c->f);
	for (size_t j = 0; j < k; j++)
		json_proc(c, idx[j], !j);
	fputc(']', c->f);
	jkey(c->f, "failures_more", first);
	fprintf(c->f, "%zu", n - k);
}

/* The journal, its command and how it ended. */
static void json_head(const struct ctx *c, bool *firstp)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	jkey(f, "journal", firstp);
	jstr(f, m->name);
	jkey(f, "schema", firstp);
	fprintf(f, "%d", m->schema);
	jkey(f, "version", firstp);
	jstr(f, m->version);
	jkey(f, "lines", firstp);
	fprintf(f, "%lu", m->lines);
	jkey(f, "complete", firstp);
	fputs(m->has_end && !m->cut ? "true" : "false", f);
	jkey(f, "cut", firstp);
	fputs(m->cut ? "true" : "false", f);
	jkey(f, "command", firstp);
	esc_argv(f, m->command, m->command_argc, ESC_JSON);
	jkey(f, "wall", firstp);
	jstr(f, m->wall);
	jkey(f, "host", firstp);
	jstr(f, m->host);
	jkey(f, "cwd", firstp);
	jstr(f, m->cwd);
	jkey(f, "duration", firstp);
	out_num(f, m->has_end ? m->duration : m->t_last);
	if (m->has_end) {
		jkey(f, "exit_code", firstp);
		fprintf(f, "%d", m->exit_code);
		jkey(f, "reason", firstp);
		jstr(f, m->end_reason);
		if (us_ok(m->by_signal)) {
			jkey(f, "by_signal", firstp);
			jstr(f, m->by_signal);
		}
		if (us_ok(m->end_signal)) {
			jkey(f, "signal", firstp);
			jstr(f, m->end_signal);
		} else if (m->end_status >= 0) {
			jkey(f, "status", firstp);
			fprintf(f, "%d", m->end_status);
		}
	}
}

/* The text's words, for a program that shows them (the HTML page), and the
 * counts. */
static void json_counts(const struct ctx *c, bool *firstp)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	const struct words w = {f, ESC_JSON, true};
	jkey(f, "result_words", firstp);
	esc_json_open(f);
	words_result(&w, m);
	esc_json_close(f);
	jkey(f, "counts", firstp);
	fprintf(f,
		"{\"processes\":%zu,\"threads\":%zu,\"execs\":%lu,\"ok\":%lu,"
		"\"failed\":%lu,\"left\":%lu,\"killed_by_corral\":%lu,"
		"\"crashed\":%lu,\"no_exit\":%lu,\"signals\":%lu,\"stops\":%lu,"
		"\"escapes\":%lu,\"stacks\":%lu,\"denied\":%lu,"
		"\"sigkilled\":%ld,\"survivors\":%ld,\"altered_lines\":%lu,"
		"\"journal_lost\":%ld,\"setup\":%lu}",
		m->nprocs, m->nthreads, m->n_execs, m->how_count[HOW_OK],
		m->how_count[HOW_FAILED], m->how_count[HOW_LEFT],
		m->how_count[HOW_KILLED], m->how_count[HOW_CRASHED],
		m->how_count[HOW_UNKNOWN], m->n_signals, m->n_stops,
		m->n_escapes, m->n_stacks, m->n_denied, m->end_killed,
		m->end_survivors, m->altered_lines, m->end_journal_lost,
		m->n_setup);
}

/* What the journal's end says was not ended: survivors, aborted FUSE
 * connections. */
static void json_leftovers(const struct ctx *c, bool *firstp)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	if (m->nsurvivors) {
		jkey(f, "survivors", firstp);
		fputc('[', f);
		for (size_t i = 0; i < m->nsurvivors; i++) {
			const struct rsurvivor *s = &m->survivors[i];
			fprintf(f, "%s{\"pid\":%d,\"tgid\":%d,\"state\":",
				i ? "," : "", s->pid, s->tgid);
			jstr(f, s->state);
			if (us_ok(s->wchan)) {
				fputs(",\"wchan\":", f);
				jstr(f, s->wchan);
			}
			fputc('}', f);
		}
		fputc(']', f);
	}
	if (m->nfuse) {
		jkey(f, "fuse_aborts", firstp);
		fputc('[', f);
		for (size_t i = 0; i < m->nfuse; i++) {
			const struct rfuse *fu = &m->fuse[i];
			fprintf(f, "%s{\"conn\":%ld,\"pid\":%d,\"aborted\":%s",
				i ? "," : "", fu->conn, fu->pid,
				fu->aborted ? "true" : "false");
			if (us_ok(fu->error)) {
				fputs(",\"error\":", f);
				jstr(f, fu->error);
			}
			fputc('}', f);
		}
		fputc(']', f);
	}
}

/* How the tree was ended, phase by phase. */
static void json_ending(const struct ctx *c, bool *firstp)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	const struct words w = {f, ESC_JSON, true};
	if (!m->has_ending)
		return;
	jkey(f, "ending", firstp);
	fputs("{\"t\":", f);
	out_num(f, m->ending_t);
	fputs(",\"reason\":", f);
	jstr(f, m->ending_reason);
	if (us_ok(m->ending_signal)) {
		fputs(",\"signal\":", f);
		jstr(f, m->ending_signal);
	}
	fputs(",\"grace\":", f);
	out_num(f, m->phase_grace);
	fputs(",\"stop\":", f);
	out_num(f, m->phase_stop);
	fputs(",\"kill\":", f);
	out_num(f, m->phase_kill);
	fputs(",\"words\":", f);
	esc_json_open(f);
	words_ending(&w, m, true);
	esc_json_close(f);
	fputc('}', f);
}

/* One of the top lists: the TOP_N members with the most of by(). */
static void json_top(const struct ctx *c, const char *key,
		     double (*by)(const struct corral_report *, int),
		     bool *firstp)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	int idx[TOP_N];
	int n = top(m, by, idx);
	jkey(f, key, firstp);
	fputc('[', f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s{\"pid\":%d,\"seconds\":", i ? "," : "",
			m->procs[idx[i]].pid);
		out_num(f, by(m, idx[i]));
		fputs(",\"argv\":", f);
		argv_of(c, idx[i]);
		fputc('}', f);
	}
	fputc(']', f);
}

/* The escape attempts, with their verdicts. */
static void json_escapes(const struct ctx *c, bool *firstp)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	jkey(f, "escapes", firstp);
	fputc('[', f);
	size_t k = 0;
	for (size_t i = 0; i < m->nmarks; i++) {
		const struct rmark *mk = &m->marks[i];
		if (mk->kind != MK_ESCAPE || mk->proc < 0)
			continue;
		struct ustr call = us_or(mk->text, "");
		fprintf(f, "%s{\"t\":", k++ ? "," : "");
		out_num(f, mk->t);
		fprintf(f, ",\"pid\":%d,\"call\":", m->procs[mk->proc].pid);
		jstr(f, us_sub(call, 0, us_cspn(call, 0, "\n")));
		fputs(",\"verdict\":", f);
		jstr(f, mk->extra);
		fputc('}', f);
	}
	fputc(']', f);
}

/* The stacks taken. */
static void json_stacks(const struct ctx *c, bool *firstp)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	jkey(f, "stacks", firstp);
	fputc('[', f);
	size_t k = 0;
	for (size_t i = 0; i < m->nmarks; i++) {
		const struct rmark *mk = &m->marks[i];
		if (mk->kind != MK_STACK || mk->proc < 0)
			continue;
		fprintf(f, "%s{\"t\":", k++ ? "," : "");
		out_num(f, mk->t);
		fprintf(f, ",\"pid\":%d,\"tid\":%d,\"why\":",
			m->procs[mk->proc].pid, mk->tid);
		jstr(f, mk->extra);
		fputs(",\"frames\":", f);
		jstr(f, mk->text);
		fputc('}', f);
	}
	fputc(']', f);
}

/* The journal's chain and the reader's notes (the object's last key). */
static void json_chain_notes(const struct ctx *c, bool *firstp)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	static const char *const chain_names[] = {"none", "intact", "broken",
						  "unchecked", "pipe"};
	jkey(f, "chain", firstp);
	fprintf(f, "{\"state\":\"%s\",\"altered\":[",
		chain_names[m->chain < 5 ? m->chain : 0]);
	for (size_t i = 0; i < m->nbad; i++)
		fprintf(f, "%s{\"line\":%lu,\"verdict\":\"%s\"}", i ? "," : "",
			m->bad[i].line,
			corral_line_verdict_name(m->bad[i].verdict));
	fputs("],\"why\":", f);
	jstr(f, us_lit(m->chain == CHAIN_BROKEN ? m->chain_why : NULL));
	fputc('}', f);
	jkey(f, "notes", firstp);
	fputc('[', f);
	for (size_t i = 0; i < m->nnotes; i++) {
		fprintf(f, "%s{\"line\":%lu,\"msg\":", i ? "," : "",
			m->notes[i].line);
		jstr(f, m->notes[i].msg);
		fputc('}', f);
	}
	fputs("]}\n", f);
}

static void summary_json(const struct ctx *c)
{
	bool first = true;
	fputc('{', c->f);
	json_head(c, &first);
	json_counts(c, &first);
	json_leftovers(c, &first);
	json_ending(c, &first);
	json_top(c, "longest", life, &first);
	json_top(c, "slowest_to_end", to_end, &first);
	json_failures(c, &first);
	json_how(c, "left", HOW_LEFT, &first);
	json_how(c, "killed", HOW_KILLED, &first);
	json_how(c, "crashed", HOW_CRASHED, &first);
	json_escapes(c, &first);
	json_stacks(c, &first);
	json_chain_notes(c, &first);
}

int corral_report_summary(const struct corral_report *m, FILE *f,
			  enum corral_report_format fmt)
{
	struct ctx c = {.m = m, .f = f, .fmt = fmt};
	if (fmt == CORRAL_REPORT_JSON)
		summary_json(&c);
	else
		summary_text(&c);
	return ferror(f) ? -5 : 0;
}
