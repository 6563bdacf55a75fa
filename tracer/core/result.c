/*
 * result.c - what the run came to (c->result), and its exit status.
 *
 * The one writer of the result: every file that sees part of it (the
 * engine a birth, the ending a kill, the journal its check) tells this
 * file with a call that names what happened, so that what the result says
 * is made in one place and can be read in one place. The exit status is
 * the policy (docs/cli.md, "Exit status"), for the end line of a run that
 * ended and of one refused before it started: the journal reports that it
 * failed (journal_settle()), this file decides what that does to the
 * status.
 *
 * At the bottom of the layers: it calls nothing of corral's.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "internal.h"

int exit_code(const struct corral *c)
{
	const struct corral_result *r = &c->result.res;
	if (r->sandbox_failed)
		return CORRAL_EXIT_INTERNAL;
	if (r->exec_failed) {
		if (c->result.spawn_stage != 0)
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
	OWN(c, result)->res.exit_code =
		journal_failed ? CORRAL_EXIT_INTERNAL : exit_code(c);
}

void result_failed(struct corral *c)
{
	OWN(c, result)->res.exit_code = CORRAL_EXIT_INTERNAL;
}

void result_error(struct corral *c, const char *fmt, ...)
{
	struct result_part *r = OWN(c, result);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
}

/* The tree, as the engine sees it. */

void result_born(struct corral *c, bool thread)
{
	struct corral_result *r = &OWN(c, result)->res;
	if (thread)
		r->threads++;
	else
		r->processes++;
}

void result_exec(struct corral *c)
{
	OWN(c, result)->res.execs++;
}

void result_left(struct corral *c)
{
	OWN(c, result)->res.left++;
}

void result_root_exit(struct corral *c, int status)
{
	OWN(c, result)->res.status = status;
}

void result_escape(struct corral *c)
{
	OWN(c, result)->res.escapes++;
}

/* The command that never ran. */

void result_exec_failed(struct corral *c, int err, int stage)
{
	struct result_part *r = OWN(c, result);
	r->res.exec_failed = true;
	r->res.exec_errno = err;
	r->spawn_stage = stage;
}

void result_sandbox_failed(struct corral *c)
{
	OWN(c, result)->res.sandbox_failed = true;
}

void result_boundary(struct corral *c, int abi, unsigned scopes)
{
	struct corral_result *r = &OWN(c, result)->res;
	r->landlock_abi = abi;
	r->scopes = scopes;
}

/* The ending. */

void result_ending(struct corral *c, enum corral_reason why, int sig, double t)
{
	struct corral_result *r = &OWN(c, result)->res;
	r->reason = why;
	r->term_signal = sig;
	r->t_ending = t;
}

void result_grace_took(struct corral *c, double t)
{
	OWN(c, result)->res.t_grace = t;
}

void result_stop_took(struct corral *c, double t)
{
	OWN(c, result)->res.t_stop = t;
}

void result_kill_took(struct corral *c, double t)
{
	OWN(c, result)->res.t_kill += t;
}

void result_unstopped(struct corral *c, unsigned long n)
{
	OWN(c, result)->res.unstopped = n;
}

void result_killed(struct corral *c)
{
	OWN(c, result)->res.killed++;
}

void result_dying(struct corral *c, unsigned long n)
{
	OWN(c, result)->res.dying = n;
}

unsigned long result_survivor(struct corral *c)
{
	return OWN(c, result)->res.survivors++;
}

void result_end_at(struct corral *c, double t)
{
	OWN(c, result)->res.t_end = t;
}

/* What was taken from the tree and what was lost on the way. */

void result_stack(struct corral *c)
{
	OWN(c, result)->res.stacks++;
}

void result_stacks_skipped(struct corral *c, unsigned long n)
{
	OWN(c, result)->res.stacks_skipped += n;
}

void result_cores(struct corral *c, unsigned long written, unsigned long cut,
		  unsigned long failed, unsigned long skipped)
{
	struct corral_result *r = &OWN(c, result)->res;
	r->cores += written;
	r->cores_cut += cut;
	r->cores_failed += failed;
	r->cores_skipped += skipped;
}

void result_pty_dropped(struct corral *c, unsigned long bytes)
{
	OWN(c, result)->res.pty_dropped += bytes;
}

void result_journal_checked(struct corral *c, unsigned long lost, int intact)
{
	struct corral_result *r = &OWN(c, result)->res;
	r->journal_lost = lost;
	r->journal_intact = intact;
}

void result_journal_closed(struct corral *c, unsigned long lines,
			   unsigned long lost, unsigned long errors, int intact,
			   const char *head)
{
	struct corral_result *r = &OWN(c, result)->res;
	r->journal_lines = lines;
	r->journal_lost = lost;
	r->journal_errors = errors;
	r->journal_intact = intact;
	snprintf(r->journal_head, sizeof(r->journal_head), "%s", head);
}
