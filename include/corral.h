/*
 * corral.h - supervise a command and every process and thread it creates.
 *
 * A supervisor object (struct corral) spawns a command under PTRACE_SEIZE
 * before the command runs a single instruction, learns about every new task
 * from the kernel's ptrace events, keeps the tree with its lineage, delivers
 * each event to a callback (and to the JSONL journal), and can stop and kill
 * the whole tree deterministically.
 *
 * Lifecycle:
 *
 *	struct corral_config cfg;
 *	corral_config_init(&cfg);
 *	cfg.argv = argv;
 *	struct corral *c;
 *	int err = corral_new(&cfg, &c);   // validates, opens the journal
 *	if (!err) err = corral_spawn(c);  // command is seized, then released
 *	if (!err) err = corral_wait(c);   // event loop until no tracee is left
 *	struct corral_result r;
 *	corral_result(c, &r);
 *	corral_free(c);
 *
 * Or drive the loop yourself: call corral_step() until it returns 0.
 *
 * All functions return 0 or a negative errno (kernel style) unless noted.
 *
 * Threading and children: the supervisor must be driven from the thread that
 * called corral_spawn() (ptrace ties tracees to the tracing thread), and it
 * reaps with waitpid(-1): a process hosting a supervisor must not have other
 * children it expects to wait for itself while the supervisor runs.
 */
#ifndef CORRAL_H
#define CORRAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CORRAL_VERSION "0.1.0"
/* Version of the journal schema (docs/journal.md). */
#define CORRAL_JOURNAL_SCHEMA 1

/* Exit codes of the CLI, also reported in corral_result.exit_code. */
enum {
	CORRAL_EXIT_MAXPROCS = 122, /* --max-procs exceeded, tree ended */
	CORRAL_EXIT_ESCAPE = 123,   /* --escape=kill fired, tree ended */
	CORRAL_EXIT_TIMEOUT = 124,  /* --timeout expired, tree ended */
	CORRAL_EXIT_INTERNAL = 125, /* corral's own failure or bad usage */
	CORRAL_EXIT_NOEXEC = 126,   /* command found but not executable */
	CORRAL_EXIT_NOTFOUND = 127, /* command not found */
};

enum corral_event_type {
	CORRAL_EV_START,
	CORRAL_EV_FORK,
	CORRAL_EV_VFORK,
	CORRAL_EV_CLONE,  /* a new process made with clone() */
	CORRAL_EV_THREAD, /* a new thread (CLONE_THREAD) */
	CORRAL_EV_EXEC,
	CORRAL_EV_SIGNAL, /* a signal delivered to a member */
	CORRAL_EV_STOP,	  /* a member entered a group-stop (SIGSTOP...) */
	CORRAL_EV_CONT,	  /* a group-stopped member was continued */
	CORRAL_EV_EXIT,
	CORRAL_EV_LEFT,	  /* a member still alive after the command exited */
	CORRAL_EV_ENDING, /* the supervisor starts ending the tree */
	CORRAL_EV_DENIED, /* a containment rule refused a call */
	CORRAL_EV_ESCAPE, /* an escape-relevant call (audit) */
	CORRAL_EV_STACK,
	CORRAL_EV_SNAPSHOT,
	CORRAL_EV_END,
	CORRAL_EV__COUNT
};

/* Why the tree is being ended. */
enum corral_reason {
	CORRAL_REASON_NONE,
	CORRAL_REASON_EXITED,	/* command exited; members left behind */
	CORRAL_REASON_TIMEOUT,	/* --timeout */
	CORRAL_REASON_SIGNAL,	/* corral got SIGINT/SIGTERM/SIGHUP */
	CORRAL_REASON_PARENT,	/* corral's parent died */
	CORRAL_REASON_MAXPROCS, /* --max-procs */
	CORRAL_REASON_ESCAPE,	/* --escape=kill */
	CORRAL_REASON_REQUEST,	/* library caller asked */
};

const char *corral_reason_name(enum corral_reason r);
const char *corral_event_name(enum corral_event_type t);

struct corral_frame {
	uint64_t ip;
	uint64_t off;	     /* ip - start of func, when func is known */
	const char *func;    /* may be NULL */
	const char *module;  /* path of the mapping, may be NULL */
};

/*
 * One event. Pointers are valid only during the callback. Fields not
 * meaningful for a type are 0 / NULL / -1.
 */
struct corral_event {
	enum corral_event_type type;
	double t;    /* seconds since start, CLOCK_MONOTONIC */
	pid_t pid;   /* the task (host pid namespace) */
	pid_t ppid;  /* the task that created it (fork/clone/thread/exec) */
	pid_t tgid;  /* its thread group */
	pid_t nspid; /* pid inside the innermost pid namespace, 0 if same */
	int sig;     /* SIGNAL, STOP, exit by signal, ENDING (for SIGNAL) */
	int status;  /* EXIT: exit status when !sig */
	bool core;   /* EXIT: dumped core */
	bool setup;  /* task belongs to the sandbox's setup (bwrap) */
	pid_t former; /* EXEC: former tid when a non-leader thread exec'd */
	const char *path;
	const char *const *argv; /* EXEC/LEFT: NULL-terminated */
	enum corral_reason reason; /* ENDING, END */
	const char *detail;	   /* free-form, already JSON-safe text */
	/* STACK */
	const struct corral_frame *frames;
	int nframes;
	const char *error; /* STACK: why the unwind stopped early */
	const char *raw;   /* SNAPSHOT: the members, a JSON array */
	const char *verdict; /* ESCAPE: "log", "deny", "kill" */
};

typedef void (*corral_event_fn)(const struct corral_event *ev, void *arg);

enum corral_escape_mode {
	CORRAL_ESCAPE_OFF,
	CORRAL_ESCAPE_LOG,
	CORRAL_ESCAPE_DENY,
	CORRAL_ESCAPE_KILL,
};

/* When to take stacks (bit mask). */
enum {
	CORRAL_STACKS_TIMEOUT = 1u << 0,
	CORRAL_STACKS_SIGNAL = 1u << 1,
	CORRAL_STACKS_CRASH = 1u << 2,
	CORRAL_STACKS_ESCAPE = 1u << 3,
	CORRAL_STACKS_EXITLEFT = 1u << 4,
	CORRAL_STACKS_SNAPSHOT = 1u << 5,
};

struct corral_sandbox_config {
	bool enabled;
	const char *workspace;	       /* writable dir, default: cwd */
	const char *const *ro_binds;   /* NULL-terminated, may be NULL */
	const char *const *binds;      /* NULL-terminated, may be NULL */
	bool share_net;
	const char *bwrap;	       /* path of bwrap, default: PATH lookup */
};

struct corral_config {
	const char *const *argv; /* command, NULL-terminated, required */
	const char *journal_path; /* NULL: no journal */
	int journal_fd;		  /* >= 0: journal to this fd instead */
	const char *const *self_argv; /* recorded in the start line */

	double timeout;	   /* seconds, 0 = none */
	double kill_after; /* grace between SIGTERM and SIGKILL, seconds */
	unsigned max_procs; /* 0 = no limit */
	bool wait_all;	    /* wait for the whole tree, not the command */
	bool watch_parent;  /* end the tree when our parent dies */
	bool handle_signals; /* SIGINT/TERM/HUP end the tree, USR1 snapshot */
	bool pty;	     /* run the command on a new pseudo-terminal */
	bool history;	     /* keep argv of every process for
				corral_foreach_proc() even without a journal
				or callback (costs two /proc reads per exec) */

	unsigned stacks; /* CORRAL_STACKS_* */
	double stack_budget; /* seconds for one round of stacks */
	enum corral_escape_mode escape;

	struct corral_sandbox_config sandbox;

	corral_event_fn on_event;
	void *on_event_arg;
};

/*
 * Fill with defaults: kill_after 2 s, watch_parent and handle_signals on,
 * stacks at timeout, signal, crash and escape, escape audit off.
 */
void corral_config_init(struct corral_config *cfg);

struct corral;

/*
 * Validate the configuration and acquire what the run needs (journal,
 * signal handling, containment filter, sandbox policy). Nothing is
 * started. On error *out is NULL and, when errbuf is given, it holds a
 * message for the user. -ENOENT and -EACCES mean the command cannot be
 * found or executed (exit 127, 126); -EOPNOTSUPP that --sandbox cannot
 * work here; anything else is a bad configuration or a resource (125).
 */
int corral_new(const struct corral_config *cfg, struct corral **out,
	       char *errbuf, size_t errlen);

/*
 * Start the command: fork a child that waits until it has been seized
 * (fork/vfork/clone/exec tracing, EXITKILL), then execs. Returns
 * -ENOENT / -EACCES etc. when the command cannot be executed (nothing is
 * left running in that case).
 */
int corral_spawn(struct corral *c);

/*
 * Process what the kernel has to say, waiting up to timeout_ms (-1: until
 * something happens). Returns 1 while tracees remain, 0 once the kernel
 * confirms none is left (ECHILD), or a negative errno.
 */
int corral_step(struct corral *c, int timeout_ms);

/* corral_step() until it returns 0. */
int corral_wait(struct corral *c);

/*
 * End the tree: SIGTERM to every member, up to the grace, then stop-all and
 * kill-all. With a grace the loop (corral_step) carries it out; without
 * one it completes before returning. Calling it again while ending skips
 * the grace.
 */
void corral_request_end(struct corral *c, enum corral_reason why);

/*
 * Bring every member to a ptrace stop and confirm it, holding new tasks
 * stopped too. Synchronous; returns the number of members held stopped.
 */
int corral_stop_all(struct corral *c);
/* Resume every member held by corral_stop_all(), with pending signals. */
int corral_resume_all(struct corral *c);
/*
 * SIGKILL every member and consume events until the kernel confirms that
 * no tracee is left. Synchronous. Returns the number of tasks killed.
 */
int corral_kill_all(struct corral *c);

/* Emit a snapshot event (live tree) now; stops and resumes if stacks. */
int corral_snapshot(struct corral *c, bool with_stacks);

/* What the tree looks like (live and ended processes, not threads). */
struct corral_proc_info {
	pid_t pid, ppid, nspid;
	double born, ended; /* ended < 0: still alive */
	int nthreads;	    /* live threads, leader included */
	int threads_seen;   /* all threads it ever had */
	int state;	    /* 'R' running, 't' ptrace-stopped, 'T' group-stopped, 'Z' ended */
	int status;	    /* wait status when ended */
	bool setup;
	const char *path;	 /* last exec, may be NULL */
	const char *const *argv; /* last exec, may be NULL */
	int nexecs;
};

/*
 * Call fn for every process the supervisor knows (creation order). The
 * pointers are valid during the call only.
 */
int corral_foreach_proc(struct corral *c,
			void (*fn)(const struct corral_proc_info *p, void *arg),
			void *arg);

struct corral_result {
	int exit_code;	/* what the CLI exits with (see enum above) */
	int status;	/* the command's wait status */
	bool exec_failed;
	int exec_errno;
	bool sandbox_failed; /* bubblewrap gave up before the command ran */
	enum corral_reason reason; /* why the tree was ended, NONE if not */
	int term_signal;	   /* signal that asked corral to end */
	unsigned long processes; /* processes seen (first included) */
	unsigned long threads;	 /* tasks seen that were threads */
	unsigned long execs;
	unsigned long killed;	/* members SIGKILLed by kill-all */
	unsigned long survivors; /* members alive after the end: must be 0 */
	unsigned long left;	 /* members alive when the command exited */
	unsigned long unstopped; /* members stop-all could not stop in time */
	unsigned long stacks;	 /* stack events written */
	unsigned long stacks_skipped; /* threads not stacked (budget) */
	unsigned long escapes;	 /* escape-relevant calls seen */
	double t_grace, t_stop, t_kill; /* seconds spent in each phase */
	double t_end;			/* total run time */
};

void corral_result(const struct corral *c, struct corral_result *r);

pid_t corral_root_pid(const struct corral *c);

/* A message for the user about the last failure of corral_spawn(). */
const char *corral_error(const struct corral *c);

void corral_free(struct corral *c);

/* Parse "1.5", "10s", "250ms", "2m", "1h", "1d" into seconds. */
int corral_parse_duration(const char *s, double *out);

#ifdef __cplusplus
}
#endif
#endif
