/*
 * tree - a tree of N sleeping processes, the workload for ending a tree.
 *
 *   tree [-n N] [-f FANOUT] [-s STORM] [-l LIFETIME]
 *
 * Member i (0 is this process, the root) forks members FANOUT*i+1 ..
 * FANOUT*i+FANOUT (those below N), then sleeps in pause(). Default FANOUT 2:
 * a binary tree, log2(N) levels deep, which is what a walk that goes a level
 * at a time pays for; every member has a parent inside the tree, which is
 * what a walk needs to find it at all.
 *
 * When all N members exist (each one counts itself in a shared counter),
 * the root prints "ready N" on stdout: the runner starts its clock for
 * ending the tree only then.
 *
 * -s STORM: before "ready", the root also starts STORM fork-storm workers
 * (children of the root, on top of the N members), each forking a child
 * that exits at once, in a loop, for as long as the tree lives: ending the
 * tree must then also catch processes that are being born meanwhile.
 *
 * Every member arms alarm(LIFETIME) (default 300 s): if a benchmark ever
 * failed to end the tree, it still goes away by itself.
 */
#include <signal.h>
#include <sys/mman.h>

#include "bench.h"

struct shared {
	long members;	     /* members that exist, the root included */
	uint64_t storm_forks; /* forks done by the storm workers */
};

static struct shared *sh;
static long n = 1000, fanout = 2;
static unsigned lifetime = 300;

static void sleep_forever(void)
{
	for (;;)
		pause();
}

/* fork() that rides out EAGAIN for a while: building 10,000 members on a
 * busy machine may briefly hit a limit. */
static pid_t fork_retry(void)
{
	for (int tries = 0;; tries++) {
		pid_t p = fork();
		if (p >= 0 || errno != EAGAIN || tries > 1000)
			return p;
		sleep_ns(1000000);
	}
}

/* Become member i: fork our children, count ourselves, sleep. The root
 * (i == 0) returns instead of sleeping. */
static void member(long i)
{
	alarm(lifetime);
	for (long k = 1; k <= fanout; k++) {
		long c = fanout * i + k;
		if (c >= n)
			break;
		pid_t p = fork_retry();
		if (p < 0)
			die("fork (member %ld)", c);
		if (p == 0) {
			member(c);
			sleep_forever();
		}
	}
	__atomic_add_fetch(&sh->members, 1, __ATOMIC_SEQ_CST);
}

int main(int argc, char **argv)
{
	long storm = 0;
	int opt;
	while ((opt = getopt(argc, argv, "n:f:s:l:")) != -1) {
		switch (opt) {
		case 'n': n = parse_num(optarg, "N"); break;
		case 'f': fanout = parse_num(optarg, "FANOUT"); break;
		case 's': storm = parse_num(optarg, "STORM"); break;
		case 'l': lifetime = parse_num(optarg, "LIFETIME"); break;
		default:
			fprintf(stderr, "usage: tree [-n N] [-f FANOUT] [-s STORM] [-l LIFETIME]\n");
			return 2;
		}
	}
	if (n < 1)
		n = 1;
	if (fanout < 1)
		fanout = 1;

	/* MAP_SHARED survives fork: every member counts itself in it. */
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");

	member(0);

	/* Wait for the whole tree, polling: a sleeping root costs nothing
	 * and creates no events a supervisor would have to handle. */
	int64_t give_up = now_ns() + 120 * 1000000000LL;
	while (__atomic_load_n(&sh->members, __ATOMIC_SEQ_CST) < n) {
		if (now_ns() > give_up) {
			fprintf(stderr, "tree: only %ld of %ld members after 120 s\n",
				sh->members, n);
			return 1;
		}
		sleep_ns(500000);
	}

	for (long s = 0; s < storm; s++) {
		pid_t p = fork_retry();
		if (p < 0)
			die("fork (storm worker)");
		if (p == 0) {
			static volatile int never;
			alarm(lifetime);
			storm_loop(&never, &sh->storm_forks, 0);
			_exit(0);
		}
	}
	/* "A fork storm running" means running: wait until the workers have
	 * forked a few times each before calling the tree ready. */
	while (__atomic_load_n(&sh->storm_forks, __ATOMIC_RELAXED) <
	       (uint64_t)storm * 10)
		sleep_ns(200000);

	printf("ready %ld\n", n);
	fflush(stdout);
	sleep_forever();
}
