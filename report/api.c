/*
 * api.c - corral_report_*: load a journal into a model, free it, and the
 * small questions every writer asks of a process (name, command line, how
 * it ended).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static int load(struct jreader *r, const char *name, struct corral_report **out,
		char *err, size_t errlen)
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
	m->name = strdup(name ? name : "-");
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
	return load(&r, name, out, errbuf, errlen);
}

int corral_report_load_buffer(const char *buf, size_t len, const char *name,
			      struct corral_report **out, char *errbuf,
			      size_t errlen)
{
	struct jreader r;
	jr_open_mem(&r, buf, len);
	return load(&r, name, out, errbuf, errlen);
}

const char *corral_report_note(const struct corral_report *r, size_t i,
			       unsigned long *line)
{
	if (!r || i >= r->nnotes)
		return NULL;
	if (line)
		*line = r->notes[i].line;
	return r->notes[i].msg;
}

void corral_report_free(struct corral_report *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nprocs; i++)
		free(m->procs[i].exit_extra);
	for (size_t i = 0; i < m->nexecs; i++) {
		free(m->execs[i].path);
		free(m->execs[i].argv);
	}
	for (size_t i = 0; i < m->nmarks; i++) {
		free(m->marks[i].text);
		free(m->marks[i].extra);
	}
	for (size_t i = 0; i < m->nnotes; i++)
		free(m->notes[i].msg);
	free(m->procs);
	free(m->execs);
	free(m->threads);
	free(m->marks);
	free(m->notes);
	free(m->procmap.key);
	free(m->procmap.val);
	free(m->threadmap.key);
	free(m->threadmap.val);
	free(m->name);
	free(m->version);
	free(m->wall);
	free(m->host);
	free(m->cwd);
	free(m->command);
	free(m->ending_reason);
	free(m->ending_signal);
	free(m->end_reason);
	free(m->end_signal);
	free(m->exec_error);
	free(m->by_signal);
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
	/* a fork that never exec'd runs its parent's program */
	int e = m->procs[proc].cmd_exec;
	return e >= 0 ? &m->execs[e] : NULL;
}

void rpt_proc_name(const struct corral_report *m, int proc, char *buf,
		   size_t len)
{
	const struct rexec *x = rpt_exec_of(m, proc);
	const char *s = x && x->argc ? x->argv : x ? x->path : NULL;
	if (!s || !*s) {
		snprintf(buf, len, "?");
		return;
	}
	const char *b = strrchr(s, '/');
	snprintf(buf, len, "%s", b && b[1] ? b + 1 : s);
}

void rpt_proc_end_text(const struct corral_report *m, int proc, char *buf,
		       size_t len)
{
	const struct rproc *p = &m->procs[proc];
	if (!p->has_exit)
		snprintf(buf, len, "no exit seen");
	else if (p->sig)
		snprintf(buf, len, "killed by SIG%s",
			 sigabbrev_np(p->sig) ? sigabbrev_np(p->sig) : "?");
	else
		snprintf(buf, len, "exit %d", p->status);
}
