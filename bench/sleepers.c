/*
 * sleepers - many sleeping threads in one process that will not go quietly:
 * the load that made corral's loop quadratic (issue 16).
 *
 *   sleepers [-n THREADS] [-c MS] [-i]
 *
 * Starts THREADS threads (default 1000) that sleep in pause(); prints
 * "ready" on stdout once all exist. -i: SIGTERM is ignored. -c MS: the
 * main thread sends its own process SIGCONT every MS milliseconds.
 *
 * Why SIGCONT: under PTRACE_SEIZE a SIGCONT makes *every* thread of the
 * process report a PTRACE_EVENT_STOP to its tracer (the kernel's
 * ptrace_trap_notify), so each one is a burst of THREADS wait statuses.
 * corral's own SIGTERM + SIGCONT at the start of a grace does the same.
 *
 * Threads get small stacks so that 20,000 of them fit easily; every thread
 * arms nothing: alarm(600) in the main thread is the last-resort exit.
 */
#include <pthread.h>
#include <signal.h>

#include "bench.h"

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	long n = 1000, cont_ms = 0;
	int ignore = 0, opt;
	while ((opt = getopt(argc, argv, "n:c:i")) != -1) {
		switch (opt) {
		case 'n': n = parse_num(optarg, "THREADS"); break;
		case 'c': cont_ms = parse_num(optarg, "MS"); break;
		case 'i': ignore = 1; break;
		default:
			fprintf(stderr, "usage: sleepers [-n THREADS] [-c MS] [-i]\n");
			return 2;
		}
	}
	alarm(600);
	if (ignore)
		signal(SIGTERM, SIG_IGN);
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (long i = 0; i < n; i++) {
		pthread_t t;
		int e = pthread_create(&t, &a, sleeper, NULL);
		if (e) {
			fprintf(stderr, "sleepers: thread %ld: %s\n", i, strerror(e));
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		if (cont_ms) {
			sleep_ns(cont_ms * 1000000L);
			kill(getpid(), SIGCONT);
		} else {
			pause();
		}
	}
}
