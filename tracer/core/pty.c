/*
 * pty.c - `--pty`: the command runs on a new pseudo-terminal and corral
 * relays between it and its own stdin/stdout.
 *
 * The child makes a new session (so the pty becomes its controlling
 * terminal and its process group is not corral's), opens the pty's slave
 * side on 0, 1 and 2, and takes corral's window size. corral puts its own
 * terminal, if stdin is one, in raw mode so that keys (^C included) reach
 * the command's terminal untouched, passes window size changes on
 * (SIGWINCH), and restores the terminal when the run ends. The relay runs
 * in the loop's ppoll(), next to the signalfd: supervision and ending the
 * tree work exactly as without a pty.
 *
 * The relay never blocks (docs/threat-model.md, "A loop that never
 * blocks"): each direction goes through a bounded queue, every descriptor
 * it writes is non-blocking, and a side that cannot take more is simply not
 * read from until it can (the command then waits on its terminal, as it
 * would on a real one that is not read). A command that never reads its
 * input, or a terminal stopped with ^S or tcflow(TCOOFF), therefore stalls
 * only that direction. Our stdout and stdin may be shared with the shell
 * that started corral: O_NONBLOCK goes on descriptions of our own (a new
 * open of /proc/self/fd/N), never on the shared ones. What is still queued
 * when the run ends and cannot be written at once is dropped and counted
 * (corral_result.pty_dropped).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "internal.h"

#define PTY_QUEUE (64u << 10)

struct pty_queue {
	char buf[PTY_QUEUE];
	size_t off, len; /* queued bytes: buf[off, off + len) */
};

struct pty_io {
	int in, out;	     /* our own descriptions of stdin and stdout */
	bool in_own, out_own; /* opened here (close them) */
	bool out_sock;	     /* stdout is a socket: send(MSG_DONTWAIT) */
	bool out_dead;	     /* stdout is gone: drop what comes */
	bool eof_pending;    /* stdin ended: send VEOF after the queue */
	struct pty_queue to_out, to_ptm;
};

static size_t q_room(const struct pty_queue *q)
{
	return PTY_QUEUE - q->off - q->len;
}

/* Make room at the end (the queue is small: a copy is cheap and rare). */
static void q_compact(struct pty_queue *q)
{
	if (q->off && q->len)
		memmove(q->buf, q->buf + q->off, q->len);
	q->off = 0;
}

/*
 * A descriptor for fd that is ours to make non-blocking: ttys, pipes and
 * FIFOs are opened anew through /proc (a new open file description); a
 * regular file is used as it is (it does not block, and a new description
 * would have its own offset); so is a socket (send() takes MSG_DONTWAIT).
 */
static int own_description(int fd, int flags, bool *own, bool *sock)
{
	struct stat st;
	*own = false;
	if (sock)
		*sock = false;
	if (fstat(fd, &st) < 0)
		return -1;
	if (S_ISREG(st.st_mode))
		return fd;
	if (S_ISSOCK(st.st_mode)) {
		if (sock)
			*sock = true;
		return fd;
	}
	char path[32];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int nfd = open(path, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (nfd < 0)
		return fd; /* no /proc: the shared description, as before */
	*own = true;
	return nfd;
}

void pty_init(struct corral *c)
{
	OWN(c, pty)->ptm = -1;
}

int pty_prepare(struct corral *c, char *err, size_t errlen)
{
	struct pty_part *py = OWN(c, pty);
	py->ptm = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (py->ptm < 0 || grantpt(py->ptm) < 0 || unlockpt(py->ptm) < 0 ||
	    ptsname_r(py->ptm, py->pts, sizeof(py->pts)) != 0) {
		int e = errno;
		snprintf(err, errlen, "--pty: cannot allocate a terminal: %s",
			 strerror(e));
		return -e;
	}
	fcntl(py->ptm, F_SETFL, fcntl(py->ptm, F_GETFL) | O_NONBLOCK);
	struct pty_io *io = calloc(1, sizeof(*io));
	if (!io) {
		snprintf(err, errlen, "--pty: out of memory");
		return -ENOMEM;
	}
	io->in = own_description(STDIN_FILENO, O_RDONLY, &io->in_own, NULL);
	io->out = own_description(STDOUT_FILENO, O_WRONLY, &io->out_own,
				  &io->out_sock);
	io->out_dead = io->out < 0;
	py->io = io;
	py->stdin_open = io->in >= 0;
	return 0;
}

/* In the child, before exec: async-signal-safe calls only. */
int pty_child(struct corral *c)
{
	struct pty_part *py = OWN(c, pty);
	if (setsid() < 0)
		return -errno;
	int fd = open(py->pts, O_RDWR);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, TIOCSCTTY, 0) < 0)
		return -errno;
	struct winsize ws;
	if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0)
		ioctl(fd, TIOCSWINSZ, &ws);
	for (int i = 0; i < 3; i++)
		if (dup2(fd, i) < 0)
			return -errno;
	if (fd > 2)
		close(fd);
	return 0;
}

/* In corral, once the child is started: raw mode on our terminal. */
void pty_parent(struct corral *c)
{
	struct pty_part *py = OWN(c, pty);
	if (tcgetattr(STDIN_FILENO, &py->saved_tio) == 0) {
		struct termios raw = py->saved_tio;
		cfmakeraw(&raw);
		if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0)
			py->tio_saved = true;
	}
}

/* Write what the queue holds, as much as fd takes now. */
static void q_flush(struct pty_queue *q, int fd, bool sock, bool *dead)
{
	while (q->len && !*dead) {
		ssize_t n = sock ? send(fd, q->buf + q->off, q->len,
					MSG_DONTWAIT | MSG_NOSIGNAL)
				 : write(fd, q->buf + q->off, q->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			*dead = true; /* reader gone: drop, as a terminal would */
			return;
		}
		q->off += (size_t)n;
		q->len -= (size_t)n;
	}
	if (!q->len)
		q->off = 0;
}

/* Read from fd into the queue while it has room. 1: got data or would
 * block, 0: end of file (or EIO: no slave left), -1: error. */
static int q_fill(struct pty_queue *q, int fd)
{
	for (;;) {
		if (!q_room(q))
			q_compact(q);
		size_t room = q_room(q);
		if (!room)
			return 1;
		ssize_t n = read(fd, q->buf + q->off + q->len, room);
		if (n > 0) {
			q->len += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		return n == 0 || errno == EIO ? 0 : -1;
	}
}

static void to_ptm_flush(struct corral *c)
{
	struct pty_part *py = OWN(c, pty);
	struct pty_io *io = py->io;
	bool dead = false;
	q_flush(&io->to_ptm, py->ptm, false, &dead);
	if (dead) {
		io->to_ptm.len = io->to_ptm.off = 0;
		io->eof_pending = false;
		return;
	}
	if (!io->to_ptm.len && io->eof_pending) {
		/*
		 * Our input ended: tell the command the way a terminal does,
		 * with the EOF character, which ends a read in canonical mode.
		 */
		struct termios t;
		char eof = 4; /* ^D */
		if (tcgetattr(py->ptm, &t) == 0 && t.c_cc[VEOF])
			eof = (char)t.c_cc[VEOF];
		ssize_t n = write(py->ptm, &eof, 1);
		if (n == 1 || (n < 0 && errno != EAGAIN && errno != EINTR))
			io->eof_pending = false;
	}
}

static void to_out_flush(struct corral *c)
{
	struct pty_part *py = OWN(c, pty);
	struct pty_io *io = py->io;
	q_flush(&io->to_out, io->out, io->out_sock, &io->out_dead);
	if (io->out_dead && io->to_out.len) {
		result_pty_dropped(c, io->to_out.len);
		io->to_out.len = io->to_out.off = 0;
	}
}

/*
 * The descriptors to poll, and for what. A side that cannot move is left
 * out (not polled with no events: a hung-up descriptor would still wake
 * the loop every time, and the loop must never spin).
 */
static int pty_pollfds(struct corral *c, struct pollfd *p)
{
	struct pty_part *py = OWN(c, pty);
	struct pty_io *io = py->io;
	if (!io)
		return 0;
	int n = 0;
	if (py->ptm >= 0) {
		short ev = 0;
		if (q_room(&io->to_out) || io->to_out.off)
			ev |= POLLIN;
		if (io->to_ptm.len || io->eof_pending)
			ev |= POLLOUT;
		if (ev)
			p[n++] = (struct pollfd){.fd = py->ptm, .events = ev};
		if (py->stdin_open && (q_room(&io->to_ptm) || io->to_ptm.off))
			p[n++] = (struct pollfd){.fd = io->in, .events = POLLIN};
	}
	if (io->to_out.len && !io->out_dead)
		p[n++] = (struct pollfd){.fd = io->out, .events = POLLOUT};
	return n;
}

static void pty_relay(struct corral *c, const struct pollfd *p, int n)
{
	struct pty_part *py = OWN(c, pty);
	struct pty_io *io = py->io;
	if (!io)
		return;
	for (int i = 0; i < n; i++) {
		if (!p[i].revents)
			continue;
		if (p[i].fd == py->ptm) {
			if (p[i].revents & POLLOUT)
				to_ptm_flush(c);
			if (p[i].revents & (POLLIN | POLLHUP | POLLERR)) {
				int r = q_fill(&io->to_out, py->ptm);
				to_out_flush(c);
				if (r <= 0) {
					/* Nobody holds the slave any more:
					 * what it said is queued. */
					close(py->ptm);
					py->ptm = -1;
					py->stdin_open = false;
				}
			}
		} else if (p[i].fd == io->in && py->stdin_open) {
			if (q_fill(&io->to_ptm, io->in) <= 0) {
				py->stdin_open = false;
				io->eof_pending = true;
			}
			if (py->ptm >= 0)
				to_ptm_flush(c);
		} else if (p[i].fd == io->out) {
			if (p[i].revents & (POLLERR | POLLHUP | POLLNVAL))
				io->out_dead = true;
			to_out_flush(c);
		}
	}
}

void pty_winch(struct corral *c)
{
	struct pty_part *py = OWN(c, pty);
	struct winsize ws;
	if (py->ptm >= 0 && ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0)
		ioctl(py->ptm, TIOCSWINSZ, &ws);
}

/*
 * The tree is gone: pass on what the terminal still holds, as far as our
 * stdout takes it now, drop (and count) the rest, and give the terminal
 * back. TCSANOW, not TCSADRAIN: a stopped terminal would never drain.
 */
static void pty_finish(struct corral *c)
{
	struct pty_part *py = OWN(c, pty);
	struct pty_io *io = py->io;
	if (io) {
		/* Bounded: at most 64 queues' worth once the tree is gone. */
		for (int round = 0; round < 64; round++) {
			int r = py->ptm >= 0 ? q_fill(&io->to_out, py->ptm) : 0;
			bool full = io->to_out.len == PTY_QUEUE;
			to_out_flush(c);
			if (io->to_out.len || io->out_dead || r <= 0 || !full)
				break;
		}
		result_pty_dropped(c, io->to_out.len);
		io->to_out.len = io->to_out.off = 0;
	}
	if (py->ptm >= 0) {
		close(py->ptm);
		py->ptm = -1;
	}
	if (io) {
		if (io->in_own)
			close(io->in);
		if (io->out_own)
			close(io->out);
		free(io);
		py->io = NULL;
	}
	if (py->tio_saved) {
		tcsetattr(STDIN_FILENO, TCSANOW, &py->saved_tio);
		py->tio_saved = false;
	}
}

const struct io_plug pty_plug = {
	.pollfds = pty_pollfds,
	.serve = pty_relay,
	.finish = pty_finish,
	.close = pty_finish, /* again: a run that never finished */
};
