/*
 * jsink.c - where journal lines go, without ever holding up supervision.
 *
 * The descriptor is private and non-blocking: a path is opened O_NONBLOCK
 * (a FIFO without a reader fails at once, ENXIO, instead of hanging in
 * open()); a descriptor given as is (/dev/fd/N, cfg.journal_fd) is used as
 * given: a regular file is duplicated (never re-opened, so never truncated;
 * writes to it do not wait for anybody), a pipe, FIFO or tty is opened
 * again through /proc/self/fd/N for an open file description of our own, so
 * that O_NONBLOCK does not change the caller's, and a socket is written with
 * send(MSG_DONTWAIT). The original descriptor is marked close-on-exec: the
 * command never inherits the journal.
 *
 * Lines go through a bounded queue. When it is empty (the usual case) a
 * line is written at once, before the caller resumes the task it is about
 * (docs/journal.md, durability). What the sink does not take stays queued
 * and is written when the loop sees the descriptor writable (jsink_pollfd);
 * a full queue drops the new line and counts it: never a torn line. On a
 * regular file a write cut short mid-line (disk full) is undone with
 * ftruncate; on a stream the rest of a partly written line goes before any
 * other, and lines up to PIPE_BUF are written whole or not at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "grow.h"
#include "journal.h"
#include "log.h"
#include "safe_open.h"

/* "/dev/fd/N" or "/proc/self/fd/N" -> N; "/dev/stdout" 1, "/dev/stderr" 2. */
static int fd_of_path(const char *p)
{
	const char *rest = NULL;
	if (!strncmp(p, "/dev/fd/", 8))
		rest = p + 8;
	else if (!strncmp(p, "/proc/self/fd/", 14))
		rest = p + 14;
	else if (!strcmp(p, "/dev/stdin"))
		return 0;
	else if (!strcmp(p, "/dev/stdout") || !strcmp(p, "-"))
		return 1;
	else if (!strcmp(p, "/dev/stderr"))
		return 2;
	if (!rest || *rest < '0' || *rest > '9')
		return -1;
	char *end;
	long n = strtol(rest, &end, 10);
	if (*end || n > INT_MAX)
		return -1;
	return (int)n;
}

static int open_given(struct jsink *s, int n, char *err, size_t errlen)
{
	snprintf(s->name, sizeof(s->name), "descriptor %d", n);
	int fl = fcntl(n, F_GETFL);
	if (fl < 0)
		return err_fmt(err, errlen, errno, "journal fd %d: %s", n,
			       strerror(errno));
	if ((fl & O_ACCMODE) == O_RDONLY)
		return err_fmt(err, errlen, EBADF,
			       "journal fd %d is not open for writing", n);
	struct stat st;
	if (fstat(n, &st) < 0)
		return err_fmt(err, errlen, errno, "journal fd %d: %s", n,
			       strerror(errno));
	/*
	 * A descriptor flag, ours alone: the command must not inherit it.
	 * Except stdout and stderr (-j -): those are the command's too, and
	 * its output shares the stream with the journal's lines.
	 */
	if (n > 2)
		fcntl(n, F_SETFD, FD_CLOEXEC);
	if (S_ISREG(st.st_mode)) {
		s->kind = JS_FILE;
		s->fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
		/* Where this run's lines begin (the check at the end). */
		s->start = (fl & O_APPEND) ? st.st_size : lseek(n, 0, SEEK_CUR);
		s->dev = st.st_dev;
		s->ino = st.st_ino;
	} else if (S_ISSOCK(st.st_mode)) {
		s->kind = JS_SOCKET;
		s->fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
	} else {
		s->kind = JS_STREAM;
		char p[64];
		snprintf(p, sizeof(p), "/proc/self/fd/%d", n);
		s->fd = open(p, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (s->fd < 0 && errno == ENXIO)
			return err_fmt(err, errlen, ENXIO,
				       "journal fd %d: the pipe has no reader",
				       n);
		if (s->fd < 0) {
			/*
			 * No /proc: share the caller's description, made
			 * non-blocking (the one case we change it).
			 */
			s->fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
			if (s->fd >= 0)
				fcntl(s->fd, F_SETFL, fl | O_NONBLOCK);
		}
	}
	if (s->fd < 0)
		return err_fmt(err, errlen, errno, "journal fd %d: %s", n,
			       strerror(errno));
	return 0;
}

static int open_path(struct jsink *s, const char *p,
		     const struct safe_forbid *forbid, size_t nforbid,
		     char *err, size_t errlen)
{
	snprintf(s->name, sizeof(s->name), "%s", p);
	/*
	 * safe_open.c: no symbolic link followed, a regular file (truncated
	 * only when ours), a FIFO or the null device, never inside what a
	 * sandboxed member can write. O_APPEND: a reader tailing the file
	 * sees whole lines, and writes from another process cannot land in
	 * the middle of ours. O_NONBLOCK: a FIFO without a reader fails now
	 * instead of hanging; it is also the descriptor's mode for a FIFO,
	 * and means nothing to a regular file. A new journal is made 0600:
	 * it keeps every command line of the tree after the processes are
	 * gone (docs/journal.md).
	 */
	struct safe_open o = {
		.flags = SAFE_WRITE | SAFE_FIFO | SAFE_NULL,
		.oflags = O_APPEND | O_NONBLOCK,
		.mode = 0600,
		.what = "journal",
		.forbid = forbid,
		.nforbid = nforbid,
	};
	int fd = safe_open(p, &o, err, errlen);
	if (fd == -ENXIO)
		return err_fmt(err, errlen, ENXIO,
			       "journal %s: a FIFO with no reader (start the "
			       "reader first)",
			       p);
	if (fd < 0)
		return fd;
	s->fd = fd;
	if (S_ISREG(o.st.st_mode)) {
		s->kind = JS_FILE;
		s->start = 0;
		s->dev = o.st.st_dev;
		s->ino = o.st.st_ino;
		s->path = p;
	} else {
		s->kind = JS_STREAM;
	}
	return 0;
}

int jsink_open(struct jsink *s, const struct corral_config *cfg,
	       const struct safe_forbid *forbid, size_t nforbid, char *err,
	       size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->log = cfg->log;
	s->log_arg = cfg->log_arg;
	s->max = cfg->journal_queue_max ? cfg->journal_queue_max
					: JOURNAL_QUEUE_DEFAULT;
	int n = cfg->journal_fd;
	const char *p = cfg->journal_path;
	if (n < 0 && p)
		n = fd_of_path(p);
	int r = 0;
	if (n >= 0)
		r = open_given(s, n, err, errlen);
	else if (p)
		r = open_path(s, p, forbid, nforbid, err, errlen);
	if (r == 0 && s->fd >= 0 && s->kind == JS_FILE)
		s->sum = jsum_new(); /* NULL (no memory): the slow check */
	return r;
}

void jsink_close(struct jsink *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	free(s->q);
	s->q = NULL;
	jsum_free(s->sum);
	s->sum = NULL;
	s->head = s->len = s->cap = 0;
}

static size_t count_lines(const char *p, size_t n)
{
	size_t k = 0;
	const char *e = p + n;
	while (p < e && (p = memchr(p, '\n', (size_t)(e - p)))) {
		k++;
		p++;
	}
	return k;
}

/* Everything still queued is lost: count it (a partial line included). */
static void drop_queue(struct jsink *s)
{
	size_t k = count_lines(s->q + s->head, s->len - s->head);
	if (k) {
		s->lost += k;
		s->loss = true;
	}
	if (s->partial && s->kind != JS_FILE)
		s->torn = true; /* half a line is out: nothing may follow */
	s->head = s->len = 0;
	s->partial = false;
}

static void say(struct jsink *s, int e, const char *what)
{
	s->errors++;
	s->last_err = e;
	s->loss = true; /* a line could not be written now (strict) */
	if (s->said)
		return;
	s->said = true;
	log_msg(s->log, s->log_arg, "journal: %s: %s; %s", s->name, strerror(e),
		what);
}

/* A write failed with e (not EAGAIN). */
static void write_error(struct jsink *s, int e)
{
	if (e == ENOSPC || e == EDQUOT) {
		/* Space may come back: keep the queue, retry at each line. */
		say(s, e,
		    "lines are kept queued (bounded) and retried; what "
		    "cannot be written is counted as lost");
		return;
	}
	say(s, e, "no more lines can be written; they are counted as lost");
	s->dead = true;
	drop_queue(s);
}

/* The digest of the line ending at q[end] ('\n'): ...,"h":"<hex>"}\n */
static void note_written(struct jsink *s, size_t end)
{
	if (end >= CHAIN_HEX + 8 && !memcmp(s->q + end - 2, "\"}", 2) &&
	    !memcmp(s->q + end - 2 - CHAIN_HEX - 6, ",\"h\":\"", 6)) {
		memcpy(s->last_h, s->q + end - 2 - CHAIN_HEX, CHAIN_HEX);
		s->last_h[CHAIN_HEX] = 0;
	}
}

/* How much to hand to one write(): see the head comment. */
static size_t chunk(const struct jsink *s)
{
	size_t n = s->len - s->head;
	if (s->kind == JS_FILE || s->partial || n <= PIPE_BUF)
		return n;
	const char *p = s->q + s->head;
	const char *nl = memrchr(p, '\n', PIPE_BUF);
	if (nl)
		return (size_t)(nl - p) + 1;
	/* One line longer than PIPE_BUF: it may be taken in parts. */
	nl = memchr(p, '\n', n);
	return nl ? (size_t)(nl - p) + 1 : n;
}

void jsink_flush(struct jsink *s)
{
	while (s->head < s->len && !s->dead) {
		size_t n = chunk(s);
		const char *p = s->q + s->head;
		ssize_t w =
			s->kind == JS_SOCKET
				? send(s->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL)
				: write(s->fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				s->wait_out = true;
				return;
			}
			write_error(s, errno);
			return;
		}
		if (w == 0) { /* no progress and no error: try later */
			s->wait_out = s->kind != JS_FILE;
			return;
		}
		s->wait_out = false;
		size_t done = (size_t)w;
		const char *last = memrchr(p, '\n', done);
		size_t torn = last ? done - (size_t)(last - p) - 1 : done;
		if (s->kind == JS_FILE && torn) {
			/*
			 * Cut short mid-line (disk full): take the piece
			 * back, so the file ends at the last whole line; the
			 * line stays queued.
			 */
			off_t end = lseek(s->fd, 0, SEEK_CUR);
			if (end >= (off_t)torn &&
			    ftruncate(s->fd, end - (off_t)torn) == 0) {
				done -= torn;
				torn = 0;
			}
		}
		if (s->sum && done) {
			jsum_update(s->sum, p, done);
			s->wbytes += done;
		}
		if (last && (size_t)(last - p) < done) {
			size_t k = count_lines(p, done);
			s->written += k;
			note_written(s, s->head + (size_t)(last - p));
		}
		s->head += done;
		s->partial = torn != 0;
		if (s->head == s->len) {
			s->head = s->len = 0;
			s->later_at = 0;
		}
		if (done < n && s->kind == JS_FILE) {
			/* Short: the next write would say why; at the next
			 * line. */
			if (!s->said)
				say(s, ENOSPC,
				    "lines are kept queued (bounded) "
				    "and retried");
			return;
		}
	}
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void jsink_put(struct jsink *s, const char *line, size_t n, bool later)
{
	if (s->fd < 0)
		return;
	if (s->torn) {
		s->lost++;
		return;
	}
	if (s->dead || s->len - s->head + n > s->max) {
		if (!s->dead && !s->said && s->max)
			log_msg(s->log, s->log_arg,
				"journal: %s: the reader is too slow: %zu "
				"bytes queued; lines are dropped and counted",
				s->name, s->len - s->head);
		s->said = true;
		s->lost++;
		s->loss = true;
		return;
	}
	if (s->len + n > s->cap) {
		/*
		 * Make room at the front first, keeping all of a line that
		 * went out in part: its digest is read from it once it is
		 * done (note_written).
		 */
		size_t keep = s->head;
		if (s->partial) {
			const char *nl = memrchr(s->q, '\n', s->head);
			keep = nl ? (size_t)(nl - s->q) + 1 : 0;
		}
		if (keep) {
			memmove(s->q, s->q + keep, s->len - keep);
			s->len -= keep;
			s->head -= keep;
		}
		if (GROW(s->q, s->cap, s->len + n)) {
			s->lost++;
			s->loss = true;
			return;
		}
	}
	/* Only a queue of nothing but later lines may wait (for them). */
	if (!later)
		s->later_at = 0;
	else if (!s->later_at && s->head == s->len)
		s->later_at = mono();
	memcpy(s->q + s->len, line, n);
	s->len += n;
	if (!later)
		jsink_flush(s);
}

double jsink_later_due(const struct jsink *s)
{
	if (!s->later_at || s->fd < 0 || s->head == s->len)
		return -1;
	double w = s->later_at + JSINK_LATER - mono();
	return w > 0 ? w : 0;
}

int jsink_pollfd(struct jsink *s, struct pollfd *p)
{
	/*
	 * Lines that waited: later ones (exits) once they are due, others
	 * now; a regular file after an error waits for the next line:
	 * retrying before every sleep would spin.
	 */
	if (s->fd >= 0 && s->head < s->len && !s->wait_out && !s->errors &&
	    jsink_later_due(s) <= 0)
		jsink_flush(s);
	if (s->fd < 0 || s->dead || !s->wait_out || s->head == s->len)
		return 0;
	p->fd = s->fd;
	p->events = POLLOUT;
	p->revents = 0;
	return 1;
}

/* A signal other than SIGCHLD is waiting in sigfd (read and dropped). */
static bool interrupted(int sigfd)
{
	struct signalfd_siginfo si[8];
	ssize_t n;
	bool other = false;
	while ((n = read(sigfd, si, sizeof(si))) > 0)
		for (size_t i = 0; i < (size_t)n / sizeof(si[0]); i++)
			if (si[i].ssi_signo != SIGCHLD)
				other = true;
	return other;
}

void jsink_drain(struct jsink *s, double bound, int sigfd)
{
	if (s->fd < 0)
		return;
	double until = mono() + bound;
	for (;;) {
		jsink_flush(s);
		if (s->head == s->len || s->dead || !s->wait_out)
			break;
		double rest = until - mono();
		if (rest <= 0)
			break;
		struct pollfd p[2] = {{.fd = s->fd, .events = POLLOUT},
				      {.fd = sigfd, .events = POLLIN}};
		struct timespec ts = {.tv_sec = (time_t)rest};
		ts.tv_nsec = (long)((rest - (double)ts.tv_sec) * 1e9);
		int r = ppoll(p, sigfd >= 0 ? 2 : 1, &ts, NULL);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && (p[1].revents & POLLIN) && interrupted(sigfd))
			break;
	}
	if (s->head < s->len) {
		if (!s->said)
			log_msg(s->log, s->log_arg,
				"journal: %s: the reader did not take the "
				"last lines in time; they are counted as lost",
				s->name);
		s->said = true;
		drop_queue(s);
	}
}
