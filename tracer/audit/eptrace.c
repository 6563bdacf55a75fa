/*
 * eptrace.c - the emulated ptrace: a member that calls ptrace() on another
 * member gets a tracer relationship served by corral from the stops it
 * holds (docs/design.md, "The emulated ptrace").
 *
 * corral stays the only real tracer: every member's ptrace() call stops
 * at corral (the containment filter TRACEs it in every mode), is answered
 * here and skipped; the kernel never runs one. So the tree's containment
 * is what it was: every task auto-attached to corral with its options
 * (EXITKILL included), nothing escapes, kill-all ends everything.
 *
 * An emulated tracee is stopped by holding it at a real ptrace-stop:
 * PTRACE_ATTACH sends a real PTRACE_INTERRUPT (no signal left in flight)
 * and whatever stop comes next is held (phase.c, ept_holds) and reported
 * to the tracer as the stop by SIGSTOP it expects. A signal about to be
 * delivered to an emulated tracee is held too and reported, and the
 * tracer's PTRACE_CONT(sig) decides it, as with a real tracer. Requests
 * that read or write the tracee (registers, memory, siginfo) are made by
 * corral on the held task and their results written into the tracer's
 * memory.
 *
 * Waits: the filter TRACEs only wait4/waitid with __WALL (what LSan, gdb
 * and strace use; a shell or make never sets it and pays nothing). A wait
 * that concerns an emulated tracee is answered here; with nothing to
 * report it is parked: the tracer is held at its wait's seccomp stop until
 * a stop of its tracee comes (eptrace_deliver). Any other wait runs.
 *
 * Never looser than the kernel: an attach is allowed only where the
 * kernel would allow a real one between those two tasks (credentials,
 * dumpable, capabilities, Yama's scope with the PR_SET_PTRACER corral saw),
 * only on a member in the caller's pid namespace, never on corral, never
 * between the sandbox's setup and the command.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
/* After <sys/ptrace.h>. */
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/elf.h>
#include <linux/filter.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/seccomp.h>

#include "audit.h"
#include "filter.h"
#include "internal.h"
#include "names.h"

#ifndef PR_SET_PTRACER
#define PR_SET_PTRACER 0x59616d61
#endif
#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

#if defined(__x86_64__)
#define EPT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define EPT_ARCH AUDIT_ARCH_AARCH64
#endif

/* The options an emulated tracer may set: the ones emulated, and two that
 * are accepted and never produce a stop (TRACEEXIT, TRACEVFORKDONE:
 * docs/design.md, "Limits"). */
#define EPT_OPTIONS                                                            \
	(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL | PTRACE_O_TRACEFORK |      \
	 PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |      \
	 PTRACE_O_TRACEEXIT | PTRACE_O_TRACEVFORKDONE)
/* What one GETREGSET/SETREGSET moves at most (x86's XSTATE is ~2.7 KiB;
 * LSan doubles its buffer until the answer fits). */
#define EPT_REGSET_MAX (64 * 1024)
/* Ends of emulated tracees kept for tracers that have not waited for them
 * (the kernel's zombies of traced tasks), in all: a member tracer that
 * never waits cannot grow corral's memory, nor the list every wait
 * walks, past this (about 40 bytes each). Past it an end is not kept:
 * journaled once, the tracer's wait for it finds nothing. */
#define EPT_ZOMBIES_MAX 4096

static const char *req_name(long req, char *buf, size_t len)
{
	static const struct {
		long req;
		const char *name;
	} names[] = {
		{PTRACE_TRACEME, "PTRACE_TRACEME"},
		{PTRACE_PEEKTEXT, "PTRACE_PEEKTEXT"},
		{PTRACE_PEEKDATA, "PTRACE_PEEKDATA"},
		{PTRACE_PEEKUSER, "PTRACE_PEEKUSER"},
		{PTRACE_POKETEXT, "PTRACE_POKETEXT"},
		{PTRACE_POKEDATA, "PTRACE_POKEDATA"},
		{PTRACE_POKEUSER, "PTRACE_POKEUSER"},
		{PTRACE_CONT, "PTRACE_CONT"},
		{PTRACE_KILL, "PTRACE_KILL"},
		{PTRACE_SINGLESTEP, "PTRACE_SINGLESTEP"},
		{PTRACE_GETREGS, "PTRACE_GETREGS"},
		{PTRACE_SETREGS, "PTRACE_SETREGS"},
		{PTRACE_GETFPREGS, "PTRACE_GETFPREGS"},
		{PTRACE_SETFPREGS, "PTRACE_SETFPREGS"},
		{PTRACE_ATTACH, "PTRACE_ATTACH"},
		{PTRACE_DETACH, "PTRACE_DETACH"},
		{PTRACE_SYSCALL, "PTRACE_SYSCALL"},
		{PTRACE_SETOPTIONS, "PTRACE_SETOPTIONS"},
		{PTRACE_GETEVENTMSG, "PTRACE_GETEVENTMSG"},
		{PTRACE_GETSIGINFO, "PTRACE_GETSIGINFO"},
		{PTRACE_SETSIGINFO, "PTRACE_SETSIGINFO"},
		{PTRACE_GETREGSET, "PTRACE_GETREGSET"},
		{PTRACE_SETREGSET, "PTRACE_SETREGSET"},
		{PTRACE_SEIZE, "PTRACE_SEIZE"},
		{PTRACE_INTERRUPT, "PTRACE_INTERRUPT"},
		{PTRACE_LISTEN, "PTRACE_LISTEN"},
		{PTRACE_PEEKSIGINFO, "PTRACE_PEEKSIGINFO"},
		{PTRACE_GET_SYSCALL_INFO, "PTRACE_GET_SYSCALL_INFO"},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].req == req)
			return names[i].name;
	snprintf(buf, len, "ptrace request %#lx", (unsigned long)req);
	return buf;
}

/* ---- the records */

static struct ept *ept_get(struct corral *c, struct task *t)
{
	struct eptrace_part *ep = OWN(c, eptrace);
	if (t->ept)
		return t->ept;
	struct ept *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->task = t;
	e->next = ep->list;
	if (ep->list)
		ep->list->prev = e;
	ep->list = e;
	t->ept = e;
	return e;
}

/* At corral_free(): the records of sessions still open when the run ended. */
void eptrace_free(struct corral *c)
{
	struct eptrace_part *ep = OWN(c, eptrace);
	for (struct ept *e = ep->list, *n; e; e = n) {
		n = e->next;
		if (e->task)
			e->task->ept = NULL;
		free(e->inj);
		free(e);
	}
	ep->list = NULL;
	for (struct ept_zombie *z = ep->zombies, *n; z; z = n) {
		n = z->next;
		free(z);
	}
	ep->zombies = NULL;
	ep->nzombies = 0;
}

/* Take a record off the list and its task, and free it. */
static void ept_unlink(struct eptrace_part *ep, struct ept *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		ep->list = e->next;
	if (e->next)
		e->next->prev = e->prev;
	e->task->ept = NULL;
	free(e);
}

/* Free a record that plays no part any more. */
static void ept_put(struct corral *c, struct ept *e)
{
	struct eptrace_part *ep = OWN(c, eptrace);
	if (e->tracer || e->parked || e->stopped || e->inj || e->in_wait)
		return;
	if (e->interrupting)
		return; /* its PTRACE_EVENT_STOP will come: swallowed then */
	for (struct ept *x = ep->list; x; x = x->next)
		if (x->tracer == e->task->tid)
			return; /* still a tracer */
	ept_unlink(ep, e);
}

static void ept_event(struct corral *c, struct task *tracer, pid_t tracee,
		      enum corral_ptrace_action action, const char *detail)
{
	struct corral_event ev = task_event(CORRAL_EV_PTRACE, tracer);
	ev.tracee = tracee;
	ev.ptrace_action = action;
	ev.action = ptrace_action_name(action);
	ev.detail = detail;
	emit(c, &ev);
}

/* A request corral does not emulate, or refuses as the kernel would
 * (action): journaled once per run and request. */
static long once(struct corral *c, struct task *t, long req, const char *what,
		 long err, enum corral_ptrace_action action)
{
	struct eptrace_part *ep = OWN(c, eptrace);
	unsigned bit = (unsigned)((unsigned long)req % 61);
	if (!(ep->warned & (1ULL << bit))) {
		ep->warned |= 1ULL << bit;
		char nb[48], d[160];
		snprintf(d, sizeof(d), "%s: %s (%s)",
			 req_name(req, nb, sizeof(nb)), strerror((int)-err),
			 what);
		ept_event(c, t, 0, action, d);
	}
	return err;
}

static long unsupported(struct corral *c, struct task *t, long req,
			const char *what, long err)
{
	return once(c, t, req, what, err, CORRAL_PTRACE_UNSUPPORTED);
}

/* ---- the tracer's memory */

static int put_mem(struct corral *c, struct task *t, uint64_t addr,
		   const void *buf, size_t len)
{
	if (!len)
		return 0;
	ssize_t n = c->sys->write_mem(c->sys->ctx, t->tid, addr, buf, len);
	return n == (ssize_t)len ? 0 : -EFAULT;
}

static int get_mem(struct corral *c, struct task *t, uint64_t addr, void *buf,
		   size_t len)
{
	ssize_t n = c->sys->read_mem(c->sys->ctx, t->tid, addr, buf, len);
	return n == (ssize_t)len ? 0 : -EFAULT;
}

/* ---- who may trace whom */

struct resolve_scan {
	pid_t vpid;
	struct task *found;
};

static int match_nspid(struct task *t, void *arg)
{
	struct resolve_scan *s = arg;
	if (t->nspid == s->vpid) {
		s->found = t;
		return 1;
	}
	return 0;
}

/*
 * The member a caller names vpid, in its pid namespace: corral's own
 * numbers when it shares corral's namespace, else the innermost ones
 * recorded under --sandbox (checked against /proc by the caller).
 */
static struct task *resolve(struct corral *c, const struct procfs_creds *cc,
			    pid_t vpid)
{
	if (vpid <= 0)
		return NULL;
	struct procfs_creds self;
	if (c->sys->creds(c->sys->ctx, c->lifecycle.self, &self) == 0 &&
	    self.pidns == cc->pidns) {
		struct task *t = table_find(&c->tab, vpid);
		return t && !t->nspid ? t : NULL;
	}
	struct resolve_scan s = {vpid, NULL};
	table_foreach_live(&c->tab, match_nspid, &s);
	return s.found;
}

/* Is process tgid anc an ancestor of process tgid pid, or pid itself
 * (Yama's task_is_descendant, by the real parents /proc gives)? */
static bool descends(struct corral *c, pid_t anc, pid_t pid)
{
	for (int depth = 0; pid > 1 && depth < 4096; depth++) {
		if (pid == anc)
			return true;
		pid_t tgid = 0, ppid = 0;
		if (c->sys->ids(c->sys->ctx, pid, &tgid, &ppid, NULL) < 0)
			return false;
		pid = ppid;
	}
	return false;
}

static bool has_cap(unsigned long long caps, int cap)
{
	return (caps >> cap) & 1;
}

/*
 * The kernel's __ptrace_may_access(PTRACE_MODE_ATTACH_REALCREDS) and the
 * LSMs' checks, as corral can read them, always on the strict side:
 * capabilities count only in the target's own user namespace (or corral's,
 * its ancestor).
 */
static int may_attach(struct corral *c, struct task *tr,
		      const struct procfs_creds *a, struct task *g, pid_t vpid,
		      bool *capable, const char **why)
{
	if (g->tgid == tr->tgid)
		return *why = "same thread group", -EPERM;
	if ((g->flags | tr->flags) & TF_SETUP)
		return *why = "the sandbox's setup", -EPERM;
	if (!(g->flags & TF_ANNOUNCED) || (g->flags & TF_KILLED))
		return *why = "not a member yet, or killed", -ESRCH;
	if (g->ept && g->ept->tracer)
		return *why = "already traced", -EPERM;
	struct procfs_creds b, self;
	int r = c->sys->creds(c->sys->ctx, g->tid, &b);
	if (r == -EACCES || r == -EPERM)
		/* Closed even to corral: not dumpable, corral unprivileged. */
		return *why = "not dumpable", -EPERM;
	if (r < 0)
		return *why = "its credentials cannot be read", -ESRCH;
	if (b.pidns != a->pidns || b.nspid != vpid)
		return *why = "not in the caller's pid namespace", -ESRCH;
	bool self_ok =
		c->sys->creds(c->sys->ctx, c->lifecycle.self, &self) == 0;
	bool cap = has_cap(a->cap_eff, CAP_SYS_PTRACE) &&
		   (a->userns == b.userns ||
		    (self_ok && a->userns == self.userns));
	bool ids = a->uid[0] == b.uid[0] && a->uid[0] == b.uid[1] &&
		   a->uid[0] == b.uid[2] && a->gid[0] == b.gid[0] &&
		   a->gid[0] == b.gid[1] && a->gid[0] == b.gid[2];
	*capable = cap;
	if (!ids && !cap)
		return *why = "other credentials", -EPERM;
	struct task *leader = table_find(&c->tab, g->tgid);
	bool dumpable = b.dumpable && !(leader && (leader->flags & TF_NODUMP));
	if (!dumpable && !cap)
		return *why = "not dumpable", -EPERM;
	/* commoncap: the target's permitted set within the tracer's. */
	if (!cap && !(a->userns == b.userns && !(b.cap_prm & ~a->cap_prm)))
		return *why = "more capabilities", -EPERM;
	int scope = c->sys->yama_scope(c->sys->ctx);
	if (scope == 0 || (scope == 1 && cap) || (scope == 2 && cap))
		return 0;
	if (scope == 1) {
		if (descends(c, tr->tgid, g->tgid))
			return 0;
		pid_t p = leader ? leader->ptracer : 0;
		if (p == -1 || (p > 0 && descends(c, p, tr->tgid)))
			return 0;
		return *why = "Yama: not a descendant, no PR_SET_PTRACER",
		       -EPERM;
	}
	return *why = "Yama's ptrace_scope", -EPERM;
}

/* ---- stops */

/* Ask for an emulated stop of e's task (ATTACH, INTERRUPT). */
static void request_stop(struct corral *c, struct ept *e, uint8_t kind)
{
	struct task *t = e->task;
	e->want = kind;
	if (t->state == TS_HELD) {
		/* In a ptrace-stop corral holds: the stop is here already. */
		e->stopped = true;
		e->kind = kind;
		e->sig = e->want_sig;
		e->want = EK_NONE;
		e->want_sig = 0;
		e->arrived = true;
		OWN(c, eptrace)->news = true;
		return;
	}
	if (t->state == TS_NEW)
		return; /* its first stop comes and is held (phase.c) */
	if (!e->interrupting &&
	    sys_ptrace(c->sys, PTRACE_INTERRUPT, t->tid, 0, 0) == 0)
		e->interrupting = true;
}

/* Let e's task go from its emulated stop (injecting sig at a signal stop). */
static void release(struct corral *c, struct ept *e, int sig)
{
	struct task *t = e->task;
	bool was_signal = e->kind == EK_SIGNAL;
	e->stopped = false;
	e->pending = false;
	e->kind = EK_NONE;
	e->sig = 0;
	if (e->want && !e->interrupting && t->state == TS_HELD &&
	    sys_ptrace(c->sys, PTRACE_INTERRUPT, t->tid, 0, 0) == 0)
		e->interrupting = true; /* traps again soon after */
	if (e->parked)
		return; /* still held: its own wait */
	e->pass = true;
	task_resume(c, t, was_signal ? sig : 0);
}

/* The wait status a stop is reported with. */
static int stop_status(const struct ept *e)
{
	switch (e->kind) {
	case EK_SIGNAL:
		return (e->sig << 8) | 0x7f;
	case EK_EVENT:
		return (PTRACE_EVENT_STOP << 16) |
		       ((e->sig ? e->sig : SIGTRAP) << 8) | 0x7f;
	case EK_PTEVENT:
		return (e->event << 16) | (SIGTRAP << 8) | 0x7f;
	case EK_SYSCALL:
		return ((SIGTRAP |
			 (e->options & PTRACE_O_TRACESYSGOOD ? 0x80 : 0))
			<< 8) |
		       0x7f;
	default:
		return (SIGSTOP << 8) | 0x7f;
	}
}

/* ---- waits */

static bool wait_matches(const struct ept *w, const struct ept *e)
{
	return e->tracer_tgid == w->task->tgid &&
	       (w->wpid == -1 || w->wpid == e->vpid);
}

/*
 * Answer a wait: status (a wait status) for tracee e, written where the
 * tracer asked, the call skipped with e's pid (wait4) or 0 (waitid).
 */
static void answer(struct corral *c, struct task *w, bool waitid, uint64_t ptr,
		   uint64_t ru, int status, const struct ept *e, pid_t uid)
{
	long ret = e->vpid;
	if (waitid) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		si.si_signo = SIGCHLD;
		if (WIFEXITED(status)) {
			si.si_code = CLD_EXITED;
			si.si_status = WEXITSTATUS(status);
		} else if (WIFSIGNALED(status)) {
			si.si_code =
				WCOREDUMP(status) ? CLD_DUMPED : CLD_KILLED;
			si.si_status = WTERMSIG(status);
		} else {
			si.si_code = CLD_TRAPPED;
			si.si_status = (status >> 8) & 0xffff;
		}
		si.si_pid = e->vpid;
		si.si_uid = (uid_t)uid;
		if (ptr)
			put_mem(c, w, ptr, &si, sizeof(si));
		ret = 0;
	} else if (ptr) {
		put_mem(c, w, ptr, &status, sizeof(status));
	}
	if (ru) {
		struct rusage r;
		memset(&r, 0, sizeof(r));
		put_mem(c, w, ru, &r, sizeof(r));
	}
	audit_skip(c->sys, w->tid, ret);
}

/*
 * A stop nobody was parked for: the kernel sends the tracer SIGCHLD
 * (CLD_TRAPPED); a tracer that sleeps in sigsuspend() until it comes and
 * then waits with WNOHANG (gdb) depends on it. Sent as kill() would (the
 * siginfo says SI_USER: a handler that reads it only learns that a child
 * changed state). Not for a tracer parked in a wait: it has its answer.
 */
static void notify(struct corral *c, const struct ept *e)
{
	if (e->tracer_tgid > 0)
		c->sys->kill(c->sys->ctx, e->tracer_tgid, SIGCHLD);
}

/* A parked tracer gets its answer and runs again. */
static void unpark(struct corral *c, struct ept *w, int status,
		   const struct ept *e)
{
	w->parked = false;
	answer(c, w->task, w->waitid, w->wstatus, w->wru, status, e, 0);
	struct task *t = w->task;
	ept_put(c, w);
	task_resume(c, t, 0);
}

void eptrace_deliver(struct corral *c)
{
	struct eptrace_part *ep = OWN(c, eptrace);
	/* Before the walk: a stop held while it answers is news again. */
	ep->news = false;
	ep->held_seen = c->phase.ept_held;
	for (struct ept *e = ep->list; e; e = e->next) {
		if (!e->arrived)
			continue;
		e->arrived = false;
		e->pending = true;
		bool told = false;
		for (struct ept *w = ep->list; w; w = w->next) {
			if (!w->parked || !wait_matches(w, e))
				continue;
			if (!(w->wopts & WNOWAIT))
				e->pending = false;
			unpark(c, w, stop_status(e), e);
			told = true;
			/* The list may have lost w: start this tracee over. */
			break;
		}
		if (!told)
			notify(c, e);
	}
}

void eptrace_event_stop(struct corral *c, struct task *t)
{
	if (t->ept) {
		t->ept->interrupting = false;
		ept_put(c, t->ept);
	}
}

/* A trapped wait4/waitid, as the emulation reads it. */
struct wait_req {
	bool waitid;
	pid_t pid; /* -1 any, or the tid it waits for (its names) */
	int opts;
	uint64_t status_at, ru_at; /* where the status and rusage go */
};

/* Whether the call is a wait the emulation can take over, and what. */
static bool wait_args(const struct audit_call *call, struct wait_req *rq)
{
	/* The native ABI only: a 32-bit tracer's waits run as they are. */
	if (call->nr != SYS_wait4 && call->nr != SYS_waitid)
		return false;
	bool waitid = call->nr == SYS_waitid;
	const uint64_t *a = call->args;
	*rq = (struct wait_req){.waitid = waitid,
				.status_at = a[waitid ? 2 : 1],
				.ru_at = a[waitid ? 4 : 3]};
	if (waitid) {
		int idtype = (int)a[0];
		if (idtype == P_ALL)
			rq->pid = -1;
		else if (idtype == P_PID && (pid_t)a[1] > 0)
			rq->pid = (pid_t)a[1];
		else
			return false;
		rq->opts = (int)a[3];
	} else {
		rq->pid = (pid_t)a[0];
		if (rq->pid != -1 && rq->pid <= 0)
			return false; /* a process group: the real wait */
		rq->opts = (int)a[2];
	}
	return true;
}

/* An end it has not collected comes first, as a zombie would: true if
 * one answered the wait (t resumed). */
static bool wait_zombie(struct corral *c, struct task *t,
			const struct wait_req *rq)
{
	struct eptrace_part *ep = OWN(c, eptrace);
	for (struct ept_zombie **zp = &ep->zombies, *z; (z = *zp);
	     zp = &z->next) {
		if (z->tracer_tgid != t->tgid ||
		    (rq->pid != -1 && z->vpid != rq->pid))
			continue;
		bool keep = (rq->opts & WNOWAIT) && !z->real;
		if (!keep) {
			*zp = z->next;
			ep->nzombies--;
		}
		if (z->real) {
			/* Its own child: the real wait collects the zombie. */
			free(z);
			task_resume(c, t, 0);
			return true;
		}
		struct ept fake;
		memset(&fake, 0, sizeof(fake));
		fake.vpid = z->vpid;
		answer(c, t, rq->waitid, rq->status_at, rq->ru_at, z->status,
		       &fake, 0);
		if (!keep)
			free(z);
		task_resume(c, t, 0);
		return true;
	}
	return false;
}

/* The first of t's emulated tracees the wait is for with a stop pending;
 * *any: whether the wait is for an emulated tracee at all. */
static struct ept *wait_pending(struct corral *c, const struct task *t,
				const struct wait_req *rq, bool *any)
{
	*any = false;
	for (struct ept *e = c->eptrace.list; e; e = e->next) {
		if (!e->tracer || e->tracer_tgid != t->tgid ||
		    (rq->pid != -1 && e->vpid != rq->pid))
			continue;
		*any = true;
		if (e->pending)
			return e;
	}
	return NULL;
}

/* Nothing to report and no WNOHANG: the wait parks at its stop until a
 * stop of a tracee arrives (eptrace_deliver) or the tracee ends. */
static bool wait_park(struct corral *c, struct task *t,
		      const struct wait_req *rq)
{
	struct ept *w = ept_get(c, t);
	if (!w)
		return false;
	w->parked = true;
	w->waitid = rq->waitid;
	w->wpid = rq->pid;
	w->wopts = rq->opts;
	w->wstatus = rq->status_at;
	w->wru = rq->ru_at;
	table_set_state(&c->tab, t, TS_HELD);
	return true;
}

bool eptrace_wait(struct corral *c, struct task *t,
		  const struct audit_call *call)
{
#ifdef EPT_ARCH
	(void)EPT_ARCH;
#endif
	struct wait_req rq;
	if (!wait_args(call, &rq))
		return false;
	if (t->ept)
		t->ept->in_wait = false; /* it is here, not in the kernel */
	if (wait_zombie(c, t, &rq))
		return true;
	bool any;
	struct ept *hit = wait_pending(c, t, &rq, &any);
	if (!any) {
		/* Not about an emulated tracee: the real wait runs. In a
		 * process that traces, remember it may sleep there. */
		struct task *leader = table_find(&c->tab, t->tgid);
		struct ept *me;
		if (!(rq.opts & WNOHANG) && leader &&
		    (leader->flags & TF_WTRAP) && (me = ept_get(c, t)))
			me->in_wait = true;
		return false;
	}
	if (hit) {
		answer(c, t, rq.waitid, rq.status_at, rq.ru_at,
		       stop_status(hit), hit, 0);
		if (!(rq.opts & WNOWAIT))
			hit->pending = false;
		task_resume(c, t, 0);
		return true;
	}
	if (rq.opts & WNOHANG) {
		/* Nothing now. Real children are not merged in (a limit of
		 * this emulation: docs/design.md). */
		if (rq.waitid && rq.status_at) {
			siginfo_t si;
			memset(&si, 0, sizeof(si));
			put_mem(c, t, rq.status_at, &si, sizeof(si));
		}
		audit_skip(c->sys, t->tid, 0);
		task_resume(c, t, 0);
		return true;
	}
	return wait_park(c, t, &rq);
}

bool eptrace_plain_wait(struct corral *c, struct task *t,
			const struct audit_call *call)
{
#ifdef EPT_ARCH
	struct task *leader = table_find(&c->tab, t->tgid);
	if (call->arch != EPT_ARCH || !leader || !(leader->flags & TF_WTRAP))
		return false;
	return eptrace_wait(c, t, call);
#else
	(void)c;
	(void)t;
	(void)call;
	return false;
#endif
}

/* ---- requests */

static long do_attach(struct corral *c, struct task *t, bool seize, pid_t vpid,
		      uint64_t addr, uint64_t data)
{
	char d[160];
	if (seize && addr)
		return -EIO;
	if (seize && (data & ~(unsigned long)EPT_OPTIONS))
		return unsupported(c, t, PTRACE_SEIZE, "options not emulated",
				   -EINVAL);
	struct procfs_creds a;
	if (c->sys->creds(c->sys->ctx, t->tid, &a) < 0)
		return -ESRCH;
	const char *why = NULL;
	bool capable = false;
	struct task *g = resolve(c, &a, vpid);
	int err = g ? may_attach(c, t, &a, g, vpid, &capable, &why) : -ESRCH;
	if (!g) {
		/* A process the caller can see that is not a member: refused
		 * (the kernel would say EPERM or allow it); none: ESRCH. */
		struct procfs_creds self;
		bool seen = vpid > 0 &&
			    c->sys->creds(c->sys->ctx, c->lifecycle.self,
					  &self) == 0 &&
			    self.pidns == a.pidns &&
			    c->sys->kill(c->sys->ctx, vpid, 0) != -ESRCH;
		err = seen ? -EPERM : -ESRCH;
		why = seen ? "outside the tree" : "no such member";
	}
	if (err) {
		snprintf(d, sizeof(d), "%s %d: %s (%s)",
			 seize ? "PTRACE_SEIZE" : "PTRACE_ATTACH", vpid,
			 strerror(-err), why);
		ept_event(c, t, g ? g->tid : 0, CORRAL_PTRACE_REFUSED, d);
		return err;
	}
	struct ept *e = ept_get(c, g);
	if (!e)
		return -ENOMEM;
	e->tracer = t->tid;
	e->tracer_tgid = t->tgid;
	e->vpid = vpid;
	e->seized = seize;
	e->capable = capable;
	e->options = seize ? data : 0;
	e->want = EK_NONE;
	e->pending = false;
	ept_event(c, t, g->tid,
		  seize ? CORRAL_PTRACE_SEIZE : CORRAL_PTRACE_ATTACH, NULL);
	if (!seize)
		request_stop(c, e, EK_ATTACH);
	return 0;
}

/*
 * PTRACE_TRACEME: the caller becomes its parent's emulated tracee, as the
 * kernel makes it its real parent's tracee; its next signal (the SIGSTOP
 * it sends itself, an exec's SIGTRAP) is then a stop for the parent. The
 * parent learns of it through a wait, which corral sees only when the
 * parent's plain waits stop at corral (the wait trap its first attach
 * installed: gdb's and strace's probes attach before they fork a TRACEME
 * child). Otherwise EPERM, the kernel's answer for a traced task: a
 * parent blocked in a wait corral cannot answer would hang.
 */
static int trap_remote(struct corral *c, struct task *p, struct task *child);

static long do_traceme(struct corral *c, struct task *t)
{
	struct eptrace_part *ep = OWN(c, eptrace);
	const long req = PTRACE_TRACEME;
	if (t->ept && t->ept->tracer)
		return -EPERM; /* already traced: the kernel's answer */
	struct procfs_creds a, b;
	if (c->sys->creds(c->sys->ctx, t->tid, &a) < 0)
		return -ESRCH;
	struct task *pl = a.ppid > 0 ? table_find(&c->tab, a.ppid) : NULL;
	if (!pl || pl->tid != pl->tgid || !(pl->flags & TF_ANNOUNCED) ||
	    ((pl->flags | t->flags) & (TF_SETUP | TF_KILLED)))
		return once(c, t, req, "its parent is not a member", -EPERM,
			    CORRAL_PTRACE_REFUSED);
	if (c->sys->creds(c->sys->ctx, pl->tid, &b) < 0)
		return -ESRCH;
	/* commoncap's traceme check: the child's permitted capabilities
	 * within the parent's, or the parent holds CAP_SYS_PTRACE there. */
	bool cap = has_cap(b.cap_eff, CAP_SYS_PTRACE) && b.userns == a.userns;
	if (!cap && (a.userns != b.userns || (a.cap_prm & ~b.cap_prm)))
		return once(c, t, req, "more capabilities than its parent",
			    -EPERM, CORRAL_PTRACE_REFUSED);
	if (a.pidns != b.pidns)
		return once(c, t, req, "not in its parent's pid namespace",
			    -EPERM, CORRAL_PTRACE_REFUSED);
	/* The tracer is the thread that forked it, as the kernel's
	 * real_parent, when it is still there. */
	struct task *tr = table_find(&c->tab, t->creator);
	if (!tr || tr->tgid != pl->tgid)
		tr = pl;
	/* Its parent installs the wait trap at its next system call, before
	 * any wait of its can miss the child's stops. */
	if (!(pl->flags & TF_WTRAP) && trap_remote(c, tr, t) < 0)
		return once(c, t, req, "its parent's waits cannot be trapped",
			    -EPERM, CORRAL_PTRACE_REFUSED);
	struct ept *e = ept_get(c, t);
	if (!e)
		return -ENOMEM;
	e->tracer = tr->tid;
	e->tracer_tgid = tr->tgid;
	e->vpid = a.nspid ? a.nspid : t->tid;
	e->seized = false;
	e->capable = cap;
	e->options = 0;
	e->want = EK_NONE;
	e->pending = false;
	ept_event(c, tr, t->tid, CORRAL_PTRACE_TRACEME, NULL);
	/* A parent thread asleep in a real wait would never see the stop:
	 * interrupted, its wait restarts, stops at corral and is emulated. */
	for (struct ept *w = ep->list; w; w = w->next) {
		if (!w->in_wait || w->task->tgid != pl->tgid)
			continue;
		w->in_wait = false;
		if (w->task->state == TS_RUNNING && !w->interrupting &&
		    sys_ptrace(c->sys, PTRACE_INTERRUPT, w->task->tid, 0, 0) ==
			    0)
			w->interrupting = true;
	}
	return 0;
}

static struct ept *tracee_of(struct corral *c, struct task *t, pid_t vpid)
{
	struct eptrace_part *ep = OWN(c, eptrace);
	for (struct ept *e = ep->list; e; e = e->next)
		if (e->tracer == t->tid && e->vpid == vpid)
			return e;
	return NULL;
}

static void detach(struct corral *c, struct ept *e, struct task *tracer,
		   enum corral_ptrace_action action, int sig)
{
	pid_t tracee = e->task->tid;
	e->tracer = e->tracer_tgid = 0;
	e->capable = false;
	e->want = EK_NONE;
	e->options = 0;
	e->syscall_trace = false;
	e->step = false;
	if (tracer)
		ept_event(c, tracer, tracee, action, NULL);
	if (e->stopped)
		release(c, e, sig);
	else
		e->pending = false;
	ept_put(c, e);
}

/*
 * The kernel's ptrace_access_vm(), checked at every PEEK and POKE with the
 * tracee's credentials of that moment (not those it had at attach): the
 * memory of a task that is not dumpable (PR_SET_DUMPABLE 0, a set-id exec
 * that made it so) only for a tracer that was capable when it attached.
 */
static bool vm_allowed(struct corral *c, const struct ept *e)
{
	if (e->capable)
		return true;
	struct procfs_creds b;
	if (c->sys->creds(c->sys->ctx, e->task->tid, &b) < 0 || !b.dumpable)
		return false;
	struct task *leader = table_find(&c->tab, e->task->tgid);
	return !(leader && (leader->flags & TF_NODUMP));
}

/* A request that changes registers, refused at a seccomp stop: the kernel
 * would run the changed call without judging it again (a TRACE rule is
 * let through on the re-run). */
static bool regs_locked(const struct ept *e)
{
	return e->task->flags & TF_AT_SECCOMP;
}

static long regset(struct corral *c, struct task *t, struct ept *e, long req,
		   uint64_t note, uint64_t iovp)
{
	struct {
		uint64_t base, len;
	} iov;
	if (get_mem(c, t, iovp, &iov, sizeof(iov)) < 0)
		return -EFAULT;
	size_t len = iov.len < EPT_REGSET_MAX ? iov.len : EPT_REGSET_MAX;
	void *buf = calloc(1, len ? len : 1);
	if (!buf)
		return -ENOMEM;
	struct iovec local = {buf, len};
	long r = 0;
	if (req == PTRACE_SETREGSET && get_mem(c, t, iov.base, buf, len) < 0)
		r = -EFAULT;
	if (!r)
		r = sys_ptrace(c->sys, (int)req, e->task->tid,
			       (void *)(uintptr_t)note, &local);
	if (r >= 0 && req == PTRACE_GETREGSET &&
	    put_mem(c, t, iov.base, buf, local.iov_len) < 0)
		r = -EFAULT;
	if (r >= 0) {
		iov.len = local.iov_len;
		if (put_mem(c, t, iovp + 8, &iov.len, sizeof(iov.len)) < 0)
			r = -EFAULT;
	}
	free(buf);
	return r < 0 ? r : 0;
}

/* A fixed-size block read from the tracee (GETREGS...) into data. */
static long get_block(struct corral *c, struct task *t, struct ept *e, long req,
		      uint64_t data, size_t len)
{
	char buf[1024];
	if (len > sizeof(buf))
		return -EIO;
	memset(buf, 0, len);
	long r = sys_ptrace(c->sys, (int)req, e->task->tid, 0, buf);
	if (r < 0)
		return r;
	return put_mem(c, t, data, buf, len) < 0 ? -EFAULT : 0;
}

static long set_block(struct corral *c, struct task *t, struct ept *e, long req,
		      uint64_t data, size_t len)
{
	char buf[1024];
	if (len > sizeof(buf))
		return -EIO;
	if (get_mem(c, t, data, buf, len) < 0)
		return -EFAULT;
	long r = sys_ptrace(c->sys, (int)req, e->task->tid, 0, buf);
	return r < 0 ? r : 0;
}

static long get_siginfo(struct corral *c, struct task *t, struct ept *e,
			uint64_t data)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (e->kind == EK_SIGNAL) {
		long r = sys_ptrace(c->sys, PTRACE_GETSIGINFO, e->task->tid, 0,
				    &si);
		if (r < 0)
			return r;
	} else if (e->kind == EK_EVENT && e->sig) {
		return -EINVAL; /* a group-stop: the kernel's answer */
	} else if (e->kind == EK_EVENT) {
		si.si_signo = SIGTRAP;
		si.si_code = (PTRACE_EVENT_STOP << 8) | SIGTRAP;
	} else if (e->kind == EK_PTEVENT) {
		si.si_signo = SIGTRAP;
		si.si_code = (e->event << 8) | SIGTRAP;
	} else if (e->kind == EK_SYSCALL) {
		si.si_signo = SIGTRAP;
		si.si_code = SIGTRAP |
			     (e->options & PTRACE_O_TRACESYSGOOD ? 0x80 : 0);
	} else {
		/* The SIGSTOP PTRACE_ATTACH would have sent. */
		si.si_signo = SIGSTOP;
		si.si_code = SI_USER;
		si.si_pid = t->nspid ? t->nspid : t->tid;
	}
	return put_mem(c, t, data, &si, sizeof(si)) < 0 ? -EFAULT : 0;
}

/*
 * PTRACE_GET_SYSCALL_INFO from corral's real one: at an emulated syscall
 * stop the real stop is that syscall stop; at any other emulated stop the
 * kernel would say "none" (corral's real stop may be a seccomp stop).
 */
static long syscall_info(struct corral *c, struct task *t, struct ept *e,
			 uint64_t size, uint64_t data)
{
	struct ptrace_syscall_info si;
	memset(&si, 0, sizeof(si));
	long r = sys_ptrace(c->sys, PTRACE_GET_SYSCALL_INFO, e->task->tid,
			    (void *)sizeof(si), &si);
	if (r < 0)
		return r;
	if (e->kind != EK_SYSCALL) {
		si.op = PTRACE_SYSCALL_INFO_NONE;
		r = offsetof(struct ptrace_syscall_info, entry);
		memset(&si.entry, 0, sizeof(si) - (size_t)r);
	}
	size_t n = (size_t)r < size ? (size_t)r : size;
	if (n > sizeof(si))
		n = sizeof(si);
	if (n && put_mem(c, t, data, &si, n) < 0)
		return -EFAULT;
	return r;
}

/* A request that lets a stopped tracee go: resumed, listening, or
 * detached. */
static long let_go(struct corral *c, struct task *t, struct ept *e, long req,
		   uint64_t data)
{
	switch (req) {
	case PTRACE_CONT:
	case PTRACE_SYSCALL:
	case PTRACE_SINGLESTEP:
		if (data > 64)
			return -EIO;
		/* PTRACE_SYSCALL: corral resumes it with the real one and
		 * reports its syscall stops (eptrace_syscall_stop); with
		 * PTRACE_SINGLESTEP until the step's SIGTRAP, a signal stop
		 * reported as any other. */
		e->syscall_trace = req == PTRACE_SYSCALL;
		e->step = req == PTRACE_SINGLESTEP;
		release(c, e, (int)data);
		return 0;
	case PTRACE_LISTEN:
		/* Only at a PTRACE_EVENT_STOP of a seized tracee, as the
		 * kernel; corral keeps the real task in its group stop
		 * (phase.c) until it is continued. */
		if (!e->seized || e->kind != EK_EVENT)
			return -EIO;
		release(c, e, 0);
		return 0;
	case PTRACE_DETACH:
		if (data > 64)
			return -EIO;
		detach(c, e, t, CORRAL_PTRACE_DETACH, (int)data);
		return 0;
	default:
		return -EIO;
	}
}

/* A request on a stopped tracee that it stays stopped for: its registers,
 * its memory, what its stop says, the options. */
static long at_stop(struct corral *c, struct task *t, struct ept *e, long req,
		    uint64_t addr, uint64_t data)
{
	uint64_t w = 0;
	long r;
	switch (req) {
	case PTRACE_GET_SYSCALL_INFO:
		return syscall_info(c, t, e, addr, data);
	case PTRACE_GETREGSET:
		return regset(c, t, e, req, addr, data);
	case PTRACE_SETREGSET:
		if (regs_locked(e))
			return unsupported(c, t, req, "at a seccomp stop",
					   -EIO);
		return regset(c, t, e, req, addr, data);
#if defined(__x86_64__)
	case PTRACE_GETREGS:
		return get_block(c, t, e, req, data,
				 sizeof(struct user_regs_struct));
	case PTRACE_SETREGS:
		if (regs_locked(e))
			return unsupported(c, t, req, "at a seccomp stop",
					   -EIO);
		return set_block(c, t, e, req, data,
				 sizeof(struct user_regs_struct));
	case PTRACE_GETFPREGS:
		return get_block(c, t, e, req, data,
				 sizeof(struct user_fpregs_struct));
	case PTRACE_SETFPREGS:
		return set_block(c, t, e, req, data,
				 sizeof(struct user_fpregs_struct));
#endif
	case PTRACE_PEEKTEXT:
	case PTRACE_PEEKDATA:
		if (!vm_allowed(c, e))
			return -EIO;
		/* fall through */
	case PTRACE_PEEKUSER:
		/* The system call (not libc's wrapper) stores the word at
		 * data. */
		r = sys_ptrace(c->sys, (int)req, e->task->tid,
			       (void *)(uintptr_t)addr, &w);
		if (r < 0)
			return r;
		return put_mem(c, t, data, &w, sizeof(w)) < 0 ? -EFAULT : 0;
	case PTRACE_POKEUSER:
		if (regs_locked(e))
			return unsupported(c, t, req, "at a seccomp stop",
					   -EIO);
		/* fall through */
	case PTRACE_POKETEXT:
	case PTRACE_POKEDATA:
		if (req != PTRACE_POKEUSER && !vm_allowed(c, e))
			return -EIO;
		r = sys_ptrace(c->sys, (int)req, e->task->tid,
			       (void *)(uintptr_t)addr,
			       (void *)(uintptr_t)data);
		return r < 0 ? r : 0;
	case PTRACE_GETSIGINFO:
		return get_siginfo(c, t, e, data);
	case PTRACE_GETEVENTMSG:
		w = e->msg;
		return put_mem(c, t, data, &w, sizeof(w)) < 0 ? -EFAULT : 0;
	case PTRACE_SETOPTIONS:
		if (data & ~(unsigned long)EPT_OPTIONS)
			return unsupported(c, t, req, "options not emulated",
					   -EINVAL);
		e->options = data;
		return 0;
	default:
		return unsupported(c, t, req, "not emulated", -EIO);
	}
}

static long request(struct corral *c, struct task *t, long req, pid_t vpid,
		    uint64_t addr, uint64_t data)
{
	switch (req) {
	case PTRACE_TRACEME:
		return do_traceme(c, t);
	case PTRACE_ATTACH:
	case PTRACE_SEIZE:
		return do_attach(c, t, req == PTRACE_SEIZE, vpid, addr, data);
	default:
		break;
	}
	struct ept *e = tracee_of(c, t, vpid);
	if (!e)
		return -ESRCH; /* not its tracee: the kernel's answer */
	switch (req) {
	case PTRACE_INTERRUPT:
		if (!e->seized)
			return -EIO;
		if (!e->stopped)
			request_stop(c, e, EK_EVENT);
		return 0;
	case PTRACE_KILL:
		c->sys->tgkill(c->sys->ctx, e->task->tgid, e->task->tid,
			       SIGKILL);
		if (e->stopped)
			release(c, e, 0);
		return 0;
	default:
		break;
	}
	if (!e->stopped)
		return -ESRCH; /* not in a stop: the kernel's answer */
	switch (req) {
	case PTRACE_CONT:
	case PTRACE_SYSCALL:
	case PTRACE_SINGLESTEP:
	case PTRACE_LISTEN:
	case PTRACE_DETACH:
		return let_go(c, t, e, req, data);
	default:
		return at_stop(c, t, e, req, addr, data);
	}
}

long eptrace_ptrace(struct corral *c, struct task *t,
		    const struct audit_call *call)
{
	long r;
	if (t->ept)
		t->ept->in_wait = false;
#ifdef EPT_ARCH
	if (call->nr == SYS_ptrace)
		r = request(c, t, (long)call->args[0], (pid_t)call->args[1],
			    call->args[2], call->args[3]);
	else
#endif
		/* A 32-bit tracer: not emulated, refused as before. */
		r = unsupported(c, t, -1, "32-bit caller", -EPERM);
	if (audit_skip(c->sys, t->tid, r) < 0)
		c->sys->kill(c->sys->ctx, t->tgid, SIGKILL); /* never runs */
	return r;
}

int eptrace_untraced_clone(struct corral *c, struct task *t,
			   const struct audit_call *call)
{
	(void)call;
#if defined(__x86_64__)
	struct user_regs_struct regs;
	long r = sys_ptrace(c->sys, PTRACE_GETREGS, t->tid, NULL, &regs);
	if (r < 0)
		return (int)r;
	if (regs.orig_rax != SYS_clone)
		return -EPROTO;
	/* The kernel re-runs the filter on these registers: with no
	 * namespace flag (the rule says so) the clone is allowed, and
	 * the child is auto-attached like any other. */
	regs.rdi &= ~(unsigned long long)CLONE_UNTRACED;
	/* Traced by corral, never by t's emulated tracer (as rr does). */
	if (t->ept && t->ept->tracer)
		t->ept->untraced = true;
	r = sys_ptrace(c->sys, PTRACE_SETREGS, t->tid, NULL, &regs);
	return r < 0 ? (int)r : 0;
#else
	(void)c;
	(void)t;
	return -EOPNOTSUPP;
#endif
}

void eptrace_prctl(struct corral *c, struct task *t,
		   const struct audit_call *call)
{
	struct task *leader = table_find(&c->tab, t->tgid);
	if (!leader)
		return;
	unsigned long opt = (unsigned int)call->args[0], a = call->args[1];
	if (opt == PR_SET_DUMPABLE) {
		/* Any value but 1 counts as not dumpable: never looser. */
		if (a == 1)
			leader->flags &= ~TF_NODUMP;
		else
			leader->flags |= TF_NODUMP;
	} else if (opt == PR_SET_PTRACER) {
		if (a == (unsigned long)-1 || a == UINT32_MAX) {
			leader->ptracer = -1;
		} else {
			struct procfs_creds cc;
			struct task *p = NULL;
			if ((pid_t)a > 0 &&
			    c->sys->creds(c->sys->ctx, t->tid, &cc) == 0)
				p = resolve(c, &cc, (pid_t)a);
			/* A process outside the tree can never attach
			 * through corral: no exception for it. */
			leader->ptracer = p ? p->tgid : 0;
		}
	}
}

/* ---- the wait trap
 *
 * A tracer waits for its tracees with plain waits too (gdb's and strace's
 * probes: waitpid(child, &st, 0) for a PTRACE_TRACEME child), and the
 * containment filter TRACEs only __WALL waits: a filter cannot tell a
 * tracer's waits from a shell's, and stopping every wait of every member
 * would cost every build. So the first time a process attaches, corral
 * makes it install a second filter of its own that TRACEs its wait4 and
 * waitid (TSYNC: all its threads; inherited by what it forks later; it
 * only adds stops, corral's filter still decides everything else): the
 * ptrace() call at its seccomp stop is turned into seccomp(), its exit
 * stop (PTRACE_SYSCALL) puts the registers back one instruction earlier,
 * and the ptrace() call runs again, judged and emulated as any other.
 * Only processes that trace pay; a failure only leaves the plain waits
 * untrapped (PTRACE_TRACEME then stays refused for its children).
 */
#if defined(__x86_64__)
struct ept_inject {
	struct user_regs_struct regs;
	bool at_exit;  /* seccomp() made: its exit stop comes next */
	pid_t traceme; /* a child's PTRACE_TRACEME held until it is in */
};

static const struct sock_filter wait_trap[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 4),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_wait4, 1, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_waitid, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | FILTER_RULE_WAIT),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};
#endif

#if defined(__x86_64__)
/* t is stopped at a system call's entry (or its seccomp stop): the call
 * becomes seccomp(SET_MODE_FILTER, TSYNC, wait_trap); its registers are
 * kept in in to be put back at the exit stop. */
static int inject(struct corral *c, struct task *t, struct ept_inject *in)
{
	if (sys_ptrace(c->sys, PTRACE_GETREGS, t->tid, NULL, &in->regs) < 0)
		return -ESRCH;
	if ((long long)in->regs.orig_rax < 0)
		return -EINVAL; /* not in a system call */
	/* The program and its sock_fprog below the red zone of its stack
	 * (nothing lives there while it is stopped in a call). */
	struct {
		uint16_t len;
		uint16_t pad[3];
		uint64_t filter;
		struct sock_filter
			insns[sizeof(wait_trap) / sizeof(*wait_trap)];
	} prog;
	memset(&prog, 0, sizeof(prog));
	uint64_t at = (in->regs.rsp - 128 - sizeof(prog)) & ~(uint64_t)15;
	prog.len = sizeof(wait_trap) / sizeof(*wait_trap);
	prog.filter = at + offsetof(__typeof__(prog), insns);
	memcpy(prog.insns, wait_trap, sizeof(wait_trap));
	if (put_mem(c, t, at, &prog, sizeof(prog)) < 0)
		return -EFAULT;
	struct user_regs_struct r = in->regs;
	r.orig_rax = SYS_seccomp;
	r.rdi = SECCOMP_SET_MODE_FILTER;
	r.rsi = SECCOMP_FILTER_FLAG_TSYNC;
	r.rdx = at;
	if (sys_ptrace(c->sys, PTRACE_SETREGS, t->tid, NULL, &r) < 0)
		return -ESRCH;
	in->at_exit = true;
	return 0;
}
#endif

bool eptrace_trap_waits(struct corral *c, struct task *t,
			const struct audit_call *call)
{
#if defined(__x86_64__)
	struct task *leader = table_find(&c->tab, t->tgid);
	long req = (long)call->args[0];
	if (!leader || (leader->flags & (TF_WTRAP | TF_WTRAP_TRIED)) ||
	    call->nr != SYS_ptrace ||
	    (req != PTRACE_ATTACH && req != PTRACE_SEIZE) || c->phase.holding ||
	    c->phase.now == PH_KILLING || c->phase.now == PH_DONE)
		return false;
	leader->flags |= TF_WTRAP_TRIED;
	struct ept *e = ept_get(c, t);
	struct ept_inject *in = calloc(1, sizeof(*in));
	if (!e || !in || inject(c, t, in) < 0 ||
	    in->regs.orig_rax != SYS_ptrace) {
		if (in && in->at_exit)
			/* put the ptrace() call back as it was */
			sys_ptrace(c->sys, PTRACE_SETREGS, t->tid, NULL,
				   &in->regs);
		free(in);
		if (e)
			ept_put(c, e);
		return false;
	}
	e->inj = in;
	task_resume(c, t, 0); /* PTRACE_SYSCALL: its exit stop comes */
	return true;
#else
	(void)c;
	(void)t;
	(void)call;
	return false;
#endif
}

/*
 * A child's PTRACE_TRACEME while its parent has no wait trap: the parent
 * thread that forked it installs the trap at the entry of its next system
 * call (PTRACE_SYSCALL), before that call runs; it is interrupted first,
 * so that a call it sleeps in restarts (a vfork parent comes out when its
 * child execs). So no wait of the parent can miss the child's stops. If
 * the trap cannot be installed the child is let go (traceme_failed).
 * 0: under way; -errno: not possible (the caller refuses TRACEME).
 */
static int trap_remote(struct corral *c, struct task *p, struct task *child)
{
#if defined(__x86_64__)
	struct task *leader = table_find(&c->tab, p->tgid);
	if (!leader || (leader->flags & (TF_WTRAP | TF_WTRAP_TRIED)) ||
	    p->state != TS_RUNNING ||
	    (p->ept && (p->ept->inj || p->ept->parked)) || c->phase.holding ||
	    c->phase.now == PH_KILLING || c->phase.now == PH_DONE)
		return -EPERM;
	struct ept *pe = ept_get(c, p);
	struct ept_inject *in = calloc(1, sizeof(*in));
	if (!pe || !in) {
		free(in);
		return -ENOMEM;
	}
	if (!pe->interrupting &&
	    sys_ptrace(c->sys, PTRACE_INTERRUPT, p->tid, 0, 0) < 0) {
		free(in);
		return -ESRCH;
	}
	leader->flags |= TF_WTRAP_TRIED;
	pe->interrupting = true;
	in->traceme = child->tid;
	pe->inj = in;
	return 0;
#else
	(void)c;
	(void)p;
	(void)child;
	return -EOPNOTSUPP;
#endif
}

/* The wait trap of a TRACEME child's parent could not be installed: its
 * waits would never see the child's stops, so the child is let go (as
 * its tracer's death would). */
static void traceme_failed(struct corral *c, pid_t tid)
{
	struct task *ch = table_find(&c->tab, tid);
	if (ch && ch->ept && ch->ept->tracer)
		detach(c, ch->ept, table_find(&c->tab, ch->ept->tracer),
		       CORRAL_PTRACE_TRACER_EXIT, 0);
}

/* The seccomp() call's exit stop: the ptrace() call is made to run again. */
static void trap_installed(struct corral *c, struct task *t)
{
#if defined(__x86_64__)
	struct ept *e = t->ept;
	struct ept_inject *in = e->inj;
	struct user_regs_struct now;
	long rv = -EIO;
	if (sys_ptrace(c->sys, PTRACE_GETREGS, t->tid, NULL, &now) == 0)
		rv = (long)now.rax;
	struct user_regs_struct r = in->regs;
	r.rip -= 2; /* the syscall instruction */
	r.rax = r.orig_rax;
	if (sys_ptrace(c->sys, PTRACE_SETREGS, t->tid, NULL, &r) < 0) {
		/* It cannot be put back: it must not go on with seccomp()'s
		 * result in place of ptrace()'s. */
		c->sys->kill(c->sys->ctx, t->tgid, SIGKILL);
	} else if (rv == 0) {
		struct task *leader = table_find(&c->tab, t->tgid);
		if (leader)
			leader->flags |= TF_WTRAP;
	}
	pid_t child = rv == 0 ? 0 : in->traceme;
	e->inj = NULL;
	free(in);
	ept_put(c, e);
	task_resume(c, t, 0);
	if (child)
		traceme_failed(c, child);
#else
	task_resume(c, t, 0);
#endif
}

void eptrace_syscall_stop(struct corral *c, struct task *t)
{
	struct ept *e = t->ept;
#if defined(__x86_64__)
	if (e && e->inj && !((struct ept_inject *)e->inj)->at_exit) {
		/* The entry of the parent's next call: the trap goes in. An
		 * exit stop (of a call it was in) is not that: on to the
		 * next entry. */
		struct ptrace_syscall_info si;
		memset(&si, 0, sizeof(si));
		if (sys_ptrace(c->sys, PTRACE_GET_SYSCALL_INFO, t->tid,
			       (void *)sizeof(si), &si) > 0 &&
		    si.op == PTRACE_SYSCALL_INFO_EXIT) {
			task_resume(c, t, 0);
			return;
		}
		struct ept_inject *in = e->inj;
		if (inject(c, t, in) < 0) {
			pid_t child = in->traceme;
			if (in->at_exit)
				sys_ptrace(c->sys, PTRACE_SETREGS, t->tid, NULL,
					   &in->regs);
			e->inj = NULL;
			free(in);
			ept_put(c, e);
			task_resume(c, t, 0);
			if (child)
				traceme_failed(c, child);
			return;
		}
		task_resume(c, t, 0); /* PTRACE_SYSCALL: to its exit stop */
		return;
	}
#endif
	if (e && e->inj) {
		trap_installed(c, t);
		return;
	}
	if (e && e->tracer && e->syscall_trace) {
		/* Its emulated tracer resumed it with PTRACE_SYSCALL. */
		e->want = EK_SYSCALL;
		e->want_sig = 0;
	}
	task_resume(c, t, 0);
}

void eptrace_new_child(struct corral *c, struct task *t, struct task *child,
		       int event)
{
	if (!(child->flags & TF_THREAD)) {
		/* A seccomp filter is inherited by fork. */
		struct task *leader = table_find(&c->tab, t->tgid);
		if (leader && (leader->flags & TF_WTRAP))
			child->flags |= TF_WTRAP | TF_WTRAP_TRIED;
	}
	struct ept *pe = t->ept;
	if (!pe || !pe->tracer)
		return;
	bool untraced = pe->untraced;
	pe->untraced = false;
	unsigned long opt = event == PTRACE_EVENT_FORK	  ? PTRACE_O_TRACEFORK
			    : event == PTRACE_EVENT_VFORK ? PTRACE_O_TRACEVFORK
							  : PTRACE_O_TRACECLONE;
	if (!(pe->options & opt) || untraced)
		return;
	struct task *tr = table_find(&c->tab, pe->tracer);
	struct ept *ce = ept_get(c, child);
	if (!tr || !ce)
		return;
	/* Auto-attached to the same tracer, stopped before it runs: SIGSTOP,
	 * or a PTRACE_EVENT_STOP (SIGTRAP: do_jobctl_trap() outside a group
	 * stop) when its parent was seized. */
	pid_t cv =
		pe->vpid == t->tid || !child->nspid ? child->tid : child->nspid;
	ce->tracer = pe->tracer;
	ce->tracer_tgid = pe->tracer_tgid;
	ce->vpid = cv;
	ce->seized = pe->seized;
	ce->capable = pe->capable;
	ce->options = pe->options;
	ce->pending = false;
	ce->want_sig = 0;
	ept_event(c, tr, child->tid, CORRAL_PTRACE_ATTACH, "auto-attached");
	request_stop(c, ce, pe->seized ? EK_EVENT : EK_ATTACH);
	/* The parent's event stop, held when the engine resumes it. */
	pe->want = EK_PTEVENT;
	pe->want_sig = 0;
	pe->event = event;
	pe->msg = (unsigned long)cv;
}

void eptrace_group_stop(struct corral *c, struct task *t, int sig)
{
	struct ept *e = t->ept;
	/* A tracee attached with PTRACE_ATTACH shows no group-stop of its
	 * own here (its tracer saw the signal). */
	if (!e->tracer || !e->seized || e->stopped)
		return;
	e->want = EK_EVENT;
	e->want_sig = sig;
}

/*
 * Did t's exec give it what its tracer could not have traced? The kernel
 * (LSM_UNSAFE_PTRACE) runs such an exec unprivileged under a tracer that
 * is not capable over the new credentials; under corral, the real tracer
 * is corral and the exec was privileged. Then the new ids are not all the
 * tracer's (set-uid, set-gid), or its permitted capabilities are not
 * within the tracer's (file capabilities), or they cannot be read.
 */
static const char *exec_gained(struct corral *c, const struct ept *e)
{
	if (e->capable)
		return NULL;
	struct procfs_creds a, b;
	if (c->sys->creds(c->sys->ctx, e->tracer, &a) < 0)
		return "the tracer's credentials cannot be read";
	if (c->sys->creds(c->sys->ctx, e->task->tid, &b) < 0)
		return "its new credentials cannot be read";
	for (int i = 0; i < 4; i++)
		if (b.uid[i] != a.uid[0] || b.gid[i] != a.gid[0])
			return "a set-id program";
	if (b.userns != a.userns || (b.cap_prm & ~a.cap_prm))
		return "more capabilities";
	return NULL;
}

/*
 * A wait of the tracer parked for a tracee it lost, with no other tracee
 * it could report: the real wait runs (the kernel's: the child's own end,
 * or ECHILD), as when a traced child ends (eptrace_gone).
 */
static void rewait(struct corral *c, pid_t tracer_tgid, pid_t vpid)
{
	struct eptrace_part *ep = OWN(c, eptrace);
	for (bool again = true; again;) {
		again = false;
		for (struct ept *w = ep->list; w; w = w->next) {
			if (!w->parked || w->task->tgid != tracer_tgid ||
			    (w->wpid != -1 && w->wpid != vpid))
				continue;
			struct wait_req rq = {.pid = w->wpid};
			bool any;
			wait_pending(c, w->task, &rq, &any);
			if (any)
				continue;
			w->parked = false;
			struct task *wt = w->task;
			ept_put(c, w);
			task_resume(c, wt, 0);
			again = true; /* the list may have lost w */
			break;
		}
	}
}

/*
 * Never looser than the kernel at the exec: where the real kernel would
 * have run the new program unprivileged for this tracer, corral cannot
 * undo the privilege (its own tracing is root's), so the emulated tracer
 * is let go here, at the exec stop, before the new program runs one
 * instruction; it gets no exec stop, and its further requests are ESRCH
 * (a re-attach is judged on the new credentials and refused). The
 * program then runs as it would untraced.
 */
static bool exec_revoked(struct corral *c, struct ept *e)
{
	const char *why = exec_gained(c, e);
	if (!why)
		return false;
	struct task *tr = table_find(&c->tab, e->tracer);
	char d[160];
	snprintf(d, sizeof(d),
		 "exec of %s: the kernel would have run it unprivileged under "
		 "this tracer",
		 why);
	if (tr)
		ept_event(c, tr, e->task->tid, CORRAL_PTRACE_REVOKED, d);
	pid_t tracer_tgid = e->tracer_tgid, vpid = e->vpid;
	detach(c, e, NULL, CORRAL_PTRACE_REVOKED, 0);
	rewait(c, tracer_tgid, vpid);
	return true;
}

void eptrace_exec(struct corral *c, struct task *t)
{
	struct ept *e = t->ept;
	if (!e || !e->tracer)
		return;
	if (exec_revoked(c, e))
		return;
	if (e->options & PTRACE_O_TRACEEXEC) {
		e->want = EK_PTEVENT;
		e->want_sig = 0;
		e->event = PTRACE_EVENT_EXEC;
		e->msg = (unsigned long)e->vpid;
	} else if (!e->seized) {
		/* The kernel's SIGTRAP after a traced exec: a signal stop
		 * for the tracer when it comes. */
		c->sys->tgkill(c->sys->ctx, t->tgid, t->tid, SIGTRAP);
	}
}

/* Nobody waits now: e's end waits for its tracer's next wait (the kernel's
 * zombie), within EPT_ZOMBIES_MAX. */
static void keep_end(struct corral *c, const struct ept *e, int status,
		     bool real_child)
{
	struct eptrace_part *ep = OWN(c, eptrace);
	struct ept_zombie *z =
		ep->nzombies < EPT_ZOMBIES_MAX ? calloc(1, sizeof(*z)) : NULL;
	struct task *tr = z ? NULL : table_find(&c->tab, e->tracer);
	if (tr)
		once(c, tr, PTRACE_CONT,
		     "more ends not waited for than corral keeps", -ENOMEM,
		     CORRAL_PTRACE_UNSUPPORTED);
	if (z) {
		ep->nzombies++;
		z->tracer_tgid = e->tracer_tgid;
		z->vpid = e->vpid;
		z->status = status;
		z->real = real_child;
		z->next = ep->zombies;
		ep->zombies = z;
	}
	if (!real_child)
		notify(c, e);
}

void eptrace_gone(struct corral *c, struct task *t, int status)
{
	struct eptrace_part *ep = OWN(c, eptrace);
	if (t->tid == t->tgid) {
		/* A tracer process that ended collects nothing any more. */
		for (struct ept_zombie **zp = &ep->zombies, *z; (z = *zp);) {
			if (z->tracer_tgid == t->tgid) {
				*zp = z->next;
				ep->nzombies--;
				free(z);
			} else {
				zp = &z->next;
			}
		}
	}
	/* As a tracer: the kernel detaches what that thread traced, or
	 * kills it when it asked PTRACE_O_EXITKILL. */
	for (struct ept *e = ep->list, *n; e; e = n) {
		n = e->next;
		if (e->tracer != t->tid)
			continue;
		bool kill = e->options & PTRACE_O_EXITKILL;
		if (kill)
			c->sys->tgkill(c->sys->ctx, e->task->tgid, e->task->tid,
				       SIGKILL);
		detach(c, e, t,
		       kill ? CORRAL_PTRACE_EXITKILL
			    : CORRAL_PTRACE_TRACER_EXIT,
		       0);
		/* detach() may have freed e and its neighbours' links are
		 * still valid (only e is unlinked): go on from n. */
	}
	struct ept *e = t->ept;
	if (!e)
		return;
	/* As a tracee: a wait parked for it gets its end. The tracer's own
	 * child is its zombie now (corral, its real tracer, has reaped it
	 * and the kernel handed it to its parent): the real wait runs and
	 * collects it, or it would stay a zombie. */
	if (e->tracer) {
		bool real_child = !(t->flags & TF_THREAD) &&
				  t->creator_tgid == e->tracer_tgid;
		bool told = false;
		for (struct ept *w = ep->list; w; w = w->next) {
			if (!w->parked || !wait_matches(w, e))
				continue;
			if (real_child) {
				w->parked = false;
				struct task *wt = w->task;
				ept_put(c, w);
				task_resume(c, wt, 0);
			} else {
				unpark(c, w, status, e);
			}
			told = true;
			break;
		}
		if (!told)
			keep_end(c, e, status, real_child);
	}
	if (e->inj) {
		pid_t child = 0;
#if defined(__x86_64__)
		child = ((struct ept_inject *)e->inj)->traceme;
#endif
		free(e->inj);
		e->inj = NULL;
		if (child) /* the parent thread ended before */
			traceme_failed(c, child);
	}
	e->tracer = 0;
	e->parked = false;
	e->stopped = false;
	e->interrupting = false;
	struct ept *x = t->ept;
	if (!x)
		return;
	/* Still named as a tracer by nobody now; unlink whatever is left. */
	ept_unlink(ep, x);
}
