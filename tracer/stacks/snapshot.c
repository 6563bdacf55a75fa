/*
 * snapshot.c - the live tree as one journal event, on SIGUSR1 or a library
 * call, while the command keeps running.
 *
 * Each live process is listed with its state, parent, last exec, current
 * directory and open descriptors (read from /proc/PID/cwd and /proc/PID/fd
 * of that one process: the tree itself comes from the table, never from
 * /proc). The line is written in one write(2) like every event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/*
 * At most one snapshot on demand per this many seconds. A snapshot reads
 * /proc for every live process and writes one line with all of them: a
 * flood of SIGUSR1 once wrote 23,731 of them (28 MB) in 3 s. Requests in
 * between are coalesced into one, taken when the interval is over, so the
 * last request is always answered, with a tree at most this old.
 */
#define SNAP_INTERVAL 1.0

struct fds_out {
	struct sbuf *b;
	bool first;
};

static void put_fd(const char *fd, const char *target, size_t len, void *arg)
{
	struct fds_out *o = arg;
	if (!o->first)
		sb_putc(o->b, ',');
	o->first = false;
	sb_json_str(o->b, fd, strlen(fd));
	sb_putc(o->b, ':');
	sb_json_str(o->b, target, len);
}

/* "fds": {"0": "/dev/null", ...}, from the seam (procfs.c reads /proc). */
static void put_fds(struct corral *c, struct sbuf *b, pid_t pid)
{
	struct fds_out o = {.b = b, .first = true};
	sb_puts(b, ",\"fds\":{");
	c->sys->fds(c->sys->ctx, pid, put_fd, &o);
	sb_putc(b, '}');
}

struct snap {
	struct corral *c;
	struct sbuf *b;
	int n;
};

static int put_member(struct task *t, void *arg)
{
	struct snap *s = arg;
	struct sbuf *b = s->b;
	if (t->flags & TF_THREAD)
		return 0;
	static const char states[TS__COUNT] = {[TS_NEW] = 'R',
					       [TS_RUNNING] = 'R',
					       [TS_HELD] = 't',
					       [TS_LISTEN] = 'T',
					       [TS_DEAD] = 'Z'};
	sb_puts(b, s->n++ ? ",{" : "{");
	sb_printf(b, "\"pid\":%d,\"ppid\":%d,\"state\":\"%c\",\"threads\":%d",
		  t->tid, t->creator_tgid,
		  (t->flags & TF_GSTOPPED) ? 'T' : states[t->state],
		  t->nthreads);
	if (t->nspid)
		sb_printf(b, ",\"nspid\":%d", t->nspid);
	const struct prog *g = t->prog;
	if (g && g->path) {
		sb_puts(b, ",\"path\":");
		sb_json_str(b, g->path, strlen(g->path));
	}
	if (g && g->argv) {
		sb_puts(b, ",\"argv\":");
		sb_json_strv(b, (const char *const *)g->argv);
	}
	char *cwd = s->c->sys->cwd(s->c->sys->ctx, t->tid);
	if (cwd) {
		sb_puts(b, ",\"cwd\":");
		sb_json_str(b, cwd, strlen(cwd));
		free(cwd);
	}
	put_fds(s->c, b, t->tid);
	sb_putc(b, '}');
	return 0;
}

int corral_snapshot(struct corral *c, bool with_stacks)
{
	if (c->events.in_callback) /* corral.h: not from a callback */
		return -EDEADLK;
	if (!c->spawn.root || c->spawn.finished)
		return -ECHILD;
	/*
	 * Stacks need every thread held; the tree runs on afterwards (unless
	 * it was held already). Holding does not touch the phase, so a
	 * snapshot in the middle of a grace leaves the ending as it was.
	 */
	bool stacks = with_stacks && c->phase.now <= PH_GRACE;
	bool hold = stacks && !c->phase.holding;
	if (hold)
		corral_stop_all(c);
	struct sbuf b = {0};
	struct snap s = {c, &b, 0};
	sb_puts(&b, "[");
	table_foreach_live(&c->tab, put_member, &s);
	sb_puts(&b, "]");
	if (b.oom) {
		sb_free(&b);
		if (hold)
			corral_resume_all(c);
		return -ENOMEM;
	}
	struct corral_event ev = {
		.type = CORRAL_EV_SNAPSHOT,
		.raw = b.p,
	};
	emit(c, &ev);
	sb_free(&b);
	if (stacks)
		stacks_all(c, "snapshot");
	if (hold)
		corral_resume_all(c);
	return s.n;
}

void snapshot_request(struct corral *c, bool with_stacks)
{
	struct snapshot_part *sn = OWN(c, snapshot);
	sn->wanted = true;
	sn->stacks |= with_stacks;
	snapshot_tick(c);
}

double snapshot_due(const struct corral *c)
{
	const struct snapshot_part *sn = &c->snapshot;
	if (!sn->wanted)
		return -1;
	/* last is 0 before the first: the first is due at once. */
	return sn->last > 0 ? sn->last + SNAP_INTERVAL : 0;
}

void snapshot_tick(struct corral *c)
{
	struct snapshot_part *sn = OWN(c, snapshot);
	double due = snapshot_due(c);
	double now = run_time(c);
	if (due < 0 || now < due)
		return;
	bool stacks = sn->stacks;
	sn->wanted = sn->stacks = false;
	sn->last = now > 0 ? now : 1e-9;
	corral_snapshot(c, stacks);
}
