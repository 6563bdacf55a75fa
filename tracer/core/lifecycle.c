/*
 * lifecycle.c - the supervisor object's life: corral_new() validates and
 * prepares everything that can fail before anything is started (the
 * journal, the command's path, the sandbox, the boundary, the terminal,
 * the filter, the signals, the live socket), and corral_free() takes it
 * all back, ending the tree first if it is still there (nothing of the
 * tree outlives its supervisor object).
 *
 * The signal mask is the subtle part: see setup_signals().
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "filter.h"
#include "pollfd.h"
#include "pathfind.h"
#include "sandbox.h"
#include "internal.h"

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
	struct lifecycle_part *lc = OWN(c, lifecycle);
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
	 * The signals that end the run (or hasten its end) cut a stack walk
	 * short: corral acts on them first (stacks.c, walker.c).
	 */
	sigemptyset(&lc->stop_walks);
	static const int ends[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR2};
	for (size_t i = 0; i < sizeof(ends) / sizeof(*ends); i++)
		if (sigismember(&set, ends[i]) == 1)
			sigaddset(&lc->stop_walks, ends[i]);
	/*
	 * corral is not in its command's process group (groups.c); blocked
	 * SIGTTOU/SIGTTIN let it write its report to the terminal and hand
	 * the terminal back without being stopped as a background job.
	 */
	sigset_t bg;
	sigemptyset(&bg);
	sigaddset(&bg, SIGTTOU);
	sigaddset(&bg, SIGTTIN);
	lc->sigset = set;
	if (sigprocmask(SIG_BLOCK, &set, &lc->oldmask) < 0)
		return -errno;
	if (thread_objects++)
		lc->oldmask = thread_mask;
	else
		thread_mask = lc->oldmask;
	lc->mask_set = true;
	sigprocmask(SIG_BLOCK, &bg, NULL);
	lc->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (lc->sigfd < 0)
		return -errno;
	if (c->cfg.handle_signals) {
		/* A journal reader that goes away must not kill corral. */
		struct sigaction old, ign = {.sa_handler = SIG_IGN};
		sigaction(SIGPIPE, &ign, &old);
		if (host_pipe_ignored < 0)
			host_pipe_ignored = old.sa_handler == SIG_IGN;
		lc->sigpipe_was_ignored =
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
 * The bare object: the caller's config (already imported), the kernel seam
 * it runs on, no descriptor open, the clock started, an empty table.
 * corral_new() builds on it; the unit tests build on it with a scripted
 * kernel (tests/unit/mock_kernel.h).
 */
struct corral *supervisor_alloc(const struct corral_config *cfg,
				const struct corral_sys *sys)
{
	struct corral *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cfg = *cfg;
	c->sys = sys;
	struct lifecycle_part *lc = OWN(c, lifecycle);
	lc->self = getpid();
	lc->parent = sys->parent(sys->ctx);
	lc->sigfd = -1;
	spawn_init(c);
	groups_init(c);
	pty_init(c);
	/* What the sleep serves besides the kernel, in the order served. */
	if (cfg->journal_path || cfg->journal_fd >= 0)
		plug_add(c, &journal_plug);
	if (cfg->pty)
		plug_add(c, &pty_plug);
	plug_add(c, &live_plug);
	lc->t0 = sys->now(sys->ctx);
	/*
	 * What is read at an event only when something uses it: an exec's
	 * argv and exe cost reads of the tracee per exec; wait4's rusage
	 * makes the kernel sum the task's CPU time at every status.
	 */
	bool journal = cfg->journal_path || cfg->journal_fd >= 0;
	lc->want_argv = journal || cfg->on_event || cfg->history;
	lc->want_rusage = journal || cfg->on_event;
	if (table_init(&c->tab) < 0) {
		free(c);
		return NULL;
	}
	return c;
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
	struct corral *c = supervisor_alloc(cfg, &sys_real);
	if (!c)
		return -ENOMEM;
	int r;
	/* Before the journal: a refused --core-dir leaves no file behind. */
	r = cores_open(c, err, errlen);
	if (r < 0) {
		r = -EINVAL; /* -ENOENT/-EACCES are for the command only */
		goto fail;
	}
	r = journal_open(c, err, errlen);
	if (r < 0) {
		r = -EIO; /* -ENOENT/-EACCES are for the command only */
		goto fail;
	}
	/* The command, the sandbox, the boundary: refused with a journal. */
	r = spawn_prepare(c, err, errlen);
	if (r < 0)
		goto fail;
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
	r = spawn_filter(c, err, errlen);
	if (r < 0)
		goto fail;
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
	struct lifecycle_part *lc = OWN(c, lifecycle);
	struct sigaction ign = {.sa_handler = SIG_IGN}, old[NSIG];
	bool saved[NSIG] = {0};
	for (int sig = 1; sig < NSIG; sig++) {
		if (sig == SIGCHLD || sigismember(&lc->sigset, sig) != 1)
			continue;
		saved[sig] = sigaction(sig, &ign, &old[sig]) == 0;
	}
	sigprocmask(SIG_SETMASK, &lc->oldmask, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		if (saved[sig])
			sigaction(sig, &old[sig], NULL);
	lc->mask_set = false;
}

int corral_free(struct corral *c)
{
	if (!c)
		return 0;
	struct lifecycle_part *lc = OWN(c, lifecycle);
	if (c->events.in_callback)
		return -EDEADLK;
	/* Nothing of the tree outlives its supervisor object. */
	if (c->spawn.root && !c->spawn.finished && c->phase.now != PH_DONE) {
		corral_stop_all(c);
		corral_kill_all(c);
	}
	spawn_tree_done(c);
	if (c->cfg.watch_parent)
		prctl(PR_SET_PDEATHSIG, 0);
	plug_close(c); /* the journal, the pty, the live view */
	cores_close(c);
	if (lc->sigfd >= 0)
		close(lc->sigfd);
	groups_restore(c);
	spawn_free(c); /* its descriptors, the command's argv and path */
	sandbox_run_free(c);
	/* (freed on another thread than corral_new()'s: as before) */
	if (lc->mask_set && (thread_objects <= 0 || --thread_objects == 0))
		release_signals(c);
	eptrace_free(c);
	table_destroy(&c->tab);
	waiter_free(c);
	stacks_end(c); /* a walk session left open */
	pollfd_free(c);
	free(c);
	return 0;
}
