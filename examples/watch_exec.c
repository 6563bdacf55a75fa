/*
 * watch_exec.c - print every program the command's tree runs, as it runs.
 *
 *	watch_exec COMMAND [ARG...]
 *
 * One line per exec on stdout: "exec PID: PATH ARGV..."; the
 * command's own output is left as it is. Exits with the command's status.
 * Events arrive through the callback, on the thread that runs the loop:
 * the callback must be quick (the tree waits meanwhile) and may not call
 * back into the loop (corral.h lists what it may call).
 *
 * Build: cc watch_exec.c $(pkg-config --cflags --libs corral) -o watch_exec
 */
#include <stdio.h>

#include <corral.h>

struct counts {
	unsigned long execs, forks;
};

static void on_event(const struct corral_event *ev, void *arg)
{
	struct counts *n = arg;
	switch (ev->type) {
	case CORRAL_EV_FORK:
	case CORRAL_EV_VFORK:
	case CORRAL_EV_CLONE:
		n->forks++;
		break;
	case CORRAL_EV_EXEC:
		n->execs++;
		printf("exec %d: %s", ev->pid, ev->path ? ev->path : "?");
		for (int i = 0; ev->argv && ev->argv[i]; i++)
			printf(" %s", ev->argv[i]);
		putchar('\n');
		fflush(stdout);
		break;
	default: /* including types added by later versions */
		break;
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: watch_exec COMMAND [ARG...]\n");
		return CORRAL_EXIT_INTERNAL;
	}
	struct counts n = {0, 0};
	struct corral_config cfg;
	corral_config_init(&cfg);
	cfg.argv = (const char *const *)argv + 1;
	cfg.on_event = on_event;
	cfg.on_event_arg = &n;

	struct corral *c;
	char err[256];
	if (corral_new(&cfg, &c, err, sizeof(err)) < 0) {
		fprintf(stderr, "watch_exec: %s\n", err);
		return CORRAL_EXIT_INTERNAL;
	}
	int r = corral_spawn(c);
	if (r == 0)
		r = corral_wait(c);
	struct corral_result res;
	corral_result_init(&res);
	corral_get_result(c, &res);
	corral_free(c);
	if (r < 0) {
		fprintf(stderr, "watch_exec: supervision failed (%d)\n", r);
		return CORRAL_EXIT_INTERNAL;
	}
	fprintf(stderr, "watch_exec: %lu execs, %lu forks, exit %d\n", n.execs,
		n.forks, res.exit_code);
	return res.exit_code;
}
