/*
 * storm - a fork storm of fixed length, for the events-per-second figure.
 *
 *   storm [-w WORKERS] [-d MILLISECONDS]
 *
 * WORKERS processes (default 4) each fork a child that exits at once, reap
 * it, and go again, until the time is up (default 2000 ms). Prints the
 * total number of forks and the rate ("forks N rate R", R per second).
 * Under a supervisor each fork costs at least a fork event and an exit, so
 * the rate it sustains is the rate at which it handles those events.
 */
#include <sys/mman.h>

#include "bench.h"

int main(int argc, char **argv)
{
	long workers = 4, ms = 2000;
	int opt;
	while ((opt = getopt(argc, argv, "w:d:")) != -1) {
		switch (opt) {
		case 'w': workers = parse_num(optarg, "WORKERS"); break;
		case 'd': ms = parse_num(optarg, "MILLISECONDS"); break;
		default:
			fprintf(stderr, "usage: storm [-w WORKERS] [-d MILLISECONDS]\n");
			return 2;
		}
	}

	uint64_t *count = mmap(NULL, sizeof(*count), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (count == MAP_FAILED)
		die("mmap");

	int64_t t0 = now_ns();
	int64_t deadline = t0 + ms * 1000000LL;
	for (long w = 0; w < workers; w++) {
		pid_t p = fork();
		if (p < 0)
			die("fork");
		if (p == 0) {
			static volatile int never;
			storm_loop(&never, count, deadline);
			_exit(0);
		}
	}
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	double secs = ns_to_s(now_ns() - t0);
	uint64_t n = __atomic_load_n(count, __ATOMIC_RELAXED);
	printf("forks %llu rate %.0f\n", (unsigned long long)n, n / secs);
	return 0;
}
