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
 * argv quoted as a shell reads it back (as the tree prints it); in
 * Markdown a backquote would end the code span and, in a table, a '|' the
 * cell.
 */
static void put_argv(const struct ctx *c, const char *argv, size_t len,
		     int argc, bool table)
{
	if (c->fmt != CORRAL_REPORT_MD) {
		out_argv_text(c->f, argv, len, argc);
		return;
	}
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	if (!m)
		return;
	out_argv_text(m, argv, len, argc);
	fclose(m);
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '`')
			fputc('\'', c->f);
		else if (buf[i] == '|' && table)
			fputs("\\|", c->f);
		else
			fputc(buf[i], c->f);
	}
	free(buf);
}

static void argv_of(const struct ctx *c, int proc)
{
	const struct rexec *x = rpt_exec_of(c->m, proc);
	if (c->fmt == CORRAL_REPORT_JSON) {
		if (x)
			out_argv_json(c->f, x->argv, x->argv_len, x->argc,
				      OUT_JSON);
		else
			fputs("[]", c->f);
		return;
	}
	if (c->m->procs[proc].forks)
		fputs("(fork) ", c->f);
	if (c->fmt == CORRAL_REPORT_MD)
		fputc('`', c->f);
	if (x && x->argc)
		put_argv(c, x->argv, x->argv_len, x->argc, false);
	else if (x && x->path)
		out_text(c->f, x->path, strlen(x->path));
	else
		fputc('?', c->f);
	if (c->fmt == CORRAL_REPORT_MD)
		fputc('`', c->f);
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
		char name[64];
		rpt_proc_name(c->m, chain[i], name, sizeof(name));
		fprintf(c->f, "%d ", c->m->procs[chain[i]].pid);
		out_text(c->f, name, strlen(name));
		fputs(" > ", c->f);
	}
	char name[64];
	rpt_proc_name(c->m, proc, name, sizeof(name));
	fprintf(c->f, "%d ", c->m->procs[proc].pid);
	out_text(c->f, name, strlen(name));
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

static void row(const struct ctx *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void row(const struct ctx *c, const char *key, const char *fmt, ...)
{
	va_list ap;
	if (c->fmt == CORRAL_REPORT_MD)
		fprintf(c->f, "| %s | ", key);
	else
		fprintf(c->f, "  %-10s ", key);
	va_start(ap, fmt);
	vfprintf(c->f, fmt, ap);
	va_end(ap);
	fputs(c->fmt == CORRAL_REPORT_MD ? " |\n" : "\n", c->f);
}

static const char *nz(const char *s, const char *d)
{
	return s ? s : d;
}

static void result_text(const struct corral_report *m, char *b, size_t n)
{
	if (!m->has_end) {
		snprintf(b, n, "unknown: no end line (corral was killed?)");
		return;
	}
	char cmd[96];
	if (m->sandbox_failed)
		snprintf(cmd, sizeof(cmd), "the sandbox could not be built");
	else if (m->exec_error)
		snprintf(cmd, sizeof(cmd), "the command could not run: %.60s",
			 m->exec_error);
	else if (m->end_signal)
		snprintf(cmd, sizeof(cmd), "command killed by %.20s",
			 m->end_signal);
	else
		snprintf(cmd, sizeof(cmd), "command exit status %d",
			 m->end_status);
	snprintf(b, n, "exit code %d, reason %s%s%s (%s)", m->exit_code,
		 nz(m->end_reason, "?"), m->by_signal ? " by " : "",
		 m->by_signal ? m->by_signal : "", cmd);
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

/* "#0 func+0x1f (/lib/libc.so.6) 0x7f..." -> "func", or "?? (libc.so.6)" */
static void frame_short(FILE *f, const char *s, size_t l)
{
	const char *e = s + l, *p = memchr(s, ' ', l);
	if (!p || s[0] != '#') {
		out_text(f, s, l);
		return;
	}
	p++;
	size_t n = strcspn(p, "+ \n");
	if (p + n > e)
		n = (size_t)(e - p);
	out_text(f, p, n);
	if (n == 2 && !memcmp(p, "??", 2)) {
		const char *m = memchr(p, '(', (size_t)(e - p));
		const char *me = m ? memchr(m, ')', (size_t)(e - m)) : NULL;
		if (m && me) {
			const char *b = m + 1;
			for (const char *q = m + 1; q < me; q++)
				if (*q == '/')
					b = q + 1;
			fputs(" (", f);
			out_text(f, b, (size_t)(me - b));
			fputc(')', f);
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
		char name[64];
		rpt_proc_name(c->m, mk->proc, name, sizeof(name));
		out_text(c->f, name, strlen(name));
		const char *txt = mk->text ? mk->text : "";
		size_t first = strcspn(txt, "\n");
		if (kind == MK_ESCAPE) {
			fputs(": ", c->f);
			out_text(c->f, txt, first);
			fprintf(c->f, " -> %s", nz(mk->extra, "?"));
		} else {
			fprintf(c->f, " (%s): ", nz(mk->extra, "?"));
			/* the innermost frames say where it was */
			int lines = 0;
			for (const char *s = txt; *s && lines < 4; lines++) {
				size_t l = strcspn(s, "\n");
				if (lines)
					fputs(" < ", c->f);
				frame_short(c->f, s, l);
				s += l + (s[l] == '\n');
			}
		}
		fputc('\n', c->f);
	}
	more(c, n);
}

static void summary_text(const struct ctx *c)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	if (c->fmt == CORRAL_REPORT_MD)
		fputs("## corral report: `", f);
	else
		fputs("corral report: ", f);
	out_text(f, m->name, strlen(m->name));
	fputs(c->fmt == CORRAL_REPORT_MD ? "`\n\n| | |\n| --- | --- |\n" : "\n",
	      f);
	row(c, "journal", "schema %d, corral %s, %lu lines%s", m->schema,
	    nz(m->version, "?"), m->lines,
	    m->cut ? ", cut at the end" : (m->has_end ? "" : ", no end line"));
	if (c->fmt == CORRAL_REPORT_MD)
		fputs("| command | `", f);
	else
		fprintf(f, "  %-10s ", "command");
	put_argv(c, m->command, m->command_len, m->command_argc, true);
	fputs(c->fmt == CORRAL_REPORT_MD ? "` |\n" : "\n", f);
	if (m->wall)
		row(c, "started", "%s%s%s", m->wall, m->host ? " on " : "",
		    m->host ? m->host : "");
	if (m->cwd) {
		if (c->fmt == CORRAL_REPORT_MD)
			fputs("| cwd | ", f);
		else
			fprintf(f, "  %-10s ", "cwd");
		out_text(f, m->cwd, strlen(m->cwd));
		fputs(c->fmt == CORRAL_REPORT_MD ? " |\n" : "\n", f);
	}
	row(c, "duration", "%.6fs%s", m->has_end ? m->duration : m->t_last,
	    m->has_end ? "" : " (up to the last line)");
	char res[256];
	result_text(m, res, sizeof(res));
	row(c, "result", "%s", res);
	if (m->timeout > 0)
		row(c, "timeout", "%gs", m->timeout);
	row(c, "counts",
	    "%zu processes, %zu threads, %lu execs; %lu exited 0, %lu failed, "
	    "%lu left behind, %lu ended by corral, %lu crashed%s",
	    m->nprocs, m->nthreads, m->n_execs, m->how_count[HOW_OK],
	    m->how_count[HOW_FAILED], m->how_count[HOW_LEFT],
	    m->how_count[HOW_KILLED], m->how_count[HOW_CRASHED],
	    m->how_count[HOW_UNKNOWN] ? ", some with no exit seen" : "");
	row(c, "events",
	    "%lu signals, %lu stops, %lu escapes, %lu stacks, "
	    "%lu denied",
	    m->n_signals, m->n_stops, m->n_escapes, m->n_stacks, m->n_denied);
	if (m->has_ending)
		row(c, "ending",
		    "at %.6fs (%s%s%s): grace %.6fs, stop %.6fs, "
		    "kill %.6fs; %ld SIGKILLed, %ld survivors",
		    m->ending_t, nz(m->ending_reason, "?"),
		    m->ending_signal ? " " : "", nz(m->ending_signal, ""),
		    m->phase_grace, m->phase_stop, m->phase_kill, m->end_killed,
		    m->end_survivors);
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
		row(c, "chain",
		    "BROKEN: %zu line(s) altered, removed or "
		    "reordered; %s",
		    m->nbad, m->chain_why);
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

	int idx[TOP_N];
	int n = top(m, life, idx);
	if (n) {
		heading(c, "longest running", (size_t)n);
		for (int i = 0; i < n; i++) {
			bullet(c);
			fprintf(f, "%.3fs %d ", life(m, idx[i]),
				m->procs[idx[i]].pid);
			argv_of(c, idx[i]);
			fputc('\n', f);
		}
	}
	n = top(m, to_end, idx);
	if (n) {
		heading(c, "slowest to end after the ending began", (size_t)n);
		for (int i = 0; i < n; i++) {
			char how[64];
			rpt_proc_end_text(m, idx[i], how, sizeof(how));
			bullet(c);
			fprintf(f, "%.3fs %d ", to_end(m, idx[i]),
				m->procs[idx[i]].pid);
			argv_of(c, idx[i]);
			fprintf(f, " [%s]\n", how);
		}
	}
	list_how(c, "left behind", HOW_LEFT);
	list_how(c, "ended by corral", HOW_KILLED);
	list_how(c, "crashed", HOW_CRASHED);
	list_how(c, "no exit seen", HOW_UNKNOWN);
	list_marks(c, "escapes", MK_ESCAPE, m->n_escapes);
	list_marks(c, "stacks", MK_STACK, m->n_stacks);
	if (m->altered_lines) {
		heading(c, "altered lines (shown as read)", m->altered_lines);
		size_t k = 0;
		for (size_t i = 0; i < m->nmarks && k < LIST_MAX; i++) {
			const struct rmark *mk = &m->marks[i];
			if (mk->kind != MK_ALTERED)
				continue;
			k++;
			bullet(c);
			fprintf(f, "line %lu: %s", mk->line, nz(mk->text, "?"));
			if (mk->proc >= 0) {
				fprintf(f, ", about %d ",
					m->procs[mk->proc].pid);
				argv_of(c, mk->proc);
			}
			fputc('\n', f);
		}
		more(c, m->altered_lines);
	}
	if (m->nnotes) {
		heading(c, "notes", m->nnotes + m->notes_dropped);
		for (size_t i = 0; i < m->nnotes; i++) {
			bullet(c);
			if (m->notes[i].line)
				fprintf(f, "line %lu: ", m->notes[i].line);
			out_text(f, m->notes[i].msg, strlen(m->notes[i].msg));
			fputc('\n', f);
		}
		if (m->notes_dropped) {
			bullet(c);
			fprintf(f, "... and %lu more\n", m->notes_dropped);
		}
	}
}

/* ---------------------------------------------------------------- json */

static void jkey(FILE *f, const char *k, bool *first)
{
	fprintf(f, "%s\"%s\":", *first ? "" : ",", k);
	*first = false;
}

static void jstr(FILE *f, const char *s)
{
	if (s)
		out_json_str(f, s, strlen(s), OUT_JSON);
	else
		fputs("null", f);
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
	}
	fputs(",\"lineage\":", c->f);
	lineage(c, i);
	fputc('}', c->f);
}

static void json_how(const struct ctx *c, const char *key, int how, bool *first)
{
	jkey(c->f, key, first);
	fputc('[', c->f);
	size_t k = 0;
	for (size_t i = 0; i < c->m->nprocs; i++)
		if (c->m->procs[i].how == how)
			json_proc(c, (int)i, !k++);
	fputc(']', c->f);
}

static void summary_json(const struct ctx *c)
{
	const struct corral_report *m = c->m;
	FILE *f = c->f;
	bool first = true;
	fputc('{', f);
	jkey(f, "journal", &first);
	jstr(f, m->name);
	jkey(f, "schema", &first);
	fprintf(f, "%d", m->schema);
	jkey(f, "version", &first);
	jstr(f, m->version);
	jkey(f, "lines", &first);
	fprintf(f, "%lu", m->lines);
	jkey(f, "complete", &first);
	fputs(m->has_end && !m->cut ? "true" : "false", f);
	jkey(f, "cut", &first);
	fputs(m->cut ? "true" : "false", f);
	jkey(f, "command", &first);
	out_argv_json(f, m->command, m->command_len, m->command_argc, OUT_JSON);
	jkey(f, "wall", &first);
	jstr(f, m->wall);
	jkey(f, "host", &first);
	jstr(f, m->host);
	jkey(f, "cwd", &first);
	jstr(f, m->cwd);
	jkey(f, "duration", &first);
	out_num(f, m->has_end ? m->duration : m->t_last);
	if (m->has_end) {
		jkey(f, "exit_code", &first);
		fprintf(f, "%d", m->exit_code);
		jkey(f, "reason", &first);
		jstr(f, m->end_reason);
		if (m->end_signal) {
			jkey(f, "signal", &first);
			jstr(f, m->end_signal);
		} else if (m->end_status >= 0) {
			jkey(f, "status", &first);
			fprintf(f, "%d", m->end_status);
		}
	}
	jkey(f, "counts", &first);
	fprintf(f,
		"{\"processes\":%zu,\"threads\":%zu,\"execs\":%lu,\"ok\":%lu,"
		"\"failed\":%lu,\"left\":%lu,\"killed_by_corral\":%lu,"
		"\"crashed\":%lu,\"no_exit\":%lu,\"signals\":%lu,\"stops\":%lu,"
		"\"escapes\":%lu,\"stacks\":%lu,\"denied\":%lu,"
		"\"sigkilled\":%ld,\"survivors\":%ld,\"altered_lines\":%lu,"
		"\"journal_lost\":%ld}",
		m->nprocs, m->nthreads, m->n_execs, m->how_count[HOW_OK],
		m->how_count[HOW_FAILED], m->how_count[HOW_LEFT],
		m->how_count[HOW_KILLED], m->how_count[HOW_CRASHED],
		m->how_count[HOW_UNKNOWN], m->n_signals, m->n_stops,
		m->n_escapes, m->n_stacks, m->n_denied, m->end_killed,
		m->end_survivors, m->altered_lines, m->end_journal_lost);
	if (m->has_ending) {
		jkey(f, "ending", &first);
		fputs("{\"t\":", f);
		out_num(f, m->ending_t);
		fputs(",\"reason\":", f);
		jstr(f, m->ending_reason);
		fputs(",\"grace\":", f);
		out_num(f, m->phase_grace);
		fputs(",\"stop\":", f);
		out_num(f, m->phase_stop);
		fputs(",\"kill\":", f);
		out_num(f, m->phase_kill);
		fputc('}', f);
	}
	int idx[TOP_N];
	int n = top(m, life, idx);
	jkey(f, "longest", &first);
	fputc('[', f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s{\"pid\":%d,\"seconds\":", i ? "," : "",
			m->procs[idx[i]].pid);
		out_num(f, life(m, idx[i]));
		fputs(",\"argv\":", f);
		argv_of(c, idx[i]);
		fputc('}', f);
	}
	fputc(']', f);
	n = top(m, to_end, idx);
	jkey(f, "slowest_to_end", &first);
	fputc('[', f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s{\"pid\":%d,\"seconds\":", i ? "," : "",
			m->procs[idx[i]].pid);
		out_num(f, to_end(m, idx[i]));
		fputs(",\"argv\":", f);
		argv_of(c, idx[i]);
		fputc('}', f);
	}
	fputc(']', f);
	json_how(c, "left", HOW_LEFT, &first);
	json_how(c, "killed", HOW_KILLED, &first);
	json_how(c, "crashed", HOW_CRASHED, &first);
	jkey(f, "escapes", &first);
	fputc('[', f);
	size_t k = 0;
	for (size_t i = 0; i < m->nmarks; i++) {
		const struct rmark *mk = &m->marks[i];
		if (mk->kind != MK_ESCAPE || mk->proc < 0)
			continue;
		const char *txt = mk->text ? mk->text : "";
		fprintf(f, "%s{\"t\":", k++ ? "," : "");
		out_num(f, mk->t);
		fprintf(f, ",\"pid\":%d,\"call\":", m->procs[mk->proc].pid);
		out_json_str(f, txt, strcspn(txt, "\n"), OUT_JSON);
		fputs(",\"verdict\":", f);
		jstr(f, mk->extra);
		fputc('}', f);
	}
	fputc(']', f);
	jkey(f, "stacks", &first);
	fputc('[', f);
	k = 0;
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
	static const char *const chain_names[] = {"none", "intact", "broken",
						  "unchecked", "pipe"};
	jkey(f, "chain", &first);
	fprintf(f, "{\"state\":\"%s\",\"altered\":[",
		chain_names[m->chain < 5 ? m->chain : 0]);
	for (size_t i = 0; i < m->nbad; i++)
		fprintf(f, "%s{\"line\":%lu,\"verdict\":\"%s\"}", i ? "," : "",
			m->bad[i].line,
			corral_line_verdict_name(m->bad[i].verdict));
	fputs("],\"why\":", f);
	jstr(f, m->chain == CHAIN_BROKEN ? m->chain_why : NULL);
	fputc('}', f);
	jkey(f, "notes", &first);
	fputc('[', f);
	for (size_t i = 0; i < m->nnotes; i++) {
		fprintf(f, "%s{\"line\":%lu,\"msg\":", i ? "," : "",
			m->notes[i].line);
		jstr(f, m->notes[i].msg);
		fputc('}', f);
	}
	fputs("]}\n", f);
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
