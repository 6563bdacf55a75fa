/* progress.h - a progress line on a terminal while a long run goes on. */
#ifndef CORRAL_CLI_PROGRESS_H
#define CORRAL_CLI_PROGRESS_H

#include <stdbool.h>

#include "corral.h"

struct progress {
	bool on;
	double t0;    /* CLOCK_MONOTONIC at the start */
	double next;  /* when the next line is due (seconds since t0) */
	double every; /* --progress DUR, 0: the default gaps */
	bool pty;     /* the terminal is in raw mode (--pty): "\r\n" */
	unsigned long dropped; /* lines the terminal did not take */
};

/* How long corral_step may sleep for the lines to be on time (ms), -1
 * when there are none. */
int progress_step_ms(const struct progress *p);

/*
 * every > 0 (--progress DUR): a line every DUR, terminal or not; 0 with
 * set: never; not set: on a terminal and not quiet, 10 s then 1 min.
 */
void progress_init(struct progress *p, double every, bool set, bool quiet,
		   bool pty);

/* Between steps: print the line when it is due. Never blocks. */
void progress_tick(struct progress *p, struct corral *c);

#endif
