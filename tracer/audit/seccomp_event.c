/*
 * seccomp_event.c - PTRACE_EVENT_SECCOMP stops: a member made a call that
 * the containment filter marks SECCOMP_RET_TRACE (the escape audit, see
 * filter.h). The filter selects the calls, so the tree pays a stop only for
 * them; audit.c decodes the call; here the verdict is applied:
 *
 *   log   the call runs; one `escape` event records it
 *   deny  the call fails with EPERM (audit_deny) and is recorded
 *   kill  recorded, then the whole tree is ended (exit 123)
 *
 * Which call it is comes from the kernel (arch, number, arguments) and
 * corral's own filter, never from the stop's data (audit.h); a call that
 * cannot be judged is refused and recorded, never resumed as is.
 *
 * bubblewrap's own setup (tasks marked setup) needs unshare, clone with
 * namespace flags and mount; those are recorded and always allowed, or
 * --sandbox could never start. Calls aimed at corral itself are refused
 * by audit_inspect() in every mode.
 */
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>

#include "audit.h"
#include "filter.h"
#include "internal.h"
#include "names.h"
#include "unwind.h"

static bool is_member(pid_t pid, void *arg)
{
	struct corral *c = arg;
	return table_find(&c->tab, pid) != NULL;
}

static bool is_member_pgrp(pid_t pgid, void *arg)
{
	/*
	 * A group is the tree's when its leader is a member (a member that
	 * made a group is its leader; a group outside the tree has a leader
	 * we never saw), or when it is the group the command was started in:
	 * going back there (bash -i giving up job control) leaves nothing.
	 */
	struct corral *c = arg;
	return pgid == c->groups.root_pgid || is_member(pgid, arg);
}

static pid_t tgid_of(pid_t tid, void *arg)
{
	struct corral *c = arg;
	struct task *t = table_find(&c->tab, tid);
	return t ? t->tgid : 0;
}

/*
 * Observing a call, apart from judging it: the rules syscalls.def marks
 * OBSERVE are traced in every mode because the emulated ptrace
 * (eptrace.c) must see them. true: the observer took the task (a wait it
 * parked or answered); else the audit's verdict follows as for any call.
 */
static bool observe(struct corral *c, struct task *t, struct audit_call *call)
{
	switch (call->rule) {
	case FILTER_RULE_WAIT:
		if (!eptrace_wait(c, t, call))
			task_resume(c, t, 0);
		return true;
	case FILTER_RULE_CLONE_UNTRACED:
		if (eptrace_untraced_clone(c, t, call) < 0) {
			/* Not made traced: refused, as it always was. */
			if (audit_deny(c->sys, t->tid, EPERM) < 0)
				c->sys->kill(c->sys->ctx, t->tgid, SIGKILL);
			call->denied = true;
			call->why = "CLONE_UNTRACED could not be cleared";
		}
		return false;
	case FILTER_RULE_PRCTL:
		eptrace_prctl(c, t, call);
		return false;
	default: /* PTRACE is emulated after the verdict; AUDIT rules */
		return false;
	}
}

void engine_seccomp(struct corral *c, struct task *t)
{
	struct audit_tree_ops ops = {is_member, is_member_pgrp, c, tgid_of};
	struct audit_call call;
	int r = audit_inspect(c->sys, t->tid, &c->spawn.filter, &ops, &call);
	if (r == -ESRCH)
		return; /* killed mid-stop: its exit comes as an event */
	if (r == AUDIT_NOT_OURS) {
		/* A member's own filter stopped a call ours lets run: the
		 * wait trap of a process that traces (eptrace.c), or a
		 * filter of its own. */
		if (!eptrace_plain_wait(c, t, &call))
			task_resume(c, t, 0);
		return;
	}
	if (r < 0) {
		/*
		 * Fail closed: a call we cannot judge does not run. If even
		 * that fails, the task does not live on with it.
		 */
		int e = audit_deny(c->sys, t->tid, call.refuse_errno);
		if (e < 0 && e != -ESRCH)
			c->sys->kill(c->sys->ctx, t->tgid, SIGKILL);
		call.denied = true;
	}
	if (!call.denied && observe(c, t, &call))
		return;
	enum corral_escape_mode mode = c->cfg.escape;
	enum corral_verdict verdict;
	if (call.denied) {
		verdict = CORRAL_VERDICT_DENY;
	} else if (!call.escape) {
		verdict = CORRAL_VERDICT_ALLOW;
	} else if (t->flags & TF_SETUP) {
		verdict = CORRAL_VERDICT_SETUP;
	} else if (mode == CORRAL_ESCAPE_DENY) {
		audit_deny(c->sys, t->tid, EPERM);
		verdict = CORRAL_VERDICT_DENY;
	} else if (mode == CORRAL_ESCAPE_KILL) {
		verdict = CORRAL_VERDICT_KILL;
	} else {
		verdict = CORRAL_VERDICT_LOG;
	}
	/*
	 * A member's ptrace() that the audit lets run is emulated (the real
	 * call never runs). The verdict stays the audit's: the emulation
	 * answers as the kernel would (EPERM for TRACEME, ESRCH for no such
	 * process), and its own refusals are ptrace events of their own.
	 */
	if (call.rule == FILTER_RULE_PTRACE && !call.denied &&
	    verdict != CORRAL_VERDICT_DENY && verdict != CORRAL_VERDICT_KILL) {
		/* A first attach installs the wait trap; the call then runs
		 * again and is judged and recorded then. */
		if (eptrace_trap_waits(c, t, &call))
			return;
		(void)eptrace_ptrace(c, t, &call);
	}
	/*
	 * Calls the filter must trace but that say nothing (a signal within
	 * the tree) stay quiet; an escape, a refusal, or a call the decoder
	 * has a word for (a parent-death signal, not dumpable) is recorded.
	 * Without --escape, only what is refused for aiming at corral: the
	 * calls traced for the emulated ptrace are its own events.
	 */
	if ((call.escape || call.denied || (call.why && *call.why)) &&
	    (mode != CORRAL_ESCAPE_OFF || call.denied)) {
		result_escape(c);
		/* The stack goes in the same event: who, what, verdict, where.
		 */
		struct corral_frame frames[UNWINDER_MAX_FRAMES];
		const char *uerr = NULL, *cut = NULL;
		int nf = 0;
		if (c->cfg.stacks & CORRAL_STACKS_ESCAPE)
			nf = stacks_unwind(c, t, frames, UNWINDER_MAX_FRAMES,
					   STACK_WALK_LIMIT, &uerr, &cut);
		struct corral_event ev = task_event(CORRAL_EV_ESCAPE, t);
		ev.detail = call.text;
		ev.error = call.why;
		ev.escape_verdict = verdict;
		ev.verdict = verdict_name(verdict);
		ev.frames = nf ? frames : NULL;
		ev.nframes = nf;
		ev.cut = cut;
		emit(c, &ev);
		/* The frames' strings belong to the walk session: after. */
		stacks_end(c);
	}
	if (verdict == CORRAL_VERDICT_KILL) {
		/* Held: it must not complete the call while the tree ends. */
		table_set_state(&c->tab, t, TS_HELD);
		phase_begin_ending(c, CORRAL_REASON_ESCAPE, 0);
		return;
	}
	task_resume(c, t, 0);
}
