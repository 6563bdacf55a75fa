/*
 * stack1000 - how long do the stacks of 1,000 threads of one process take?
 *
 *	cc -O2 -Iinclude -Itracer/stacks bench/stack1000.c build/libcorral.a \
 *		$(pkg-config --libs libseccomp libunwind-ptrace) -lpthread \
 *		-o build/stack1000
 *	make build/fixtures/stack_hang && build/stack1000 [THREADS] [ROUNDS]
 *
 * Runs $BUILD/fixtures/stack_hang THREADS (default 1000) seized before exec,
 * waits for its "ready", seizes and PTRACE_INTERRUPTs every thread, then
 * times unwinding all of them (leader included), ROUNDS times (default 5):
 *
 *   cold: a new unwinder each round (address space, maps, DWARF and symbol
 *         caches built from nothing: what a single round of stacks on a
 *         timeout costs);
 *   warm: one unwinder kept across rounds (what repeated snapshots cost);
 *   walker: each round in a walk session of its own (walker.h): a forked
 *         walker process walks, the tracer sends it registers and a
 *         /proc/TGID/mem descriptor per thread and waits with a deadline;
 *         what a round of stacks costs corral since issue 22;
 *   one: a single stack (a crash's), cold: in the tracer vs in a session
 *         of its own (fork, one walk, exit), 21 times each.
 *
 * Prints median, min and max in ms for both, and checks that every worker's
 * stack holds corral_fixture_hang_here so that failures are not timed as
 * successes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2; the build line has no -D_GNU_SOURCE */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unwind.h"
#include "walker.h"

static pid_t child;

static void die(const char *what)
{
	fprintf(stderr, "stack1000: %s: %s\n", what, strerror(errno));
	if (child > 0)
		kill(child, SIGKILL);
	exit(1);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Unwind every thread once; returns the number of good worker stacks. */
static int round_once(struct corral_unwinder *u, pid_t pid, const pid_t *tids,
		      int nt, long *frames)
{
	struct corral_frame f[UNWINDER_MAX_FRAMES];
	int good = 0;
	for (int i = 0; i < nt; i++) {
		const char *why;
		int n = unwinder_stack(u, pid, tids[i], f, UNWINDER_MAX_FRAMES,
				       &why);
		if (n < 0) {
			fprintf(stderr, "stack1000: tid %d: %s\n", tids[i],
				strerror(-n));
			continue;
		}
		*frames += n;
		for (int j = 0; j < n; j++)
			if (f[j].func &&
			    !strcmp(f[j].func, "corral_fixture_hang_here")) {
				good++;
				break;
			}
	}
	return good;
}

/* The same round, each stack through the walk session *w. */
static int round_walker(struct corral_walker **w, pid_t pid, const pid_t *tids,
			int nt, long *frames)
{
	struct corral_frame f[UNWINDER_MAX_FRAMES];
	int good = 0;
	for (int i = 0; i < nt; i++) {
		struct walk_out out;
		int n = walker_stack(w, pid, tids[i], f, UNWINDER_MAX_FRAMES,
				     1.0, NULL, &out);
		if (n < 0) {
			fprintf(stderr, "stack1000: walker, tid %d: %s\n",
				tids[i], strerror(-n));
			continue;
		}
		if (out.cut)
			fprintf(stderr, "stack1000: walker, tid %d: cut: %s\n",
				tids[i], out.cut);
		*frames += n;
		for (int j = 0; j < n; j++)
			if (f[j].func &&
			    !strcmp(f[j].func, "corral_fixture_hang_here")) {
				good++;
				break;
			}
	}
	return good;
}

static void report(const char *name, double *ms, int rounds, long frames,
		   int nt)
{
	qsort(ms, rounds, sizeof(*ms), cmp_double);
	printf("%s: %d threads, median %.1f ms (min %.1f, max %.1f) over %d "
	       "rounds, %.1f us/thread, %.1f frames/thread\n",
	       name, nt, ms[rounds / 2], ms[0], ms[rounds - 1], rounds,
	       ms[rounds / 2] * 1e3 / nt, (double)frames / rounds / nt);
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 1000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	if (nthreads < 1 || rounds < 1 || rounds > 100) {
		fprintf(stderr, "usage: stack1000 [THREADS] [ROUNDS]\n");
		return 2;
	}
	const char *build = getenv("BUILD");
	char path[4096], narg[16];
	snprintf(path, sizeof(path), "%s/fixtures/stack_hang",
		 build && *build ? build : "build");
	snprintf(narg, sizeof(narg), "%d", nthreads);

	/* Seized before exec: the child waits on `go` until we have it. */
	int go[2], out[2];
	if (pipe2(go, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		char c;
		close(go[1]);
		dup2(out[1], 1);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execl(path, path, narg, (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	close(out[1]);
	if (ptrace(PTRACE_SEIZE, child, NULL, (void *)PTRACE_O_EXITKILL))
		die("PTRACE_SEIZE");
	if (write(go[1], "g", 1) != 1)
		die("write");
	close(go[1]);

	char buf[8];
	size_t got = 0;
	while (got < 6) {
		struct pollfd pfd = {out[0], POLLIN, 0};
		if (poll(&pfd, 1, 120000) != 1)
			die("waiting for ready");
		ssize_t n = read(out[0], buf + got, 6 - got);
		if (n <= 0)
			die("reading ready (fixture missing or failed?)");
		got += n;
	}

	/* Every thread: seize the workers (the leader is ours), stop all. */
	pid_t *tids = malloc((nthreads + 16) * sizeof(*tids));
	int nt = 0;
	char tpath[64];
	snprintf(tpath, sizeof(tpath), "/proc/%d/task", child);
	DIR *d = opendir(tpath);
	if (!d || !tids)
		die("opendir");
	tids[nt++] = child;
	struct dirent *e;
	while ((e = readdir(d)) && nt < nthreads + 16) {
		pid_t t = atoi(e->d_name);
		if (t > 0 && t != child)
			tids[nt++] = t;
	}
	closedir(d);
	for (int i = 0; i < nt; i++) {
		if (tids[i] != child &&
		    ptrace(PTRACE_SEIZE, tids[i], NULL,
			   (void *)PTRACE_O_EXITKILL))
			die("PTRACE_SEIZE thread");
		if (ptrace(PTRACE_INTERRUPT, tids[i], NULL, NULL))
			die("PTRACE_INTERRUPT");
	}
	for (int i = 0; i < nt; i++) {
		int st;
		if (waitpid(tids[i], &st, __WALL) != tids[i] || !WIFSTOPPED(st))
			die("waitpid stop");
	}

	double cold[100], warm[100];
	long cold_frames = 0, warm_frames = 0;
	int bad = 0;
	for (int r = 0; r < rounds; r++) {
		struct corral_unwinder *u;
		if (unwinder_new(&u))
			die("unwinder_new");
		double t0 = now_ms();
		int good = round_once(u, child, tids, nt, &cold_frames);
		cold[r] = now_ms() - t0;
		bad += good != nt - 1;
		unwinder_free(u);
	}
	struct corral_unwinder *u;
	if (unwinder_new(&u))
		die("unwinder_new");
	round_once(u, child, tids, nt, &warm_frames); /* fill the caches */
	warm_frames = 0;
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ms();
		int good = round_once(u, child, tids, nt, &warm_frames);
		warm[r] = now_ms() - t0;
		bad += good != nt - 1;
	}
	struct unwinder_stats st;
	unwinder_get_stats(u, &st);
	unwinder_free(u);

	double walk[100];
	long walk_frames = 0;
	for (int r = 0; r < rounds; r++) {
		struct corral_walker *w = NULL;
		double t0 = now_ms();
		int good = round_walker(&w, child, tids, nt, &walk_frames);
		walker_end(&w);
		walk[r] = now_ms() - t0;
		bad += good != nt - 1;
	}

	/* One stack, cold (a crash): in the tracer, and in its own session. */
	enum { ONE = 21 };
	double one_in[ONE], one_walker[ONE];
	long one_frames = 0;
	for (int r = 0; r < ONE; r++) {
		struct corral_unwinder *u1;
		if (unwinder_new(&u1))
			die("unwinder_new");
		double t0 = now_ms();
		bad += round_once(u1, child, tids + 1, 1, &one_frames) != 1;
		unwinder_free(u1);
		one_in[r] = now_ms() - t0;
		struct corral_walker *w = NULL;
		t0 = now_ms();
		bad += round_walker(&w, child, tids + 1, 1, &one_frames) != 1;
		walker_end(&w);
		one_walker[r] = now_ms() - t0;
	}
	struct walker_stats ws;
	walker_get_stats(&ws);

	kill(child, SIGKILL);
	while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
		;

	free(tids);
	report("cold", cold, rounds, cold_frames, nt);
	report("warm", warm, rounds, warm_frames, nt);
	report("walker", walk, rounds, walk_frames, nt);
	qsort(one_in, ONE, sizeof(double), cmp_double);
	qsort(one_walker, ONE, sizeof(double), cmp_double);
	printf("one stack, cold: in the tracer median %.3f ms (min %.3f, max "
	       "%.3f); in a walker session median %.3f ms (min %.3f, max "
	       "%.3f); %d times each\n",
	       one_in[ONE / 2], one_in[0], one_in[ONE - 1], one_walker[ONE / 2],
	       one_walker[0], one_walker[ONE - 1], ONE);
	printf("walker processes: %lu started, %lu killed, %lu lost\n",
	       ws.started, ws.killed, ws.lost);
	printf("warm unwinder: %lu stacks, %lu frames, %lu name lookups, "
	       "%lu cache hits, %lu maps reads\n",
	       st.stacks, st.frames, st.sym_lookups, st.sym_hits,
	       st.maps_reads);
	if (bad) {
		printf("FAIL: %d rounds missed corral_fixture_hang_here\n",
		       bad);
		return 1;
	}
	return 0;
}
