/*
 * sys.h - the kernel calls the engine makes, behind a table of function
 * pointers so that unit tests can script the awkward orders the kernel
 * produces (a child's first stop before its parent's fork event, ESRCH in
 * the middle of a call, events after SIGKILL...) without real processes.
 *
 * Every function returns >= 0 on success or a negative errno; none of them
 * touches the global errno contract of its caller.
 */
#ifndef CORRAL_SYS_H
#define CORRAL_SYS_H

#include <poll.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <stdint.h>
#include <sys/types.h>

#include "procfs.h"

struct corral_frame;	/* corral.h */
struct corral_walker; /* walker.h */
struct walk_out;       /* walker.h */

struct corral_sys {
	/* ptrace(2): returns the call's result (>= 0) or -errno. */
	long (*ptrace)(void *ctx, int req, pid_t pid, void *addr, void *data);
	/*
	 * wait4(2): the pid, 0 (WNOHANG, nothing), or -errno; ru (may be
	 * NULL) gets the resource use of a task that ended.
	 */
	pid_t (*waitpid)(void *ctx, pid_t pid, int *status, int options,
			 struct rusage *ru);
	/* kill(2) and tgkill(2). */
	int (*kill)(void *ctx, pid_t pid, int sig);
	int (*tgkill)(void *ctx, pid_t tgid, pid_t tid, int sig);
	/*
	 * The /proc reads made at an event (procfs.c): part of this layer
	 * because what they return depends on the same kernel state the
	 * scripted tests invent.
	 */
	bool (*is_thread_of)(void *ctx, pid_t tgid, pid_t tid);
	/*
	 * The flags of the clone() a task stopped at PTRACE_EVENT_CLONE is
	 * in, read from its registers (one PTRACE_GETREGS instead of a /proc
	 * path lookup per new task); -ENOSYS where this is not known (another
	 * architecture, not clone()): ask is_thread_of() then.
	 */
	long (*clone_flags)(void *ctx, pid_t creator);
	int (*ids)(void *ctx, pid_t tid, pid_t *tgid, pid_t *ppid,
		   pid_t *nspid);
	char *(*exe)(void *ctx, pid_t tid);
	/*
	 * Make /proc/tid and its exe entry now, so that exe() at the task's
	 * exec finds them made: a /proc/PID entry is built at its first
	 * lookup, about half of what a first readlink of /proc/PID/exe costs
	 * (docs/bench.md, "The journal"). Called while corral would be idle.
	 */
	void (*warm)(void *ctx, pid_t tid);
	int (*argv)(void *ctx, pid_t tid, char **block, char ***argv);
	/*
	 * CLOCK_MONOTONIC in seconds: every deadline (timeout, grace, stop
	 * budget, a batch's bound) is read from here, so that scripted tests
	 * can make time pass exactly when they mean it to.
	 */
	double (*now)(void *ctx);
	/*
	 * The loop's sleep: ppoll(2) on the signalfd (and --pty's fds) for
	 * at most timeout seconds (< 0: no limit); then the signals read
	 * from the signalfd. Here so that scripted tests decide when the
	 * kernel has news and which signals corral gets.
	 */
	int (*poll)(void *ctx, struct pollfd *p, unsigned n, double timeout);
	ssize_t (*read_signals)(void *ctx, int fd, struct signalfd_siginfo *si,
				size_t max);
	void *ctx;
	/*
	 * argv() for a task stopped at PTRACE_EVENT_EXEC, read from the new
	 * image's stack (nothing of it has run yet), without /proc's open and
	 * path walk; -errno where that way does not apply (a 32-bit tracee,
	 * a tracee corral may not read): the caller asks argv() then.
	 */
	int (*exec_argv)(void *ctx, pid_t tid, char **block, char ***argv);
	/*
	 * The stack of a thread in a ptrace-stop (walker.h, walker_stack):
	 * up to max frames, innermost first, within limit seconds, abandoned
	 * when a signal of stop is pending; their count or -errno, and out
	 * says why the walk stopped early or was cut short. *w is the walk
	 * session (NULL until its first stack, made here); unwind_end() ends
	 * it. Here so that scripted tests can give a stack to a task that
	 * does not exist.
	 */
	int (*unwind)(void *ctx, struct corral_walker **w, pid_t tgid,
		      pid_t tid, struct corral_frame *frames, int max,
		      double limit, const sigset_t *stop,
		      struct walk_out *out);
	void (*unwind_end)(void *ctx, struct corral_walker **w);
	/*
	 * What the escape audit reads of a member stopped at a seccomp stop,
	 * besides its registers (audit.c): which process its descriptor fd
	 * stands for (a pidfd, or a /proc/<pid> directory; 0 unknown), its
	 * process group (0 unknown), and up to len bytes of its memory at
	 * addr (process_vm_readv(2): the count read, or -errno).
	 */
	pid_t (*fd_target)(void *ctx, pid_t tid, int fd);
	pid_t (*pgid)(void *ctx, pid_t tid);
	ssize_t (*read_mem)(void *ctx, pid_t tid, uint64_t addr, void *buf,
			    size_t len);
	/*
	 * corral's own parent (getppid(2)): the parent-death signal
	 * (SIGUSR2) is obeyed only when it changed, so that scripted tests
	 * can make the parent die.
	 */
	pid_t (*parent)(void *ctx);
	/*
	 * What a snapshot says of a member (snapshot.c): its working
	 * directory (malloc'd, NULL unknown) and each open descriptor with
	 * what it points to (procfs.h, procfs_fds), so that scripted tests
	 * give a snapshot a tree that does not exist.
	 */
	char *(*cwd)(void *ctx, pid_t tid);
	int (*fds)(void *ctx, pid_t tid,
		   void (*fn)(const char *fd, const char *target, size_t len,
			      void *arg),
		   void *arg);
	/*
	 * Kill-all's last resort for members that cannot die (fuse.h): the
	 * FUSE connections whose device tid's file table holds (their count
	 * or -errno), and the abort of one (0 or -errno).
	 */
	int (*fuse_conns)(void *ctx, pid_t tid, unsigned *conns, int max);
	int (*fuse_abort)(void *ctx, unsigned conn);
	/*
	 * A task still there when the run ends: its state letter (R, S, D,
	 * Z...; 0 unknown) and, in wchan (len bytes), where it waits in the
	 * kernel ("" unknown).
	 */
	char (*task_state)(void *ctx, pid_t tid, char *wchan, size_t len);
	/*
	 * The emulated ptrace (eptrace.c): write len bytes into a member's
	 * memory at addr (its answers: a wait status, registers), the count
	 * or -errno; what the kernel's ptrace access check looks at of a
	 * task (procfs.h); Yama's ptrace_scope (0 without Yama).
	 */
	ssize_t (*write_mem)(void *ctx, pid_t tid, uint64_t addr,
			     const void *buf, size_t len);
	int (*creds)(void *ctx, pid_t tid, struct procfs_creds *out);
	int (*yama_scope)(void *ctx);
};

extern const struct corral_sys sys_real;

static inline long sys_ptrace(const struct corral_sys *s, int req, pid_t pid,
			      void *addr, void *data)
{
	return s->ptrace(s->ctx, req, pid, addr, data);
}

#endif
