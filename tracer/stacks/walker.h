/*
 * walker.h - stack walks made off the tracing thread, by a process corral
 * can kill.
 *
 * A walk runs libunwind on the member's own unwind tables and files, which
 * the member controls: a looping DWARF expression, a FIFO in place of its
 * file, a FUSE file that never answers. Made on the tracing thread, any of
 * them would stop supervision for ever (issue 22). So the tracer takes the
 * registers (it alone may: PTRACE_GETREGSET) and opens /proc/TGID/mem, and
 * a forked walker process does the walk with them; the tracer waits for
 * the answer with a deadline and SIGKILLs the walker when it is late. See
 * docs/stacks.md, "Bounds".
 *
 * A session is a series of walks with one walker process (a round of
 * stacks, or the one stack of a crash): walker_end() ends it, and the
 * process with it, so that no child of corral outlives the walks (the loop
 * ends when waitpid(-1) finds no child).
 */
#ifndef CORRAL_WALKER_H
#define CORRAL_WALKER_H

#include <signal.h>
#include <sys/types.h>

#include "corral.h"

struct corral_walker;

struct walk_out {
	const char *why; /* as unwinder_stack's *why, or NULL */
	/*
	 * NULL, or why corral's bounds cut the walk short:
	 * "deadline"	the walk took longer than its limit (the walker
	 *		stopped itself, or was killed: frame 0 only);
	 * "budget"	too many reads of the member's memory;
	 * "frames"	the frame cap was reached;
	 * "signal"	a signal in `stop` arrived: corral has to act on it;
	 * "walker"	the walking process died (a crash in the unwinder).
	 */
	const char *cut;
};

/*
 * The stack of thread tid of process tgid, which the calling thread holds
 * in a ptrace-stop: up to max frames, within `limit` seconds from now.
 * While waiting, a pending signal of `stop` (NULL: none) abandons the walk.
 * *w is the session's walker (NULL at first: made here). Returns the frame
 * count (>= 0; out->cut set when it was cut short) or -errno: -ESRCH (not a
 * stopped tracee of ours, not a thread of tgid, or gone), -EINVAL, -ENOMEM,
 * or a fork/socket error. Strings in frames and out stay valid until the
 * next call or walker_end().
 */
int walker_stack(struct corral_walker **w, pid_t tgid, pid_t tid,
		 struct corral_frame *frames, int max, double limit,
		 const sigset_t *stop, struct walk_out *out);

/* End the session: the walker exits (or is killed) and is reaped. */
void walker_end(struct corral_walker **w);

/* For tests and benchmarks, since the process started: walker processes
 * started, killed, and killed but not reaped (a task that does not die
 * even of SIGKILL; left to the loop's waitpid). */
struct walker_stats {
	unsigned long started, killed, lost;
};
void walker_get_stats(struct walker_stats *st);

#endif
