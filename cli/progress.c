/*
 * progress.c - on a terminal, a long run says it is alive: after 10 s
 * and then every 10 s for the first minute, every minute after, one line
 * on stderr: how long it has run, how many processes live, how many
 * execs so far (docs/cli.md, "Progress"). Not with -q, not when stderr is
 * not a terminal (a CI log gets the end line only), unless --progress DUR
 * asks for a line every DUR (0: never).
 *
 * A whole line, not a status redrawn with \r: the command writes to the
 * same terminal, and a line it writes over a redrawn status would keep
 * the status's tail. The line goes out with one write() on fd 2, which is
 * non-blocking once the tree runs (main.c, stderr_nonblocking): a
 * terminal stopped with ^S or a member's tcflow(TCOOFF) loses the line,
 * never holds the loop.
 */
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define FIRST 10.0 /* seconds before the first line */
#define EARLY 10.0 /* the gap in the first minute */
#define LATER 60.0 /* the gap after */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void progress_init(struct progress *p, double every, bool set, bool quiet,
		   bool pty)
{
	*p = (struct progress){0};
	/* asked for: wherever stderr goes; else a terminal's only */
	p->on = set ? every > 0 : !quiet && isatty(STDERR_FILENO);
	p->every = set ? every : 0;
	p->pty = pty;
	p->t0 = now();
	p->next = p->every > 0 ? p->every : FIRST;
}

int progress_step_ms(const struct progress *p)
{
	if (!p->on)
		return -1;
	if (p->every > 0 && p->every < 1)
		return p->every * 1000 < 1 ? 1 : (int)(p->every * 1000);
	return 1000;
}

static void count_live(const struct corral_proc_info *pi, void *arg)
{
	unsigned long *n = arg;
	if (pi->ended < 0 && !pi->setup)
		(*n)++;
}

/* "1h02m03s", "2m05s", "45.2s" */
static void elapsed(char *buf, size_t len, double t)
{
	long s = (long)t;
	if (s >= 3600)
		snprintf(buf, len, "%ldh%02ldm%02lds", s / 3600, s / 60 % 60,
			 s % 60);
	else if (s >= 60)
		snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
	else
		snprintf(buf, len, "%.1fs", t);
}

void progress_tick(struct progress *p, struct corral *c)
{
	if (!p->on)
		return;
	double t = now() - p->t0;
	if (t < p->next)
		return;
	p->next = t + (p->every > 0 ? p->every : t < 60 ? EARLY : LATER);
	unsigned long live = 0;
	corral_foreach_proc(c, count_live, &live);
	struct corral_result r;
	corral_result(c, &r);
	char el[32], line[256];
	elapsed(el, sizeof(el), t);
	int n = snprintf(line, sizeof(line),
			 "corral: running %s: %lu live process%s, %lu "
			 "exec%s so far%s",
			 el, live, live == 1 ? "" : "es", r.execs,
			 r.execs == 1 ? "" : "s", p->pty ? "\r\n" : "\n");
	if (n > 0 && write(STDERR_FILENO, line, (size_t)n) != n)
		p->dropped++;
}
