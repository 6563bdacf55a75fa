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
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "internal.h"

int pty_prepare(struct corral *c, char *err, size_t errlen)
{
	c->ptm = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (c->ptm < 0 || grantpt(c->ptm) < 0 || unlockpt(c->ptm) < 0 ||
	    ptsname_r(c->ptm, c->pts, sizeof(c->pts)) != 0) {
		int e = errno;
		snprintf(err, errlen, "--pty: cannot allocate a terminal: %s",
			 strerror(e));
		return -e;
	}
	fcntl(c->ptm, F_SETFL, fcntl(c->ptm, F_GETFL) | O_NONBLOCK);
	c->stdin_open = true;
	return 0;
}

/* In the child, before exec: async-signal-safe calls only. */
int pty_child(struct corral *c)
{
	if (setsid() < 0)
		return -errno;
	int fd = open(c->pts, O_RDWR);
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
	if (tcgetattr(STDIN_FILENO, &c->saved_tio) == 0) {
		struct termios raw = c->saved_tio;
		cfmakeraw(&raw);
		if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0)
			c->tio_saved = true;
	}
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pf = {.fd = fd, .events = POLLOUT};
			poll(&pf, 1, 100);
			continue;
		}
		if (w <= 0)
			return; /* reader gone: drop, as a terminal would */
		p += w;
		n -= (size_t)w;
	}
}

/* Move what the terminal has for us to stdout. false at EOF/EIO. */
static bool relay_out(struct corral *c)
{
	char buf[16384];
	for (;;) {
		ssize_t n = read(c->ptm, buf, sizeof(buf));
		if (n > 0) {
			write_all(STDOUT_FILENO, buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		/* EIO: every slave descriptor is closed. */
		return n < 0 && errno == EAGAIN;
	}
}

static void relay_in(struct corral *c)
{
	char buf[16384];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
	if (n > 0) {
		write_all(c->ptm, buf, (size_t)n);
		return;
	}
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	/*
	 * Our input ended: tell the command the way a terminal does, with
	 * the EOF character, which ends a read in canonical mode.
	 */
	c->stdin_open = false;
	struct termios t;
	char eof = 4; /* ^D */
	if (tcgetattr(c->ptm, &t) == 0 && t.c_cc[VEOF])
		eof = (char)t.c_cc[VEOF];
	write_all(c->ptm, &eof, 1);
}

int pty_pollfds(struct corral *c, struct pollfd *p)
{
	if (c->ptm < 0)
		return 0;
	int n = 0;
	p[n++] = (struct pollfd){.fd = c->ptm, .events = POLLIN};
	if (c->stdin_open)
		p[n++] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN};
	return n;
}

void pty_relay(struct corral *c, const struct pollfd *p, int n)
{
	for (int i = 0; i < n; i++) {
		if (!p[i].revents)
			continue;
		if (p[i].fd == c->ptm) {
			if (!relay_out(c) && (p[i].revents & (POLLHUP | POLLERR))) {
				/* Nobody holds the slave: stop polling it. */
				close(c->ptm);
				c->ptm = -1;
				return;
			}
		} else {
			relay_in(c);
		}
	}
}

void pty_winch(struct corral *c)
{
	struct winsize ws;
	if (c->ptm >= 0 && ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0)
		ioctl(c->ptm, TIOCSWINSZ, &ws);
}

/* The tree is gone: flush what is left and give the terminal back. */
void pty_finish(struct corral *c)
{
	if (c->ptm >= 0) {
		relay_out(c);
		close(c->ptm);
		c->ptm = -1;
	}
	if (c->tio_saved) {
		tcsetattr(STDIN_FILENO, TCSADRAIN, &c->saved_tio);
		c->tio_saved = false;
	}
}
