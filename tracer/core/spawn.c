/*
 * spawn.c - start the first process so that it is seized before it runs a
 * single instruction of the command.
 *
 * The child blocks on a pipe; the parent PTRACE_SEIZEs it (with fork,
 * vfork, clone, exec and seccomp tracing and EXITKILL) and only then writes
 * the byte that lets it exec. There is no PTRACE_TRACEME and no window in
 * which anything of the command runs untraced. Until the seize, the child
 * is covered by PR_SET_PDEATHSIG(SIGKILL): if corral dies before it could
 * seize, the child dies too. After the seize EXITKILL covers it, and the
 * death signal is cleared so that the command sees what it would untraced.
 *
 * Between fork and exec the child only makes async-signal-safe calls: the
 * process hosting the supervisor may have threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter.h"
#include "internal.h"
#include "pathfind.h"
#include "sandbox.h"

extern char **environ;

#define SEIZE_OPTIONS                                                      \
	(PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |  \
	 PTRACE_O_TRACEEXEC | PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL |  \
	 PTRACE_O_TRACESYSGOOD)

/* What the child reports on the error pipe before it gives up. */
struct spawn_err {
	int stage; /* 0: exec, 1: filter */
	int err;
};

static void child_fail(int fd, int stage, int err, int code)
{
	struct spawn_err e = {stage, err};
	ssize_t n = write(fd, &e, sizeof(e));
	(void)n;
	_exit(code);
}

static __attribute__((noreturn)) void child(struct corral *c, int go,
					     int errfd, pid_t parent)
{
	struct spawn_part *sp = OWN(c, spawn);
	if (c->pty.ptm >= 0) {
		int r = pty_child(c);
		if (r < 0)
			child_fail(errfd, 1, -r, CORRAL_EXIT_INTERNAL);
	} else {
		groups_child(c);
	}
	/* The command gets the signal state corral was given. */
	sigprocmask(SIG_SETMASK, &c->lifecycle.oldmask, NULL);
	if (c->cfg.handle_signals)
		signal(SIGPIPE,
		       c->lifecycle.sigpipe_was_ignored ? SIG_IGN : SIG_DFL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(CORRAL_EXIT_INTERNAL);
	char b;
	ssize_t n;
	do
		n = read(go, &b, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1) /* corral gave up (or died) before seizing us */
		_exit(CORRAL_EXIT_INTERNAL);
	close(go);
	/* Seized: EXITKILL takes over from the death signal. */
	prctl(PR_SET_PDEATHSIG, 0);
	/* --sandbox as root: bwrap runs as an unprivileged host user. Before
	 * the filter, whose prctl rules would report the drop as events. */
	if (sp->sandboxed) {
		int r = sandbox_spawn_child(c);
		if (r < 0)
			child_fail(errfd, 1, -r, CORRAL_EXIT_INTERNAL);
	}
	if (sp->filter.len) {
		int r = filter_install(&sp->filter);
		if (r < 0)
			child_fail(errfd, 1, -r, CORRAL_EXIT_INTERNAL);
	}
	/*
	 * The kernel boundary, after the filter: filter_install() set
	 * no_new_privs unless we hold CAP_SYS_ADMIN, and Landlock wants one
	 * of the two. Only this child and what it starts enter the domain;
	 * corral stays outside, so its ptrace and signals still reach in.
	 */
	if (sp->boundary.active) {
		int r = landlock_enter(&sp->boundary);
		if (r < 0)
			child_fail(errfd, 1, -r, CORRAL_EXIT_INTERNAL);
	}
	execve(sp->exe, sp->argv, environ);
	int e = errno;
	child_fail(errfd, 0, e,
		   e == ENOENT ? CORRAL_EXIT_NOTFOUND : CORRAL_EXIT_NOEXEC);
	_exit(CORRAL_EXIT_INTERNAL);
}

/*
 * Find the command the way execvp() would, before anything is started, so
 * that "not found" and "not executable" are reported with nothing spawned.
 */
static int resolve_exe(const char *name, char **out)
{
	static const struct path_rules execvp_rules = {.empty_is_cwd = true,
						       .eacces = true};
	char path[PATH_MAX];
	int r = path_find(name, &execvp_rules, path, sizeof(path));
	if (r < 0)
		return r;
	*out = strdup(path);
	return *out ? 0 : -ENOMEM;
}

void spawn_init(struct corral *c)
{
	struct spawn_part *sp = OWN(c, spawn);
	sp->errpipe = sp->policy_fd = -1;
}

/*
 * Refused before anything started (the command not found, the sandbox
 * refused): the journal, already opened, still has a start line and an
 * end line that says why.
 */
static void refuse(struct corral *c)
{
	struct corral_event start = {.type = CORRAL_EV_START,
				     .pid = c->lifecycle.self};
	emit(c, &start);
	struct corral_event end = {.type = CORRAL_EV_END, .t = run_time(c)};
	result_decide(c, journal_settle(c));
	emit_at(c, &end);
}

/* --sandbox: bwrap is what starts, the command at the end of its argv. */
static int prepare_sandbox(struct corral *c, char *err, size_t errlen)
{
	struct spawn_part *sp = OWN(c, spawn);
	struct sandbox_cmd cmd = {.policy_fd = -1};
	int r = sandbox_prepare(c, &cmd, err, errlen);
	sp->policy_fd = cmd.policy_fd; /* closed by spawn_free() if refused */
	if (r < 0)
		return r;
	free(sp->exe);
	sp->exe = cmd.exe;
	sp->argv = cmd.argv;
	sp->sandboxed = true;
	return 0;
}

int spawn_prepare(struct corral *c, char *err, size_t errlen)
{
	struct spawn_part *sp = OWN(c, spawn);
	const struct corral_config *cfg = &c->cfg;
	sp->argv = (char **)cfg->argv;
	int r = resolve_exe(cfg->argv[0], &sp->exe);
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", cfg->argv[0],
			 r == -ENOENT ? "command not found" : strerror(-r));
		result_exec_failed(c, -r, 0);
		refuse(c);
		return r;
	}
	if (cfg->sandbox.enabled) {
		r = prepare_sandbox(c, err, errlen);
		if (r < 0) {
			result_sandbox_failed(c);
			refuse(c);
			return r;
		}
	}
	/* The kernel boundary: before anything is started, so that
	 * --boundary=landlock can refuse the run (docs/threat-model.md). */
	r = landlock_plan((enum corral_boundary)cfg->boundary,
			  cfg->sandbox.enabled, &sp->boundary, err, errlen);
	if (r < 0) {
		struct corral_event start = {.type = CORRAL_EV_START,
					     .pid = c->lifecycle.self};
		emit(c, &start);
		end_failed(c);
		return r;
	}
	result_boundary(c, sp->boundary.abi,
			sp->boundary.active ? sp->boundary.scopes : 0);
	return 0;
}

int spawn_filter(struct corral *c, char *err, size_t errlen)
{
	struct filter_params fp = {
		.guard_pid = c->lifecycle.self,
		.guard_pgid = c->lifecycle.self, /* see groups_prepare() */
		.guard_tid = gettid(),
		.escape = c->cfg.escape,
	};
	int r = filter_build(&fp, &OWN(c, spawn)->filter);
	if (r < 0) {
		snprintf(err, errlen, "containment filter: %s", strerror(-r));
		return -EIO;
	}
	return 0;
}

void spawn_free(struct corral *c)
{
	struct spawn_part *sp = OWN(c, spawn);
	if (sp->errpipe >= 0)
		close(sp->errpipe);
	sp->errpipe = -1;
	if (sp->policy_fd >= 0)
		close(sp->policy_fd);
	sp->policy_fd = -1;
	if (sp->argv && sp->argv != (char **)c->cfg.argv)
		sandbox_argv_free(sp->argv);
	sp->argv = NULL;
	free(sp->exe);
	sp->exe = NULL;
	filter_release(&sp->filter);
}

void spawn_finished(struct corral *c)
{
	OWN(c, spawn)->finished = true;
}

/*
 * Supervisors of this process with a tree that has not finished. Each loop
 * reaps with waitpid(-1, __WALL), which takes the statuses of every tracee
 * of the process: two at once would take each other's events (a tree held
 * in a stop nobody resumes, the other's members adopted as orphans). So one
 * at a time; a finished one does not count.
 */
static int running_trees;

/*
 * Nothing will be started: the journal, already opened, still says what
 * was asked and how it ended.
 */
void end_failed(struct corral *c)
{
	struct spawn_part *sp = OWN(c, spawn);
	result_failed(c);
	sp->finished = true;
	struct corral_event end = {.type = CORRAL_EV_END};
	emit(c, &end);
}

void spawn_tree_done(struct corral *c)
{
	struct spawn_part *sp = OWN(c, spawn);
	if (sp->tree_counted)
		__atomic_sub_fetch(&running_trees, 1, __ATOMIC_SEQ_CST);
	sp->tree_counted = false;
}

/* Whether a tree may be started now: 0, or -errno (the reason said). */
static int may_spawn(struct corral *c)
{
	if (c->events.in_callback) /* corral.h: not from a callback */
		return -EDEADLK;
	if (c->spawn.root)
		return -EALREADY;
	if (__atomic_load_n(&running_trees, __ATOMIC_SEQ_CST) > 0) {
		result_error(
			c, "another supervisor of this process has a running "
			   "tree: one at a time (their waitpid would take each "
			   "other's events)");
		return -EBUSY;
	}
	return 0;
}

static void close_pipes(const int go[2], const int ep[2])
{
	close(go[0]);
	close(go[1]);
	close(ep[0]);
	close(ep[1]);
}

/*
 * The child is forked and waits on the go pipe (go_w, our end): seize it,
 * so that it is traced before it runs anything of the command, and count
 * the tree. On failure the child is killed and reaped, the end line is
 * written, and -errno returned.
 */
static int seize_root(struct corral *c, pid_t pid, int go_w)
{
	struct spawn_part *sp = OWN(c, spawn);
	long r = sys_ptrace(c->sys, PTRACE_SEIZE, pid, 0,
			    (void *)(long)SEIZE_OPTIONS);
	if (r < 0) {
		/* Closing the pipe unread makes the child exit; reap it. */
		close(go_w);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		result_error(c,
			     "cannot trace the command (PTRACE_SEIZE: %s); is "
			     "ptrace restricted here (Yama ptrace_scope, a "
			     "container's seccomp profile)?",
			     strerror((int)-r));
		end_failed(c);
		return (int)r;
	}
	/*
	 * A non-dumpable supervisor cannot have its memory written through
	 * /proc/PID/mem or its oom_score_adj changed by a same-uid member
	 * (there may be no Yama to stop it; docs/threat-model.md). Only now:
	 * the child inherited dumpability at fork, and a non-dumpable child
	 * could not have been seized by an unprivileged corral.
	 */
	prctl(PR_SET_DUMPABLE, 0);
	sp->root = pid;
	if (!engine_add_root(c, pid)) {
		close(go_w);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		sp->root = 0;
		end_failed(c);
		return -ENOMEM;
	}
	__atomic_add_fetch(&running_trees, 1, __ATOMIC_SEQ_CST);
	sp->tree_counted = true;
	return 0;
}

/* Seized: let the child exec, and start what runs from now on. */
static void release_root(struct corral *c, int go_w)
{
	ssize_t n;
	do
		n = write(go_w, "g", 1);
	while (n < 0 && errno == EINTR);
	close(go_w);
	if (c->cfg.timeout > 0)
		OWN(c, spawn)->deadline = run_time(c) + c->cfg.timeout;
	/* Our parent may have died before the death signal was armed. */
	if (c->cfg.watch_parent &&
	    c->sys->parent(c->sys->ctx) != c->lifecycle.parent)
		waiter_note_signal(c, SIGUSR2);
}

int corral_spawn(struct corral *c)
{
	int r = may_spawn(c);
	if (r < 0)
		return r;
	int go[2], ep[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ep, O_CLOEXEC) < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		return -e;
	}
	struct corral_event start = {.type = CORRAL_EV_START,
				     .pid = c->lifecycle.self};
	emit(c, &start);
	if (journal_take_loss(c)) { /* --journal-strict: nothing starts */
		close_pipes(go, ep);
		result_error(c, "journal: the start line could not be written "
				"(--journal-strict): the command was not run");
		end_failed(c);
		return -EIO;
	}

	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close_pipes(go, ep);
		result_error(c, "fork: %s", strerror(e));
		end_failed(c);
		return -e;
	}
	if (pid == 0) {
		close(go[1]);
		close(ep[0]);
		child(c, go[0], ep[1], parent);
	}
	groups_parent(c, pid);
	if (c->pty.ptm >= 0)
		pty_parent(c);
	close(go[0]);
	close(ep[1]);
	struct spawn_part *sp = OWN(c, spawn);
	sp->errpipe = ep[0];
	if (sp->policy_fd >= 0) { /* bwrap has its copy */
		close(sp->policy_fd);
		sp->policy_fd = -1;
	}
	r = seize_root(c, pid, go[1]);
	if (r < 0)
		return r;
	release_root(c, go[1]);
	return 0;
}

void spawn_read_error(struct corral *c)
{
	struct spawn_part *sp = OWN(c, spawn);
	if (sp->errpipe < 0)
		return;
	struct spawn_err e;
	ssize_t n = read(sp->errpipe, &e, sizeof(e));
	if (n == (ssize_t)sizeof(e)) {
		result_exec_failed(c, e.err, e.stage);
	}
	close(sp->errpipe);
	sp->errpipe = -1;
}
