/*
 * live_io.h - the live view's state, shared by its two halves: live_io.c (the
 * socket server and the non-blocking writes, low in the layers: the loop's
 * sleep serves them) and live.c (rendering the tree, between batches,
 * which may stop the tree for stacks).
 */
#ifndef CORRAL_LIVE_IO_H
#define CORRAL_LIVE_IO_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"

#define LIVE_CLIENTS 4
#define LIVE_MAX_OUT (4u << 20) /* bytes of one answer */

enum cstate { CL_FREE, CL_READ, CL_RENDER, CL_WRITE };

struct client {
	int fd;
	enum cstate st;
	bool stacks;
	bool json; /* "json": the live members as JSON (corral ps --json) */
	char in[16];
	size_t nin;
	struct sbuf out;
	size_t off;
	unsigned long seq; /* accept order: the oldest is dropped first */
};

struct live {
	int lfd; /* listening socket, -1 if none */
	struct client cl[LIVE_CLIENTS];
	unsigned long seq;
	bool lready;		    /* the listening socket has a connection */
	int pidx[1 + LIVE_CLIENTS]; /* pollfd index of each, -1 */
	bool print_wanted;	    /* SIGUSR1 without a journal */
	double last_stacks, last_print;
	unsigned long coalesced;
};

/* live_io.c: what live.c's renders are written with. */
void live_client_write(struct client *k);
/* Write to fd without ever blocking; what does not fit is dropped. */
void live_write_nonblocking(int fd, const char *p, size_t len);

#endif
