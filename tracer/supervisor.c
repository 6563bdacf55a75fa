/*
 * supervisor.c - the supervisor object: lifecycle, the loop, results.
 *
 * The loop takes wait statuses in batches: it collects every status the
 * kernel has (WNOHANG) before handling any, so that a task that stops
 * again as soon as it is resumed cannot starve the others (sandbox2's
 * monitor does the same). When there is nothing, it sleeps in ppoll() on a
 * signalfd that carries SIGCHLD and the signals corral acts on, with the
 * nearest deadline as the timeout. The loop ends only when waitpid()
 * says ECHILD: the kernel, not a counter, says that no tracee is left.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "filter.h"
#include "pollfd.h"
#include "sandbox.h"
#include "internal.h"
#include "unwind.h"

double run_time(const struct corral *c)
{
	return c->sys->now(c->sys->ctx) - c->t0;
}

/* The defaults (corral.h); abi.c applies them to a caller's config. */
void config_set_defaults(struct corral_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->journal_fd = -1;
	cfg->kill_after = 2.0;
	cfg->kill_wait = 10.0;
	cfg->watch_parent = true;
	cfg->handle_signals = true;
	cfg->stack_budget = 5.0;
	cfg->stacks = CORRAL_STACKS_TIMEOUT | CORRAL_STACKS_SIGNAL |
		      CORRAL_STACKS_CRASH | CORRAL_STACKS_ESCAPE;
}

void emit(struct corral *c, struct corral_event *ev)
{
	ev->t = run_time(c);
	journal_event(c, ev);
	if (c->cfg.on_event) {
		/* What the callback may call: see corral.h (-EDEADLK). */
		c->in_callback++;
		c->cfg.on_event(ev, c->cfg.on_event_arg);
		c->in_callback--;
	}
	/* --journal-strict: a lost line ends the run (once). */
	if (c->root && journal_take_loss(c))
		ending_begin(c, CORRAL_REASON_JOURNAL, 0);
}

/*
 * Find the command the way execvp() would, before anything is started, so
 * that "not found" and "not executable" are reported with nothing spawned.
 */
static int resolve_exe(const char *name, char **out)
{
	struct stat st;
	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if (stat(name, &st) < 0)
			return -errno;
		if (S_ISDIR(st.st_mode) || access(name, X_OK) < 0)
			return -EACCES;
		*out = strdup(name);
		return *out ? 0 : -ENOMEM;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int err = -ENOENT;
	size_t nl = strlen(name);
	for (const char *p = path;; p++) {
		const char *e = strchrnul(p, ':');
		size_t dl = (size_t)(e - p);
		char *cand = malloc(dl + nl + 3);
		if (!cand)
			return -ENOMEM;
		/* An empty PATH element means the current directory. */
		sprintf(cand, "%.*s%s%s", (int)dl, dl ? p : ".", "/", name);
		if (stat(cand, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(cand, X_OK) == 0) {
				*out = cand;
				return 0;
			}
			err = -EACCES;
		}
		free(cand);
		p = e;
		if (!*e)
			break;
	}
	return err;
}

static int compute_exit(const struct corral *c);

/*
 * Several supervisor objects may live at once (made up front, run one after
 * the other) and be freed in any order. The signal mask is per thread: the
 * mask this thread had before its first live object is what each object
 * gives its command and what the last one freed restores (restoring an
 * object's own "previous" mask would unblock SIGCHLD under another live
 * object's signalfd, and its command would start with corral's signals
 * blocked). SIGPIPE's disposition is per process and stays ignored after a
 * run (docs/api.md): what the host had before corral first ignored it is
 * remembered, or a later run's command would start with SIGPIPE ignored.
 */
static __thread int thread_objects;
static __thread sigset_t thread_mask;
static int host_pipe_ignored = -1; /* unknown until corral first ignores it */

static int setup_signals(struct corral *c)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (c->cfg.handle_signals) {
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGHUP);
		sigaddset(&set, SIGUSR1);
		/* fg/bg of corral's job: passed on (groups.c) */
		sigaddset(&set, SIGCONT);
	}
	if (c->cfg.watch_parent)
		sigaddset(&set, SIGUSR2);
	if (c->cfg.pty)
		sigaddset(&set, SIGWINCH);
	/*
	 * corral is not in its command's process group (groups.c); blocked
	 * SIGTTOU/SIGTTIN let it write its report to the terminal and hand
	 * the terminal back without being stopped as a background job.
	 */
	sigset_t bg;
	sigemptyset(&bg);
	sigaddset(&bg, SIGTTOU);
	sigaddset(&bg, SIGTTIN);
	c->sigset = set;
	if (sigprocmask(SIG_BLOCK, &set, &c->oldmask) < 0)
		return -errno;
	if (thread_objects++)
		c->oldmask = thread_mask;
	else
		thread_mask = c->oldmask;
	c->mask_set = true;
	sigprocmask(SIG_BLOCK, &bg, NULL);
	c->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (c->sigfd < 0)
		return -errno;
	if (c->cfg.handle_signals) {
		/* A journal reader that goes away must not kill corral. */
		struct sigaction old, ign = {.sa_handler = SIG_IGN};
		sigaction(SIGPIPE, &ign, &old);
		if (host_pipe_ignored < 0)
			host_pipe_ignored = old.sa_handler == SIG_IGN;
		c->sigpipe_was_ignored =
			old.sa_handler == SIG_IGN && host_pipe_ignored;
	}
	if (c->cfg.watch_parent) {
		/*
		 * The death signal is checked against getppid() when it
		 * arrives (it fires when the parent *thread* exits), and the
		 * parent may already be gone: corral_spawn() checks again.
		 */
		prctl(PR_SET_PDEATHSIG, SIGUSR2);
	}
	return 0;
}

/*
 * Nothing will be started: the journal, already opened, still says what
 * was asked and how it ended.
 */
void end_failed(struct corral *c)
{
	c->res.exit_code = CORRAL_EXIT_INTERNAL;
	c->finished = true;
	struct corral_event end = {.type = CORRAL_EV_END};
	emit(c, &end);
}

static void refuse(struct corral *c)
{
	struct corral_event start = {.type = CORRAL_EV_START, .pid = c->self};
	emit(c, &start);
	c->res.exit_code = compute_exit(c);
	struct corral_event end = {.type = CORRAL_EV_END};
	emit(c, &end);
}

int corral_new(const struct corral_config *cfg, struct corral **out, char *err,
	       size_t errlen)
{
	char dummy[8];
	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	*out = NULL;
	err[0] = 0;
	/* From here on, cfg is the library's own copy (any caller's size). */
	struct corral_config own;
	int ir = config_import(cfg, &own, err, errlen);
	if (ir < 0)
		return ir;
	cfg = &own;
	if (!cfg->argv || !cfg->argv[0]) {
		snprintf(err, errlen, "no command given");
		return -EINVAL;
	}
	if (cfg->timeout < 0 || cfg->kill_after < 0) {
		snprintf(err, errlen, "negative duration");
		return -EINVAL;
	}
	struct corral *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->cfg = *cfg;
	c->sys = &corral_sys_real;
	c->self = getpid();
	c->parent = getppid();
	c->errpipe = c->sigfd = c->policy_fd = c->ttyfd = c->ptm = -1;
	c->t0 = c->sys->now(c->sys->ctx);
	int r = table_init(&c->tab);
	if (r < 0)
		goto fail;
	c->spawn_argv = (char **)cfg->argv;
	/* argv and exe cost two /proc reads per exec: only when used. */
	c->want_argv = cfg->journal_path || cfg->journal_fd >= 0 ||
		       cfg->on_event || cfg->history;
	r = journal_open(c, err, errlen);
	if (r < 0) {
		r = -EIO; /* -ENOENT/-EACCES are for the command only */
		goto fail;
	}
	r = resolve_exe(cfg->argv[0], &c->exe);
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", cfg->argv[0],
			 r == -ENOENT ? "command not found" : strerror(-r));
		c->res.exec_failed = true;
		c->res.exec_errno = -r;
		refuse(c);
		goto fail;
	}
	if (cfg->sandbox.enabled) {
		r = sandbox_prepare(c, err, errlen);
		if (r < 0) {
			c->res.sandbox_failed = true;
			refuse(c);
			goto fail;
		}
	}
	/* The kernel boundary: before anything is started, so that
	 * --boundary=landlock can refuse the run (docs/threat-model.md). */
	r = landlock_plan((enum corral_boundary)cfg->boundary,
			  cfg->sandbox.enabled, &c->boundary, err, errlen);
	if (r < 0) {
		struct corral_event start = {.type = CORRAL_EV_START,
					     .pid = c->self};
		emit(c, &start);
		end_failed(c);
		goto fail;
	}
	c->res.landlock_abi = c->boundary.abi;
	c->res.scopes = c->boundary.active ? c->boundary.scopes : 0;
	if (cfg->pty) {
		r = pty_prepare(c, err, errlen);
		if (r < 0)
			goto fail;
	}
	r = cfg->pty ? 0 : groups_prepare(c); /* a pty means a new session */
	if (r < 0) {
		snprintf(err, errlen, "process group setup: %s", strerror(-r));
		goto fail;
	}
	struct filter_params fp = {
		.guard_pid = c->self,
		.guard_pgid = c->self, /* see groups_prepare() */
		.guard_tid = gettid(),
		.escape = cfg->escape,
	};
	r = filter_build(&fp, &c->filter);
	if (r < 0) {
		snprintf(err, errlen, "containment filter: %s", strerror(-r));
		r = -EIO;
		goto fail;
	}
	r = setup_signals(c);
	if (r < 0) {
		snprintf(err, errlen, "signal setup: %s", strerror(-r));
		goto fail;
	}
	r = live_open(c);
	if (r < 0) {
		snprintf(err, errlen, "live view: %s", strerror(-r));
		goto fail;
	}
	*out = c;
	return 0;
fail:
	corral_free(c);
	return r;
}

int drain(struct corral *c, bool block)
{
	int n = waiter_collect(c, block);
	if (n <= 0)
		return n;
	/* No drain runs inside a handler (callbacks cannot re-enter the
	 * loop: -EDEADLK), so the batch stays put while it is handled. */
	for (int i = 0; i < n; i++) {
		struct waited *w = &c->batch[i];
		struct task *t = table_find(&c->tab, w->pid);
		if (t)
			t->flags &= ~TF_IN_BATCH;
		c->wait_ru = w->has_ru ? &w->ru : NULL;
		engine_handle(c, w->pid, w->status);
	}
	c->wait_ru = NULL;
	return n;
}

/*
 * Was the sender of a signal a member when it sent it? A member may signal
 * and exit at once: if its exit was handled before the signal is read, it
 * is out of the table by then. A signal read now was sent after the
 * previous read, so a member that ended since then counts too.
 */
static bool sent_by_member(struct corral *c, pid_t from)
{
	if (table_find(&c->tab, from))
		return true;
	for (struct task *t = c->tab.first; t; t = t->next)
		if (t->tgid == from && t->ended >= c->sigread_t)
			return true;
	return false;
}

void wait_kernel(struct corral *c, double timeout)
{
	/* sigfd, pty (3), live (5), journal (1) */
	struct pollfd pfd[12] = {{.fd = c->sigfd, .events = POLLIN}};
	int npty = pty_pollfds(c, pfd + 1);
	int nlive = live_pollfds(c, pfd + 1 + npty); /* live.c */
	/* A stalled journal reader: wake up when it takes lines again. */
	int nj = journal_pollfd(c, pfd + 1 + npty + nlive);
	if (c->sys->poll(c->sys->ctx, pfd, 1 + (unsigned)(npty + nlive + nj),
			 timeout) <= 0)
		return;
	if (nj && pfd[1 + npty + nlive].revents)
		journal_flush(c);
	if (npty)
		pty_relay(c, pfd + 1, npty);
	if (nlive)
		live_io(c, pfd + 1 + npty);
	struct signalfd_siginfo si[16];
	ssize_t n;
	double now = run_time(c);
	while ((n = c->sys->read_signals(c->sys->ctx, c->sigfd, si, 16)) > 0) {
		for (size_t i = 0; i < (size_t)n; i++) {
			unsigned sig = si[i].ssi_signo;
			if (sig == SIGCHLD || sig >= 32)
				continue;
			pid_t from = (pid_t)si[i].ssi_pid;
			c->pending_sigs |= 1u << sig;
			c->pending_from[sig] = from;
			if (from && sent_by_member(c, from))
				c->pending_member |= 1u << sig;
			else
				c->pending_member &= ~(1u << sig);
		}
	}
	c->sigread_t = now;
	/*
	 * What was read here (SIGCHLD: news; a signal to act on) is the next
	 * step's work, and the signalfd no longer says so: corral_fd() must.
	 * A step re-arms it at its end; stop-all and kill-all called from
	 * outside a step (corral_request_end) leave it armed.
	 */
	if (c->pollfd)
		pollfd_arm(c, 0);
}

static void act_on_signals(struct corral *c)
{
	while (c->pending_sigs) {
		int sig = __builtin_ctz(c->pending_sigs);
		c->pending_sigs &= ~(1u << sig);
		pid_t from = c->pending_from[sig];
		bool member = c->pending_member & (1u << sig);
		if (sig == SIGWINCH) {
			pty_winch(c);
			continue;
		}
		if (sig == SIGUSR2) {
			if (getppid() != c->parent)
				ending_begin(c, CORRAL_REASON_PARENT, 0);
			continue;
		}
		if (member) {
			/*
			 * A member signalled its supervisor (the containment
			 * filter refuses kill() at corral, but not every path
			 * can be filtered): record it, do not obey it.
			 */
			char d[96];
			snprintf(d, sizeof(d), "signal %d to corral from %d",
				 sig, from);
			struct corral_event ev = {.type = CORRAL_EV_DENIED,
						  .pid = from,
						  .detail = d};
			emit(c, &ev);
			continue;
		}
		if (sig == SIGCONT) { /* fg or bg of corral's job */
			groups_sigcont(c);
			continue;
		}
		if (sig == SIGUSR1) {
			if (!c->journal && c->cfg.live_stderr)
				live_request_print(c); /* live.c */
			else
				snapshot_request(
					c,
					c->cfg.stacks & CORRAL_STACKS_SNAPSHOT);
			continue;
		}
		ending_begin(c, CORRAL_REASON_SIGNAL, sig);
	}
}

static void check_deadlines(struct corral *c)
{
	if (c->deadline > 0 && run_time(c) >= c->deadline &&
	    (c->phase == PH_RUN || c->phase == PH_GRACE)) {
		if (c->phase == PH_RUN)
			ending_begin(c, CORRAL_REASON_TIMEOUT, 0);
		else if (c->res.reason != CORRAL_REASON_TIMEOUT)
			/* The limit also bounds a grace begun for another
			 * reason (say, ending what the command left). */
			ending_begin(c, c->res.reason, 0);
	}
	ending_tick(c);
	if (c->phase == PH_RUN || c->phase == PH_GRACE)
		snapshot_tick(c);
}

static int compute_exit(const struct corral *c)
{
	const struct corral_result *r = &c->res;
	if (r->sandbox_failed)
		return CORRAL_EXIT_INTERNAL;
	if (r->exec_failed) {
		if (c->spawn_stage != 0)
			return CORRAL_EXIT_INTERNAL;
		return r->exec_errno == ENOENT ? CORRAL_EXIT_NOTFOUND
					       : CORRAL_EXIT_NOEXEC;
	}
	/* Before the reason: the tree is not confirmed gone. */
	if (r->dying)
		return CORRAL_EXIT_DYING;
	switch (r->reason) {
	case CORRAL_REASON_TIMEOUT:
		return CORRAL_EXIT_TIMEOUT;
	case CORRAL_REASON_MAXPROCS:
		return CORRAL_EXIT_MAXPROCS;
	case CORRAL_REASON_ESCAPE:
		return CORRAL_EXIT_ESCAPE;
	case CORRAL_REASON_SIGNAL:
		return 128 + r->term_signal;
	case CORRAL_REASON_PARENT:
		return 128 + SIGHUP;
	default:
		break;
	}
	if (WIFSIGNALED(r->status))
		return 128 + WTERMSIG(r->status);
	return WEXITSTATUS(r->status);
}

static void finish(struct corral *c)
{
	if (c->finished)
		return;
	c->finished = true;
	ending_done(c);
	/* Another supervisor of this process may start a tree now. */
	spawn_tree_done(c);
	if (!c->root_execed)
		spawn_read_error(c);
	/* bwrap gave up before the command ran: the sandbox failed. */
	if (c->sandboxed && !c->command_execed && !c->res.exec_failed &&
	    c->res.reason == CORRAL_REASON_NONE)
		c->res.sandbox_failed = true;
	if (c->res.sandbox_failed)
		sandbox_explain(c); /* the reason, for the end line */
	groups_restore(c);
	pty_finish(c);
	c->res.exit_code = compute_exit(c);
	c->res.t_end = run_time(c);
	struct corral_event ev = {.type = CORRAL_EV_END,
				  .reason = c->res.reason};
	emit(c, &ev);
}

/* How long the loop may sleep: the caller's limit and our deadlines. */
static double sleep_for(const struct corral *c, int timeout_ms)
{
	double wait = timeout_ms < 0 ? -1 : timeout_ms / 1000.0;
	double now = run_time(c), due[3];
	int n = 0;
	/* The deadlines check_deadlines() acts on in this phase, no other:
	 * a timeout already acted on must not wake the loop in its grace. */
	bool run = c->phase == PH_RUN, grace = c->phase == PH_GRACE;
	if (c->deadline > 0 &&
	    (run || (grace && c->res.reason != CORRAL_REASON_TIMEOUT)))
		due[n++] = c->deadline;
	if (grace)
		due[n++] = c->grace_deadline;
	double snap = snapshot_due(c);
	if (snap >= 0 && (run || grace))
		due[n++] = snap;
	for (int i = 0; i < n; i++) {
		double w = due[i] > now ? due[i] - now : 0; /* passed: now */
		if (wait < 0 || w < wait)
			wait = w;
	}
	return wait;
}

/*
 * One round: sleep until the kernel may have news (only when the previous
 * round emptied its queue), take the batch, act on signals and deadlines.
 *
 * Sleeping first and only after an empty queue keeps the sequential case
 * (one event, one resume) at one ppoll, one read of the signalfd and two
 * waitpid() calls per event: every status the kernel had was taken, and a
 * new one raises a SIGCHLD that stays pending in the signalfd, so nothing
 * is missed. The kernel's ECHILD raises no signal, so the round never
 * sleeps once a drain has seen it or the table is empty.
 */
int corral_step(struct corral *c, int timeout_ms)
{
	if (c->in_callback)
		return -EDEADLK;
	if (!c->root)
		return -ECHILD;
	if (c->finished)
		return 0;
	if (c->drained && !c->saw_echild && c->tab.live > 0)
		wait_kernel(c, sleep_for(c, timeout_ms));
	int n = 0;
	if (c->phase != PH_DONE)
		n = drain(c, false);
	/* A batch cut at its bound left news in the kernel: no sleep. */
	c->drained = c->queue_empty;
	if (n == -ECHILD || c->phase == PH_DONE) {
		finish(c);
		return 0;
	}
	act_on_signals(c);
	if (c->end_request) { /* asked for from a callback */
		enum corral_reason why = c->end_request;
		c->end_request = CORRAL_REASON_NONE;
		corral_request_end(c, why);
	}
	groups_step(c); /* job control: may stop corral itself */
	live_step(c);	/* live view requests */
	check_deadlines(c);
	if (c->phase == PH_DONE) {
		finish(c);
		return 0;
	}
	/* corral_fd(): readable when the next step has something to do. */
	if (c->pollfd)
		pollfd_arm(c, (c->drained && !c->saw_echild &&
			       c->tab.live > 0 && !c->pending_sigs)
				      ? sleep_for(c, -1)
				      : 0);
	return 1;
}

int corral_wait(struct corral *c)
{
	int r;
	while ((r = corral_step(c, -1)) > 0)
		;
	return r;
}

void corral_request_end(struct corral *c, enum corral_reason why)
{
	if (!c->root || c->finished)
		return;
	if (c->in_callback) { /* the engine is mid-event: later */
		c->end_request = why;
		pollfd_arm(c, 0);
		return;
	}
	ending_begin(c, why, 0);
	ending_tick(c); /* without a grace, done before returning */
}

pid_t corral_root_pid(const struct corral *c)
{
	return c->root;
}

const char *corral_error(const struct corral *c)
{
	if (!c->errmsg[0] && sandbox_error(c))
		return sandbox_error(c);
	return c->errmsg;
}

int corral_foreach_proc(struct corral *c,
			void (*fn)(const struct corral_proc_info *p, void *arg),
			void *arg)
{
	for (struct task *t = c->tab.first; t; t = t->next) {
		struct corral_proc_info p = {
			.pid = t->tid,
			.ppid = t->creator_tgid,
			.nspid = t->nspid,
			.born = t->born,
			.ended = t->ended,
			.nthreads = t->nthreads,
			.threads_seen = t->threads_seen,
			.status = t->status,
			.setup = t->flags & TF_SETUP,
			.path = t->path,
			.argv = (const char *const *)t->argv,
			.nexecs = t->nexecs,
			.argv_truncated = t->flags & TF_ARGV_CUT,
		};
		switch (t->state) {
		case TS_HELD:
			p.state = 't';
			break;
		case TS_LISTEN:
			p.state = 'T';
			break;
		case TS_DEAD:
			p.state = 'Z';
			break;
		default:
			p.state = 'R';
		}
		fn(&p, arg);
	}
	return 0;
}

/*
 * Give the caller its signals back without letting one that came late kill
 * it: a SIGUSR1 or SIGTERM that arrived during kill-all, or after the last
 * read of the signalfd, is still pending, and unblocking it under its
 * default action would end the process with 128+N instead of the result
 * the journal's end line gives. Setting SIG_IGN discards what is pending;
 * what arrives until the mask is restored is discarded on unblocking; then
 * the caller's dispositions come back. SIGCHLD is left alone: ignoring it
 * would make the kernel reap the caller's other children meanwhile.
 */
static void release_signals(struct corral *c)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, old[NSIG];
	bool saved[NSIG] = {0};
	for (int sig = 1; sig < NSIG; sig++) {
		if (sig == SIGCHLD || sigismember(&c->sigset, sig) != 1)
			continue;
		saved[sig] = sigaction(sig, &ign, &old[sig]) == 0;
	}
	sigprocmask(SIG_SETMASK, &c->oldmask, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		if (saved[sig])
			sigaction(sig, &old[sig], NULL);
	c->mask_set = false;
}

int corral_free(struct corral *c)
{
	if (!c)
		return 0;
	if (c->in_callback)
		return -EDEADLK;
	/* Nothing of the tree outlives its supervisor object. */
	if (c->root && !c->finished && c->phase != PH_DONE) {
		corral_stop_all(c);
		corral_kill_all(c);
	}
	spawn_tree_done(c);
	if (c->cfg.watch_parent)
		prctl(PR_SET_PDEATHSIG, 0);
	journal_close(c);
	if (c->errpipe >= 0)
		close(c->errpipe);
	if (c->sigfd >= 0)
		close(c->sigfd);
	groups_restore(c);
	pty_finish(c);
	live_close(c);
	if (c->policy_fd >= 0)
		close(c->policy_fd);
	if (c->spawn_argv && c->spawn_argv != (char **)c->cfg.argv)
		sandbox_argv_free(c->spawn_argv);
	sandbox_run_free(c);
	/* (freed on another thread than corral_new()'s: as before) */
	if (c->mask_set && (thread_objects <= 0 || --thread_objects == 0))
		release_signals(c);
	table_destroy(&c->tab);
	if (c->batch != c->batch0)
		free(c->batch);
	free(c->exe);
	filter_release(&c->filter);
	unwinder_free(c->unw);
	pollfd_free(c);
	free(c);
	return 0;
}
