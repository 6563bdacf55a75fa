/*
 * pollfd.c - corral_fd(): one descriptor for the caller's own poll loop.
 *
 * An epoll descriptor over what corral_step() itself would sleep on: the
 * signalfd (SIGCHLD and the signals corral acts on), the pty relay's and
 * the live socket's descriptors, the journal's when its reader stalled,
 * and a timerfd. After each step the set is
 * brought up to date (those descriptors come and go) and the timer is
 * armed for the nearest deadline (timeout, grace), or "now" when the step
 * left work that needs no news from the kernel (a drain not yet done,
 * ECHILD seen, an end requested from a callback). Arming a timerfd resets
 * its count, so the descriptor is readable when, and only when, a step has
 * something to do: a caller's loop neither spins nor misses a deadline.
 *
 * A descriptor epoll refuses (EPERM: a regular file or /dev/null as the
 * pty's stdin) is always ready for ppoll(); the timer fires at once
 * instead until the relay stops reading it (at its EOF).
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "internal.h"
#include "pollfd.h"

#define MAX_EXTRA PLUG_FDS /* what is plugged into the sleep (plug.c) */

struct corral_pollfd {
	int ep;	 /* what the caller polls */
	int tfd; /* the timer in it */
	/* The pty's and the live view's descriptors in it now. */
	int nextra;
	int extra[MAX_EXTRA];
};

static uint32_t epoll_events(short events)
{
	return (events & POLLIN ? EPOLLIN : 0) |
	       (events & POLLOUT ? EPOLLOUT : 0);
}

/* The set as the loop's own ppoll() would have it; false if a descriptor
 * cannot be watched by epoll (then it is always ready). */
static bool sync_extra(struct corral *c, struct corral_pollfd *p)
{
	struct pollfd want[MAX_EXTRA];
	int n = plug_pollfds(c, want, NULL);
	bool all = true;
	for (int i = 0; i < p->nextra; i++) {
		bool kept = false;
		for (int k = 0; k < n; k++)
			kept = kept || want[k].fd == p->extra[i];
		/* A closed descriptor left the set by itself (ENOENT/EBADF). */
		if (!kept)
			epoll_ctl(p->ep, EPOLL_CTL_DEL, p->extra[i], NULL);
	}
	p->nextra = 0;
	for (int k = 0; k < n; k++) {
		struct epoll_event ev = {.events = epoll_events(want[k].events),
					 .data.fd = want[k].fd};
		if (epoll_ctl(p->ep, EPOLL_CTL_MOD, want[k].fd, &ev) < 0 &&
		    epoll_ctl(p->ep, EPOLL_CTL_ADD, want[k].fd, &ev) < 0) {
			all = false; /* EPERM: not pollable by epoll */
			continue;
		}
		p->extra[p->nextra++] = want[k].fd;
	}
	return all;
}

void pollfd_arm(struct corral *c, double wait)
{
	if (!c->pollfd)
		return;
	if (!sync_extra(c, c->pollfd))
		wait = 0;
	struct itimerspec its = {0};
	if (wait == 0) {
		its.it_value.tv_nsec = 1; /* 0 would disarm */
	} else if (wait > 0) {
		if (wait > 86400)
			wait = 86400;
		its.it_value.tv_sec = (time_t)wait;
		its.it_value.tv_nsec =
			(long)((wait - (double)its.it_value.tv_sec) * 1e9);
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1;
	}
	timerfd_settime(c->pollfd->tfd, 0, &its, NULL);
}

int corral_fd(struct corral *c)
{
	if (c->pollfd)
		return c->pollfd->ep;
	if (c->lifecycle.sigfd < 0)
		return -EBADF;
	struct corral_pollfd *p = malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->nextra = 0;
	p->ep = epoll_create1(EPOLL_CLOEXEC);
	p->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	struct epoll_event sig = {.events = EPOLLIN,
				  .data.fd = c->lifecycle.sigfd};
	struct epoll_event tim = {.events = EPOLLIN, .data.fd = p->tfd};
	if (p->ep < 0 || p->tfd < 0 ||
	    epoll_ctl(p->ep, EPOLL_CTL_ADD, c->lifecycle.sigfd, &sig) < 0 ||
	    epoll_ctl(p->ep, EPOLL_CTL_ADD, p->tfd, &tim) < 0) {
		int e = errno;
		if (p->ep >= 0)
			close(p->ep);
		if (p->tfd >= 0)
			close(p->tfd);
		free(p);
		return -e;
	}
	c->pollfd = p;
	pollfd_arm(c, 0); /* the first step decides */
	return p->ep;
}

void pollfd_free(struct corral *c)
{
	if (!c->pollfd)
		return;
	close(c->pollfd->ep);
	close(c->pollfd->tfd);
	free(c->pollfd);
	c->pollfd = NULL;
}
