/*
 * journal.c - events as JSON Lines (docs/journal.md).
 *
 * Durability rule: journal_event() returns only after the line is in the
 * kernel's hands (one write(2)), and the engine calls it before it resumes
 * the task that caused the event. So if corral is killed at any instant,
 * every event whose task went on running is in the file. There is no user
 * space buffering to lose; the cost is one write per event (bench/).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "names.h"

int journal_open(struct corral *c, char *err, size_t errlen)
{
	c->jfd = -1;
	if (c->cfg.journal_fd >= 0) {
		if (fcntl(c->cfg.journal_fd, F_GETFL) < 0) {
			int e = errno;
			snprintf(err, errlen, "journal fd %d: %s",
				 c->cfg.journal_fd, strerror(e));
			return -e;
		}
		c->jfd = c->cfg.journal_fd;
		c->jown = false;
	} else if (c->cfg.journal_path) {
		/*
		 * O_APPEND: a line is never interleaved with another writer's,
		 * and a reader tailing the file sees whole lines. O_CLOEXEC:
		 * the command must not inherit the journal. /dev/fd/N opens
		 * the inherited descriptor's file again, which is what a
		 * caller passing a pipe expects.
		 */
		int fd = open(c->cfg.journal_path,
			      O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
				      O_CLOEXEC,
			      0644);
		if (fd < 0) {
			int e = errno;
			snprintf(err, errlen, "cannot open journal %s: %s",
				 c->cfg.journal_path, strerror(e));
			return -e;
		}
		c->jfd = fd;
		c->jown = true;
	}
	return 0;
}

void journal_close(struct corral *c)
{
	if (c->jfd >= 0 && c->jown)
		close(c->jfd);
	c->jfd = -1;
	sb_free(&c->jbuf);
}

static void put_num(struct sbuf *b, const char *key, long v)
{
	sb_json_key(b, key);
	sb_printf(b, "%ld", v);
}

static void put_time(struct sbuf *b, const char *key, double t)
{
	sb_json_key(b, key);
	sb_printf(b, "%.6f", t);
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

static void put_end(struct corral *c, struct sbuf *b)
{
	const struct corral_result *r = &c->res;
	put_num(b, "exit_code", r->exit_code);
	put_str(b, "reason", corral_reason_name(r->reason));
	if (r->sandbox_failed) {
		sb_puts(b, ",\"sandbox_failed\":true");
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
	sb_json_key(b, "phases");
	sb_printf(b, "{\"grace\":%.6f,\"stop\":%.6f,\"kill\":%.6f}",
		  r->t_grace, r->t_stop, r->t_kill);
	put_time(b, "duration", r->t_end);
	if (r->escapes)
		put_num(b, "escapes", (long)r->escapes);
	if (r->stacks)
		put_num(b, "stacks", (long)r->stacks);
	if (c->jerrors)
		put_num(b, "journal_errors", (long)c->jerrors);
}

static void format(struct corral *c, const struct corral_event *ev,
		   struct sbuf *b)
{
	sb_putc(b, '{');
	put_str(b, "event", corral_event_name(ev->type));
	put_time(b, "t", ev->t);
	switch (ev->type) {
	case CORRAL_EV_START:
		put_num(b, "schema", CORRAL_JOURNAL_SCHEMA);
		put_str(b, "version", CORRAL_VERSION);
		put_num(b, "pid", ev->pid);
		sb_json_key(b, "argv");
		sb_json_strv(b, c->cfg.self_argv);
		sb_json_key(b, "command");
		sb_json_strv(b, c->cfg.argv);
		if (c->cfg.timeout > 0)
			put_time(b, "timeout", c->cfg.timeout);
		/* The kernel boundary the tree runs in (docs/threat-model.md). */
		put_str(b, "boundary", landlock_boundary_name(&c->boundary));
		put_num(b, "landlock_abi", c->boundary.abi);
		goto out;
	case CORRAL_EV_END:
		put_end(c, b);
		goto out;
	case CORRAL_EV_SNAPSHOT:
		sb_json_key(b, "members");
		sb_puts(b, ev->raw ? ev->raw : "[]");
		goto out;
	case CORRAL_EV_ENDING:
		put_str(b, "reason", corral_reason_name(ev->reason));
		if (ev->sig)
			put_signal(b, ev->sig);
		if (ev->detail)
			put_str(b, "detail", ev->detail);
		goto out;
	default:
		break;
	}
	put_num(b, "pid", ev->pid);
	if (ev->tgid)
		put_num(b, "tgid", ev->tgid);
	if (ev->ppid)
		put_num(b, "ppid", ev->ppid);
	if (ev->nspid)
		put_num(b, "nspid", ev->nspid);
	if (ev->setup)
		sb_puts(b, ",\"setup\":true");
	switch (ev->type) {
	case CORRAL_EV_EXEC:
	case CORRAL_EV_LEFT:
		if (ev->path)
			put_str(b, "path", ev->path);
		if (ev->argv) {
			sb_json_key(b, "argv");
			sb_json_strv(b, ev->argv);
		}
		if (ev->former)
			put_num(b, "former", ev->former);
		break;
	case CORRAL_EV_SIGNAL:
	case CORRAL_EV_STOP:
		put_signal(b, ev->sig);
		break;
	case CORRAL_EV_EXIT:
		if (ev->sig) {
			put_signal(b, ev->sig);
			sb_puts(b, ev->core ? ",\"core\":true" : ",\"core\":false");
		} else {
			put_num(b, "status", ev->status);
		}
		break;
	case CORRAL_EV_DENIED:
		if (ev->detail)
			put_str(b, "detail", ev->detail);
		break;
	case CORRAL_EV_ESCAPE:
		if (ev->detail)
			put_str(b, "call", ev->detail);
		if (ev->verdict)
			put_str(b, "verdict", ev->verdict);
		if (ev->error && *ev->error)
			put_str(b, "why", ev->error);
		if (ev->frames)
			put_frames(b, ev->frames, ev->nframes);
		break;
	case CORRAL_EV_STACK:
		if (ev->detail)
			put_str(b, "why", ev->detail);
		put_frames(b, ev->frames, ev->nframes);
		if (ev->error)
			put_str(b, "error", ev->error);
		break;
	default:
		if (ev->detail)
			put_str(b, "detail", ev->detail);
		break;
	}
out:
	sb_puts(b, "}\n");
}

void journal_event(struct corral *c, const struct corral_event *ev)
{
	if (c->jfd < 0)
		return;
	struct sbuf *b = &c->jbuf;
	sb_reset(b);
	format(c, ev, b);
	if (b->oom) {
		c->jerrors++;
		return;
	}
	size_t off = 0;
	while (off < b->len) {
		ssize_t n = write(c->jfd, b->p + off, b->len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/*
			 * A journal that fails mid-run (disk full, reader gone)
			 * must not take supervision down with it: the tree is
			 * still ended as promised; the end line and the exit
			 * status report the loss.
			 */
			c->jerrors++;
			return;
		}
		off += (size_t)n;
	}
}
