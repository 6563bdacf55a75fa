/*
 * model.c - from journal events to a run: processes with their lineage,
 * execs, threads, marks (signals, stops, escapes, stacks...) and the
 * ending. Memory grows with the number of processes, threads and marks,
 * never with the size of a line or of the file.
 *
 * Reading is tolerant where a journal can honestly look odd (keys and
 * events this reader does not know, a task seen before its fork event, a
 * tail cut by a killed corral) and strict where it cannot be a corral
 * journal (not JSON, no start line, an absurd line): that is bad input.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "names.h"
#include "report.h"

/* ------------------------------------------------------------ pidmap */

static size_t hash(int k, size_t cap)
{
	return ((uint32_t)k * 2654435761u) & (cap - 1);
}

int pm_get(const struct pidmap *m, int k)
{
	if (!m->cap)
		return -1;
	for (size_t i = hash(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->key[i] == 0)
			return -1;
		if (m->key[i] == k)
			return m->val[i];
	}
}

int pm_put(struct pidmap *m, int k, int v)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		int *key = calloc(cap, sizeof(int)),
		    *val = calloc(cap, sizeof(int));
		if (!key || !val) {
			free(key);
			free(val);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->key[i])
				continue;
			size_t j = hash(m->key[i], cap);
			while (key[j])
				j = (j + 1) & (cap - 1);
			key[j] = m->key[i];
			val[j] = m->val[i];
		}
		free(m->key);
		free(m->val);
		m->key = key;
		m->val = val;
		m->cap = cap;
	}
	size_t i = hash(k, m->cap);
	while (m->key[i] && m->key[i] != k)
		i = (i + 1) & (m->cap - 1);
	if (!m->key[i])
		m->n++;
	m->key[i] = k;
	m->val[i] = v;
	return 0;
}

int rpt_thread_index(const struct corral_report *m, int tid)
{
	return pm_get(&m->threadmap, tid);
}

/* ---------------------------------------------------------- helpers */

void rpt_note(struct corral_report *m, unsigned long line, const char *fmt, ...)
{
	/* a journal with a million odd lines must not make a million notes */
	if (m->nnotes >= 100 || GROW(m->notes, m->notes_cap, m->nnotes + 1)) {
		m->notes_dropped++;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		m->notes_dropped++;
		return;
	}
	/* a note may quote the journal: a ustr, and its terminal text for
	 * corral_report_note() */
	struct ustr u = us_take(s, (size_t)n);
	char *shown = us_shown(u);
	if (!shown) {
		us_free(&u);
		m->notes_dropped++;
		return;
	}
	m->notes[m->nnotes++] =
		(struct rnote){.line = line, .msg = u, .shown = shown};
}

int rpt_line_altered(struct corral_report *m, unsigned long line)
{
	/* verdicts come in line order, and so do the lines */
	while (m->bad_next < m->nbad && m->bad[m->bad_next].line < line)
		m->bad_next++;
	if (m->bad_next < m->nbad && m->bad[m->bad_next].line == line)
		return m->bad[m->bad_next].verdict;
	return -1;
}

/* A string array (argv) as NUL-separated bytes. */
static struct ustr strv(const struct jdoc *d, const struct jnode *a, int *argc)
{
	*argc = 0;
	if (!a || a->type != J_ARR)
		return (struct ustr){0};
	size_t n = 0;
	for (int32_t i = a->first; i >= 0; i = d->n[i].next)
		if (d->n[i].type == J_STR)
			n += d->n[i].slen + 1;
	char *s = malloc(n ? n : 1), *o = s;
	if (!s)
		return (struct ustr){0};
	for (int32_t i = a->first; i >= 0; i = d->n[i].next) {
		const struct jnode *e = &d->n[i];
		if (e->type != J_STR)
			continue;
		memcpy(o, d->strs + e->s, e->slen);
		o += e->slen;
		*o++ = 0;
		(*argc)++;
	}
	if (!n)
		*s = 0;
	return us_take(s, n ? n - 1 : 0);
}

/* Serialise a node back to JSON (the keys the model does not use). */
static void dump(FILE *f, const struct jdoc *d, const struct jnode *n)
{
	switch (n->type) {
	case J_NULL:
		fputs("null", f);
		break;
	case J_BOOL:
		fputs(n->b ? "true" : "false", f);
		break;
	case J_NUM:
		fwrite(d->strs + n->s, 1, n->slen, f);
		break;
	case J_STR:
		out_json_str(f, d->strs + n->s, n->slen, OUT_JSON);
		break;
	case J_ARR:
	case J_OBJ:
		fputc(n->type == J_ARR ? '[' : '{', f);
		for (int32_t i = n->first; i >= 0; i = d->n[i].next) {
			if (i != n->first)
				fputc(',', f);
			if (n->type == J_OBJ) {
				out_json_str(f, d->strs + d->n[i].key,
					     d->n[i].klen, OUT_JSON);
				fputc(':', f);
			}
			dump(f, d, &d->n[i]);
		}
		fputc(n->type == J_ARR ? ']' : '}', f);
		break;
	}
}

static bool known(const char *k, size_t kl, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == kl && !memcmp(*list, k, kl))
			return true;
	return false;
}

/* The members of o not in `skip`, as a JSON object text; NULL if none. */
static char *extra_keys(const struct jdoc *d, const struct jnode *o,
			const char *const *skip)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = NULL;
	int n = 0;
	for (int32_t i = o->first; i >= 0; i = d->n[i].next) {
		const struct jnode *e = &d->n[i];
		if (known(d->strs + e->key, e->klen, skip))
			continue;
		if (!f) {
			f = open_memstream(&buf, &len);
			if (!f)
				return NULL;
			fputc('{', f);
		}
		if (n++)
			fputc(',', f);
		out_json_str(f, d->strs + e->key, e->klen, OUT_JSON);
		fputc(':', f);
		dump(f, d, e);
	}
	if (!f)
		return NULL;
	fputc('}', f);
	fclose(f);
	return buf;
}

/* Frames as text, one per line: "func+0xoff (module) ip". */
static void frames_write(FILE *f, const struct jdoc *d, const struct jnode *a)
{
	int k = 0;
	for (int32_t i = a->first; i >= 0; i = d->n[i].next, k++) {
		const struct jnode *fr = &d->n[i];
		size_t fl = 0, ml = 0, il = 0;
		const char *fn = jd_string(d, fr, "func", &fl);
		const char *mod = jd_string(d, fr, "module", &ml);
		const char *ip = jd_string(d, fr, "ip", &il);
		double off = 0;
		bool has_off = jd_num(d, fr, "off", &off);
		fprintf(f, "%s#%d ", k ? "\n" : "", k);
		if (fn)
			fwrite(fn, 1, fl, f);
		else
			fputs("??", f);
		if (fn && has_off && off >= 0 && off < 1e18)
			fprintf(f, "+0x%lx", (unsigned long)off);
		if (mod) {
			fputs(" (", f);
			fwrite(mod, 1, ml, f);
			fputc(')', f);
		}
		if (ip) {
			fputc(' ', f);
			fwrite(ip, 1, il, f);
		}
	}
}

/* An escape's text: the call, then why, then the frames, one per line; a
 * stack's: the frames, then (error). */
static struct ustr mark_text(const struct jdoc *d, const struct jnode *o,
			     bool escape)
{
	char *buf = NULL;
	size_t len = 0, cl = 0, wl = 0, el = 0;
	const struct jnode *fr = jd_get(d, o, "frames");
	bool frames = fr && fr->type == J_ARR;
	const char *call = escape ? jd_string(d, o, "call", &cl) : NULL;
	const char *why = escape ? jd_string(d, o, "why", &wl) : NULL;
	const char *err = escape ? NULL : jd_string(d, o, "error", &el);
	if (!escape && !frames && !err)
		return (struct ustr){0};
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return (struct ustr){0};
	if (escape) {
		if (call)
			fwrite(call, 1, cl, f);
		else
			fputc('?', f);
		if (why) {
			fputc('\n', f);
			fwrite(why, 1, wl, f);
		}
		if (frames)
			fputc('\n', f);
	}
	if (frames)
		frames_write(f, d, fr);
	if (err) {
		fputs(frames ? "\n(" : "(", f);
		fwrite(err, 1, el, f);
		fputc(')', f);
	}
	if (fclose(f) || !buf) {
		free(buf);
		return (struct ustr){0};
	}
	return us_take(buf, len);
}

/* ------------------------------------------------------------ model */

static int new_proc(struct corral_report *m, int pid, double t,
		    unsigned long line)
{
	if (GROW(m->procs, m->procs_cap, m->nprocs + 1))
		return -ENOMEM;
	int i = (int)m->nprocs++;
	m->procs[i] = (struct rproc){
		.pid = pid,
		.tgid = pid,
		.parent = -1,
		.first_child = -1,
		.next_sibling = -1,
		.last_child = -1,
		.born = t,
		.ended = -1,
		.ending_at = -1,
		.first_exec = -1,
		.last_exec = -1,
		.left_exec = -1,
		.fork_exec = -1,
		.line = line,
	};
	if (pm_put(&m->procmap, pid, i))
		return -ENOMEM;
	return i;
}

static void link_child(struct corral_report *m, int parent, int child)
{
	struct rproc *p = &m->procs[parent], *c = &m->procs[child];
	c->parent = parent;
	if (p->last_child >= 0)
		m->procs[p->last_child].next_sibling = child;
	else
		p->first_child = child;
	p->last_child = child;
}

/* The process a task belongs to: a process's pid, or a thread's tid. */
static int proc_of(struct corral_report *m, int tid)
{
	int t = pm_get(&m->threadmap, tid);
	if (t >= 0 && m->threads[t].ended < 0)
		return m->threads[t].proc;
	return pm_get(&m->procmap, tid);
}

/* The process of an event's task, created if this is its first sight. */
static int proc_for(struct corral_report *m, int pid, int tgid, double t,
		    unsigned long line)
{
	int p = proc_of(m, tgid ? tgid : pid);
	if (p >= 0)
		return p;
	/* the command itself has no fork event: corral spawned it at start */
	if (m->nprocs == 0)
		t = m->t_start;
	return new_proc(m, tgid ? tgid : pid, t, line);
}

static int add_mark(struct corral_report *m, int kind, double t, int proc,
		    int tid, unsigned long line)
{
	if (GROW(m->marks, m->marks_cap, m->nmarks + 1))
		return -ENOMEM;
	int i = (int)m->nmarks++;
	m->marks[i] = (struct rmark){.t = t,
				     .proc = proc,
				     .tid = tid,
				     .kind = (uint8_t)kind,
				     .line = line};
	return i;
}

/* A JSON number as an int; 0 when absent, fractional out of range or NaN
 * (a cast of such a double would be undefined). */
static int to_int(double v)
{
	return v > -2147483648.0 && v < 2147483648.0 ? (int)v : 0;
}

static long to_long(double v)
{
	return v > -9e18 && v < 9e18 ? (long)v : 0;
}

static int num_i(const struct jdoc *d, const struct jnode *o, const char *k)
{
	double v;
	return jd_num(d, o, k, &v) ? to_int(v) : 0;
}

static struct ustr str_dup(const struct jdoc *d, const struct jnode *o,
			   const char *k)
{
	size_t n;
	const char *s = jd_string(d, o, k, &n);
	return s ? us_dup(s, n) : (struct ustr){0};
}

static bool is_crash(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE || sig == SIGABRT || sig == SIGSYS ||
	       sig == SIGTRAP;
}

static const char *const exit_keys[] = {
	"event",  "t",	    "pid",   "tgid", "ppid", "nspid", "setup",
	"status", "signal", "signo", "core", "n",    "h",     NULL};

static const char *const end_keys[] = {"event",
				       "t",
				       "exit_code",
				       "reason",
				       "status",
				       "signal",
				       "signo",
				       "core",
				       "exec_error",
				       "sandbox_failed",
				       "by_signal",
				       "processes",
				       "threads",
				       "execs",
				       "left",
				       "killed",
				       "survivors",
				       "unstopped",
				       "phases",
				       "duration",
				       "escapes",
				       "stacks",
				       "journal_errors",
				       "journal_lost",
				       "journal_intact",
				       "chain_key",
				       "n",
				       "h",
				       NULL};

static int ev_start(struct corral_report *m, const struct jdoc *d,
		    const struct jnode *o, double t)
{
	double v;
	m->schema = jd_num(d, o, "schema", &v) ? to_int(v) : 0;
	m->version = str_dup(d, o, "version");
	m->t_start = t;
	m->corral_pid = num_i(d, o, "pid");
	if (jd_num(d, o, "timeout", &v))
		m->timeout = v;
	m->command = strv(d, jd_get(d, o, "command"), &m->command_argc);
	/* schema 2 names the wall clock; any of these spellings is taken */
	static const char *const wall[] = {"wall", "wall_clock", "utc",
					   "time", "date",	 NULL};
	for (const char *const *k = wall; *k && !us_ok(m->wall); k++)
		m->wall = str_dup(d, o, *k);
	m->host = str_dup(d, o, "host");
	m->cwd = str_dup(d, o, "cwd");
	return 0;
}

static int ev_create(struct corral_report *m, const struct jdoc *d,
		     const struct jnode *o, double t, unsigned long line,
		     bool thread)
{
	int pid = num_i(d, o, "pid"), ppid = num_i(d, o, "ppid");
	int tgid = num_i(d, o, "tgid");
	if (pid <= 0)
		return 1;
	if (thread) {
		int p = proc_for(m, tgid ? tgid : ppid, 0, t, line);
		if (p < 0)
			return p;
		if (GROW(m->threads, m->threads_cap, m->nthreads + 1))
			return -ENOMEM;
		int i = (int)m->nthreads++;
		m->threads[i] = (struct rthread){
			.tid = pid, .proc = p, .born = t, .ended = -1};
		m->procs[p].nthreads++;
		return pm_put(&m->threadmap, pid, i);
	}
	int parent = ppid ? proc_of(m, ppid) : -1;
	int c = new_proc(m, pid, t, line);
	if (c < 0)
		return c;
	struct rproc *p = &m->procs[c];
	p->creator = ppid;
	p->nspid = num_i(d, o, "nspid");
	const struct jnode *s = jd_get(d, o, "setup");
	p->setup = s && s->type == J_BOOL && s->b;
	if (parent >= 0 && parent != c) {
		link_child(m, parent, c);
		/* it runs what its creator runs now, until it execs */
		const struct rproc *pp = &m->procs[parent];
		p->fork_exec =
			pp->last_exec >= 0 ? pp->last_exec : pp->fork_exec;
		p->fork_gen = pp->last_exec >= 0 ? 1 : pp->fork_gen + 1;
	}
	return 0;
}

static int ev_exec(struct corral_report *m, const struct jdoc *d,
		   const struct jnode *o, double t, unsigned long line,
		   bool left)
{
	int pid = num_i(d, o, "pid"), tgid = num_i(d, o, "tgid");
	int former = num_i(d, o, "former");
	if (pid <= 0)
		return 1;
	if (former && former != pid) {
		/* the exec'ing thread took the leader's pid; it is gone */
		int th = pm_get(&m->threadmap, former);
		if (th >= 0 && m->threads[th].ended < 0)
			m->threads[th].ended = t;
	}
	int p = proc_for(m, pid, tgid, t, line);
	if (p < 0)
		return p;
	if (GROW(m->execs, m->execs_cap, m->nexecs + 1))
		return -ENOMEM;
	int e = (int)m->nexecs++;
	struct rexec *x = &m->execs[e];
	*x = (struct rexec){.proc = p, .next = -1, .t = t, .former = former};
	x->path = str_dup(d, o, "path");
	x->argv = strv(d, jd_get(d, o, "argv"), &x->argc);
	x->cwd = str_dup(d, o, "cwd");
	struct rproc *pr = &m->procs[p];
	if (left) {
		/* what /proc said when it was left: a name, not an exec */
		x->next = -2;
		pr->left_exec = e;
		return 0;
	}
	m->n_execs++;
	/* a setup task's exec is the command starting in the sandbox (or
	 * bwrap itself, at the root): what the exec line says */
	const struct jnode *su = jd_get(d, o, "setup");
	pr->setup = su && su->type == J_BOOL && su->b;
	if (pr->last_exec >= 0)
		m->execs[pr->last_exec].next = e;
	else
		pr->first_exec = e;
	pr->last_exec = e;
	pr->nexecs++;
	if (!pr->nspid)
		pr->nspid = num_i(d, o, "nspid");
	return 0;
}

static int ev_exit(struct corral_report *m, const struct jdoc *d,
		   const struct jnode *o, double t, unsigned long line)
{
	int pid = num_i(d, o, "pid"), tgid = num_i(d, o, "tgid");
	if (pid <= 0)
		return 1;
	int th = pm_get(&m->threadmap, pid);
	if (th >= 0 && m->threads[th].ended < 0 && pid != tgid) {
		m->threads[th].ended = t;
		return 0;
	}
	int p = pm_get(&m->procmap, pid);
	if (p < 0 || m->procs[p].has_exit) {
		/* an exit of a task never seen before */
		p = new_proc(m, pid, t, line);
		if (p < 0)
			return p;
	}
	struct rproc *pr = &m->procs[p];
	pr->has_exit = true;
	pr->ended = t;
	double v;
	if (jd_num(d, o, "signo", &v)) {
		pr->sig = to_int(v);
		const struct jnode *c = jd_get(d, o, "core");
		pr->core = c && c->type == J_BOOL && c->b;
	} else {
		pr->status = num_i(d, o, "status");
	}
	pr->exit_extra = extra_keys(d, o, exit_keys);
	return 0;
}

static int ev_mark(struct corral_report *m, const struct jdoc *d,
		   const struct jnode *o, double t, unsigned long line,
		   int kind)
{
	int pid = num_i(d, o, "pid"), tgid = num_i(d, o, "tgid");
	int p = pid > 0 ? proc_for(m, pid, tgid, t, line) : -1;
	if (pid > 0 && p < 0)
		return p;
	int i = add_mark(m, kind, t, p, pid, line);
	if (i < 0)
		return i;
	struct rmark *k = &m->marks[i];
	switch (kind) {
	case MK_SIGNAL:
	case MK_STOP:
		k->signo = num_i(d, o, "signo");
		k->text = str_dup(d, o, "signal");
		kind == MK_SIGNAL ? m->n_signals++ : m->n_stops++;
		break;
	case MK_ESCAPE:
		/* text: the call, then why, then the frames, one per line */
		k->extra = str_dup(d, o, "verdict");
		k->text = mark_text(d, o, true);
		m->n_escapes++;
		break;
	case MK_STACK:
		k->extra = str_dup(d, o, "why");
		k->text = mark_text(d, o, false);
		if (pid > 0)
			m->n_stacks++;
		break;
	case MK_DENIED:
		k->text = str_dup(d, o, "detail");
		if (!us_ok(k->text))
			k->text = str_dup(d, o, "call");
		m->n_denied++;
		break;
	case MK_PTRACE: {
		/* "attach 4242", "refused: PTRACE_ATTACH 1: ..." */
		char *buf = NULL;
		size_t len = 0, al = 0, dl = 0;
		const char *a = jd_string(d, o, "action", &al);
		const char *det = jd_string(d, o, "detail", &dl);
		int tracee = num_i(d, o, "tracee");
		FILE *f = open_memstream(&buf, &len);
		if (f) {
			if (a)
				fwrite(a, 1, al, f);
			else
				fputc('?', f);
			if (tracee > 0)
				fprintf(f, " %d", tracee);
			if (det) {
				fputs(": ", f);
				fwrite(det, 1, dl, f);
			}
			fclose(f);
			k->text = us_take(buf, len);
		}
		k->extra = str_dup(d, o, "action");
		m->n_ptrace++;
		break;
	}
	case MK_LEFT:
		if (p >= 0) {
			m->procs[p].left = true;
			/* a member that never exec'd: /proc told its argv */
			if (m->procs[p].first_exec < 0 && jd_get(d, o, "argv"))
				return ev_exec(m, d, o, t, line, true);
		}
		break;
	}
	return 0;
}

/* --core: the process's row links its core file; a failure is a note. */
static int ev_core(struct corral_report *m, const struct jdoc *d,
		   const struct jnode *o, double t, unsigned long line)
{
	int pid = num_i(d, o, "pid");
	size_t el = 0;
	const char *err = jd_string(d, o, "error", &el);
	if (!jd_get(d, o, "path") || pid <= 0) {
		if (pid > 0)
			rpt_note(m, line, "core of %d: %.*s", pid,
				 err ? (int)el : 11, err ? err : "not written");
		else
			rpt_note(m, line, "cores: %.*s", err ? (int)el : 7,
				 err ? err : "skipped");
		return 0;
	}
	int p = proc_for(m, pid, pid, t, line);
	if (p < 0)
		return p;
	struct rproc *pr = &m->procs[p];
	us_free(&pr->core_file_);
	us_free(&pr->core_cut_);
	pr->core_file_ = str_dup(d, o, "path");
	pr->core_cut_ = str_dup(d, o, "cut");
	m->n_cores++;
	if (err)
		rpt_note(m, line, "core of %d: %.*s", pid, (int)el, err);
	return 0;
}

static int ev_end(struct corral_report *m, const struct jdoc *d,
		  const struct jnode *o, double t)
{
	double v;
	/* a second end line (two runs in one file?): the last one wins */
	us_free(&m->end_reason);
	us_free(&m->end_signal);
	us_free(&m->exec_error);
	us_free(&m->by_signal);
	free(m->end_extra);
	m->has_end = true;
	m->end_t = t;
	m->exit_code = num_i(d, o, "exit_code");
	m->end_reason = str_dup(d, o, "reason");
	m->end_status = jd_num(d, o, "status", &v) ? to_int(v) : -1;
	m->end_sig = num_i(d, o, "signo");
	m->end_signal = str_dup(d, o, "signal");
	m->exec_error = str_dup(d, o, "exec_error");
	m->by_signal = str_dup(d, o, "by_signal");
	const struct jnode *sf = jd_get(d, o, "sandbox_failed");
	m->sandbox_failed = sf && sf->type == J_BOOL && sf->b;
	m->duration = jd_num(d, o, "duration", &v) ? v : t;
	const struct jnode *ph = jd_get(d, o, "phases");
	jd_num(d, ph, "grace", &m->phase_grace);
	jd_num(d, ph, "stop", &m->phase_stop);
	jd_num(d, ph, "kill", &m->phase_kill);
	struct {
		const char *k;
		long *v;
	} nums[] = {
		{"processes", &m->end_processes},
		{"threads", &m->end_threads},
		{"execs", &m->end_execs},
		{"left", &m->end_left},
		{"killed", &m->end_killed},
		{"survivors", &m->end_survivors},
		{"escapes", &m->end_escapes},
		{"stacks", &m->end_stacks},
		{"journal_errors", &m->end_journal_errors},
		{"unstopped", &m->end_unstopped},
		{"journal_lost", &m->end_journal_lost},
	};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		*nums[i].v = jd_num(d, o, nums[i].k, &v) ? to_long(v) : 0;
	m->end_extra = extra_keys(d, o, end_keys);
	const struct jnode *in = jd_get(d, o, "journal_intact");
	/* schema 2: corral re-read its own file before the end line */
	m->end_intact = in && in->type == J_BOOL ? (in->b ? 1 : 0) : -1;
	return 0;
}

const char *const rpt_mark_names[MK__COUNT] = {
#define MARK(id, name) [MK_##id] = name,
#include "events.def"
#undef MARK
};

/* The mark each event puts on its process's row, MK_NONE for none. */
static const signed char event_mark[CORRAL_EV__COUNT] = {
#define EV(id, name, mark, keys, doc) [CORRAL_EV_##id] = MK_##mark,
#include "events.def"
#undef EV
};

/*
 * One event line. The switch names every type of tracer/base/events.def, with
 * no default: a type added there without its case here does not build
 * (-Wswitch), so the report knows every event the writer can write
 * (tests/unit/test_events.c reads a journal with one of each). A name it
 * does not know (a newer corral's) is counted and noted.
 */
static int event(struct corral_report *m, const struct jdoc *d,
		 const struct jnode *o, const char *ev, double t,
		 unsigned long line)
{
	int type = event_by_name(ev, strlen(ev));
	if (type < 0) {
		m->unknown_events++;
		return 0;
	}
	switch ((enum corral_event_type)type) {
	case CORRAL_EV_FORK:
	case CORRAL_EV_VFORK:
	case CORRAL_EV_CLONE:
		return ev_create(m, d, o, t, line, false);
	case CORRAL_EV_THREAD:
		return ev_create(m, d, o, t, line, true);
	case CORRAL_EV_EXEC:
		return ev_exec(m, d, o, t, line, false);
	case CORRAL_EV_EXIT:
		return ev_exit(m, d, o, t, line);
	case CORRAL_EV_STACK:
		if (!jd_get(d, o, "pid")) {
			size_t el = 0;
			const char *err = jd_string(d, o, "error", &el);
			if (err)
				rpt_note(m, line, "stacks: %.*s", (int)el, err);
			else
				rpt_note(m, line, "stacks: skipped");
			return 0;
		}
		return ev_mark(m, d, o, t, line, event_mark[type]);
	case CORRAL_EV_SIGNAL:
	case CORRAL_EV_STOP:
	case CORRAL_EV_CONT:
	case CORRAL_EV_ESCAPE:
	case CORRAL_EV_DENIED:
	case CORRAL_EV_LEFT:
	case CORRAL_EV_PTRACE:
		return ev_mark(m, d, o, t, line, event_mark[type]);
	case CORRAL_EV_CORE:
		return ev_core(m, d, o, t, line);
	case CORRAL_EV_SURVIVOR:
		if (m->nsurvivors < RPT_LISTED) {
			struct rsurvivor *s = &m->survivors[m->nsurvivors++];
			s->pid = num_i(d, o, "pid");
			s->tgid = num_i(d, o, "tgid");
			s->state = str_dup(d, o, "state");
			s->wchan = str_dup(d, o, "wchan");
		}
		return 0;
	case CORRAL_EV_FUSE_ABORT:
		if (m->nfuse < RPT_LISTED) {
			struct rfuse *fu = &m->fuse[m->nfuse++];
			double v;
			fu->conn = jd_num(d, o, "conn", &v) ? to_long(v) : -1;
			fu->pid = num_i(d, o, "pid");
			const struct jnode *a = jd_get(d, o, "aborted");
			fu->aborted = a && a->type == J_BOOL && a->b;
			fu->error = str_dup(d, o, "error");
		}
		return 0;
	case CORRAL_EV_DYING:
		return 0; /* the end line has the count */
	case CORRAL_EV_ENDING:
		if (!m->has_ending) {
			m->has_ending = true;
			m->ending_t = t;
			m->ending_reason = str_dup(d, o, "reason");
			m->ending_signal = str_dup(d, o, "signal");
		}
		return 0;
	case CORRAL_EV_END:
		return ev_end(m, d, o, t);
	case CORRAL_EV_SNAPSHOT:
	case CORRAL_EV_START:
		return 0;
	}
	m->unknown_events++;
	return 0;
}

static void finish(struct corral_report *m)
{
	for (size_t i = 0; i < m->nprocs; i++) {
		struct rproc *p = &m->procs[i];
		/* parents come before their children: one pass is enough */
		p->cmd_exec = p->last_exec;
		p->forks = 0;
		if (p->cmd_exec < 0 && p->fork_exec >= 0) {
			/* the program it was forked running, not what its
			 * creator ran later */
			p->cmd_exec = p->fork_exec;
			p->forks = p->fork_gen;
		} else if (p->cmd_exec < 0 && p->left_exec >= 0) {
			p->cmd_exec = p->left_exec;
			p->forks = i ? 1 : 0;
		} else if (p->cmd_exec < 0 && p->parent >= 0) {
			p->cmd_exec = m->procs[p->parent].cmd_exec;
			p->forks = m->procs[p->parent].forks + 1;
		}
		/* a process that never exec'd is a fork (the command itself
		 * is the first process) */
		if (p->last_exec < 0 && i && !p->forks)
			p->forks = 1;
		if (m->has_ending && p->born <= m->ending_t &&
		    (!p->has_exit || p->ended >= m->ending_t))
			p->ending_at = m->ending_t;
		if (p->setup && p->has_exit)
			/* bubblewrap's own processes end as designed when the
			 * command does (--die-with-parent, the namespace's
			 * init; the outer one exits with the command's
			 * status): never "ended by corral" nor "left
			 * behind"; failed only when the sandbox did */
			p->how = m->sandbox_failed && (p->sig || p->status)
					 ? HOW_FAILED
					 : HOW_OK;
		else if (p->left)
			p->how = HOW_LEFT;
		else if (!p->has_exit)
			p->how = HOW_UNKNOWN;
		else if (p->sig && (is_crash(p->sig) || p->core))
			p->how = HOW_CRASHED;
		else if (p->sig && p->ending_at >= 0)
			p->how = HOW_KILLED;
		else if (p->sig || p->status)
			p->how = HOW_FAILED;
		else
			p->how = HOW_OK;
		m->how_count[p->how]++;
		if (p->setup && p->how == HOW_OK)
			m->n_setup++;
	}
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].ended < 0 && m->has_end)
			m->threads[i].ended = m->end_t;
}

static const char *status_msg(enum jr_status s)
{
	switch (s) {
	case JR_TOOLONG:
		return "longer than 64 MiB: not a corral journal";
	case JR_NOMEM:
		return "out of memory";
	default:
		return "unreadable";
	}
}

/*
 * What the reader said of a line, before it is an event: 0 an event to
 * read, 1 the journal is cut here (noted; stop reading), else -errno with
 * err written.
 */
static int read_status(struct corral_report *m, const struct jreader *r,
		       enum jr_status st, unsigned long line, bool started,
		       char *err, size_t errlen)
{
	if (st == JR_CUT && started) {
		/* corral was killed while writing, or the file was cut */
		m->cut = true;
		m->cut_line = line;
		rpt_note(m, line,
			 "the journal is cut here (an incomplete last "
			 "line, ignored): corral was killed or the "
			 "file was truncated");
		return 1;
	}
	if (st == JR_BAD || st == JR_CUT) {
		snprintf(err, errlen, "line %lu: %s", line, r->err);
		return -EINVAL;
	}
	if (st == JR_IOERR) {
		snprintf(err, errlen, "%s", r->err);
		return -EIO;
	}
	if (st != JR_OK) {
		snprintf(err, errlen, "line %lu: %s", line, status_msg(st));
		return st == JR_NOMEM ? -ENOMEM : -EINVAL;
	}
	return 0;
}

/*
 * A line is an event: an object with an "event" string and, but for the
 * start, a time; the first is the start. Sets *evp and *tp; 0, or -EINVAL
 * with err written.
 */
static int check_event(const struct jdoc *d, unsigned long line, bool started,
		       const char **evp, double *tp, char *err, size_t errlen)
{
	const struct jnode *o = jd_node(d, 0);
	const char *ev = jd_string(d, o, "event", NULL);
	*tp = 0;
	if (!o || o->type != J_OBJ || !ev) {
		snprintf(err, errlen,
			 "line %lu: not a journal event (a JSON object "
			 "with an \"event\" string)%s",
			 line, started ? "" : ": not a corral journal");
		return -EINVAL;
	}
	if (!jd_num(d, o, "t", tp) && strcmp(ev, "start")) {
		snprintf(err, errlen,
			 "line %lu: event \"%.40s\" has no "
			 "time (\"t\")",
			 line, ev);
		return -EINVAL;
	}
	if (!started && strcmp(ev, "start")) {
		snprintf(err, errlen,
			 "line %lu: not a corral journal (the "
			 "first event is \"%.40s\", not "
			 "\"start\")",
			 line, ev);
		return -EINVAL;
	}
	*evp = ev;
	return 0;
}

/* A line the chain found altered is shown as read, and marked (on its
 * process, p >= 0, when it names one). */
static void mark_if_altered(struct corral_report *m, unsigned long line,
			    double t, int p, int pid)
{
	int v = rpt_line_altered(m, line);
	if (v < 0)
		return;
	m->altered_lines++;
	int k = add_mark(m, MK_ALTERED, t, p, pid, line);
	if (k >= 0)
		m->marks[k].text = us_dup(corral_line_verdict_name(v),
					  strlen(corral_line_verdict_name(v)));
}

/* The start line: the run's head. */
static void read_start(struct corral_report *m, const struct jdoc *d,
		       unsigned long line, double t)
{
	ev_start(m, d, jd_node(d, 0), t);
	mark_if_altered(m, line, t, -1, 0);
	if (m->schema > CORRAL_JOURNAL_SCHEMA + 1)
		rpt_note(m, line,
			 "schema %d is newer than this report "
			 "knows: what it does not know is "
			 "ignored",
			 m->schema);
}

/* Any other event; 0, or -errno with err written. */
static int read_event(struct corral_report *m, const struct jdoc *d,
		      const char *ev, unsigned long line, double t, char *err,
		      size_t errlen)
{
	const struct jnode *o = jd_node(d, 0);
	m->events++;
	if (t > m->t_last)
		m->t_last = t;
	int e = event(m, d, o, ev, t, line);
	if (e >= 0) {
		int pid = num_i(d, o, "pid");
		mark_if_altered(m, line, t, pid > 0 ? proc_of(m, pid) : -1,
				pid);
	}
	if (e < 0) {
		snprintf(err, errlen, "line %lu: %s", line, strerror(-e));
		return e;
	}
	if (e > 0)
		rpt_note(m, line, "event \"%s\" without a pid: ignored", ev);
	return 0;
}

/* Once every line is read: what the reader has to say of the whole (runs,
 * the end line, the chain, events it does not know). */
static void whole_notes(struct corral_report *m, unsigned long starts)
{
	if (m->sel_first)
		rpt_note(m, m->sel_first,
			 "the file holds %zu runs: shown is run %u (lines "
			 "%lu-%lu), the run its last end line belongs to "
			 "(corral verify checks them all)",
			 m->runs, m->sel_run, m->sel_first, m->sel_last);
	else if (starts > 1)
		rpt_note(m, 0,
			 "the input holds %lu runs, shown together (read from "
			 "a pipe: give the file to see the run of its last end "
			 "line alone)",
			 starts);
	if (!m->has_end && !m->cut)
		rpt_note(m, 0,
			 "no end line: corral was killed (or is still running) "
			 "after line %lu; this is what it wrote",
			 m->lines);
	if (m->chain == CHAIN_BROKEN)
		rpt_note(m, m->chain_first_bad,
			 "the digest chain is broken (%zu line(s); they are "
			 "shown as read, marked altered): %s",
			 m->nbad, m->chain_why);
	else if (m->chain == CHAIN_UNCHECKED)
		rpt_note(m, 0,
			 "the digest chain could not be checked (%lu line(s)): "
			 "no key (a run without its end line, or a "
			 "--journal-key run: corral report --key FILE)",
			 m->chain_unchecked);
	else if (m->chain == CHAIN_PIPE && m->schema >= 2)
		rpt_note(m, 0,
			 "the digest chain was not checked (read from a pipe: "
			 "corral verify checks it)");
	if (m->unknown_events)
		rpt_note(m, 0,
			 "%lu event(s) of a type this report does not "
			 "know: ignored",
			 m->unknown_events);
}

int rpt_build(struct corral_report *m, struct jreader *r, char *err,
	      size_t errlen)
{
	bool started = false;
	unsigned long starts = 0; /* start lines read (a pipe's runs) */
	for (;;) {
		enum jr_status st = jr_next(r);
		if (st == JR_EOF)
			break;
		if (st == JR_BLANK)
			continue;
		unsigned long line = r->line;
		/* Only the run of the last end line (api.c, check_chain()). */
		if (m->sel_first &&
		    (line < m->sel_first || line > m->sel_last) &&
		    st != JR_IOERR && st != JR_NOMEM)
			continue;
		int e = read_status(m, r, st, line, started, err, errlen);
		if (e > 0)
			break;
		if (e < 0)
			return e;
		m->lines = line;
		const char *ev;
		double t;
		e = check_event(&r->doc, line, started, &ev, &t, err, errlen);
		if (e < 0)
			return e;
		if (!strcmp(ev, "start"))
			starts++;
		if (!started) {
			started = true;
			read_start(m, &r->doc, line, t);
			continue;
		}
		e = read_event(m, &r->doc, ev, line, t, err, errlen);
		if (e < 0)
			return e;
	}
	if (!started) {
		snprintf(err, errlen, "empty: not a corral journal");
		return -EINVAL;
	}
	whole_notes(m, starts);
	finish(m);
	return 0;
}
