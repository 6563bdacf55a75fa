/*
 * result.c - the run's exit status, from its result: the policy in one
 * place (docs/cli.md, "Exit status"), for the end line of a run that ended
 * and of one refused before it started. The one writer of
 * corral_result.exit_code: the journal reports that it failed
 * (journal_settle()), this file decides what that does to the status.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "internal.h"

int exit_code(const struct corral *c)
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
	/* Before the reason: the tree is not confirmed gone (a task still
	 * dying when corral gave up is a survivor too). */
	if (r->dying || r->survivors)
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

void result_decide(struct corral *c, bool journal_failed)
{
	/* --journal-strict: a journal that lost a line, or is not the one
	 * written, fails the run whatever else happened. */
	c->res.exit_code = journal_failed ? CORRAL_EXIT_INTERNAL : exit_code(c);
}

void result_failed(struct corral *c)
{
	c->res.exit_code = CORRAL_EXIT_INTERNAL;
}
