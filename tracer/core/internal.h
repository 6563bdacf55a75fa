/*
 * internal.h - the supervisor object, shared by the files of tracer/, and
 * what each of them offers the others, declared layer by layer from the
 * bottom up. What each file does and the picture of the layers:
 * docs/design.md ("Files", "Layers").
 *
 * The split follows strace's and sandbox2's: the waiter that gets statuses
 * from the kernel knows nothing of what an event means, the engine never
 * blocks, the phase has one owner (phase.c), and the loop at the top is
 * the only caller of the ending's steps between batches.
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

struct corral_walker;
struct journal;

/*
 * Where the run is, in order; written only by phase.c. Holding the tree
 * (stop-all) is not a phase: see c->phase.holding.
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
	struct rusage ru;  /* wait4's, for an exit */
	bool has_ru;	   /* ru was asked for (waiter.c, want_rusage()) */
	struct task *task; /* its record when taken (waiter.c only) */
};

/*
 * The emulated ptrace (eptrace.c): a member that calls ptrace() on another
 * member gets a tracer relationship served by corral, the only real
 * tracer, from the stops it holds. One record per task that takes part,
 * as a tracee (tracer != 0) or as a tracer parked in a wait, or both.
 * phase.c reads it to keep such a task held (task_resume).
 */
enum ept_kind {
	EK_NONE,
	EK_ATTACH,  /* PTRACE_ATTACH's stop: reported as stopped by SIGSTOP */
	EK_EVENT,   /* PTRACE_INTERRUPT (seized): a PTRACE_EVENT_STOP */
	EK_SIGNAL,  /* a signal-delivery-stop: the tracer decides the signal */
	EK_PTEVENT, /* a fork, vfork, clone or exec event stop (event, msg) */
	EK_SYSCALL, /* a syscall-entry or -exit stop (PTRACE_SYSCALL) */
};

/* An emulated tracee's end its tracer has not collected yet. */
struct ept_zombie {
	struct ept_zombie *next;
	pid_t tracer_tgid;
	pid_t vpid; /* as the tracer names it */
	int status; /* its wait status */
	bool real;  /* the tracer's own child: its real wait collects it */
};

struct ept {
	struct ept *next, *prev; /* c->eptrace.list */
	struct task *task;
	/* As a tracee: its emulated tracer (a thread), 0 if none. */
	pid_t tracer, tracer_tgid;
	pid_t vpid; /* its tid as the tracer names it (pid namespace) */
	unsigned long options;
	bool seized;
	/* Its tracer held CAP_SYS_PTRACE over it when it attached (the
	 * kernel's ptracer_cred): what lets a tracer keep a tracee whose
	 * exec gains privilege and read memory that is not dumpable. */
	bool capable;
	uint8_t want;	    /* a stop asked for and not reached (ept_kind) */
	int want_sig;	    /* its sig */
	bool stopped;	    /* held in an emulated stop */
	uint8_t kind;	    /* which (ept_kind) */
	int sig;	    /* EK_SIGNAL: the signal; EK_EVENT: its signal,
			       0 for SIGTRAP */
	int event;	    /* EK_PTEVENT: PTRACE_EVENT_* */
	unsigned long msg;  /* what PTRACE_GETEVENTMSG answers */
	bool untraced;	    /* its clone asked for CLONE_UNTRACED: the child
			       gets no emulated tracer */
	bool syscall_trace; /* resumed by PTRACE_SYSCALL: corral resumes it
			       with the real one and reports the stops */
	bool step;	    /* resumed by PTRACE_SINGLESTEP: corral resumes it
			       so until its next emulated stop */
	bool pending;	    /* a stop its tracer has not waited for */
	bool arrived;	    /* phase.c held it: eptrace_deliver() reports it */
	bool interrupting;  /* a real PTRACE_INTERRUPT not landed yet */
	bool pass; /* the emulation's own resume: task_resume lets it go */
	/* As a tracer: parked in a wait (held at that wait's seccomp stop). */
	bool parked;
	bool waitid;
	pid_t wpid; /* -1 any, or the tid it waits for (its names) */
	int wopts;
	uint64_t wstatus, wru; /* wait4: where the status and rusage go */
	/* Its last trapped wait was let run (nothing emulated to wait
	 * for): it may sleep in the kernel, deaf to a child that makes
	 * itself an emulated tracee (PTRACE_TRACEME kicks it). */
	bool in_wait;
	/* Installing its process's wait trap (eptrace.c): the registers of
	 * the ptrace() call that runs again once it is in place. */
	void *inj;
};

/*
 * The parts of the supervisor object. Each part is written by one file and
 * named after it (c->phase is phase.c's, c->eptrace is eptrace.c's...):
 * struct corral holds it const, so that a write from any other file does
 * not compile, and its owner takes it writable with OWN(c, phase). `make
 * check-layers` fails when OWN() names a part in a file other than its
 * owner. What each part says and who reads it: docs/design.md, "Who
 * writes what". The others read a part as it is (it is const to them) or
 * through the owner's functions.
 *
 * One writer per field is what lets a reader of, say, the phase know
 * every place that changes it without a search: the grace, the ending and
 * the hold are decided in phase.c; the result is decided in result.c.
 */
#define OWN(c, part) ((struct part##_part *)&(c)->part)

/* phase.c's: where the run is, and whether stops are kept. */
struct phase_part {
	enum phase now;
	bool holding; /* stop-all (or kill-all): keep every stop held */
	double grace_start, grace_deadline; /* PH_GRACE */
	double grace_len;
	bool ending_started; /* stacks taken, SIGTERM sent */
	/* Stops held for an emulated tracer by task_resume(), counted (only
	 * grows): eptrace_deliver() tells the tracers when it has not seen
	 * them all (eptrace_news()). */
	unsigned long ept_held;
};

/* eptrace.c's: the emulated ptrace's records. */
struct eptrace_part {
	struct ept *list;
	/* Emulated tracees that ended while their tracer was not waiting:
	 * reported by its next wait. */
	struct ept_zombie *zombies;
	unsigned nzombies; /* how many: at most EPT_ZOMBIES_MAX (eptrace.c) */
	bool news; /* a stop was held for an emulated tracer, here */
	unsigned long held_seen;   /* phase.ept_held at the last delivery */
	unsigned long long warned; /* requests journaled as unsupported */
};

/* snapshot.c's: snapshots on demand (SIGUSR1), coalesced. */
struct snapshot_part {
	double last; /* when the last one was taken, -1 never */
	bool wanted; /* asked for, due at last + SNAP_INTERVAL */
	bool stacks;
};

/* groups.c's: the command's process group and corral's terminal. */
struct groups_part {
	int ttyfd;	    /* our controlling terminal, -1 if none */
	bool cmd_own_group; /* the command gets a new process group */
	pid_t root_pgid;    /* the group the command started in */
	bool tty_given;	    /* we gave it the terminal's foreground */
	int jc_stop; /* terminal stop of the command's group to pass on to
			our own job (0: none) */
};

/* pty.c's: --pty. */
struct pty_part {
	int ptm;	   /* master side, -1 without --pty */
	char pts[64];	   /* slave side's path */
	bool stdin_open;   /* still relaying our stdin */
	struct pty_io *io; /* the relay's queues and descriptors */
	bool tio_saved;
	struct termios saved_tio;
};

/* waiter.c's: the batch of statuses, the sweep, the signals read. */
struct waiter_part {
	struct waited *batch; /* batch0, or a larger malloc'd array */
	size_t batch_cap;
	struct waited batch0[64];
	size_t sweep_bucket;   /* where the next sweep starts */
	double sweep_cost;     /* seconds per waitpid(tid), as measured */
	bool queue_empty;      /* the last collect ended on 0 or ECHILD */
	bool saw_echild;       /* the last drain ended on ECHILD */
	unsigned pending_sigs; /* bit per signal received, not yet acted on */
	pid_t pending_from[32];
	unsigned pending_member; /* bit per signal a member sent (when read) */
	double sigread_t;	 /* when the signalfd was last read */
	bool sigs_unread;	 /* the sleep found it readable */
};

/*
 * result.c's: what the run came to. Every file that sees part of it tells
 * result.c (the functions under "result.c" below); only result.c writes
 * it, and only result.c turns it into the exit status.
 */
struct result_part {
	struct corral_result res;
	int spawn_stage;  /* what failed in the child: 0 exec, 1 filter */
	char errmsg[256]; /* corral_error(): why nothing was started */
};

/* lifecycle.c's: the object's identity and the signals it blocks. */
struct lifecycle_part {
	double t0; /* CLOCK_MONOTONIC at start */
	pid_t self;
	pid_t parent; /* our parent when we started */
	int sigfd;    /* signalfd for the signals we handle */
	sigset_t oldmask;
	sigset_t sigset; /* the signals we block and read from sigfd */
	bool mask_set;
	bool sigpipe_was_ignored;
	sigset_t stop_walks; /* signals that cut a stack walk short */
	bool want_argv;	     /* someone reads exec argv (journal, callback) */
	bool want_rusage;    /* someone reads an exit's rusage (journal...) */
};

/* spawn.c's: what the first process execs, how, and the tree's life. */
struct spawn_part {
	char *exe;	/* resolved command (or bwrap) path */
	char **argv;	/* what the first process execs */
	bool sandboxed; /* argv is bwrap's, the command at its end */
	int policy_fd;	/* sandbox seccomp policy, for bwrap */
	struct sock_fprog filter;
	struct landlock_plan boundary; /* the tree's Landlock domain */
	pid_t root;
	int errpipe;	   /* reads the child's exec errno */
	bool tree_counted; /* counted among the process's running trees */
	double deadline;   /* --timeout, 0 = none */
	bool finished;	   /* the end event has been emitted */
};

/* engine.c's: what the engine keeps between statuses. */
struct engine_part {
	/* Processes born since the loop was last idle, whose /proc entries
	 * engine_idle() makes before their exec reads them. */
	pid_t warm[16];
	unsigned nwarm;
	bool root_exited;
	bool root_execed;
	bool command_execed; /* the command (not bwrap's setup) has exec'd */
	size_t orphans; /* tasks seen stopped before their creator's event */
	size_t vfork_waiting; /* live tasks flagged TF_VFORK_WAIT */
	/* The resource use of the status being handled (an exit), or NULL. */
	const struct rusage *wait_ru;
};

/* loop.c's. */
struct loop_part {
	bool drained; /* a drain emptied the kernel's queue: sleep first */
	/* An end asked for from a callback, carried out when the loop gets
	 * back. */
	enum corral_reason end_request;
};

/* events.c's: depth of on_event calls in progress (corral.h: a callback
 * may not re-enter the loop). */
struct events_part {
	unsigned in_callback;
};

/* plug.c's: the descriptors plugged into the sleep, in order. */
struct plug_part {
	const struct io_plug *list[4];
	unsigned n;
};

/* ending.c's. */
struct ending_part {
	size_t unstoppable; /* tasks ever flagged TF_UNSTOPPABLE (a hint) */
};

struct corral {
	struct corral_config cfg;     /* the caller's, imported */
	const struct corral_sys *sys; /* the kernel seam */
	/*
	 * The process table: the engine's working state, changed by the
	 * files the engine calls (phase.c, eptrace.c, the ending's waits)
	 * through table.c's functions; not a part.
	 */
	struct table tab;

	const struct lifecycle_part lifecycle;
	const struct spawn_part spawn;
	const struct loop_part loop;
	const struct events_part events;
	const struct engine_part engine;
	const struct phase_part phase;
	const struct ending_part ending;
	const struct waiter_part waiter;
	const struct plug_part plug;
	const struct groups_part groups;
	const struct pty_part pty;
	const struct snapshot_part snapshot;
	const struct eptrace_part eptrace;
	const struct result_part result;

	/*
	 * Opaque state of one file each: the type is defined in that file
	 * only, so nothing else can look inside; the pointer is set by its
	 * open and cleared by its close, both in that file.
	 */
	struct journal *journal;      /* journal.c, NULL without one */
	struct live *live;	      /* live_io.c: SIGUSR1, `corral ps` */
	struct cores *cores;	      /* cores.c: --core, NULL without */
	struct sandbox_run *sb;	      /* sandbox_run.c: --sandbox */
	struct corral_pollfd *pollfd; /* pollfd.c: corral_fd(), NULL */
	struct corral_walker *walker; /* stacks.c: a walk session */
};

/*
 * The declarations below go from the bottom of the layers up (the picture:
 * docs/design.md, "Layers"). A file calls only what is declared above its
 * own part, or in a header below internal.h.
 */

/*
 * ---- result.c: what the run came to, and the exit status (the bottom
 * row: every file that counts something tells it, and it calls nothing).
 * The one writer of c->result.
 */
int exit_code(const struct corral *c);
/* The run is over: its exit status, from the result and whether the
 * journal failed under --journal-strict (journal_settle()). */
void result_decide(struct corral *c, bool journal_failed);
/* Nothing was started (a spawn that failed after the start line). */
void result_failed(struct corral *c);
/* Why corral_spawn() refused or failed (corral_error()). */
void result_error(struct corral *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The tree (engine.c): a task announced, a process exec'd, a process left
 * running when the root exited, the root's exit status. */
void result_born(struct corral *c, bool thread);
void result_exec(struct corral *c);
void result_left(struct corral *c);
void result_root_exit(struct corral *c, int status);
void result_escape(struct corral *c); /* seccomp_event.c */
/* The command never ran: exec (stage 0) or the child's setup (stage 1)
 * failed with err (lifecycle.c, spawn.c); the sandbox failed. */
void result_exec_failed(struct corral *c, int err, int stage);
void result_sandbox_failed(struct corral *c);
/* The kernel boundary the tree runs in (lifecycle.c). */
void result_boundary(struct corral *c, int abi, unsigned scopes);
/* The ending (phase.c, ending.c): decided (why, signal, when); how long
 * the grace, the stop-all and the kill-all took; the tasks that never
 * stopped, killed, still dying, surviving; when the run ended (loop.c). */
void result_ending(struct corral *c, enum corral_reason why, int sig, double t);
void result_grace_took(struct corral *c, double t);
void result_stop_took(struct corral *c, double t);
void result_kill_took(struct corral *c, double t); /* added up */
void result_unstopped(struct corral *c, unsigned long n);
void result_killed(struct corral *c);
void result_dying(struct corral *c, unsigned long n);
/* One more survivor; returns how many there were before it. */
unsigned long result_survivor(struct corral *c);
void result_end_at(struct corral *c, double t);
/* Stacks (stacks.c) and cores (cores.c) taken, cut, failed, skipped. */
void result_stack(struct corral *c);
void result_stacks_skipped(struct corral *c, unsigned long n);
void result_cores(struct corral *c, unsigned long written, unsigned long cut,
		  unsigned long failed, unsigned long skipped);
void result_pty_dropped(struct corral *c, unsigned long bytes); /* pty.c */
/* The journal (journal.c): checked before the end line; closed after it. */
void result_journal_checked(struct corral *c, unsigned long lost, int intact);
void result_journal_closed(struct corral *c, unsigned long lines,
			   unsigned long lost, unsigned long errors, int intact,
			   const char *head);

/*
 * ---- plug.c: the descriptors the sleep serves (the pty relay, the live
 * view, a stalled journal reader), each through its table of operations,
 * so that the waiter, corral_fd() and the loop name none of them. Added by
 * supervisor_alloc(); served in the order added.
 */
#define PLUG_FDS 12 /* pty (3), live (5), journal (1), and room */
struct io_plug {
	/* Its descriptors to wait on now, into p; how many. */
	int (*pollfds)(struct corral *c, struct pollfd *p);
	/* The sleep came back: its n descriptors, revents filled. */
	void (*serve)(struct corral *c, const struct pollfd *p, int n);
	/* Seconds until it wants the loop awake though nothing is ready,
	 * -1: no such wish. NULL: never. */
	double (*due)(const struct corral *c);
	/* The run ended: its last I/O, before the end line. NULL: none. */
	void (*finish)(struct corral *c);
	/* The object is freed (a refused corral_new() too): all of it. */
	void (*close)(struct corral *c);
};
void plug_add(struct corral *c, const struct io_plug *p);
/* Every plug's descriptors into p (room for PLUG_FDS), counts[i] plug
 * i's (counts may be NULL); how many in all. */
int plug_pollfds(struct corral *c, struct pollfd *p, int *counts);
/* What came back from a sleep on plug_pollfds()'s descriptors. */
void plug_serve(struct corral *c, const struct pollfd *p, const int *counts);
double plug_due(const struct corral *c); /* the nearest due, -1: none */
void plug_finish(struct corral *c);	 /* the run ended */
void plug_close(struct corral *c);	 /* corral_free() */

/* ---- events.c: the event sink. */
double run_time(const struct corral *c); /* seconds since the start */
/* Emit an event to the journal and the callback. */
void emit(struct corral *c, struct corral_event *ev);
/* The same at the time ev->t the caller took (the end line: its time is
 * taken before the journal's last lines are drained). */
void emit_at(struct corral *c, struct corral_event *ev);
/* An event about task t, who it is filled in (tid, tgid, nspid, setup). */
struct corral_event task_event(enum corral_event_type type,
			       const struct task *t);

/* ---- journal.c (under events.c) */
int journal_open(struct corral *c, char *err, size_t errlen);
void journal_event(struct corral *c, const struct corral_event *ev);
/* Plugged into the sleep: a stalled reader's descriptor (0 or 1), its
 * waiting exit lines' due time; closed with the object. */
extern const struct io_plug journal_plug;
/* journal_strict and a line was lost since the last call: true once. */
bool journal_take_loss(struct corral *c);
/*
 * Before the end line: write what is queued (bounded), read the file back
 * and check it, put what was lost and whether it is intact in the result.
 * Once; the end line does it if nobody did. true: under --journal-strict
 * the journal failed (a line lost, or the file not the one written), which
 * result_decide() makes the run's failure.
 */
bool journal_settle(struct corral *c);

/* ---- sandbox_run.c: --sandbox, what to spawn instead of the command. */
/* What starts instead of the command: bwrap (exe), its argv with the
 * command at the end, the seccomp policy descriptor it reads; policy_fd
 * is set (for the caller to close) even when it fails after opening it. */
struct sandbox_cmd {
	char *exe;
	char **argv;
	int policy_fd;
};
int sandbox_prepare(struct corral *c, struct sandbox_cmd *cmd, char *err,
		    size_t errlen);
/* In the first process before exec: become the sandbox's host user. */
int sandbox_spawn_child(struct corral *c);
/* bwrap gave up before the command ran: find out why (runs the probe). */
void sandbox_explain(struct corral *c);
const char *sandbox_error(const struct corral *c); /* NULL if none */
struct sbuf;
void sandbox_journal_start(const struct corral *c, struct sbuf *b);
void sandbox_journal_end(const struct corral *c, struct sbuf *b);
void sandbox_run_free(struct corral *c);
/* What a sandboxed member can write on the host (workspace, binds): the
 * places journal.c keeps its journal out of. */
struct safe_forbid;
int sandbox_writable(const struct corral_config *cfg, struct safe_forbid **out,
		     size_t *n);
void sandbox_writable_free(struct safe_forbid *f, size_t n);

/* ---- pty.c: --pty */
void pty_init(struct corral *c); /* no pty yet (supervisor_alloc) */
int pty_prepare(struct corral *c, char *err, size_t errlen);
int pty_child(struct corral *c);
void pty_parent(struct corral *c);
void pty_winch(struct corral *c);
/* Plugged into the sleep: the relay's descriptors (at most 3); its last
 * output and the terminal's modes given back when the run ends. */
extern const struct io_plug pty_plug;

/* ---- live_io.c: the live view's socket and writes (I/O only). */
int live_open(struct corral *c);
/* Plugged into the sleep: the socket, its clients, the stderr writer (at
 * most 5 descriptors); closed with the object. */
extern const struct io_plug live_plug;
void live_request_print(struct corral *c);

/* ---- groups.c: keep the command out of corral's process group. */
void groups_init(struct corral *c); /* no terminal yet (supervisor_alloc) */
int groups_prepare(struct corral *c);
/* In corral, right after fork: the group the command (pid) starts in
 * belongs to the tree; without a pty, corral leaves it. */
void groups_parent(struct corral *c, pid_t pid);
void groups_child(struct corral *c); /* in the child, before exec */
void groups_restore(struct corral *c);
/*
 * Job control. A member of the command's group entered a terminal stop
 * (^Z, SIGTTIN/SIGTTOU): corral's own job must stop too so that the shell
 * sees it; on SIGCONT the command's group is continued. groups_step()
 * stops corral between batches; true: it was continued, and the loop must
 * take what the members reported, then call groups_continued().
 */
void groups_member_stopped(struct corral *c, struct task *t, int sig);
bool groups_step(struct corral *c);
void groups_continued(struct corral *c);
void groups_sigcont(struct corral *c);

/* ---- waiter.c: statuses in, nothing acted on; the sleep. */
/*
 * Collect a bounded batch of statuses into c->waiter.batch (no dispatch).
 * Returns how many, or -ECHILD; sets c->waiter.queue_empty when the kernel had
 * nothing more (only then may the loop sleep).
 */
int waiter_collect(struct corral *c, bool block);
/*
 * One known task's status, if it has one (waitpid(tid, WNOHANG)): the
 * stop-all and kill-all sweeps, which must not walk every tracee; tid -1:
 * any task's (the drain's first status). The pid (w filled), 0 (nothing
 * yet) or -errno.
 */
pid_t waiter_take(struct corral *c, pid_t tid, struct waited *w);
/*
 * Sleep until the kernel may have news (SIGCHLD) or timeout seconds,
 * serving what is plugged in meanwhile (plug.c: the pty, the live socket,
 * the journal); a signalfd found readable is noted (c->waiter.sigs_unread)
 * and read by the next drain, after its first status
 * (waiter_read_signals).
 */
void waiter_sleep(struct corral *c, double timeout);
/*
 * What the sleep found in the signalfd, read now (once per wake-up; a
 * no-op if the last sleep did not find it readable): SIGCHLD is dropped,
 * the signals corral acts on are kept for waiter_next_signal().
 */
void waiter_read_signals(struct corral *c);
/* The same when no sleep said whether a signal came: look anyway. */
void waiter_look_for_signals(struct corral *c);
/* A signal read and not acted on yet, taken (its bit cleared): the
 * signal, its sender and whether a member sent it; 0: none left. */
int waiter_next_signal(struct corral *c, pid_t *from, bool *member);
/* A signal to act on that no signalfd carried (the parent's death signal,
 * already missed when corral_spawn() armed it). */
void waiter_note_signal(struct corral *c, int sig);
/* The drain's eager takes found the kernel's queue empty (engine.c). */
void waiter_note_empty(struct corral *c);
void waiter_free(struct corral *c); /* corral_free() */

/* ---- phase.c: the phase and the hold, their one owner. */
/* Decide the end (once; asked again in a grace: the grace is over). */
void phase_begin_ending(struct corral *c, enum corral_reason why, int sig);
void phase_ending_started(struct corral *c); /* stacks taken, SIGTERM sent */
void phase_grace_restart(struct corral *c);  /* the grace starts now */
void phase_hold(struct corral *c);	     /* stop-all: keep every stop */
int phase_release(struct corral *c);	     /* -EBUSY once killing */
void phase_kill(struct corral *c);	     /* kill-all: hold for good */
void phase_done(struct corral *c);	     /* no tracee left: PH_DONE */
/* Resume a task from a ptrace-stop, or keep it held while holding. */
void task_resume(struct corral *c, struct task *t, int sig);
void task_kill(struct corral *c, struct task *t); /* SIGKILL, once */

/* ---- stacks.c */
void stacks_one(struct corral *c, struct task *t, const char *why);
/*
 * Unwind a held task into frames within limit seconds; never fails (0
 * frames and *err). *cut: NULL, or why corral's bounds cut it short
 * (walker.h). The walk session stays open for more: stacks_end() ends it.
 */
int stacks_unwind(struct corral *c, struct task *t, struct corral_frame *frames,
		  int max, double limit, const char **err, const char **cut);
void stacks_end(struct corral *c);
/*
 * A round: every held thread's stack, within the round's budget
 * (cfg.stack_budget) and each walk's limit, given to fn; then the session
 * ends. skips counts the threads not walked: the budget spent, a signal
 * that cut the round, a process whose walk was abandoned (one try each).
 */
typedef void (*stacks_fn)(struct corral *c, struct task *t,
			  const struct corral_frame *frames, int n,
			  const char *err, const char *cut, void *arg);
struct stacks_skips {
	unsigned long budget, signal, abandoned;
};
void stacks_round(struct corral *c, stacks_fn fn, void *arg,
		  struct stacks_skips *skips);
/* What skips says, for a line; *cut the reason word for "truncated". */
void stacks_skips_text(const struct corral *c, const struct stacks_skips *s,
		       char *buf, size_t len, const char **cut);
/* Seconds one thread's walk may take (docs/stacks.md, "Bounds"). */
#define STACK_WALK_LIMIT 1.0
void stacks_all(struct corral *c, const char *why);
/* Stacks for the reason the tree is being ended, if --stacks asks. */
bool stacks_wanted(const struct corral *c);
void stacks_at_ending(struct corral *c);
bool stacks_is_crash(int sig);
/* The CORRAL_STACKS_* moment of a reason the tree is ended, *name its word. */
unsigned stacks_moment(enum corral_reason r, const char **name);

/* ---- cores.c: --core, core files of members (docs/cores.md). */
int cores_open(struct corral *c, char *err, size_t errlen); /* corral_new */
void cores_close(struct corral *c);
/* Cores for the reason the tree is being ended, if --core asks. */
bool cores_wanted(const struct corral *c);
void cores_at_ending(struct corral *c); /* the tree held */
/* A crash's signal-delivery stop: true if t is kept for its core. */
bool cores_crash(struct corral *c, struct task *t, int sig);
/* Crashes kept for their cores? (The loop then stops the tree, calls
 * cores_crashed(), and resumes it: the signals go in then.) */
bool cores_pending(struct corral *c);
void cores_crashed(struct corral *c); /* the tree held */

/* ---- engine.c, and its handler seccomp_event.c */
void engine_handle(struct corral *c, pid_t pid, int status);
/*
 * Take one batch of wait statuses (every task that has something to
 * report, each once: fair under storms) and handle them. Blocks for the
 * first when block. Returns how many, or -ECHILD when no tracee is left.
 */
int engine_drain(struct corral *c, bool block);
/* Statuses of a wake-up handled one by one before its batch (engine.c). */
#define ENGINE_EAGER_MAX 4
/* One status the waiter took (with its resource use, for an exit). */
void engine_handle_waited(struct corral *c, const struct waited *w);
/*
 * The loop took every status the kernel had and resumed what it could:
 * work that no stopped task waits for is done here (engine.c).
 */
void engine_idle(struct corral *c);
/* Add the first process (already seized, blocked before exec). */
struct task *engine_add_root(struct corral *c, pid_t pid);
/* A PTRACE_EVENT_SECCOMP stop (seccomp_event.c). */
void engine_seccomp(struct corral *c, struct task *t);

/* ---- eptrace.c: the emulated ptrace (under engine.c, seccomp_event.c) */
struct audit_call;
/* A member's ptrace() at its seccomp stop: the call's result (the call is
 * skipped, the result in its registers); the caller resumes it. */
long eptrace_ptrace(struct corral *c, struct task *t,
		    const struct audit_call *call);
/* A __WALL wait: true if it was taken over (answered and resumed, or
 * parked); false: let the real wait run. */
bool eptrace_wait(struct corral *c, struct task *t,
		  const struct audit_call *call);
/* A wait stopped by a filter other than corral's (the wait trap): as
 * eptrace_wait() when t's process has the trap and the call is a native
 * wait4/waitid; false otherwise (let it run). */
bool eptrace_plain_wait(struct corral *c, struct task *t,
			const struct audit_call *call);
/* clone(CLONE_UNTRACED): clear the bit so that the child is traced; 0 or
 * -errno (then the caller refuses the call). */
int eptrace_untraced_clone(struct corral *c, struct task *t,
			   const struct audit_call *call);
/* prctl(PR_SET_PTRACER / PR_SET_DUMPABLE): note what it changes. */
void eptrace_prctl(struct corral *c, struct task *t,
		   const struct audit_call *call);
/* A ptrace() attach by a process whose plain waits do not stop at corral
 * yet: true if the call was turned into the wait trap's installation (it
 * runs again once the trap is in place, and is judged then). */
bool eptrace_trap_waits(struct corral *c, struct task *t,
			const struct audit_call *call);
/* A syscall stop (SIGTRAP|0x80): the wait trap installed, or a stop for
 * an emulated tracer that resumed its tracee with PTRACE_SYSCALL. */
void eptrace_syscall_stop(struct corral *c, struct task *t);
/* t made child (PTRACE_EVENT_FORK/VFORK/CLONE): the wait trap is
 * inherited; an emulated tracer that asked for the event gets the event
 * stop and the child. Before the child is announced. */
void eptrace_new_child(struct corral *c, struct task *t, struct task *child,
		       int event);
/* t exec'd: PTRACE_EVENT_EXEC for an emulated tracer that asked for it,
 * the SIGTRAP of a PTRACE_TRACEME/ATTACH tracee otherwise. */
void eptrace_exec(struct corral *c, struct task *t);
/* t entered a group-stop (sig): a seized emulated tracee reports it
 * (PTRACE_EVENT_STOP of sig), before the engine resumes it. */
void eptrace_group_stop(struct corral *c, struct task *t, int sig);
/* Report the stops held for emulated tracers (eptrace_news()). */
void eptrace_deliver(struct corral *c);
/* Stops held for an emulated tracer that it has not been told of. */
static inline bool eptrace_news(const struct corral *c)
{
	return c->eptrace.news || c->eptrace.held_seen != c->phase.ept_held;
}
void eptrace_free(struct corral *c);
/* A PTRACE_EVENT_STOP of t: a PTRACE_INTERRUPT of ours may have landed. */
void eptrace_event_stop(struct corral *c, struct task *t);
/* t ended (status) or its record is dropped: its tracees are detached
 * (or killed: PTRACE_O_EXITKILL), a wait parked for it is answered. */
void eptrace_gone(struct corral *c, struct task *t, int status);

/* ---- ending.c: the ending, driven from the loop between batches. */
void ending_tick(struct corral *c); /* first step; grace expired? */

/* ---- snapshot.c: a snapshot asked for by a signal, at most one per
 * interval: a flood of requests is coalesced into one. */
void snapshot_request(struct corral *c, bool with_stacks);
/* When the coalesced snapshot is due (run_time() time), -1: none. */
double snapshot_due(const struct corral *c);
/* Take it if it is due. */
void snapshot_tick(struct corral *c);

/* ---- live.c: render for the live view's requests, between batches. */
void live_step(struct corral *c);

/* ---- spawn.c */
/* After the first process ended without exec, why. */
void spawn_init(struct corral *c); /* nothing open (supervisor_alloc) */
/* corral_new(): the command's path, the sandbox, the boundary; a refusal
 * is journaled (a start and an end line) before it returns -errno. */
int spawn_prepare(struct corral *c, char *err, size_t errlen);
/* corral_new(): the containment filter the first process installs. */
int spawn_filter(struct corral *c, char *err, size_t errlen);
void spawn_free(struct corral *c);     /* corral_free() */
void spawn_finished(struct corral *c); /* the end line is out (loop.c) */
void spawn_read_error(struct corral *c);
void spawn_tree_done(struct corral *c); /* finish() or corral_free() */
/* Nothing will be started (refused, or spawning failed after the start
 * line): the end line says so. */
void end_failed(struct corral *c);

/* ---- lifecycle.c: the bare object on a kernel seam (tests use it). */
struct corral *supervisor_alloc(const struct corral_config *cfg,
				const struct corral_sys *sys);

#endif
