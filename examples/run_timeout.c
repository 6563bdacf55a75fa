/*
 * run_timeout.c - run a command with a time limit and collect the result.
 *
 *	run_timeout SECONDS COMMAND [ARG...]
 *
 * The command and everything it starts (double-forked daemons included)
 * are ended when it exits or when the time is up, whichever comes first.
 * Prints one summary line on stderr and exits with what the corral CLI
 * would: the command's status, 124 on timeout, 125/126/127 when it could
 * not be run.
 *
 * Build: cc run_timeout.c $(pkg-config --cflags --libs corral) -o run_timeout
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <corral.h>

int main(int argc, char **argv)
{
	double limit;
	if (argc < 3 || corral_parse_duration(argv[1], &limit) < 0) {
		fprintf(stderr,
			"usage: run_timeout SECONDS COMMAND [ARG...]\n");
		return CORRAL_EXIT_INTERNAL;
	}
	struct corral_config cfg;
	corral_config_init(&cfg);
	cfg.argv = (const char *const *)argv + 2;
	cfg.timeout = limit;
	cfg.kill_after = 1; /* SIGTERM first, SIGKILL after 1 s */

	struct corral *c;
	char err[256];
	int r = corral_new(&cfg, &c, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "run_timeout: %s\n", err);
		return r == -ENOENT   ? CORRAL_EXIT_NOTFOUND
		       : r == -EACCES ? CORRAL_EXIT_NOEXEC
				      : CORRAL_EXIT_INTERNAL;
	}
	r = corral_spawn(c);
	if (r == 0)
		r = corral_wait(c);
	struct corral_result res;
	corral_result_init(&res);
	corral_get_result(c, &res);
	if (r < 0) {
		fprintf(stderr, "run_timeout: %s\n",
			*corral_error(c) ? corral_error(c) : strerror(-r));
		corral_free(c);
		return CORRAL_EXIT_INTERNAL;
	}
	fprintf(stderr,
		"run_timeout: exit=%d reason=%s processes=%lu execs=%lu "
		"left=%lu killed=%lu survivors=%lu time=%.3fs\n",
		res.exit_code, corral_reason_name(res.reason), res.processes,
		res.execs, res.left, res.killed, res.survivors, res.t_end);
	corral_free(c);
	return res.exit_code;
}
