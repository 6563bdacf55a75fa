/*
 * forkexec - the exec-loop workload: N times fork + exec PROGRAM + wait.
 *
 *   forkexec N [PROGRAM]     (PROGRAM defaults to /bin/true)
 *
 * Written in C rather than as a shell loop so that the loop itself costs
 * next to nothing and the figure is the cost of fork, exec and exit (and of
 * the supervisor's handling of those events), not of a shell.
 */
#include "bench.h"

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: forkexec N [PROGRAM]\n");
		return 2;
	}
	long n = parse_num(argv[1], "N");
	char *prog = argc > 2 ? argv[2] : "/bin/true";
	char *args[] = { prog, NULL };

	for (long i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0)
			die("fork");
		if (p == 0) {
			execv(prog, args);
			_exit(127);
		}
		int st;
		while (waitpid(p, &st, 0) < 0)
			if (errno != EINTR)
				die("waitpid");
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "forkexec: %s failed (status 0x%x)\n",
				prog, st);
			return 1;
		}
	}
	return 0;
}
