/*
 * floor - the cheapest ptrace supervisor that still sees every new task.
 *
 *   floor COMMAND [ARG...]
 *
 * It is the floor corral's overhead is measured against: the same kernel
 * mechanism (PTRACE_SEIZE with fork/vfork/clone/exec events, auto-attach of
 * every child) and nothing else: no tree, no journal, no bookkeeping, one
 * PTRACE_CONT per stop. Whatever corral costs above this is corral's own.
 *
 * Exits with COMMAND's status (128+N if it was killed by signal N).
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>

#include "bench.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: floor COMMAND [ARG...]\n");
		return 2;
	}

	/*
	 * The child waits on a pipe until it is seized, so the command cannot
	 * run a single instruction (or fork) before we trace it.
	 */
	int go[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		die("pipe");
	pid_t child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		char c;
		close(go[1]);
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		execvp(argv[1], argv + 1);
		fprintf(stderr, "floor: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	close(go[0]);

	/*
	 * EXITKILL: if floor dies, the kernel kills every tracee; a benchmark
	 * must never leave a tree behind.
	 */
	long opts = PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
		    PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
		    PTRACE_O_EXITKILL;
	if (ptrace(PTRACE_SEIZE, child, 0, opts) < 0)
		die("PTRACE_SEIZE");
	close(go[1]); /* releases the child: read() returns 0 */

	int root_status = 0;
	for (;;) {
		int st;
		pid_t pid = waitpid(-1, &st, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				break; /* every tracee is gone */
			die("waitpid");
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (pid == child)
				root_status = st;
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;

		int sig = WSTOPSIG(st);
		int event = (unsigned)st >> 16;
		long req = PTRACE_CONT;
		long inject = 0;
		if (event == PTRACE_EVENT_STOP) {
			/*
			 * Seized tasks report both their first stop after
			 * auto-attach and group-stops as EVENT_STOP. The first
			 * carries SIGTRAP; a group-stop carries the stopping
			 * signal and must be LISTENed to, not continued, or
			 * SIGSTOP would be silently undone.
			 */
			if (sig == SIGSTOP || sig == SIGTSTP ||
			    sig == SIGTTIN || sig == SIGTTOU)
				req = PTRACE_LISTEN;
		} else if (event == 0) {
			/* Signal-delivery-stop: deliver it unchanged. */
			inject = sig;
		}
		/* fork/vfork/clone/exec events: just continue. */

		/* ESRCH: the tracee was killed meanwhile; nothing to do. */
		ptrace(req, pid, 0, inject);
	}

	if (WIFSIGNALED(root_status))
		return 128 + WTERMSIG(root_status);
	return WEXITSTATUS(root_status);
}
