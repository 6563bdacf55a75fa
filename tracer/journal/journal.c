/*
 * journal.c - events as JSON Lines (docs/journal.md).
 *
 * Durability rule: journal_event() hands the line to the kernel before it
 * returns whenever the sink takes it (jsink.c), and the engine calls it
 * before it resumes the task that caused the event. So if corral is killed
 * at any instant, every event whose task went on running is in the file,
 * unless the sink was not taking lines then (a stalled reader: then they
 * are queued, bounded, and the loss is counted and said). No user-space
 * buffering otherwise; the cost is one write per event (bench/).
 *
 * Every line is sealed by the digest chain (chain.c). At the end, before
 * the end line, what is queued is written (bounded by kill_after), the
 * file is read back and checked against the chain (journal_intact), and
 * the end line says what was lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "journal.h"
#include "log.h"
#include "names.h"

struct journal {
	struct jsink sink;
	struct chain chain;
	struct sbuf buf;
	bool strict;
	bool strict_fired; /* journal_take_loss() said so, once per run */
	bool ended;	 /* the end line went out (or was lost) */
	bool settled;	 /* journal_settle() ran */
	int intact;	 /* chain_check_own() at the end */
	char why[160];	 /* ...and why not */
};

int journal_open(struct corral *c, char *err, size_t errlen)
{
	c->journal = NULL;
	if (c->cfg.journal_fd < 0 && !c->cfg.journal_path)
		return 0;
	struct journal *j = calloc(1, sizeof(*j));
	if (!j) {
		snprintf(err, errlen, "journal: out of memory");
		return -ENOMEM;
	}
	j->strict = c->cfg.journal_strict;
	j->intact = -1;
	int r = chain_init(&j->chain, c->cfg.journal_key, err, errlen);
	/* Never where a sandboxed member can write (sandbox_run.c). */
	struct safe_forbid *forbid = NULL;
	size_t nforbid = 0;
	if (r == 0) {
		r = sandbox_writable(&c->cfg, &forbid, &nforbid);
		if (r < 0)
			snprintf(err, errlen, "journal: out of memory");
		else
			r = jsink_open(&j->sink, &c->cfg, forbid, nforbid, err,
				       errlen);
		if (r < 0)
			chain_free(&j->chain);
	}
	sandbox_writable_free(forbid, nforbid);
	/*
	 * A run written after what a file holds already (a descriptor given
	 * in append mode) chains its start line to the line before it: a run
	 * cannot be moved, nor one put before it, without breaking the chain
	 * (docs/journal.md, "A run's place in the file").
	 */
	if (r == 0 && j->sink.kind == JS_FILE && j->sink.start > 0 &&
	    chain_after(j->sink.fd, j->sink.start, j->sink.after) == 0)
		chain_rewind(&j->chain, j->sink.after, 0);
	if (r < 0) {
		free(j);
		return r;
	}
	c->journal = j;
	return 0;
}

static void journal_close(struct corral *c)
{
	struct journal *j = c->journal;
	if (!j)
		return;
	jsink_close(&j->sink);
	chain_free(&j->chain);
	sb_free(&j->buf);
	free(j);
	c->journal = NULL;
}

/* A stalled reader: wake up when it takes lines again. */
static int journal_pollfd(struct corral *c, struct pollfd *p)
{
	return c->journal ? jsink_pollfd(&c->journal->sink, p) : 0;
}

static void journal_flush(struct corral *c, const struct pollfd *p, int n)
{
	if (c->journal && n && p[0].revents)
		jsink_flush(&c->journal->sink);
}

/* Seconds until the waiting exit lines are due; -1: none. */
static double journal_later_due(const struct corral *c)
{
	return c->journal ? jsink_later_due(&c->journal->sink) : -1;
}

bool journal_take_loss(struct corral *c)
{
	struct journal *j = c->journal;
	/*
	 * Once: ending the tree writes lines too (ending, end), which a
	 * journal that is failing loses again.
	 */
	if (!j || !j->strict || j->strict_fired || !j->sink.loss)
		return false;
	j->strict_fired = true;
	return true;
}

static void put_num(struct sbuf *b, const char *key, long v)
{
	sb_json_key(b, key);
	sb_long(b, v);
}

static void put_time(struct sbuf *b, const char *key, double t)
{
	sb_json_key(b, key);
	sb_fixed6(b, t);
}

static void put_str(struct sbuf *b, const char *key, const char *s)
{
	sb_json_key(b, key);
	sb_json_str(b, s, strlen(s));
}

static void put_signal(struct sbuf *b, int sig)
{
	char nb[16];
	put_str(b, "signal", signal_name(sig, nb));
	put_num(b, "signo", sig);
}

static void put_frames(struct sbuf *b, const struct corral_frame *f, int n)
{
	sb_json_key(b, "frames");
	sb_putc(b, '[');
	for (int i = 0; i < n; i++) {
		sb_printf(b, "%s{\"ip\":\"0x%llx\"", i ? "," : "",
			  (unsigned long long)f[i].ip);
		if (f[i].func) {
			put_str(b, "func", f[i].func);
			put_num(b, "off", (long)f[i].off);
		}
		if (f[i].module)
			put_str(b, "module", f[i].module);
		sb_putc(b, '}');
	}
	sb_putc(b, ']');
}

/* Wall clock at t = 0, RFC 3339 UTC, and CLOCK_MONOTONIC at t = 0. */
static void put_origin(struct corral *c, struct sbuf *b)
{
	struct timespec rt, mt;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	double mono_now = (double)mt.tv_sec + (double)mt.tv_nsec * 1e-9;
	double since = mono_now - c->lifecycle.t0;
	long long us = (long long)rt.tv_sec * 1000000 + rt.tv_nsec / 1000 -
		       (long long)(since * 1e6);
	time_t secs = (time_t)(us / 1000000);
	struct tm tm;
	gmtime_r(&secs, &tm);
	char when[64];
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	sb_json_key(b, "time");
	sb_printf(b, "\"%s.%06lldZ\"", when, us % 1000000);
	put_time(b, "monotonic", c->lifecycle.t0);
}

static void put_start(struct corral *c, struct sbuf *b,
		      const struct corral_event *ev)
{
	put_num(b, "schema", CORRAL_JOURNAL_SCHEMA);
	put_str(b, "version", CORRAL_VERSION);
	put_num(b, "pid", ev->pid);
	sb_json_key(b, "argv");
	sb_json_strv(b, c->cfg.self_argv);
	sb_json_key(b, "command");
	sb_json_strv(b, c->cfg.argv);
	put_origin(c, b);
	char host[256];
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = 0;
		put_str(b, "host", host);
	}
	put_num(b, "uid", (long)getuid());
	put_num(b, "gid", (long)getgid());
	char *cwd = getcwd(NULL, 0);
	if (cwd) {
		put_str(b, "cwd", cwd);
		free(cwd);
	}
	if (c->cfg.timeout > 0)
		put_time(b, "timeout", c->cfg.timeout);
	put_time(b, "kill_after", c->cfg.kill_after);
	/* The kernel boundary the tree runs in (docs/threat-model.md). */
	put_str(b, "boundary", landlock_boundary_name(&c->spawn.boundary));
	put_num(b, "landlock_abi", c->spawn.boundary.abi);
	sandbox_journal_start(c, b); /* sandbox: user, bwrap argv */
	put_str(b, "chain", "hmac-sha256");
	put_str(b, "key", c->journal->chain.run_key ? "run" : "file");
	/* Last, just before "n": where in the file this run begins, and
	 * the line before it (chain.c reads them from there). */
	const struct jsink *s = &c->journal->sink;
	if (s->kind == JS_FILE) {
		put_num(b, "offset", (long)s->start);
		if (s->after[0])
			put_str(b, "after", s->after);
	}
}

static void put_end(struct corral *c, struct sbuf *b)
{
	const struct corral_result *r = &c->result.res;
	put_num(b, "exit_code", r->exit_code);
	put_str(b, "reason", corral_reason_name(r->reason));
	if (r->sandbox_failed) {
		sb_puts(b, ",\"sandbox_failed\":true");
		sandbox_journal_end(c, b); /* sandbox_error: why */
	} else if (r->exec_failed) {
		put_str(b, "exec_error", strerror(r->exec_errno));
	} else if (WIFSIGNALED(r->status)) {
		put_signal(b, WTERMSIG(r->status));
	} else {
		put_num(b, "status", WEXITSTATUS(r->status));
	}
	if (r->reason == CORRAL_REASON_SIGNAL && r->term_signal) {
		char nb[16];
		put_str(b, "by_signal", signal_name(r->term_signal, nb));
	}
	put_num(b, "processes", (long)r->processes);
	put_num(b, "threads", (long)r->threads);
	put_num(b, "execs", (long)r->execs);
	put_num(b, "left", (long)r->left);
	put_num(b, "killed", (long)r->killed);
	put_num(b, "survivors", (long)r->survivors);
	if (r->unstopped)
		put_num(b, "unstopped", (long)r->unstopped);
	if (r->dying)
		put_num(b, "dying", (long)r->dying);
	sb_json_key(b, "phases");
	sb_printf(b, "{\"grace\":%.6f,\"stop\":%.6f,\"kill\":%.6f}",
		  r->t_grace, r->t_stop, r->t_kill);
	put_time(b, "duration", r->t_end);
	if (r->escapes)
		put_num(b, "escapes", (long)r->escapes);
	if (r->stacks)
		put_num(b, "stacks", (long)r->stacks);
	if (c->cores) { /* --core: what became of the cores */
		put_num(b, "cores", (long)r->cores);
		put_num(b, "cores_cut", (long)r->cores_cut);
		put_num(b, "cores_failed", (long)r->cores_failed);
		put_num(b, "cores_skipped", (long)r->cores_skipped);
	}
	const struct journal *j = c->journal;
	put_num(b, "journal_lost", (long)j->sink.lost);
	put_num(b, "journal_errors", (long)j->sink.errors);
	if (j->intact >= 0)
		sb_puts(b, j->intact ? ",\"journal_intact\":true"
				     : ",\"journal_intact\":false");
	if (j->chain.run_key) {
		/* Every member is gone: the key can prove, not forge. */
		char hex[65];
		for (int i = 0; i < 32; i++)
			snprintf(hex + 2 * i, 3, "%02x", j->chain.key[i]);
		put_str(b, "chain_key", hex);
	}
}

/* The keys of an event about a task (events.def: pid ... setup). */
static void put_task(struct sbuf *b, const struct corral_event *ev)
{
	put_num(b, "pid", ev->pid);
	if (ev->tgid)
		put_num(b, "tgid", ev->tgid);
	if (ev->ppid)
		put_num(b, "ppid", ev->ppid);
	if (ev->nspid)
		put_num(b, "nspid", ev->nspid);
	if (ev->setup)
		sb_puts(b, ",\"setup\":true");
}

/* A core written, cut, abandoned or not made; or a budget note. */
static void put_core(struct sbuf *b, const struct corral_event *ev)
{
	/* A budget note has no pid: it is about the round. */
	if (ev->pid)
		put_num(b, "pid", ev->pid);
	if (ev->detail)
		put_str(b, "why", ev->detail);
	if (ev->path)
		put_str(b, "path", ev->path);
	/* An abandoned core's size is not known: the writer has it. */
	if (ev->path && !(ev->cut && !strcmp(ev->cut, "abandoned"))) {
		sb_json_key(b, "size");
		sb_printf(b, "%llu", ev->bytes);
		put_num(b, "threads", (long)ev->count);
		if (ev->sha256)
			put_str(b, "sha256", ev->sha256);
	}
	if (ev->path) {
		sb_puts(b, ev->cut ? ",\"truncated\":true"
				   : ",\"truncated\":false");
		if (ev->cut)
			put_str(b, "cut", ev->cut);
	}
	if (ev->error)
		put_str(b, "error", ev->error);
}

/* What a process runs (an exec, or what a process left behind runs). */
static void put_exec(struct sbuf *b, const struct corral_event *ev)
{
	put_task(b, ev);
	if (ev->path)
		put_str(b, "path", ev->path);
	if (ev->argv) {
		sb_json_key(b, "argv");
		sb_json_strv(b, ev->argv);
	}
	if (ev->former)
		put_num(b, "former", ev->former);
	if (ev->cwd)
		put_str(b, "cwd", ev->cwd);
}

/* How a task ended, and what it used when that was read. */
static void put_exit(struct sbuf *b, const struct corral_event *ev)
{
	put_task(b, ev);
	if (ev->sig) {
		put_signal(b, ev->sig);
		sb_puts(b, ev->core ? ",\"core\":true" : ",\"core\":false");
	} else {
		put_num(b, "status", ev->status);
	}
	if (ev->has_rusage) {
		put_time(b, "cpu_user", ev->cpu_user);
		put_time(b, "cpu_sys", ev->cpu_sys);
		put_num(b, "max_rss", ev->max_rss);
	}
}

/* An audited call: what, the verdict, why, and where (its stack). */
static void put_escape(struct sbuf *b, const struct corral_event *ev)
{
	put_task(b, ev);
	if (ev->detail)
		put_str(b, "call", ev->detail);
	if (ev->verdict)
		put_str(b, "verdict", ev->verdict);
	if (ev->error && *ev->error)
		put_str(b, "why", ev->error);
	if (ev->frames)
		put_frames(b, ev->frames, ev->nframes);
	if (ev->cut) { /* as a core's: short, and why */
		sb_puts(b, ",\"truncated\":true");
		put_str(b, "cut", ev->cut);
	}
}

/* A stack taken (why, its frames, cut short or failed). */
static void put_stack(struct sbuf *b, const struct corral_event *ev)
{
	put_task(b, ev);
	if (ev->detail)
		put_str(b, "why", ev->detail);
	put_frames(b, ev->frames, ev->nframes);
	if (ev->error)
		put_str(b, "error", ev->error);
	if (ev->cut) { /* as a core's: short, and why */
		sb_puts(b, ",\"truncated\":true");
		put_str(b, "cut", ev->cut);
	}
}

/*
 * One line, sealed into the chain; the larger events' keys are put by
 * the put_*() steps above. The switch names every event type, with no
 * default: a type added to events.def and corral.h without its keys here
 * does not build (-Wswitch). The keys written are those events.def lists
 * (tests/unit/test_events.c writes one of each and reads them back).
 */
static void format(struct corral *c, const struct corral_event *ev,
		   struct sbuf *b)
{
	sb_putc(b, '{');
	put_str(b, "event", corral_event_name(ev->type));
	put_time(b, "t", ev->t);
	switch (ev->type) {
	case CORRAL_EV_START:
		put_start(c, b, ev);
		break;
	case CORRAL_EV_END:
		put_end(c, b);
		break;
	case CORRAL_EV_SNAPSHOT:
		sb_json_key(b, "members");
		sb_puts(b, ev->raw ? ev->raw : "[]");
		break;
	case CORRAL_EV_DYING:
		put_time(b, "waited", ev->waited);
		put_num(b, "tasks", (long)ev->count);
		sb_json_key(b, "pids");
		sb_puts(b, ev->raw ? ev->raw : "[]");
		break;
	case CORRAL_EV_CORE:
		put_core(b, ev);
		break;
	case CORRAL_EV_FUSE_ABORT:
		put_num(b, "conn", (long)ev->conn);
		put_num(b, "pid", ev->pid);
		sb_puts(b,
			ev->error ? ",\"aborted\":false" : ",\"aborted\":true");
		if (ev->error)
			put_str(b, "error", ev->error);
		break;
	case CORRAL_EV_SURVIVOR:
		put_num(b, "pid", ev->pid);
		put_num(b, "tgid", ev->tgid);
		put_str(b, "state", ev->state ? ev->state : "?");
		if (ev->wchan && *ev->wchan)
			put_str(b, "wchan", ev->wchan);
		break;
	case CORRAL_EV_ENDING:
		put_str(b, "reason", corral_reason_name(ev->reason));
		if (ev->sig)
			put_signal(b, ev->sig);
		if (ev->detail)
			put_str(b, "detail", ev->detail);
		break;
	case CORRAL_EV_EXEC:
	case CORRAL_EV_LEFT:
		put_exec(b, ev);
		break;
	case CORRAL_EV_SIGNAL:
	case CORRAL_EV_STOP:
		put_task(b, ev);
		put_signal(b, ev->sig);
		break;
	case CORRAL_EV_EXIT:
		put_exit(b, ev);
		break;
	case CORRAL_EV_ESCAPE:
		put_escape(b, ev);
		break;
	case CORRAL_EV_PTRACE:
		put_task(b, ev);
		if (ev->tracee)
			put_num(b, "tracee", ev->tracee);
		if (ev->action)
			put_str(b, "action", ev->action);
		if (ev->detail)
			put_str(b, "detail", ev->detail);
		break;
	case CORRAL_EV_STACK:
		put_stack(b, ev);
		break;
	case CORRAL_EV_FORK:
	case CORRAL_EV_VFORK:
	case CORRAL_EV_CLONE:
	case CORRAL_EV_THREAD:
	case CORRAL_EV_CONT:
	case CORRAL_EV_DENIED:
		put_task(b, ev);
		if (ev->detail)
			put_str(b, "detail", ev->detail);
		break;
	}
	chain_seal(&c->journal->chain, b);
}

/*
 * Before the end line: write what is queued (a stalled reader gets the
 * grace the members got, kill_after, at least 0.2 s), then read the file
 * back. The end line is the one line the check cannot cover. What it
 * finds is the result's (journal_lost, journal_intact; the end line sets
 * them again with itself counted); whether that fails the run is
 * result.c's to decide: the journal sets no exit status.
 */
bool journal_settle(struct corral *c)
{
	struct journal *j = c->journal;
	if (!j || j->ended || j->settled)
		return false;
	j->settled = true;
	double bound = c->cfg.kill_after > 0.2 ? c->cfg.kill_after : 0.2;
	jsink_drain(&j->sink, bound, c->lifecycle.sigfd);
	/* The end line follows the last line that went out. */
	chain_rewind(&j->chain, j->sink.last_h, j->sink.written);
	j->intact = chain_check_own(&j->chain, &j->sink, j->why,
				    sizeof(j->why));
	if (j->intact == 0)
		log_msg(c->cfg.log, c->cfg.log_arg,
			"journal: %s: NOT the journal corral wrote: %s",
			j->sink.name, j->why);
	result_journal_checked(c, j->sink.lost, j->intact);
	/* --journal-strict: a journal that lost a line fails the run. */
	return j->strict && (j->sink.lost || j->intact == 0);
}

static void after_end(struct corral *c, struct journal *j)
{
	double bound = c->cfg.kill_after > 0.2 ? c->cfg.kill_after : 0.2;
	jsink_drain(&j->sink, bound, c->lifecycle.sigfd);
	j->ended = true;
	result_journal_closed(c, j->sink.written, j->sink.lost, j->sink.errors,
			      j->intact, j->sink.last_h);
}

void journal_event(struct corral *c, const struct corral_event *ev)
{
	struct journal *j = c->journal;
	if (!j || j->ended)
		return;
	if (ev->type == CORRAL_EV_END)
		(void)journal_settle(c); /* a refused run's: 125 already */
	struct sbuf *b = &j->buf;
	sb_reset(b);
	format(c, ev, b);
	if (b->oom) {
		j->sink.lost++;
		j->sink.loss = true;
	} else {
		/*
		 * An exit resumes nobody: its line may wait for the next line,
		 * or JSINK_LATER (one write fewer per process).
		 */
		jsink_put(&j->sink, b->p, b->len, ev->type == CORRAL_EV_EXIT);
	}
	/* A huge line (an exec with megabytes of argv) does not keep its
	 * buffer: corral's memory stays bounded by what is alive. */
	if (b->cap > (1u << 20))
		sb_free(b);
	if (ev->type == CORRAL_EV_END)
		after_end(c, j);
}

const struct io_plug journal_plug = {
	.pollfds = journal_pollfd,
	.serve = journal_flush,
	.due = journal_later_due,
	.close = journal_close,
};
