/*
 * live_io.c - the live view's I/O: the `corral ps` socket (accept, read a
 * request, write an answer, all non-blocking and bounded) and the
 * non-blocking writer of SIGUSR1's print to stderr.
 *
 * It renders nothing: a request read here is marked, and live.c renders it
 * between batches. That split is what lets the loop's sleep (waiter.c)
 * serve these descriptors from anywhere, a stop-all's wait included,
 * without a render (which may stop the tree) ever nesting inside it. The
 * why of the socket's name and of who may connect: live.c's header.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "internal.h"
#include "live_io.h"
#include "writeall.h"

/* --------------------------------------------------------- SIGUSR1 print */

/*
 * Write to fd without ever blocking: a terminal or pipe gets a descriptor
 * of its own with O_NONBLOCK; a regular file does not block. What does not
 * fit now is dropped (the next print is fresher anyway).
 */
void live_write_nonblocking(int fd, const char *p, size_t len)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return;
	int wfd = fd;
	if (S_ISSOCK(st.st_mode)) {
		send_all(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		wfd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (wfd < 0)
			return;
	}
	write_all(wfd, p, len);
	if (wfd != fd)
		close(wfd);
}

/* ---------------------------------------------------------------- socket */

static void client_drop(struct client *k)
{
	if (k->st == CL_FREE)
		return;
	close(k->fd);
	sb_free(&k->out);
	*k = (struct client){.fd = -1, .st = CL_FREE};
}

static void live_bind(struct corral *c, struct live *l)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int n = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1,
			 CORRAL_LIVE_SOCKET_FMT, (int)c->lifecycle.self);
	socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				     1 + (size_t)n);
	if (bind(fd, (struct sockaddr *)&a, alen) < 0 || listen(fd, 8) < 0) {
		close(fd); /* taken or refused: run without a live socket */
		return;
	}
	l->lfd = fd;
}

int live_open(struct corral *c)
{
	struct live *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->lfd = -1;
	l->last_stacks = l->last_print = -1e9;
	for (int i = 0; i < LIVE_CLIENTS; i++)
		l->cl[i] = (struct client){.fd = -1, .st = CL_FREE};
	if (c->cfg.live_socket)
		live_bind(c, l);
	c->live = l;
	return 0;
}

static void live_close(struct corral *c)
{
	struct live *l = c->live;
	if (!l)
		return;
	for (int i = 0; i < LIVE_CLIENTS; i++)
		client_drop(&l->cl[i]);
	if (l->lfd >= 0)
		close(l->lfd);
	free(l);
	c->live = NULL;
}

static int live_pollfds(struct corral *c, struct pollfd *p)
{
	struct live *l = c->live;
	int n = 0;
	if (!l)
		return 0;
	for (int i = 0; i <= LIVE_CLIENTS; i++)
		l->pidx[i] = -1;
	if (l->lfd >= 0) {
		p[n] = (struct pollfd){.fd = l->lfd, .events = POLLIN};
		l->pidx[0] = n++;
	}
	for (int i = 0; i < LIVE_CLIENTS; i++) {
		struct client *k = &l->cl[i];
		if (k->st != CL_READ && k->st != CL_WRITE)
			continue;
		p[n] = (struct pollfd){.fd = k->fd,
				       .events = k->st == CL_READ ? POLLIN
								  : POLLOUT};
		l->pidx[1 + i] = n++;
	}
	return n;
}

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5 */
#endif

/*
 * SO_PEERCRED names the process that connected, not who holds the socket
 * now: a member can connect, hand the socket to another member and exit.
 * Once corral has recorded that exit, the pid is out of the table. So the
 * connector must still be running (not a zombie, not reaped): a live
 * member is always in the table. Its pidfd (SO_PEERPIDFD, where the kernel
 * has it) tells that the /proc read was of the connector, not of a process
 * that reused its pid since.
 */
static bool peer_running(pid_t pid, int pidfd)
{
	char st = procfs_state(pid);
	if (!st || st == 'Z' || st == 'X' || st == 'x')
		return false;
	return pidfd < 0 ||
	       syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

static bool peer_allowed(struct corral *c, int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return false;
	if (cr.uid != geteuid() && cr.uid != 0)
		return false;
	if (cr.pid == 0) /* outside corral's pid namespace: not a member */
		return true;
	int pidfd = -1;
	len = sizeof(pidfd);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0)
		pidfd = -1;
	bool running = peer_running(cr.pid, pidfd);
	if (pidfd >= 0)
		close(pidfd);
	/* A member does not get to inspect (or stop, with stacks) the tree. */
	return running && !table_find(&c->tab, cr.pid);
}

static void accept_one(struct corral *c, struct live *l)
{
	int fd = accept4(l->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (!peer_allowed(c, fd)) {
		close(fd);
		return;
	}
	struct client *slot = NULL;
	for (int i = 0; i < LIVE_CLIENTS; i++) {
		struct client *k = &l->cl[i];
		if (k->st == CL_FREE) {
			slot = k;
			break;
		}
		if (!slot || k->seq < slot->seq)
			slot = k;
	}
	client_drop(slot); /* all busy: the oldest is dropped */
	*slot = (struct client){.fd = fd, .st = CL_READ, .seq = ++l->seq};
}

static void client_read(struct client *k)
{
	ssize_t n = read(k->fd, k->in + k->nin, sizeof(k->in) - 1 - k->nin);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0)
		k->nin += (size_t)n;
	k->in[k->nin] = 0;
	if (n > 0 && !memchr(k->in, '\n', k->nin)) {
		if (k->nin >= sizeof(k->in) - 1)
			client_drop(k); /* not our protocol */
		return;
	}
	/* A line, or the end of the request. */
	if (!strncmp(k->in, "stacks", 6))
		k->stacks = true;
	else if (!strncmp(k->in, "json", 4))
		k->json = true;
	else if (strncmp(k->in, "tree", 4)) {
		client_drop(k);
		return;
	}
	k->st = CL_RENDER;
}

void live_client_write(struct client *k)
{
	while (k->off < k->out.len) {
		ssize_t n = send(k->fd, k->out.p + k->off, k->out.len - k->off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0)
			break;
		k->off += (size_t)n;
	}
	client_drop(k);
}

static void live_io(struct corral *c, const struct pollfd *p, int n)
{
	struct live *l = c->live;
	if (!l)
		return;
	if (l->pidx[0] >= 0 && (p[l->pidx[0]].revents & POLLIN))
		l->lready = true;
	for (int i = 0; i < LIVE_CLIENTS; i++) {
		struct client *k = &l->cl[i];
		int x = l->pidx[1 + i];
		if (x < 0 || !p[x].revents)
			continue;
		if (k->st == CL_READ)
			client_read(k);
		else if (k->st == CL_WRITE)
			live_client_write(k);
	}
	if (l->lready) {
		l->lready = false;
		accept_one(c, l);
	}
}

void live_request_print(struct corral *c)
{
	if (c->live)
		c->live->print_wanted = true;
}

const struct io_plug live_plug = {
	.pollfds = live_pollfds,
	.serve = live_io,
	.close = live_close,
};
