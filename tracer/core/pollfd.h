/*
 * pollfd.h - corral_fd()'s descriptor (pollfd.c), armed by the loop.
 */
#ifndef CORRAL_POLLFD_H
#define CORRAL_POLLFD_H

struct corral;

/* After a step: readable in wait seconds (0: now, < 0: only on news). */
void pollfd_arm(struct corral *c, double wait);
/* corral_free(): close the descriptors. */
void pollfd_free(struct corral *c);

#endif
