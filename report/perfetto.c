/*
 * perfetto.c - the run as a Chrome trace-event JSON file ("traceEvents"
 * array form), which ui.perfetto.dev and chrome://tracing open: a track
 * per process and per thread, each exec a complete slice (X), instants
 * (i) for signals, stops, escapes, stacks, left and the ending, and flow
 * arrows (s/f) from the task that forked to the child.
 *
 * Strings go out with bytes that are not UTF-8 as the text \xNN: trace
 * viewers are not all happy with lone surrogates.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define A ESC_JSON_ASCII

/* Microseconds (the journal's resolution), rounded; no libm needed. */
static long long us(double t)
{
	double v = t * 1e6 + (t >= 0 ? 0.5 : -0.5);
	/* a hand-made journal may say anything; a cast out of range is UB */
	return v > -9e18 && v < 9e18 ? (long long)v : 0;
}

static void ts(FILE *f, const char *key, double t)
{
	fprintf(f, ",\"%s\":%lld", key, (long long)us(t));
}

static void str(FILE *f, struct ustr s)
{
	esc_put(f, us_or(s, ""), A);
}

/* A name made of our words around a journal string: pre u post. */
static void name3(FILE *f, const char *pre, struct ustr u, const char *post)
{
	esc_json_open(f);
	esc_json_piece(f, us_lit(pre), A);
	esc_json_piece(f, u, A);
	esc_json_piece(f, us_lit(post), A);
	esc_json_close(f);
}

/*
 * Track ids. A pid the kernel reused (a long run, a storm) would merge two
 * processes' tracks and give one tid two pids; the second and later users
 * of a number get it plus k * 2^22 (above any pid_max), the real pid stays
 * in the name and the args.
 */
struct ids {
	int *proc, *thread; /* trace id of each process, thread */
	struct pidmap used; /* number -> how many have used it */
};

static int fresh(struct ids *ids, int n)
{
	int k = pm_get(&ids->used, n);
	pm_put(&ids->used, n, k < 0 ? 1 : k + 1);
	if (k <= 0 || k > 400)
		return n;
	return n + k * (1 << 22);
}

static int ids_init(struct ids *ids, const struct corral_report *m)
{
	memset(ids, 0, sizeof(*ids));
	ids->proc = calloc(m->nprocs + 1, sizeof(int));
	ids->thread = calloc(m->nthreads + 1, sizeof(int));
	if (!ids->proc || !ids->thread)
		return -12;
	/* in order of birth, so the first user keeps the real number */
	size_t t = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		for (; t < m->nthreads && m->threads[t].born < m->procs[i].born;
		     t++)
			ids->thread[t] = fresh(ids, m->threads[t].tid);
		ids->proc[i] = fresh(ids, m->procs[i].pid);
	}
	for (; t < m->nthreads; t++)
		ids->thread[t] = fresh(ids, m->threads[t].tid);
	return 0;
}

static void ids_free(struct ids *ids)
{
	free(ids->proc);
	free(ids->thread);
	free(ids->used.key);
	free(ids->used.val);
}

static void sep(FILE *f, bool *first)
{
	fputs(*first ? "\n" : ",\n", f);
	*first = false;
}

/* Where a process's or thread's life ends on the timeline. */
static double end_of(const struct corral_report *m, double ended)
{
	if (ended >= 0)
		return ended;
	return m->has_end ? m->end_t : m->t_last;
}

static void slice(FILE *f, bool *first, int pid, int tid, const char *cat,
		  const char *pre, struct ustr name, double t0, double t1)
{
	sep(f, first);
	fprintf(f, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":", cat);
	name3(f, pre, name, "");
	fprintf(f, ",\"pid\":%d,\"tid\":%d", pid, tid);
	ts(f, "ts", t0);
	long long d = us(t1) - us(t0);
	fprintf(f, ",\"dur\":%lld", d > 0 ? d : 0);
}

/* An instant's name: our words around up to two journal strings. */
struct iname {
	const char *pre;
	struct ustr a;
	const char *mid;
	struct ustr b;
	const char *post;
};

/* An instant up to its name, which the caller writes (a JSON string). */
static void instant_open(FILE *f, bool *first, char scope, const char *cat)
{
	sep(f, first);
	fprintf(f, "{\"ph\":\"i\",\"s\":\"%c\",\"cat\":\"%s\",\"name\":", scope,
		cat);
}

static void instant_place(FILE *f, int pid, int tid, double t)
{
	fprintf(f, ",\"pid\":%d,\"tid\":%d", pid, tid);
	ts(f, "ts", t);
}

static void instant(FILE *f, bool *first, int pid, int tid, char scope,
		    const char *cat, const struct iname *n, double t)
{
	instant_open(f, first, scope, cat);
	esc_json_open(f);
	esc_json_piece(f, us_lit(n->pre), A);
	esc_json_piece(f, n->a, A);
	esc_json_piece(f, us_lit(n->mid), A);
	esc_json_piece(f, n->b, A);
	esc_json_piece(f, us_lit(n->post), A);
	esc_json_close(f);
	instant_place(f, pid, tid, t);
}

/* Frames (one per line) as a JSON array of strings. */
static void lines_json(FILE *f, struct ustr s)
{
	fputc('[', f);
	size_t pos = 0;
	struct ustr l;
	for (bool first = true; us_line(s, &pos, &l); first = false) {
		if (!first)
			fputc(',', f);
		esc_put(f, l, A);
	}
	fputc(']', f);
}

static void procs(const struct corral_report *m, const struct ids *ids, FILE *f,
		  bool *first)
{
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct rproc *p = &m->procs[i];
		int P = ids->proc[i];
		char how[64], pidn[32] = "";
		struct ustr name = rpt_proc_name(m, (int)i);
		rpt_proc_end_text(m, (int)i, how, sizeof(how));
		if (P != p->pid) /* a reused pid: the real one in the name */
			snprintf(pidn, sizeof(pidn), " (pid %d)", p->pid);
		const char *fork = p->forks ? "(fork) " : "";
		sep(f, first);
		fprintf(f,
			"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,"
			"\"tid\":%d,\"args\":{\"name\":",
			P, P);
		name3(f, fork, name, pidn);
		fputs("}}", f);
		sep(f, first);
		fprintf(f,
			"{\"ph\":\"M\",\"name\":\"process_sort_index\","
			"\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%zu}}",
			P, P, i);
		sep(f, first);
		fprintf(f,
			"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,"
			"\"tid\":%d,\"args\":{\"name\":",
			P, P);
		name3(f, fork, name, pidn);
		fputs("}}", f);

		double end = end_of(m, p->has_exit ? p->ended : -1);
		/* before its first exec it runs what its creator ran when
		 * it forked (not the program it goes on to exec) */
		double first_exec =
			p->first_exec >= 0 ? m->execs[p->first_exec].t : end;
		if (first_exec > p->born || p->first_exec < 0) {
			struct ustr fname =
				p->fork_exec >= 0
					? rpt_exec_name(&m->execs[p->fork_exec])
					: name;
			slice(f, first, P, P, "fork", "(fork) ", fname, p->born,
			      first_exec);
			fprintf(f,
				",\"args\":{\"pid\":%d,\"how\":\"%s\","
				"\"end\":\"%s\"}}",
				p->pid, rpt_how_name(p->how), how);
		}
		for (int e = p->first_exec; e >= 0; e = m->execs[e].next) {
			const struct rexec *x = &m->execs[e];
			double t1 = x->next >= 0 ? m->execs[x->next].t : end;
			struct ustr nm =
				x->argc ? us_sub(x->argv, 0, us_strlen(x->argv))
					: x->path;
			slice(f, first, P, P, "exec", "", us_base(nm), x->t,
			      t1);
			fputs(",\"args\":{\"argv\":", f);
			esc_argv(f, x->argv, x->argc, A);
			fputs(",\"path\":", f);
			str(f, x->path);
			fprintf(f, ",\"pid\":%d", p->pid);
			if (p->nspid)
				fprintf(f, ",\"nspid\":%d", p->nspid);
			fprintf(f, ",\"how\":\"%s\",\"end\":\"%s\"}}",
				rpt_how_name(p->how), how);
		}
	}
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct rthread *t = &m->threads[i];
		int pid = ids->proc[t->proc], tid = ids->thread[i];
		char nm[32];
		snprintf(nm, sizeof(nm), "thread %d", t->tid);
		sep(f, first);
		fprintf(f,
			"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,"
			"\"tid\":%d,\"args\":{\"name\":\"%s\"}}",
			pid, tid, nm);
		slice(f, first, pid, tid, "thread", nm, us_lit(""), t->born,
		      end_of(m, t->ended));
		fputs("}", f);
	}
}

/*
 * A flow from the task that forked to the child. The start binds to the
 * slice enclosing it on the creator's track (its exec, or its thread);
 * the end ("bp":"e") to the child's first slice, which begins at birth.
 */
static void flows(const struct corral_report *m, const struct ids *ids, FILE *f,
		  bool *first)
{
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct rproc *p = &m->procs[i];
		if (p->parent < 0)
			continue;
		const struct rproc *pp = &m->procs[p->parent];
		double pend = end_of(m, pp->has_exit ? pp->ended : -1);
		if (p->born < pp->born || p->born > pend)
			continue; /* no enclosing slice to bind to */
		int tid = ids->proc[p->parent];
		if (p->creator && p->creator != pp->pid) {
			/* forked by one of the parent's threads, if alive */
			int k = rpt_thread_index(m, p->creator);
			const struct rthread *t =
				k >= 0 ? &m->threads[k] : NULL;
			if (t && t->proc == p->parent && t->born <= p->born &&
			    end_of(m, t->ended) >= p->born)
				tid = ids->thread[k];
		}
		sep(f, first);
		fprintf(f,
			"{\"ph\":\"s\",\"cat\":\"fork\",\"name\":\"fork\","
			"\"id\":%zu,\"pid\":%d,\"tid\":%d",
			i + 1, ids->proc[p->parent], tid);
		ts(f, "ts", p->born);
		fputc('}', f);
		sep(f, first);
		fprintf(f,
			"{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"fork\","
			"\"name\":\"fork\",\"id\":%zu,\"pid\":%d,\"tid\":%d",
			i + 1, ids->proc[i], ids->proc[i]);
		ts(f, "ts", p->born);
		fputc('}', f);
	}
}

static void marks(const struct corral_report *m, const struct ids *ids, FILE *f,
		  bool *first)
{
	int gpid = m->nprocs ? ids->proc[0] : 0;
	for (size_t i = 0; i < m->nmarks; i++) {
		const struct rmark *k = &m->marks[i];
		/* the name: our words around journal strings */
		struct iname n = {"", {0}, "", {0}, ""};
		char alt[48];
		switch (k->kind) {
		case MK_SIGNAL:
		case MK_STOP:
			n.pre = k->kind == MK_STOP ? "stop " : "signal ";
			n.a = us_or(k->text, "?");
			break;
		case MK_CONT:
			n.pre = "cont";
			break;
		case MK_ESCAPE: {
			struct ustr t = us_or(k->text, "");
			size_t l = us_cspn(t, 0, "\n");
			n.pre = "escape ";
			n.a = us_sub(t, 0, l < 100 ? l : 100);
			n.mid = " (";
			n.b = us_or(k->extra, "?");
			n.post = ")";
			break;
		}
		case MK_STACK:
			n.pre = "stack (";
			n.a = us_or(k->extra, "?");
			n.post = ")";
			break;
		case MK_DENIED:
			n.pre = "denied";
			break;
		case MK_LEFT:
			n.pre = "left behind";
			break;
		case MK_PTRACE:
			n.pre = "ptrace ";
			n.a = us_or(k->text, "?");
			break;
		default:
			snprintf(alt, sizeof(alt), "altered line %lu", k->line);
			n.pre = alt;
		}
		if (k->proc < 0) {
			instant(f, first, gpid, gpid, 'g',
				rpt_mark_names[k->kind], &n, k->t);
		} else {
			const struct rproc *p = &m->procs[k->proc];
			int P = ids->proc[k->proc], tid = P;
			int th = k->tid > 0 && k->tid != p->pid
					 ? rpt_thread_index(m, k->tid)
					 : -1;
			if (th >= 0 && m->threads[th].proc == k->proc)
				tid = ids->thread[th];
			instant(f, first, P, tid, 't', rpt_mark_names[k->kind],
				&n, k->t);
		}
		fprintf(f, ",\"args\":{\"line\":%lu", k->line);
		if (k->kind == MK_STACK || k->kind == MK_ESCAPE) {
			fputs(",\"frames\":", f);
			lines_json(f, k->text);
		} else if (us_ok(k->text)) {
			fputs(",\"detail\":", f);
			str(f, k->text);
		}
		fputs("}}", f);
	}
	/* the ending and the end in the summary's words (words.c); the
	 * journal's names for programs in the args */
	const struct words w = {f, A, true};
	if (m->has_ending) {
		instant_open(f, first, 'g', "ending");
		esc_json_open(f);
		words_ending(&w, m, false);
		esc_json_close(f);
		instant_place(f, gpid, gpid, m->ending_t);
		fputs(",\"args\":{\"reason\":", f);
		str(f, m->ending_reason);
		if (us_ok(m->ending_signal)) {
			fputs(",\"signal\":", f);
			str(f, m->ending_signal);
		}
		fputs("}}", f);
	}
	if (m->has_end) {
		instant_open(f, first, 'g', "end");
		esc_json_open(f);
		words_result(&w, m);
		esc_json_close(f);
		instant_place(f, gpid, gpid, m->end_t);
		fprintf(f, ",\"args\":{\"exit_code\":%d,\"reason\":",
			m->exit_code);
		str(f, m->end_reason);
		fputs("}}", f);
	}
}

int corral_report_perfetto(const struct corral_report *m, FILE *f)
{
	bool first = true;
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"journal\":", f);
	str(f, m->name);
	fputs(",\"command\":", f);
	esc_argv(f, m->command, m->command_argc, A);
	fputs("},\"traceEvents\":[", f);
	struct ids ids;
	if (ids_init(&ids, m) < 0) {
		ids_free(&ids);
		return -12;
	}
	procs(m, &ids, f, &first);
	flows(m, &ids, f, &first);
	marks(m, &ids, f, &first);
	ids_free(&ids);
	fputs("\n]}\n", f);
	return ferror(f) ? -5 : 0;
}
