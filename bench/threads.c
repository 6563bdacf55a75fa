/*
 * threads - the thread-heavy workload.
 *
 *   threads [-t TOTAL] [-w WAVE] [-r]
 *
 * Creates TOTAL threads (default 10000), WAVE at a time (default 200): each
 * wave's threads do a little work and exit, the wave is joined, the next
 * starts. A supervisor sees one clone and one exit per thread, so this
 * isolates the cost of thread events from the cost of exec.
 *
 * -r: when all threads are done, print "ready" on stdout and sleep until
 * killed. The runner reads the supervisor's memory at that moment (the
 * 100,000-threads-over-a-run figure), then ends the run.
 */
#include <pthread.h>
#include <signal.h>

#include "bench.h"

static void *work(void *arg)
{
	/* Enough work that the thread really runs, little enough to be
	 * negligible next to clone + exit. */
	volatile unsigned long x = (unsigned long)arg;
	for (int i = 0; i < 100; i++)
		x = x * 6364136223846793005UL + 1;
	return NULL;
}

int main(int argc, char **argv)
{
	long total = 10000, wave = 200;
	int ready = 0, opt;
	while ((opt = getopt(argc, argv, "t:w:r")) != -1) {
		switch (opt) {
		case 't': total = parse_num(optarg, "TOTAL"); break;
		case 'w': wave = parse_num(optarg, "WAVE"); break;
		case 'r': ready = 1; break;
		default:
			fprintf(stderr, "usage: threads [-t TOTAL] [-w WAVE] [-r]\n");
			return 2;
		}
	}
	if (wave < 1)
		wave = 1;

	pthread_t *tids = calloc(wave, sizeof(*tids));
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	/* Small stacks: thousands of live threads must not need gigabytes. */
	pthread_attr_setstacksize(&attr, 64 * 1024);

	for (long done = 0; done < total;) {
		long n = total - done < wave ? total - done : wave;
		for (long i = 0; i < n; i++) {
			int e = pthread_create(&tids[i], &attr, work,
					       (void *)(done + i));
			if (e) {
				errno = e;
				die("pthread_create");
			}
		}
		for (long i = 0; i < n; i++)
			pthread_join(tids[i], NULL);
		done += n;
	}

	if (ready) {
		printf("ready %ld\n", total);
		fflush(stdout);
		for (;;)
			pause();
	}
	return 0;
}
