/*
 * internal.h - the supervisor object, shared by the files of tracer/ (what
 * each file does: docs/design.md, "Files"). The loop's own pieces:
 *
 *   supervisor.c  lifecycle, the loop (sleep, signals, deadlines), results
 *   waiter.c      a bounded batch of wait statuses, nothing acted on
 *   engine.c      one wait status in, table and journal updated, task resumed
 *   ending.c      the phase and the hold: grace, stop-all, kill-all
 *   snapshot.c    the live tree as one event, coalesced on demand
 *
 * The split follows strace's: the loop that gets statuses from the kernel
 * knows nothing of what an event means, and the engine never blocks.
 */
#ifndef CORRAL_INTERNAL_H
#define CORRAL_INTERNAL_H

#include <linux/filter.h>
#include <poll.h>
#include <signal.h>
#include <termios.h>
#include <stdbool.h>

#include "corral.h"
#include "json.h"
#include "landlock.h"
#include "procfs.h"
#include "sys.h"
#include "table.h"

struct corral_unwinder;
struct journal;

/*
 * Where the run is, in order; written only by ending.c. Holding the tree
 * (stop-all) is not a phase: see c->holding.
 */
enum phase {
	PH_RUN,	  /* supervising */
	PH_GRACE, /* the end is decided: SIGTERM sent, waiting for the grace */
	PH_KILLING, /* kill-all sent, consuming events until ECHILD */
	PH_DONE,    /* the kernel confirmed no tracee is left */
};

struct waited {
	pid_t pid;
	int status;
	struct rusage ru; /* wait4's, for an exit */
	bool has_ru;	  /* ru was asked for (wait_rusage()) */
};

/*
 * Whether to ask wait4() for the resource use of a status from task t
 * (NULL: not known yet, waitpid(-1)). The kernel computes it for every
 * status reported, stops included, by walking every live thread of the
 * task's group (thread_group_cputime): with thousands of threads that
 * made each status O(threads) and a burst quadratic. So it is asked for
 * only where it is cheap: while the tree has fewer than RUSAGE_THREADS
 * live threads, or by tid for a process (not a thread) with few threads.
 * An exit line without it has no cpu_user/cpu_sys/max_rss.
 */
#define RUSAGE_THREADS 64
static inline bool wait_rusage(const struct table *tab, const struct task *t)
{
	if (t)
		return !(t->flags & TF_THREAD) && t->nthreads < RUSAGE_THREADS;
	return tab->live - tab->live_procs < RUSAGE_THREADS;
}

struct corral {
	struct corral_config cfg;
	const struct corral_sys *sys;
	struct table tab;

	/* Journal (journal.c), NULL without one. */
	struct journal *journal;

	double t0;	   /* CLOCK_MONOTONIC at start */
	char *exe;	   /* resolved command (or bwrap) path */
	char **spawn_argv; /* what the first process execs */
	pid_t self, root;
	int errpipe; /* reads the child's exec errno */
	int sigfd;   /* signalfd for the signals we handle */
	sigset_t oldmask;
	sigset_t sigset; /* the signals we block and read from sigfd */
	bool mask_set;
	pid_t parent; /* our parent when we started */
	bool sigpipe_was_ignored;
	int spawn_stage; /* what failed in the child: 0 exec, 1 filter */
	struct sock_fprog filter;
	struct corral_unwinder *unw; /* created at the first stack */
	bool sandboxed;
	bool want_argv;	     /* someone reads exec argv (journal, callback) */
	bool command_execed; /* the command (not bwrap's setup) has exec'd */
	int policy_fd;	     /* sandbox seccomp policy, for bwrap */
	int ttyfd;	     /* our controlling terminal, -1 if none */
	bool cmd_own_group;  /* the command gets a new process group */
	pid_t root_pgid;     /* the group the command started in */
	bool tty_given;	     /* we gave it the terminal's foreground */
	/* --pty */
	int ptm;	      /* master side, -1 without --pty */
	char pts[64];	      /* slave side's path */
	bool stdin_open;      /* still relaying our stdin */
	struct pty_io *ptyio; /* the relay's queues and descriptors (pty.c) */
	bool tio_saved;
	struct termios saved_tio;

	enum phase phase;
	bool holding; /* stop-all (or kill-all): keep every stop held */
	double grace_start, grace_deadline; /* PH_GRACE */
	double grace_len;
	bool ending_started; /* stacks taken, SIGTERM sent */
	double deadline;     /* --timeout, 0 = none */
	bool root_exited;
	bool finished;	  /* the end event has been emitted */
	bool saw_echild;  /* the last drain ended on ECHILD */
	bool drained;	  /* a drain emptied the kernel's queue: sleep first */
	bool queue_empty; /* the last collect ended on 0 or ECHILD */
	bool root_execed;
	size_t orphans; /* tasks seen stopped before their creator's event */
	size_t vfork_waiting; /* live tasks flagged TF_VFORK_WAIT */
	size_t unstoppable;   /* tasks ever flagged TF_UNSTOPPABLE (a hint) */

	/* Snapshots on demand (SIGUSR1), coalesced (snapshot.c). */
	double snap_last; /* when the last one was taken, -1 never */
	bool snap_wanted; /* asked for, due at snap_last + SNAP_INTERVAL */
	bool snap_stacks;

	unsigned pending_sigs; /* bit per signal received, not yet acted on */
	pid_t pending_from[32];
	unsigned pending_member; /* bit per signal a member sent (when read) */
	double sigread_t;	 /* when the signalfd was last read */

	struct waited *batch; /* batch0, or a larger malloc'd array */
	size_t batch_cap;
	/* The resource use of the status being handled (an exit), or NULL. */
	const struct rusage *wait_ru;
	struct waited batch0[64];
	size_t sweep_bucket; /* where the waiter's next sweep starts */
	double sweep_cost;   /* seconds per waitpid(tid), as measured */

	struct corral_result res;
	char errmsg[256];

	/* Callbacks (corral.h): depth of on_event calls in progress, and an
	 * end asked for from one, carried out when the loop gets back. */
	unsigned in_callback;
	enum corral_reason end_request;
	struct corral_pollfd *pollfd; /* corral_fd(), pollfd.c; NULL */

	struct live *live; /* live.c: SIGUSR1 print, `corral ps` socket */
	int jc_stop;	   /* groups.c: terminal stop of the command's group
			      to pass on to our own job (0: none) */
	struct landlock_plan
		boundary;	/* the tree's Landlock domain (spawn.c) */
	struct sandbox_run *sb; /* --sandbox state (sandbox_run.c) */
	bool tree_counted; /* spawn.c: counted among the process's running trees */
};

double run_time(const struct corral *c);

/* groups.c: keep the command out of corral's process group. */
int groups_prepare(struct corral *c);
void groups_parent(struct corral *c); /* in corral, right after fork */
void groups_child(struct corral *c);  /* in the child, before exec */
void groups_restore(struct corral *c);

/*
 * groups.c: job control. A member of the command's group entered a
 * terminal stop (^Z, SIGTTIN/SIGTTOU): corral's own job must stop too so
 * that the shell sees it; on SIGCONT the command's group is continued.
 */
void groups_member_stopped(struct corral *c, struct task *t, int sig);
void groups_step(struct corral *c); /* between batches */
void groups_sigcont(struct corral *c);

/* live.c: the tree as text, SIGUSR1 to stderr, the `corral ps` socket. */
int live_open(struct corral *c);
void live_close(struct corral *c);
int live_pollfds(struct corral *c, struct pollfd *p); /* at most 5 */
void live_io(struct corral *c, const struct pollfd *p);
void live_request_print(struct corral *c);
void live_step(struct corral *c); /* between batches */

/* pty.c: --pty */
int pty_prepare(struct corral *c, char *err, size_t errlen);
int pty_child(struct corral *c);
void pty_parent(struct corral *c);
int pty_pollfds(struct corral *c, struct pollfd *p);
void pty_relay(struct corral *c, const struct pollfd *p, int n);
void pty_winch(struct corral *c);
void pty_finish(struct corral *c);

/* sandbox_run.c: --sandbox, what to spawn instead of the command. */
int sandbox_prepare(struct corral *c, char *err, size_t errlen);
/* In the first process before exec: become the sandbox's host user. */
int sandbox_spawn_child(struct corral *c);
/* bwrap gave up before the command ran: find out why (runs the probe). */
void sandbox_explain(struct corral *c);
const char *sandbox_error(const struct corral *c); /* NULL if none */
struct sbuf;
void sandbox_journal_start(const struct corral *c, struct sbuf *b);
void sandbox_journal_end(const struct corral *c, struct sbuf *b);
void sandbox_run_free(struct corral *c);

/* spawn.c: after the first process ended without exec, why. */
void spawn_read_error(struct corral *c);
void spawn_tree_done(struct corral *c); /* finish() or corral_free() */

/* engine.c */
void engine_handle(struct corral *c, pid_t pid, int status);
/* Resume a task from a ptrace-stop, or keep it held while holding. */
void engine_resume(struct corral *c, struct task *t, int sig);
/* A PTRACE_EVENT_SECCOMP stop (containment.c). */
void engine_seccomp(struct corral *c, struct task *t);
/* Add the first process (already seized, blocked before exec). */
struct task *engine_add_root(struct corral *c, pid_t pid);

/* ending.c */
void ending_begin(struct corral *c, enum corral_reason why, int sig);
void ending_tick(struct corral *c); /* grace expired? */
void ending_done(struct corral *c); /* no tracee left: PH_DONE */
/*
 * Take one batch of wait statuses (every task that has something to
 * report, each once: fair under storms) and handle them. Blocks for the
 * first when block. Returns how many, or -ECHILD when no tracee is left.
 */
int drain(struct corral *c, bool block);
/*
 * waiter.c: collect a bounded batch of statuses into c->batch (no
 * dispatch). Returns how many, or -ECHILD; sets c->queue_empty when the
 * kernel had nothing more (only then may the loop sleep).
 */
int waiter_collect(struct corral *c, bool block);
/* Sleep until the kernel may have news (SIGCHLD) or timeout seconds. */
void wait_kernel(struct corral *c, double timeout);

/* journal.c */
int journal_open(struct corral *c, char *err, size_t errlen);
void journal_event(struct corral *c, const struct corral_event *ev);
void journal_close(struct corral *c);
/* The loop: wake up to write a queued line (0 or 1 pollfd); write it. */
int journal_pollfd(struct corral *c, struct pollfd *p);
void journal_flush(struct corral *c);
/* journal_strict and a line was lost since the last call: true once. */
bool journal_take_loss(struct corral *c);

/* stacks.c */
void stacks_one(struct corral *c, struct task *t, const char *why);
/* Unwind a held task into frames; never fails (0 frames and *err). */
int stacks_unwind(struct corral *c, struct task *t, struct corral_frame *frames,
		  int max, const char **err);
void stacks_all(struct corral *c, const char *why);
/* Stacks for the reason the tree is being ended, if --stacks asks. */
bool stacks_wanted(const struct corral *c);
void stacks_at_ending(struct corral *c);
bool stacks_is_crash(int sig);

/* snapshot.c: a snapshot asked for by a signal, at most one per interval:
 * a flood of requests is coalesced into one. */
void snapshot_request(struct corral *c, bool with_stacks);
/* When the coalesced snapshot is due (run_time() time), -1: none. */
double snapshot_due(const struct corral *c);
/* Take it if it is due. */
void snapshot_tick(struct corral *c);

/* corral_spawn() failed after the start line: the end line says so. */
void end_failed(struct corral *c);

/* Emit an event to the journal and the callback. */
void emit(struct corral *c, struct corral_event *ev);

#endif
