/*
 * waitpath - where corral's time goes while a task waits for it.
 *
 *   waitpath [-j JOURNAL] [-n RUNS] -- COMMAND [ARG...]
 *
 * Runs COMMAND under corral (the library, as `corral run -q` would) with
 * the kernel seam (tracer/core/sys.h) wrapped: every wait status corral takes
 * and every PTRACE_CONT or PTRACE_LISTEN it makes is timestamped here, so
 * the time from a status reaching corral to the resume of its task is
 * measured in place, per kind of event, without a probe in corral's code.
 * Also timed: the wake-up from the loop's sleep to the first resume after
 * it, and the two reads an exec makes when argv is wanted (the exe's path
 * and the argv). What corral does between a status and its resume is what
 * a sequential workload (a shell, bench/forkexec) waits for; the journal's
 * share is the difference of a run with -j and one without.
 *
 * Internal: it links libcorral.a and sees tracer/core/internal.h (like the unit
 * tests), because the seam is not public. Numbers are means and medians
 * over all events of all RUNS (docs/bench.md, "The journal").
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

enum kind {
	K_FORK,
	K_EXEC,
	K_STOP,
	K_SIGNAL,
	K_SECCOMP,
	K_OTHER,
	K_EXIT,
	K_WAKE,
	K_EXE,
	K_ARGV,
	NKINDS
};
static const char *const kind_name[NKINDS] = {
	"fork/vfork/clone", "exec",
	"first/group stop", "signal",
	"seccomp",	    "other event",
	"exit (no resume)", "wake-up to resume",
	"  exec: exe path", "  exec: argv"};

/* Samples in microseconds, per kind (grown as needed). */
static struct {
	double *v;
	size_t n, cap;
} samples[NKINDS];

/* When each tid's status was taken, and of what kind (0: none pending). */
#define MAXTID (1 << 22)
static double *taken_at;
static unsigned char *taken_kind;
static double woke_at; /* the last poll's return, 0 once a resume used it */
static const struct corral_sys *real;

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void add(enum kind k, double us)
{
	if (samples[k].n == samples[k].cap) {
		size_t cap = samples[k].cap ? 2 * samples[k].cap : 4096;
		double *v = realloc(samples[k].v, cap * sizeof(*v));
		if (!v)
			return;
		samples[k].v = v;
		samples[k].cap = cap;
	}
	samples[k].v[samples[k].n++] = us;
}

static enum kind kind_of(int status)
{
	if (!WIFSTOPPED(status))
		return K_EXIT;
	switch ((unsigned)status >> 16) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		return K_FORK;
	case PTRACE_EVENT_EXEC:
		return K_EXEC;
	case PTRACE_EVENT_STOP:
		return K_STOP;
	case PTRACE_EVENT_SECCOMP:
		return K_SECCOMP;
	case 0:
		return K_SIGNAL;
	default:
		return K_OTHER;
	}
}

static pid_t w_waitpid(void *ctx, pid_t pid, int *status, int options,
		       struct rusage *ru)
{
	pid_t r = real->waitpid(real->ctx, pid, status, options, ru);
	if (r > 0 && r < MAXTID) {
		enum kind k = kind_of(*status);
		if (k == K_EXIT) {
			add(K_EXIT, 0); /* counted; nobody waits for it */
		} else {
			taken_at[r] = now_us();
			taken_kind[r] = (unsigned char)(k + 1);
		}
	}
	return r;
}

static long w_ptrace(void *ctx, int req, pid_t pid, void *addr, void *data)
{
	double t = now_us();
	long r = real->ptrace(real->ctx, req, pid, addr, data);
	if ((req == PTRACE_CONT || req == PTRACE_LISTEN) && pid > 0 &&
	    pid < MAXTID && taken_kind[pid]) {
		add((enum kind)(taken_kind[pid] - 1), t - taken_at[pid]);
		taken_kind[pid] = 0;
		if (woke_at > 0) {
			add(K_WAKE, t - woke_at);
			woke_at = 0;
		}
	}
	return r;
}

static int w_poll(void *ctx, struct pollfd *p, unsigned n, double timeout)
{
	int r = real->poll(real->ctx, p, n, timeout);
	woke_at = r > 0 ? now_us() : 0;
	return r;
}

static char *w_exe(void *ctx, pid_t tid)
{
	double t = now_us();
	char *s = real->exe(real->ctx, tid);
	add(K_EXE, now_us() - t);
	return s;
}

static int w_exec_argv(void *ctx, pid_t tid, char **block, char ***argv)
{
	double t = now_us();
	int r = real->exec_argv(real->ctx, tid, block, argv);
	add(K_ARGV, now_us() - t);
	return r;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *journal, int runs, char **cmd)
{
	printf("waitpath: %s, journal %s, %d run%s\n", cmd[0],
	       journal ? journal : "off", runs, runs == 1 ? "" : "s");
	printf("| from a status to its task's resume | count | mean us | "
	       "median us | p90 us |\n| --- | ---: | ---: | ---: | ---: |\n");
	for (int k = 0; k < NKINDS; k++) {
		size_t n = samples[k].n;
		if (!n)
			continue;
		if (k == K_EXIT) {
			printf("| %s | %zu | | | |\n", kind_name[k], n);
			continue;
		}
		double *v = samples[k].v, sum = 0;
		qsort(v, n, sizeof(*v), cmp);
		for (size_t i = 0; i < n; i++)
			sum += v[i];
		printf("| %s | %zu | %.2f | %.2f | %.2f |\n", kind_name[k], n,
		       sum / (double)n, v[n / 2], v[n * 9 / 10]);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: waitpath [-j JOURNAL] [-n RUNS] -- COMMAND "
			"[ARG...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *journal = NULL;
	int runs = 1, o;
	while ((o = getopt(argc, argv, "+j:n:")) != -1) {
		if (o == 'j')
			journal = optarg;
		else if (o == 'n' && atoi(optarg) > 0)
			runs = atoi(optarg);
		else
			usage();
	}
	if (optind >= argc)
		usage();
	char **cmd = argv + optind;
	taken_at = calloc(MAXTID, sizeof(*taken_at));
	taken_kind = calloc(MAXTID, 1);
	if (!taken_at || !taken_kind)
		return 1;
	for (int i = 0; i < runs; i++) {
		struct corral_config cfg;
		corral_config_init(&cfg);
		cfg.argv = (const char *const *)cmd;
		cfg.self_argv = (const char *const *)argv;
		cfg.journal_path = journal;
		struct corral *c;
		char err[256];
		if (corral_new(&cfg, &c, err, sizeof(err)) < 0) {
			fprintf(stderr, "waitpath: %s\n", err);
			return 1;
		}
		/* The seam, wrapped: the real calls, timed on the way. */
		static struct corral_sys wrapped;
		real = c->sys;
		wrapped = *real;
		wrapped.waitpid = w_waitpid;
		wrapped.ptrace = w_ptrace;
		wrapped.poll = w_poll;
		wrapped.exe = w_exe;
		wrapped.exec_argv = w_exec_argv;
		c->sys = &wrapped;
		int r = corral_spawn(c);
		if (r == 0)
			r = corral_wait(c);
		struct corral_result res;
		corral_result(c, &res);
		corral_free(c);
		if (r < 0 || res.exit_code != 0) {
			fprintf(stderr, "waitpath: run %d: %s (exit %d)\n", i,
				r < 0 ? strerror(-r) : "the command failed",
				res.exit_code);
			return 1;
		}
	}
	report(journal, runs, cmd);
	return 0;
}
