/*
 * api.c - corral_report_*: load a journal into a model, free it, and the
 * small questions every writer asks of a process (name, command line, how
 * it ended).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "names.h"
#include "report.h"

/* ------------------------------------------------------- the chain */

static void on_line(const struct corral_journal_line *l, void *arg)
{
	struct corral_report *m = arg;
	if (l->verdict == CORRAL_LINE_UNCHECKED) {
		m->chain_unchecked++;
		return;
	}
	if (l->verdict == CORRAL_LINE_OK)
		return;
	if (GROW(m->bad, m->bad_cap, m->nbad + 1))
		return;
	m->bad[m->nbad++] =
		(struct rbad){.line = l->lineno, .verdict = (int)l->verdict};
}

/*
 * The journal's own check (docs/journal.md, tracer/journal/chain.c) first:
 * which lines were changed, inserted, removed or reordered. The report then
 * shows every line it can read and marks those. A file is checked in
 * place (mapped); a pipe cannot be read twice and is not checked.
 */
/*
 * Does the first line carry a digest? A journal without one (schema 1,
 * or not a journal) is not handed to the check, which would read it all
 * to find out.
 */
static bool first_line_has_digest(const char *p, size_t n)
{
	const char *nl = memchr(p, '\n', n);
	if (nl)
		n = (size_t)(nl - p);
	return memmem(p, n, "\"h\":\"", 5) != NULL;
}

static void check_chain(struct corral_report *m, int fd, const char *buf,
			size_t len, const struct corral_report_options *o)
{
	struct corral_journal_check chk;
	memset(&chk, 0, sizeof(chk));
	if (o && o->key && o->keylen) {
		chk.key = o->key;
		chk.keylen = o->keylen;
	}
	chk.on_line = on_line;
	chk.arg = m;
	int e;
	if (fd >= 0) {
		struct stat st;
		off_t pos = lseek(fd, 0, SEEK_CUR);
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || pos < 0) {
			m->chain = CHAIN_PIPE;
			return;
		}
		char head[65536];
		ssize_t n = pread(fd, head, sizeof(head), pos);
		if (n <= 0 || !first_line_has_digest(head, (size_t)n)) {
			m->chain = CHAIN_NONE;
			return;
		}
		e = corral_journal_verify_fd(fd, &chk);
		if (lseek(fd, pos, SEEK_SET) < 0)
			e = -EIO;
	} else {
		if (!first_line_has_digest(buf, len)) {
			m->chain = CHAIN_NONE;
			return;
		}
		e = corral_journal_verify(buf, len, &chk);
	}
	if (e < 0) {
		/* no line has a digest (schema 1), or unreadable: the
		 * report's own reading says what is wrong */
		m->nbad = 0;
		m->chain = CHAIN_NONE;
		return;
	}
	m->chain_first_bad = chk.first_bad;
	snprintf(m->chain_why, sizeof(m->chain_why), "%s", chk.why);
	/*
	 * A file of several runs shows the run its last end line belongs
	 * to: a run put before the real one (a forged one, say) is not what
	 * the report is about (docs/journal.md, "A run's place in the file").
	 */
	m->runs = chk.runs;
	if (chk.runs > 1 && chk.end_run) {
		m->sel_run = chk.end_run;
		m->sel_first = chk.end_first;
		m->sel_last = chk.end_line;
	}
	if (m->nbad)
		m->chain = CHAIN_BROKEN;
	else if (!chk.keyed || m->chain_unchecked)
		m->chain = CHAIN_UNCHECKED;
	else
		m->chain = CHAIN_INTACT;
}

static int load(struct jreader *r, const char *name, int fd, const char *buf,
		size_t len, const struct corral_report_options *o,
		struct corral_report **out, char *err, size_t errlen)
{
	char dummy[8];
	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	*err = 0;
	*out = NULL;
	struct corral_report *m = calloc(1, sizeof(*m));
	if (!m) {
		jr_close(r);
		return -ENOMEM;
	}
	m->name = us_dup(name ? name : "-", strlen(name ? name : "-"));
	check_chain(m, fd, buf, len, o);
	int e = rpt_build(m, r, err, errlen);
	jr_close(r);
	if (e < 0) {
		corral_report_free(m);
		return e;
	}
	*out = m;
	return 0;
}

int corral_report_load(int fd, const char *name, struct corral_report **out,
		       char *errbuf, size_t errlen)
{
	struct jreader r;
	if (jr_open_fd(&r, fd) < 0)
		return -ENOMEM;
	return load(&r, name, fd, NULL, 0, NULL, out, errbuf, errlen);
}

int corral_report_load_buffer(const char *buf, size_t len, const char *name,
			      struct corral_report **out, char *errbuf,
			      size_t errlen)
{
	struct jreader r;
	jr_open_mem(&r, buf, len);
	return load(&r, name, -1, buf, len, NULL, out, errbuf, errlen);
}

int corral_report_load_opts(int fd, const char *name,
			    const struct corral_report_options *opts,
			    struct corral_report **out, char *errbuf,
			    size_t errlen)
{
	/* a caller built against an older, shorter struct: the rest is 0 */
	struct corral_report_options o;
	memset(&o, 0, sizeof(o));
	if (opts)
		memcpy(&o, opts,
		       opts->size < sizeof(o) ? opts->size : sizeof(o));
	o.size = sizeof(o);
	struct jreader r;
	if (jr_open_fd(&r, fd) < 0)
		return -ENOMEM;
	return load(&r, name, fd, NULL, 0, &o, out, errbuf, errlen);
}

const char *corral_report_note(const struct corral_report *r, size_t i,
			       unsigned long *line)
{
	if (!r || i >= r->nnotes)
		return NULL;
	if (line)
		*line = r->notes[i].line;
	return r->notes[i].shown; /* escaped for a terminal */
}

void corral_report_free(struct corral_report *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nprocs; i++) {
		free(m->procs[i].exit_extra);
		us_free(&m->procs[i].core_file_);
		us_free(&m->procs[i].core_cut_);
	}
	for (size_t i = 0; i < m->nexecs; i++) {
		us_free(&m->execs[i].path);
		us_free(&m->execs[i].argv);
		us_free(&m->execs[i].cwd);
	}
	for (size_t i = 0; i < m->nmarks; i++) {
		us_free(&m->marks[i].text);
		us_free(&m->marks[i].extra);
	}
	for (size_t i = 0; i < m->nnotes; i++) {
		us_free(&m->notes[i].msg);
		free(m->notes[i].shown);
	}
	free(m->bad);
	free(m->procs);
	free(m->execs);
	free(m->threads);
	free(m->marks);
	free(m->notes);
	free(m->procmap.key);
	free(m->procmap.val);
	free(m->threadmap.key);
	free(m->threadmap.val);
	us_free(&m->name);
	us_free(&m->version);
	us_free(&m->wall);
	us_free(&m->host);
	us_free(&m->cwd);
	us_free(&m->command);
	us_free(&m->ending_reason);
	us_free(&m->ending_signal);
	us_free(&m->end_reason);
	us_free(&m->end_signal);
	us_free(&m->exec_error);
	us_free(&m->by_signal);
	for (size_t i = 0; i < m->nsurvivors; i++) {
		us_free(&m->survivors[i].state);
		us_free(&m->survivors[i].wchan);
	}
	for (size_t i = 0; i < m->nfuse; i++)
		us_free(&m->fuse[i].error);
	free(m->end_extra);
	free(m);
}

static const char *const how_names[HOW__COUNT] = {
	[HOW_OK] = "exited 0",
	[HOW_FAILED] = "failed",
	[HOW_KILLED] = "ended by corral",
	[HOW_CRASHED] = "crashed",
	[HOW_LEFT] = "left behind",
	[HOW_UNKNOWN] = "no exit seen",
};

const char *rpt_how_name(int how)
{
	return how >= 0 && how < HOW__COUNT ? how_names[how] : "?";
}

const struct rexec *rpt_exec_of(const struct corral_report *m, int proc)
{
	/* a fork that never exec'd runs what its creator ran at the fork */
	int e = m->procs[proc].cmd_exec;
	return e >= 0 ? &m->execs[e] : NULL;
}

/* What follows the last '/' of u (empty when u ends with one). */
static struct ustr base_view(struct ustr u)
{
	size_t n = us_len(u), at = 0;
	for (size_t i = us_cspn(u, 0, "/"); i < n; i = us_cspn(u, i + 1, "/"))
		at = i + 1;
	return us_sub(u, at, n - at);
}

/* As the tracer names it (tracer/base/table.c, prog_name, TABLE_WAS_NAME). */
struct ustr rpt_exec_name(const struct rexec *x)
{
	struct ustr s = us_lit(NULL);
	if (x->argc)
		s = base_view(us_sub(x->argv, 0, us_strlen(x->argv)));
	if ((!us_ok(s) || !us_len(s)) && us_ok(x->path))
		s = base_view(x->path);
	if (!us_ok(s) || !us_len(s))
		return us_lit("?");
	return us_sub(s, 0, 64);
}

struct ustr rpt_proc_name(const struct corral_report *m, int proc)
{
	const struct rexec *x = rpt_exec_of(m, proc);
	struct ustr s = x && x->argc ? x->argv : x ? x->path : us_lit(NULL);
	/* argv[0]: up to its NUL */
	if (x && x->argc)
		s = us_sub(s, 0, us_strlen(s));
	/* --sandbox: the root is the user's command as they see it */
	if (proc == 0 && m->procs[0].setup && m->command_argc)
		s = us_sub(m->command, 0, us_strlen(m->command));
	if (!us_ok(s) || !us_len(s))
		return us_lit("?");
	return us_base(s);
}

void rpt_proc_end_text(const struct corral_report *m, int proc, char *buf,
		       size_t len)
{
	const struct rproc *p = &m->procs[proc];
	if (!p->has_exit)
		snprintf(buf, len, "no exit seen");
	else if (p->sig)
		snprintf(buf, len, "killed by %s",
			 signal_name(p->sig, (char[16]){0}));
	else
		snprintf(buf, len, "exit %d", p->status);
}
