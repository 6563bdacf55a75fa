/*
 * poll_loop.c - drive the supervisor from your own poll() loop.
 *
 *	poll_loop COMMAND [ARG...]
 *
 * The loop waits on two things: corral_fd() (the supervisor has work) and
 * its own stdin, a control channel: a line "stop" ends the command's
 * whole tree (corral_request_end), a line "ps" lists its live processes.
 * At EOF on stdin the command just runs to its end. A runner would put
 * its sockets, timers and other jobs next to corral_fd() the same way.
 *
 * corral_fd() is readable when corral_step() has something to do (the
 * kernel has news, a deadline is due); corral_step(c, 0) never blocks.
 *
 * Build: cc poll_loop.c $(pkg-config --cflags --libs corral) -o poll_loop
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <corral.h>

static void print_proc(const struct corral_proc_info *p, void *arg)
{
	(void)arg;
	if (p->ended < 0)
		printf("ps: %d %s\n", p->pid,
		       p->argv && p->argv[0] ? p->argv[0] : "?");
}

/* One line of the control channel; false at EOF. */
static bool control(struct corral *c)
{
	char line[128];
	ssize_t n = read(STDIN_FILENO, line, sizeof(line) - 1);
	if (n < 0 && errno == EINTR)
		return true;
	if (n <= 0)
		return false;
	line[n] = '\0';
	if (strncmp(line, "stop", 4) == 0) {
		printf("poll_loop: stop requested\n");
		corral_request_end(c, CORRAL_REASON_REQUEST);
	} else if (strncmp(line, "ps", 2) == 0) {
		corral_foreach_proc(c, print_proc, NULL);
	}
	fflush(stdout);
	return true;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: poll_loop COMMAND [ARG...]\n");
		return CORRAL_EXIT_INTERNAL;
	}
	struct corral_config cfg;
	corral_config_init(&cfg);
	cfg.argv = (const char *const *)argv + 1;
	cfg.history = true; /* argv for "ps" without a journal */

	struct corral *c;
	char err[256];
	if (corral_new(&cfg, &c, err, sizeof(err)) < 0) {
		fprintf(stderr, "poll_loop: %s\n", err);
		return CORRAL_EXIT_INTERNAL;
	}
	int r = corral_spawn(c);
	int fd = r == 0 ? corral_fd(c) : r;
	if (fd < 0) {
		fprintf(stderr, "poll_loop: %s\n", strerror(-fd));
		corral_free(c);
		return CORRAL_EXIT_INTERNAL;
	}
	unsigned long wakeups = 0;
	bool stdin_open = true;
	do {
		struct pollfd p[2] = {{.fd = fd, .events = POLLIN},
				      {.fd = STDIN_FILENO, .events = POLLIN}};
		if (poll(p, stdin_open ? 2 : 1, -1) < 0 && errno != EINTR)
			break;
		wakeups++;
		if (stdin_open && (p[1].revents & (POLLIN | POLLHUP)))
			stdin_open = control(c);
		r = corral_step(c, 0); /* does not block */
	} while (r > 0);

	struct corral_result res;
	corral_result_init(&res);
	corral_get_result(c, &res);
	corral_free(c);
	if (r < 0) {
		fprintf(stderr, "poll_loop: %s\n", strerror(-r));
		return CORRAL_EXIT_INTERNAL;
	}
	fprintf(stderr, "poll_loop: exit=%d reason=%s wakeups=%lu\n",
		res.exit_code, corral_reason_name(res.reason), wakeups);
	return res.exit_code;
}
