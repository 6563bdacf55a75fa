/*
 * pollfd.c - corral_fd(): one descriptor for the caller's own poll loop.
 *
 * An epoll descriptor over the signalfd the loop sleeps on (SIGCHLD and
 * the signals corral acts on) and a timerfd. After each step the timer is
 * armed for what corral_step() itself would sleep until: the nearest
 * deadline (timeout, grace), or "now" when the step left work that needs
 * no news from the kernel (a drain not yet done, ECHILD seen, an end
 * requested from a callback). Arming a timerfd resets its count, so the
 * descriptor is readable when, and only when, a step has something to do:
 * a caller's loop neither spins nor misses a deadline.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "internal.h"
#include "pollfd.h"

struct corral_pollfd {
	int ep;	 /* what the caller polls */
	int tfd; /* the timer in it */
};

void pollfd_arm(struct corral *c, double wait)
{
	if (!c->pollfd)
		return;
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
	if (c->cfg.pty)
		return -EOPNOTSUPP;
	if (c->pollfd)
		return c->pollfd->ep;
	if (c->sigfd < 0)
		return -EBADF;
	struct corral_pollfd *p = malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->ep = epoll_create1(EPOLL_CLOEXEC);
	p->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	struct epoll_event sig = {.events = EPOLLIN, .data.fd = c->sigfd};
	struct epoll_event tim = {.events = EPOLLIN, .data.fd = p->tfd};
	if (p->ep < 0 || p->tfd < 0 ||
	    epoll_ctl(p->ep, EPOLL_CTL_ADD, c->sigfd, &sig) < 0 ||
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
