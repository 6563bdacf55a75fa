/*
 * corral/supervisor.h - supervise a command and every process and thread it creates.
 *
 * A supervisor object (struct corral) spawns a command under PTRACE_SEIZE
 * before the command runs a single instruction, learns about every new task
 * from the kernel's ptrace events, keeps the tree with its lineage, delivers
 * each event to a callback (and to the JSONL journal), and can stop and kill
 * the whole tree deterministically.
 *
 * Lifecycle (examples/ has complete programs; build them with
 * `pkg-config --cflags --libs corral`, or `--static` for libcorral.a):
 *
 *	static const char *const argv[] = {"make", "-j4", NULL};
 *	struct corral_config cfg;
 *	corral_config_init(&cfg);         // sets cfg.size and the defaults
 *	cfg.argv = argv;
 *	cfg.timeout = 60;
 *	struct corral *c;
 *	char err[256];
 *	int r = corral_new(&cfg, &c, err, sizeof(err)); // nothing started yet
 *	if (r < 0) { fprintf(stderr, "%s\n", err); return; }
 *	r = corral_spawn(c);              // command is seized, then released
 *	if (!r) r = corral_wait(c);       // event loop until no tracee is left
 *	struct corral_result res;
 *	corral_result_init(&res);         // sets res.size
 *	corral_get_result(c, &res);       // fills res
 *	corral_free(c);                   // exit code in res.exit_code
 *
 * Or drive the loop yourself: call corral_step() until it returns 0, or
 * poll corral_fd() in your own loop and call corral_step(c, 0) when it is
 * readable.
 *
 * All functions return 0 or a negative errno (kernel style) unless noted.
 *
 * ABI (docs/api.md): the library is libcorral.so.0; only corral_* symbols
 * are exported, in version node CORRAL_0. The structs the caller allocates
 * and the library reads or fills (struct corral_config, corral_result,
 * corral_probe, corral_journal_check, corral_report_options) start with
 * `size_t size`, set by their _init(): corral_config_init(),
 * corral_result_init()... A program built against an older header (smaller size)
 * works with a newer library: the fields it does not know take their
 * defaults. A program built against a newer header works with an older
 * library as long as it leaves the fields the library does not know at
 * their defaults (zero); otherwise corral_new() returns -E2BIG. Structs the
 * library allocates (events, proc info) only grow at the end; the event
 * type and other enums only get new values: ignore values you do not know.
 *
 * What the library does to the process hosting it, between corral_new()
 * and corral_free() (corral_free() undoes what can be undone):
 *
 *  - Signal mask: SIGCHLD is blocked and read through a signalfd; so are
 *    SIGINT, SIGTERM, SIGHUP, SIGUSR1 and SIGCONT with handle_signals,
 *    SIGUSR2 with watch_parent, SIGWINCH with pty. SIGTTOU and SIGTTIN are blocked too
 *    (corral must write to and hand back the terminal from outside the
 *    command's process group). The mask is per thread: call corral_new()
 *    from the thread that drives the supervisor, before starting other
 *    threads if they must not take these signals. corral_free() restores
 *    the mask from before corral_new() (SIGTTOU/SIGTTIN included); with
 *    several objects alive on a thread, the last one freed restores the
 *    mask from before the first. The command starts with that mask.
 *  - SIGPIPE is ignored (SIG_IGN) with handle_signals, so that a journal
 *    reader that goes away cannot kill the host; it is not restored. Each
 *    command (a later run's too) starts with the disposition the host had
 *    before corral first ignored it.
 *  - Parent-death signal: with watch_parent, PR_SET_PDEATHSIG(SIGUSR2) is
 *    set on the calling thread (the tree is ended when the host's parent
 *    dies); corral_free() clears it (sets 0).
 *  - Non-dumpable: corral_spawn() makes the host non-dumpable
 *    (PR_SET_DUMPABLE 0: no core dumps, /proc/PID/mem and ptrace closed to
 *    same-uid processes, such as the members); not restored, because a
 *    member may still hold a path to the host when the run ends.
 *  - Process group: without pty, if the host is not a process group
 *    leader, corral_spawn() moves the host into a new process group of its
 *    own (setpgid(0, 0)) and the command stays in the host's former group;
 *    if the host leads its group, the command gets a new group instead and,
 *    when the host's group had the terminal's foreground, the command's
 *    group is given the foreground (tcsetpgrp) and the host takes it back
 *    when the run ends. The host's group change is not undone.
 *  - Job control (handle_signals, the host leads its group and has a
 *    controlling terminal): when the command's group gets a terminal stop
 *    (^Z, SIGTTIN, SIGTTOU), the host takes the terminal back and stops
 *    itself with the same signal (raise(), the signal briefly at its
 *    default action); on SIGCONT (fg, bg) it gives the terminal back to
 *    the command's group and continues it, as a shell does (docs/cli.md). With pty the
 *    command runs in a new session on a new terminal; the host's stdin, if
 *    a terminal, is put in raw mode and restored at the end.
 *  - Children: the loop reaps with waitpid(-1, __WALL). A process hosting
 *    a supervisor must not have other children it expects to wait for
 *    itself while the supervisor runs (their statuses would be taken).
 *    No subreaper is set (PR_SET_CHILD_SUBREAPER); corral_probe() makes a
 *    short-lived child that is one, never the host.
 *  - Threads: the supervisor must be driven from the thread that called
 *    corral_spawn() (ptrace ties tracees to the tracing thread; when that
 *    thread exits, every tracee is SIGKILLed: PTRACE_O_EXITKILL).
 *  - Live view: with live_socket, an abstract unix socket named
 *    CORRAL_LIVE_SOCKET_FMT with the host's pid answers `corral ps`
 *    (closed by corral_free()); with live_stderr, SIGUSR1 without a
 *    journal writes the live tree to fd 2, without blocking.
 *  - Descriptors: the library's descriptors are close-on-exec, except the
 *    sandbox's seccomp policy, which bubblewrap inherits and which
 *    corral_spawn() closes in the host.
 *
 * Callbacks (on_event) run inside the loop, on the thread that drives it,
 * while the engine is in the middle of handling a wait status. A callback
 * may call corral_result(), corral_root_pid(), corral_error(),
 * corral_foreach_proc(), corral_fd(), corral_tree_text() without
 * CORRAL_TREE_STACKS, and the functions that take no struct corral;
 * corral_request_end() from a callback is recorded and
 * carried out when the callback returns. Everything else that drives the
 * loop (corral_spawn, corral_step, corral_wait, corral_stop_all,
 * corral_resume_all, corral_kill_all, corral_snapshot, corral_free,
 * corral_tree_text with stacks) returns -EDEADLK from inside a callback
 * and changes nothing. A callback
 * must not block for long: the tree waits in ptrace stops meanwhile.
 */
#ifndef CORRAL_PUBLIC_SUPERVISOR_H
#define CORRAL_PUBLIC_SUPERVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

struct corral_frame {
	uint64_t ip;
	uint64_t off;	     /* ip - start of func, when func is known */
	const char *func;    /* may be NULL */
	const char *module;  /* path of the mapping, may be NULL */
};

/*
 * The escape audit's verdict on a call (CORRAL_EV_ESCAPE, docs/journal.md):
 * corral_event.escape_verdict; corral_event.verdict has the same word as
 * text ("log", "deny"...), as the journal writes it.
 */
enum corral_verdict {
	CORRAL_VERDICT_NONE,  /* not an escape event */
	CORRAL_VERDICT_LOG,   /* the call ran, recorded (--escape=log) */
	CORRAL_VERDICT_DENY,  /* it failed with EPERM (EACCES for a perf
				 event): --escape=deny, or aimed at corral */
	CORRAL_VERDICT_KILL,  /* the tree is ended (--escape=kill, exit 123) */
	CORRAL_VERDICT_SETUP, /* bubblewrap's own setup, always allowed */
	CORRAL_VERDICT_ALLOW, /* not an escape, but worth recording (a
				 parent-death signal, not dumpable) */
};

/*
 * What the emulated ptrace did (CORRAL_EV_PTRACE, docs/journal.md):
 * corral_event.ptrace_action; corral_event.action has the same word as
 * text ("attach", "tracer-exit"...).
 */
enum corral_ptrace_action {
	CORRAL_PTRACE_NONE,	   /* not a ptrace event */
	CORRAL_PTRACE_ATTACH,	   /* became the tracee's tracer (also
				      auto-attached children: detail) */
	CORRAL_PTRACE_SEIZE,	   /* the same with PTRACE_SEIZE */
	CORRAL_PTRACE_TRACEME,	   /* the tracee called PTRACE_TRACEME */
	CORRAL_PTRACE_DETACH,	   /* PTRACE_DETACH */
	CORRAL_PTRACE_TRACER_EXIT, /* the tracer ended: tracee let go */
	CORRAL_PTRACE_EXITKILL,	   /* the same with PTRACE_O_EXITKILL:
				      the tracee was killed */
	CORRAL_PTRACE_REFUSED,	   /* an attach or TRACEME refused (detail) */
	CORRAL_PTRACE_UNSUPPORTED, /* a request corral does not emulate */
	CORRAL_PTRACE_REVOKED,	   /* the tracee's exec gained privilege its
				      tracer could not trace: let go before
				      the new program ran (detail) */
};

/*
 * One event. Pointers are valid only during the callback. Fields not
 * meaningful for a type are 0 / NULL / -1.
 */
struct corral_event {
	enum corral_event_type type;
	double t;    /* seconds since start, CLOCK_MONOTONIC */
	pid_t pid;   /* the task (host pid namespace) */
	pid_t ppid;  /* the task that created it (fork/clone/thread/left);
			0 in an exec event */
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
	const char *verdict; /* ESCAPE: the verdict's word ("log", "deny",
				"kill", "setup", "allow"): escape_verdict */
	/* EXIT of a process (not a thread): wait4's resource use, which
	 * includes the children it waited for. has_rusage says they are set. */
	bool has_rusage;
	double cpu_user, cpu_sys; /* seconds */
	long max_rss;		  /* KiB */
	double waited; /* DYING: seconds since kill-all's SIGKILL */
	unsigned long count; /* DYING: tasks not gone yet (raw: their pids);
				CORE: threads in the core */
	/* CORE (path: the file; detail: the moment; error: what failed) */
	unsigned long long bytes; /* the file's size */
	const char *sha256;	  /* its digest (hex), NULL when not known */
	const char *cut;	  /* NULL: whole; else why it is short:
				     "bytes", "time", "disk full", "write
				     error", "gone", "abandoned".
				     STACK, ESCAPE: why corral's bounds cut
				     the walk short: "deadline", "budget",
				     "frames", "signal", "walker"
				     (docs/stacks.md, "Bounds") */
	/* Added for issue 25. EXEC: the working directory it exec'd in
	 * (/proc/PID/cwd at the exec stop), NULL when not read. */
	const char *cwd;
	/* SURVIVOR (pid, tgid): its state letter as text ("D"; "?" when
	 * unknown) and where it waits in the kernel ("" unknown). */
	const char *state;
	const char *wchan;
	/* FUSE_ABORT (pid: a member holding the connection's device; error:
	 * why the abort failed, NULL when it was done). */
	unsigned conn; /* /sys/fs/fuse/connections/<conn> */
	/* PTRACE: pid is the (emulated) tracer, tracee the task it traces
	 * (0: none resolved), action what happened (docs/journal.md). */
	pid_t tracee;
	const char *action; /* the action's word: ptrace_action */
	/* Added for issue 27: the verdict and the action as values (the
	 * strings above stay, the same words). A program that reads them
	 * needs a library of 0.2.0 or later (corral_version()). */
	enum corral_verdict escape_verdict;	 /* ESCAPE; NONE otherwise */
	enum corral_ptrace_action ptrace_action; /* PTRACE; NONE otherwise */
};

typedef void (*corral_event_fn)(const struct corral_event *ev, void *arg);

/*
 * A message the library has for a person (a journal that cannot be
 * written or is not the one written, a core that could not be made): one
 * line, without "corral: " and without a newline, e.g. "journal: j.jsonl:
 * No space left on device; ...". Called on the thread that drives the
 * loop; it must not call into the library. The CLI prints
 * "corral: MSG\n" on stderr.
 */
typedef void (*corral_log_fn)(const char *msg, void *arg);

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

/*
 * The boundary the kernel draws around the tree (docs/threat-model.md):
 * AUTO takes the strongest this host offers, LANDLOCK refuses to run
 * without Landlock's full scoping (signals and abstract unix sockets,
 * Linux 6.12+; corral_new() fails with -EOPNOTSUPP), SECCOMP uses the
 * containment filter alone.
 */
enum corral_boundary {
	CORRAL_BOUNDARY_AUTO,
	CORRAL_BOUNDARY_LANDLOCK,
	CORRAL_BOUNDARY_SECCOMP,
};

/* What the Landlock domain of a run confines (corral_result.scopes). */
enum {
	CORRAL_SCOPE_PTRACE = 1u << 0, /* ptrace, /proc/PID/mem, process_vm_* */
	CORRAL_SCOPE_SIGNAL = 1u << 1, /* every signal, SIGIO owners included */
	CORRAL_SCOPE_ABSTRACT_UNIX = 1u << 2, /* abstract unix sockets */
};

/*
 * Embedded in struct corral_config: its size is frozen (it is in the middle
 * of the config). New sandbox settings go at the end of struct
 * corral_config, named sandbox_*.
 */
struct corral_sandbox_config {
	bool enabled;
	const char *workspace;	       /* writable dir, default: cwd */
	const char *const *ro_binds;   /* NULL-terminated, may be NULL */
	const char *const *binds;      /* NULL-terminated, may be NULL */
	bool share_net;
	const char *bwrap;	       /* path of bwrap, default: PATH lookup */
};

/* What the sandbox does to the workspace's .git (docs/sandbox.md). */
enum corral_sandbox_git {
	CORRAL_SANDBOX_GIT_RO,	     /* default: all of .git read-only */
	CORRAL_SANDBOX_GIT_HOOKS_RO, /* writable, but config, hooks, modules
					and worktrees read-only: commits work */
	CORRAL_SANDBOX_GIT_RW,	     /* like any file of the workspace */
};

/*
 * More of the sandbox's shape (appended to corral_config after `sandbox`
 * so that existing fields keep their offsets). All zero: the defaults.
 * Binds (here and in corral_sandbox_config) are "SRC" or "SRC:DST".
 */
struct corral_sandbox_opts {
	/* Host identity bwrap runs as when corral is root: "USER", "UID" or
	   "UID:GID" (a name or number for each). NULL: the workspace's
	   owner if not root, else nobody. "root" keeps host root (unsafe). */
	const char *user;
	const char *const *dev_binds;	/* --dev-bind SRC[:DST] */
	const char *const *tmpfs;	/* --tmpfs DIR (absolute) */
	const char *hostname;		/* NULL: "corral" */
	bool set_uid, set_gid;		/* uid/gid inside the sandbox */
	uint32_t uid, gid;
	bool clearenv;			/* start from an (almost) empty env */
	const char *const *setenv;	/* "NAME=VALUE", applied in order */
	const char *const *unsetenv;	/* "NAME" */
	enum corral_sandbox_git git;
};

/*
 * Allocated by the caller: initialise it with corral_config_init() (which
 * sets size), then set what you need. New fields are appended at the end
 * only (docs/api.md).
 */
struct corral_config {
	size_t size; /* sizeof(struct corral_config) the caller was built with */
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

	/* Added for the CLI's job control and live view (issue 12). */
	int end_signal;	  /* first signal of the ending, 0: SIGTERM */
	bool live_stderr; /* SIGUSR1 with no journal prints the live tree
			     (corral_tree_text) to stderr, never blocking */
	bool live_socket; /* answer `corral ps` on the abstract unix socket
			     CORRAL_LIVE_SOCKET_FMT (same uid, non-members);
			     served while corral_step()/corral_wait() sleep
			     (and through corral_fd()) */
	/*
	 * Added for issue 9: the kernel boundary, an enum corral_boundary
	 * (default AUTO). 64 bits wide so the struct ends without padding: a
	 * later field must not fall into bytes this library counts as its own
	 * (abi.c refuses only non-zero bytes past sizeof).
	 */
	int64_t boundary;
	/*
	 * Seconds kill-all waits for SIGKILLed members to be gone (a task in
	 * an uninterruptible exit, a FUSE request nobody answers) before it
	 * gives up: the end line then says how many are still dying and the
	 * exit status is CORRAL_EXIT_DYING. Default 10; 0 = wait forever.
	 */
	double kill_wait;

	/* New sandbox settings (named sandbox_*, default all zero). */
	struct corral_sandbox_opts sandbox_opts; /* --sandbox shape, above */

	/* New fields here, above the test block, with their default. */
	/*
	 * Journal (docs/journal.md). journal_path "/dev/fd/N" (or
	 * journal_fd N) writes to descriptor N as given: never re-opened
	 * with O_TRUNC; N is marked close-on-exec (the command never
	 * inherits the journal), except 1 and 2, which the command shares.
	 * A FIFO without a reader is refused (-ENXIO).
	 */
	size_t journal_queue_max; /* bytes queued for a slow sink; 0: 64 MiB */
	bool journal_strict;	  /* a lost line ends the run (exit 125) */
	const char *journal_key;  /* HMAC key file; NULL: random per run */
	/*
	 * Core files of members (docs/cores.md). core: when, as CORRAL_STACKS_*
	 * bits (TIMEOUT, SIGNAL, CRASH, ESCAPE only; 0: never). core_dir:
	 * where (required with core; no symlink in the path; created 0700).
	 * core_filter: which members, a comma list of "all", "root",
	 * "running", "name=PROG", "max=N" (NULL: all). The budget of the
	 * whole run: core_budget_bytes (0: 1 GiB), core_budget_seconds (0:
	 * 10 s).
	 */
	uint64_t core;
	const char *core_dir;
	const char *core_filter;
	uint64_t core_budget_bytes;
	double core_budget_seconds;
	/*
	 * Where the library's messages for a person go (corral_log_fn).
	 * NULL (the default): nowhere; the library writes nothing to
	 * stderr but what live_stderr asks for (docs/api.md). What they say
	 * is in the journal's end line and corral_result too.
	 */
	corral_log_fn log;
	void *log_arg;
#ifdef CORRAL_TEST_GROW
	/* What a later version's struct looks like (the ABI test). */
	int test_grow_knob; /* default 7 */
	char test_grow_pad[60];
#endif
};

/*
 * Set the defaults in the first cfg->size bytes of cfg (cfg->size is
 * read, not written): kill_after 2 s, watch_parent and handle_signals on,
 * stacks at timeout, signal, crash and escape, escape audit off; the rest
 * 0/NULL, journal_fd -1. Bytes past what this library knows are zeroed.
 * -EINVAL when cfg->size cannot hold the size field. Use
 * corral_config_init().
 */
int corral_config_defaults(struct corral_config *cfg);

static inline void corral_config_init(struct corral_config *cfg)
{
	__builtin_memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	corral_config_defaults(cfg);
}

struct corral;

/*
 * Validate the configuration and acquire what the run needs (journal,
 * signal handling, containment filter, sandbox policy). Nothing is
 * started. On error *out is NULL and, when errbuf is given, it holds a
 * message for the user. -ENOENT and -EACCES mean the command cannot be
 * found or executed (exit 127, 126); -EOPNOTSUPP that --sandbox cannot
 * work here; -E2BIG that cfg (cfg->size) sets fields this library does
 * not know (built against a newer corral.h); anything else is a bad
 * configuration or a resource (125). The library keeps its own copy of
 * cfg, but not of the strings and arrays it points to: they must stay
 * valid until corral_free().
 */
int corral_new(const struct corral_config *cfg, struct corral **out,
	       char *errbuf, size_t errlen);

/*
 * Start the command: fork a child that waits until it has been seized
 * (fork/vfork/clone/exec tracing, EXITKILL), then execs. Returns
 * -ENOENT / -EACCES etc. when the command cannot be executed (nothing is
 * left running in that case). -EBUSY (nothing started) while another
 * supervisor of this process has a tree that has not finished: each loop
 * reaps with waitpid(-1, __WALL), so two running trees would take each
 * other's events. Objects may be made up front and run one after another.
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
 * A descriptor for your own poll/epoll loop: when it is readable (POLLIN),
 * call corral_step(c, 0), which does not block. It becomes readable when
 * the kernel has news (SIGCHLD, a handled signal), when a deadline
 * (timeout, grace) is due, and right away when the loop has work left
 * over, when the pty relay or the live socket (live_socket) has I/O, and
 * when a stalled journal reader takes lines again; corral_step() clears it. Created at the first call (an epoll descriptor
 * owned by the supervisor: do not close it), valid until corral_free().
 */
int corral_fd(struct corral *c);

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
	/* What it runs: its last exec; when nexecs is 0 (a fork), the
	 * program its creator ran when it forked. May be NULL. */
	const char *path;
	const char *const *argv;
	int nexecs;
	/*
	 * Added for issue 16: argv holds only the first 1024 bytes of the
	 * arguments (the journal's exec event has them all). At most the
	 * last 20,000 ended processes are listed (memory stays bounded).
	 */
	bool argv_truncated;
};

/*
 * Call fn for every process the supervisor knows (creation order). The
 * pointers are valid during the call only.
 */
int corral_foreach_proc(struct corral *c,
			void (*fn)(const struct corral_proc_info *p, void *arg),
			void *arg);

/*
 * Allocated by the caller: corral_result_init() sets size; filled by
 * corral_get_result(). size first; new fields are appended at the end only.
 */
struct corral_result {
	size_t size;	/* sizeof(struct corral_result) the caller knows */
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
	unsigned long survivors; /* members alive after the end (still dying
				    ones included): must be 0 */
	unsigned long left;	 /* members alive when the command exited */
	unsigned long unstopped; /* members stop-all could not stop in time */
	unsigned long stacks;	 /* stack events written */
	unsigned long stacks_skipped; /* threads not stacked (budget) */
	unsigned long escapes;	 /* escape-relevant calls seen */
	double t_grace, t_stop, t_kill; /* seconds spent in each phase */
	double t_end;			/* total run time */
	double t_ending; /* when the ending began (reason != NONE) */

	/* Added for issue 9: the boundary the run got. */
	int landlock_abi; /* the host's Landlock ABI, 0 if none */
	unsigned scopes;  /* CORRAL_SCOPE_* of the tree's domain, 0: seccomp
			     rules only */
	unsigned long pty_dropped; /* --pty: bytes of the command's output
				      that could not be written when the run
				      ended (the relay never blocks) */
	/* Tasks SIGKILLed but not gone when kill_wait ran out (counted in
	 * survivors too: a task waiting for an answer from a FUSE server in
	 * its own file table never finishes; CORRAL_EV_SURVIVOR names each). */
	unsigned long dying;

	/* New fields here, above the test block. */
	/* Journal (docs/journal.md); all 0 / "" without a journal. */
	unsigned long journal_lines;  /* lines written, the end line included */
	unsigned long journal_lost;   /* lines that never reached the sink */
	unsigned long journal_errors; /* failed writes */
	int journal_intact; /* the file on disk is the one written (checked
			       before the end line): 1 yes, 0 no, -1 not
			       checked (not a regular file, no journal) */
	char journal_head[65]; /* digest (hex) of the last line written */
	/* --core (docs/cores.md) */
	unsigned long cores;	     /* core files written (cut ones included) */
	unsigned long cores_cut;     /* written short (budget, disk full...) */
	unsigned long cores_failed;  /* not written (could not be made) */
	unsigned long cores_skipped; /* chosen but not written: budget, max */
#ifdef CORRAL_TEST_GROW
	/* What a later version's struct looks like (the ABI test). */
	unsigned long test_grow_out; /* test_grow_knob, as the library saw it */
	char test_grow_pad[56];
#endif
};

/*
 * Fill the first r->size bytes of r (r->size is kept; fields this library
 * does not know are zeroed). -EINVAL when r->size cannot hold the size
 * field: call corral_result_init() first.
 */
int corral_get_result(const struct corral *c, struct corral_result *r);

static inline void corral_result_init(struct corral_result *r)
{
	__builtin_memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
}

/* Shorthand, kept for the programs that use it: sets r->size, then
 * corral_get_result(). */
static inline int corral_result(const struct corral *c,
				struct corral_result *r)
{
	r->size = sizeof(*r);
	return corral_get_result(c, r);
}

pid_t corral_root_pid(const struct corral *c);

/*
 * A message for the user about the last failure of corral_spawn(), or,
 * after a --sandbox run that could not be built, why (also in the
 * journal's end line as sandbox_error).
 */
const char *corral_error(const struct corral *c);

/*
 * Release the supervisor; a tree still running is stopped and killed
 * first (nothing of it outlives the object). 0, or -EDEADLK from inside a
 * callback (nothing is freed).
 *
 * What it leaves behind: the caller's signal mask and the dispositions of
 * the signals the supervisor handled, as they were before corral_new(); a
 * signal of that set that arrived after the supervisor last read it (during
 * kill-all, say) is consumed here, never delivered with its default action
 * (a late SIGUSR1 must not turn an exit status of 0 into 138). A SIGCHLD
 * still pending is left to the caller. The parent-death signal is disarmed.
 */
int corral_free(struct corral *c);

/*
 * Parse a duration as coreutils timeout(1) does (strtod: "1.5", "1e3",
 * "0x10", " 2", "inf"; one suffix s, m, h or d) plus "ms", into seconds.
 * -EINVAL for anything else (negative, NaN, overflow, other suffixes).
 */
int corral_parse_duration(const char *s, double *out);

/*
 * The tree as text, one process per line with its lineage drawn, what it
 * runs (argv quoted as a shell would read it back, control characters
 * escaped), how it ended or its state, and how long it lived. This is what
 * `corral run --tree` prints. CORRAL_TREE_LIVE: only live processes, with
 * a header line (what `corral ps` and SIGUSR1 show); CORRAL_TREE_STACKS
 * (with LIVE): the stack of every thread too, which stops the tree for a
 * moment (-EDEADLK from a callback; without STACKS a callback may call
 * it). *out is malloc'd; returns its length or -errno.
 */
enum { CORRAL_TREE_LIVE = 1u << 0, CORRAL_TREE_STACKS = 1u << 1 };
int corral_tree_text(struct corral *c, unsigned flags, char **out);

/*
 * The live socket of the corral with pid P is the abstract unix socket
 * named "\0" + this format with P. A client sends "tree\n" or "stacks\n"
 * and reads the text of corral_tree_text(LIVE[|STACKS]) until EOF.
 */
#define CORRAL_LIVE_SOCKET_FMT "corral/live/%d"

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
