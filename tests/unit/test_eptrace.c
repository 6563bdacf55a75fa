/*
 * test_eptrace.c - the emulated ptrace (tracer/audit/eptrace.c) on the mock
 * kernel, in the kernel's orders: a member's ptrace() and __WALL waits are
 * seccomp stops that corral answers (the call skipped, the result in its
 * registers, what it returns written into its memory).
 *
 * The tree (mock_tree.h): 100 (root) with thread 102; 101, a child of 100
 * (the tracer, as LeakSanitizer's helper is its parent's child), with
 * thread 104; 103, a child of 101.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "mock_tree.h"
/* After <sys/ptrace.h> (mock_kernel.h). */
#include <linux/audit.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/seccomp.h>

#include "filter.h"
#include "names.h"

#ifdef __x86_64__
#ifndef PR_SET_PTRACER
#define PR_SET_PTRACER 0x59616d61
#endif

static struct ptrace_syscall_info SI;

/* The ptrace events a callback saw, by typed action; each one's word
 * must be its action's (names.c). */
static int actions[CORRAL_PTRACE_UNSUPPORTED + 1];

static void on_event(const struct corral_event *ev, void *arg)
{
	if (ev->type != CORRAL_EV_PTRACE)
		return;
	assert_true(ev->ptrace_action > CORRAL_PTRACE_NONE &&
		    ev->ptrace_action <= CORRAL_PTRACE_UNSUPPORTED);
	assert_non_null(ev->action);
	assert_string_equal(ev->action, ptrace_action_name(ev->ptrace_action));
	actions[ev->ptrace_action]++;
}

static struct corral *started(enum corral_escape_mode mode)
{
	struct corral *c = tree_at_zero();
	c->cfg.on_event = on_event;
	memset(actions, 0, sizeof(actions));
	c->cfg.escape = mode;
	struct filter_params fp = {
		.guard_pid = getpid(),
		.guard_pgid = getpgrp(),
		.guard_tid = gettid(),
		.escape = mode,
	};
	assert_int_equal(filter_build(&fp, &OWN(c, spawn)->filter), 0);
	M.syscall_info = &SI;
	M.syscall_info_len = sizeof(SI);
	/* The wait trap counts as tried: the tests of the trap clear it. */
	for (int i = 0; i < NPROCS; i++)
		table_find(&c->tab, TREE_PROCS[i])->flags |= TF_WTRAP_TRIED;
	return c;
}

/* tid stops at the seccomp stop of syscall nr(a0..a4); what it returns
 * (rax after the stop: corral's answer, or the call untouched). */
static long call(struct corral *c, pid_t tid, long nr, uint64_t a0, uint64_t a1,
		 uint64_t a2, uint64_t a3, uint64_t a4)
{
	memset(&SI, 0, sizeof(SI));
	SI.op = PTRACE_SYSCALL_INFO_SECCOMP;
	SI.arch = AUDIT_ARCH_X86_64;
	SI.seccomp.nr = (uint64_t)nr;
	uint64_t a[5] = {a0, a1, a2, a3, a4};
	for (int i = 0; i < 5; i++)
		SI.seccomp.args[i] = a[i];
	memset(&M.regs, 0, sizeof(M.regs));
	M.regs.orig_rax = (unsigned long long)nr;
	M.regs.rax = (unsigned long long)-ENOSYS;
	M.regs.rdi = a0;
	engine_handle(c, tid, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
	return (long)M.regs.rax;
}

/* The same call, made where corral's filter lets it run: the stop is the
 * wait trap's (or any filter's but corral's). */
static long plain_wait(struct corral *c, pid_t tid, pid_t pid, uint64_t status,
		       int opts)
{
	return call(c, tid, SYS_wait4, (uint64_t)(int64_t)pid, status,
		    (uint64_t)opts, 0, 0);
}

static long pt(struct corral *c, pid_t tid, long req, pid_t pid, uint64_t addr,
	       uint64_t data)
{
	return call(c, tid, SYS_ptrace, (uint64_t)req, (uint64_t)pid, addr,
		    data, 0);
}

static long wait_for(struct corral *c, pid_t tid, pid_t pid, uint64_t status,
		     int opts)
{
	return call(c, tid, SYS_wait4, (uint64_t)(int64_t)pid, status,
		    (uint64_t)opts, 0, 0);
}

static bool skipped(void)
{
	return M.regs.orig_rax == (unsigned long long)-1;
}

static int status_at(pid_t tid, uint64_t addr)
{
	int st = -1;
	if (!mock_written(&M, tid, addr, &st, sizeof(st)))
		return -1;
	return st;
}

#define TRACER 101
#define TRACEE 100
#define STATUS 0x5000

/* ATTACH, a wait that parks (nothing to report yet), the interrupt's stop
 * arriving: the tracee held, the tracer answered with W_STOPCODE(SIGSTOP)
 * and resumed. Then GETREGSET through the tracer's memory, DETACH. */
static void test_attach_park_complete_detach(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	int mark = M.ncalls;
	assert_int_equal(pt(c, TRACER, PTRACE_ATTACH, TRACEE, 0, 0), 0);
	assert_true(skipped()); /* the kernel never runs it */
	assert_int_equal(mock_count(&M, mark, PTRACE_INTERRUPT, TRACEE, -1), 1);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACER, 0), 1);
	assert_true(jpos(c, "\"action\":\"attach\"") >= 0);

	/* The wait parks: the tracer is held at its stop. */
	mark = M.ncalls;
	wait_for(c, TRACER, TRACEE, STATUS, __WALL);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACER, -1), 0);
	assert_int_equal(table_find(&c->tab, TRACER)->state, TS_HELD);

	/* The interrupt lands: held for the tracer, which is answered. */
	mark = M.ncalls;
	M.regs.orig_rax = SYS_wait4; /* the parked tracer's registers */
	engine_handle(c, TRACEE, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACEE, -1), 0);
	assert_int_equal(table_find(&c->tab, TRACEE)->state, TS_HELD);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACER, 0), 1);
	assert_int_equal(status_at(TRACER, STATUS), (SIGSTOP << 8) | 0x7f);
	assert_int_equal((long)M.regs.rax, TRACEE);

	/* GETREGSET: the iovec read from the tracer, the registers read
	 * from the held tracee, both written back. */
	static uint64_t iov[2] = {0x7000, 512};
	mock_map(&M, TRACER, 0x6000, (const char *)iov, sizeof(iov));
	mark = M.ncalls;
	assert_int_equal(pt(c, TRACER, PTRACE_GETREGSET, TRACEE, 1, 0x6000), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_GETREGSET, TRACEE, -1), 1);
	uint64_t len = 0;
	assert_true(mock_written(&M, TRACER, 0x6008, &len, sizeof(len)));
	assert_int_equal(len, 512);

	/* A second wait: nothing pending, WNOHANG answers 0. */
	assert_int_equal(wait_for(c, TRACER, TRACEE, STATUS, __WALL | WNOHANG),
			 0);

	/* DETACH lets the tracee go. */
	mark = M.ncalls;
	assert_int_equal(pt(c, TRACER, PTRACE_DETACH, TRACEE, 0, 0), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACEE, 0), 1);
	assert_true(jpos(c, "\"action\":\"detach\"") >= 0);
	/* ...and it is nobody's tracee any more. */
	assert_int_equal(pt(c, TRACER, PTRACE_GETREGSET, TRACEE, 1, 0x6000),
			 -ESRCH);
	mock_free(c);
}

/* The stop arrives before the wait: the wait is answered at once. A
 * request for a task that is not stopped gets ESRCH, as from the kernel. */
static void test_stop_before_wait(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	assert_int_equal(pt(c, TRACER, PTRACE_ATTACH, TRACEE, 0, 0), 0);
	assert_int_equal(pt(c, TRACER, PTRACE_GETREGSET, TRACEE, 1, 0x6000),
			 -ESRCH);
	engine_handle(c, TRACEE, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
	int mark = M.ncalls;
	assert_int_equal(wait_for(c, TRACER, -1, STATUS, __WALL), TRACEE);
	assert_int_equal(status_at(TRACER, STATUS), (SIGSTOP << 8) | 0x7f);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACER, 0), 1);
	/* A wait for a task that is not its tracee runs as it is. */
	mark = M.ncalls;
	wait_for(c, TRACER, 103, STATUS, __WALL);
	assert_false(skipped());
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACER, 0), 1);
	mock_free(c);
}

/* A signal for an emulated tracee is its tracer's to decide: held,
 * reported as W_STOPCODE(sig), injected by PTRACE_CONT(sig). */
static void test_signal_stop_reported(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	pt(c, TRACER, PTRACE_ATTACH, TRACEE, 0, 0);
	engine_handle(c, TRACEE, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
	wait_for(c, TRACER, TRACEE, STATUS, __WALL);
	pt(c, TRACER, PTRACE_CONT, TRACEE, 0, 0);
	int mark = M.ncalls;
	engine_handle(c, TRACEE, ST_STOP(SIGUSR1, 0));
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACEE, -1), 0);
	assert_int_equal(wait_for(c, TRACER, TRACEE, STATUS, __WALL), TRACEE);
	assert_int_equal(status_at(TRACER, STATUS), (SIGUSR1 << 8) | 0x7f);
	mark = M.ncalls;
	assert_int_equal(pt(c, TRACER, PTRACE_CONT, TRACEE, 0, SIGUSR1), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACEE, SIGUSR1), 1);
	mock_free(c);
}

/* The tracer dies while its tracee is held: the tracee runs again (the
 * kernel detaches it), journaled tracer-exit. */
static void test_tracer_death_releases(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	pt(c, TRACER, PTRACE_ATTACH, TRACEE, 0, 0);
	pt(c, TRACER, PTRACE_ATTACH, 102, 0, 0);
	engine_handle(c, TRACEE, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
	engine_handle(c, 102, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
	int mark = M.ncalls;
	engine_handle(c, 104, ST_EXIT(0));
	engine_handle(c, TRACER, ST_EXIT(0));
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACEE, 0), 1);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 102, 0), 1);
	assert_int_equal(jcount(c, "\"action\":\"tracer-exit\""), 2);
	assert_int_equal(actions[CORRAL_PTRACE_ATTACH], 2);
	assert_int_equal(actions[CORRAL_PTRACE_TRACER_EXIT], 2);
	assert_null(c->eptrace.list);
	mock_free(c);
}

/* With PTRACE_O_EXITKILL the tracer's death kills the tracee. */
static void test_tracer_death_exitkill(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	assert_int_equal(
		pt(c, TRACER, PTRACE_SEIZE, TRACEE, 0, PTRACE_O_EXITKILL), 0);
	/* SEIZE stops nothing; INTERRUPT does, as a PTRACE_EVENT_STOP. */
	assert_int_equal(pt(c, TRACER, PTRACE_INTERRUPT, TRACEE, 0, 0), 0);
	engine_handle(c, TRACEE, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
	assert_int_equal(wait_for(c, TRACER, TRACEE, STATUS, __WALL), TRACEE);
	assert_int_equal(status_at(TRACER, STATUS),
			 (PTRACE_EVENT_STOP << 16) | (SIGTRAP << 8) | 0x7f);
	int mark = M.ncalls;
	engine_handle(c, 104, ST_EXIT(0));
	engine_handle(c, TRACER, ST_EXIT(0));
	assert_int_equal(mock_count(&M, mark, -SIGKILL, TRACEE, -1), 1);
	assert_true(jpos(c, "\"action\":\"exitkill\"") >= 0);
	mock_free(c);
}

/* Stop-all and resume-all in the middle of an emulated hold: the tracee
 * and the parked tracer stay held, the rest runs again. Then kill-all
 * ends everything, held or parked. */
static void test_stop_all_and_kill_all_during_hold(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	pt(c, TRACER, PTRACE_ATTACH, TRACEE, 0, 0);
	engine_handle(c, TRACEE, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
	wait_for(c, TRACER, TRACEE, STATUS, __WALL); /* answered */
	wait_for(c, TRACER, TRACEE, STATUS, __WALL); /* parks */
	assert_true(corral_stop_all(c) >= 0);
	int mark = M.ncalls;
	assert_int_equal(corral_resume_all(c), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACEE, -1), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACER, -1), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 103, -1), 1);
	assert_int_equal(table_find(&c->tab, TRACEE)->state, TS_HELD);
	assert_int_equal(table_find(&c->tab, TRACER)->state, TS_HELD);
	/* kill-all: every process gets SIGKILL, the held ones too. */
	assert_true(corral_kill_all(c) >= 0);
	assert_int_equal(c->tab.live, 0);
	assert_null(c->eptrace.list);
	mock_free(c);
}

/* Attaches the kernel would refuse are refused (EPERM), journaled with
 * why; nothing is stopped. */
static void test_refused_like_the_kernel(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	int mark = M.ncalls;
	/* another uid */
	mock_creds(&M, TRACEE)->uid[1] = 0;
	assert_int_equal(pt(c, TRACER, PTRACE_ATTACH, TRACEE, 0, 0), -EPERM);
	assert_true(jpos(c, "other credentials") >= 0);
	/* not dumpable */
	mock_creds(&M, 103)->dumpable = false;
	assert_int_equal(pt(c, TRACER, PTRACE_ATTACH, 103, 0, 0), -EPERM);
	assert_true(jpos(c, "not dumpable") >= 0);
	/* its own thread group */
	assert_int_equal(pt(c, TRACER, PTRACE_ATTACH, 104, 0, 0), -EPERM);
	/* no such member */
	assert_int_equal(pt(c, TRACER, PTRACE_ATTACH, 999, 0, 0), -ESRCH);
	/* corral itself: refused by the audit, in every mode */
	assert_int_equal(pt(c, TRACER, PTRACE_ATTACH, getpid(), 0, 0), -EPERM);
	/* another pid namespace */
	mock_creds(&M, 102)->pidns = 2;
	assert_int_equal(pt(c, TRACER, PTRACE_ATTACH, 102, 0, 0), -ESRCH);
	assert_int_equal(mock_count(&M, mark, PTRACE_INTERRUPT, TRACEE, -1), 0);
	assert_null(c->eptrace.list);
	/* A request nobody emulates: EIO, journaled once. */
	assert_int_equal(pt(c, TRACER, PTRACE_TRACEME, 0, 0, 0), -EPERM);
	assert_int_equal(jcount(c, "PTRACE_TRACEME"), 1);
	pt(c, TRACER, PTRACE_TRACEME, 0, 0, 0);
	assert_int_equal(jcount(c, "PTRACE_TRACEME"), 1);
	mock_free(c);
}

/* Yama's scope 1: a child attaching its parent is refused, unless the
 * parent named it with PR_SET_PTRACER (LeakSanitizer's order). */
static void test_yama_ptracer(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	M.yama = 1;
	/* the real parents, as /proc says */
	pid_t ids[][3] = {{100, 100, 50}, {101, 101, 100}, {103, 103, 101}};
	for (int i = 0; i < 3; i++) {
		memcpy(M.ids[M.nids++], ids[i], sizeof(ids[i]));
	}
	assert_int_equal(pt(c, TRACER, PTRACE_ATTACH, TRACEE, 0, 0), -EPERM);
	assert_true(jpos(c, "Yama") >= 0);
	/* a descendant is fine */
	assert_int_equal(pt(c, TRACER, PTRACE_ATTACH, 103, 0, 0), 0);
	/* the parent declares its child its tracer */
	int mark = M.ncalls;
	call(c, TRACEE, SYS_prctl, PR_SET_PTRACER, TRACER, 0, 0, 0);
	assert_false(skipped()); /* it runs */
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACEE, 0), 1);
	assert_int_equal(pt(c, TRACER, PTRACE_ATTACH, TRACEE, 0, 0), 0);
	/* scope 3: never */
	M.yama = 3;
	assert_int_equal(pt(c, 103, PTRACE_ATTACH, 102, 0, 0), -EPERM);
	mock_free(c);
}

/* clone(CLONE_UNTRACED): the bit is cleared and the call runs (the child
 * will be auto-attached); with a namespace flag too, the filter refuses
 * it, so such a stop cannot be ours and is refused as unjudgeable. */
static void test_untraced_clone_stripped(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	unsigned long fl = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_UNTRACED;
	int mark = M.ncalls;
	call(c, TRACEE, SYS_clone, fl, 0, 0, 0, 0);
	assert_false(skipped());
	assert_int_equal(M.regs.rdi, fl & ~(unsigned long)CLONE_UNTRACED);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACEE, 0), 1);
	assert_true(jpos(c, "\"event\":\"escape\"") < 0);
	/* with a namespace */
	mark = M.ncalls;
	call(c, TRACEE, SYS_clone, CLONE_UNTRACED | CLONE_NEWNS | SIGCHLD, 0, 0,
	     0, 0);
	assert_true(skipped());
	assert_int_equal((long)M.regs.rax, -EPERM);
	assert_int_equal(M.regs.rdi, CLONE_UNTRACED | CLONE_NEWNS | SIGCHLD);
	mock_free(c);
}

/* Under the escape audit an attach is still an escape: logged and
 * emulated (log), refused (deny). */
static void test_escape_modes(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_LOG);
	assert_int_equal(pt(c, TRACER, PTRACE_ATTACH, TRACEE, 0, 0), 0);
	assert_true(jpos(c, "\"verdict\":\"log\"") >= 0);
	assert_true(jpos(c, "\"action\":\"attach\"") >= 0);
	mock_free(c);
	c = started(CORRAL_ESCAPE_DENY);
	assert_int_equal(pt(c, TRACER, PTRACE_ATTACH, TRACEE, 0, 0), -EPERM);
	assert_true(jpos(c, "\"verdict\":\"deny\"") >= 0);
	assert_null(c->eptrace.list);
	mock_free(c);
}

/* The first attach of a process installs its wait trap: the ptrace() call
 * becomes seccomp(SET_MODE_FILTER, TSYNC, prog below the red zone), the
 * task goes on with PTRACE_SYSCALL; at its exit stop the registers are put
 * back one instruction earlier (the ptrace() call runs again, judged then)
 * and its process's plain waits stop at corral from then on. */
static void test_wait_trap_installed(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	struct task *tr = table_find(&c->tab, TRACER);
	tr->flags &= ~TF_WTRAP_TRIED;
	int mark = M.ncalls;
	M.regs.rsp = 0x7ff000;
	memset(&SI, 0, sizeof(SI));
	SI.op = PTRACE_SYSCALL_INFO_SECCOMP;
	SI.arch = AUDIT_ARCH_X86_64;
	SI.seccomp.nr = SYS_ptrace;
	SI.seccomp.args[0] = PTRACE_ATTACH;
	SI.seccomp.args[1] = TRACEE;
	M.regs.orig_rax = SYS_ptrace;
	M.regs.rax = (unsigned long long)-ENOSYS;
	M.regs.rip = 0x401002;
	M.regs.rdi = PTRACE_ATTACH;
	M.regs.rsi = TRACEE;
	engine_handle(c, TRACER, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
	/* seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, prog) */
	assert_int_equal(M.regs.orig_rax, SYS_seccomp);
	assert_int_equal(M.regs.rdi, SECCOMP_SET_MODE_FILTER);
	assert_int_equal(M.regs.rsi, SECCOMP_FILTER_FLAG_TSYNC);
	assert_true(M.regs.rdx < 0x7ff000 - 128);
	uint16_t len = 0;
	assert_true(mock_written(&M, TRACER, M.regs.rdx, &len, sizeof(len)));
	assert_int_equal(len, 7);
	assert_int_equal(mock_count(&M, mark, PTRACE_SYSCALL, TRACER, 0), 1);
	assert_int_equal(mock_count(&M, mark, PTRACE_INTERRUPT, TRACEE, -1), 0);
	assert_true(jpos(c, "\"action\":\"attach\"") < 0); /* not yet */
	assert_false(table_find(&c->tab, TRACER)->flags & TF_WTRAP);
	/* seccomp() returned 0: the call runs again. */
	mark = M.ncalls;
	M.regs.rax = 0;
	engine_handle(c, TRACER, ST_STOP(SIGTRAP | 0x80, 0));
	assert_int_equal(M.regs.rip, 0x401000);
	assert_int_equal(M.regs.rax, SYS_ptrace);
	assert_int_equal(M.regs.orig_rax, SYS_ptrace);
	assert_int_equal(M.regs.rdi, PTRACE_ATTACH);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACER, 0), 1);
	assert_true(table_find(&c->tab, TRACER)->flags & TF_WTRAP);
	/* Judged and emulated this time; a fork inherits the trap. */
	assert_int_equal(pt(c, TRACER, PTRACE_ATTACH, TRACEE, 0, 0), 0);
	assert_true(skipped());
	assert_int_equal(M.nsetregs, 3);
	tree_child(c, TRACER, 105, false);
	assert_true(table_find(&c->tab, 105)->flags & TF_WTRAP);
	/* A plain wait of a process without the trap runs as it is. */
	mark = M.ncalls;
	plain_wait(c, 103, -1, STATUS, 0);
	assert_false(skipped());
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 103, 0), 1);
	mock_free(c);
}

/* PTRACE_TRACEME: refused while its parent's plain waits do not stop at
 * corral and cannot be made to; then the child becomes its parent's emulated
 * tracee: its SIGSTOP is held and answers the parent's plain waitpid(child,
 * &st, 0), parked before it. The child killed and reaped by corral: the
 * parent's parked wait runs for real (the zombie is the parent's to collect).
 */
static void test_traceme_plain_wait(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	mock_creds(&M, 103)->ppid = TRACER;
	assert_int_equal(pt(c, 103, PTRACE_TRACEME, 0, 0, 0), -EPERM);
	/* (its trap counts as tried: started()) */
	assert_true(jpos(c, "waits cannot be trapped") >= 0);
	table_find(&c->tab, TRACER)->flags |= TF_WTRAP;
	assert_int_equal(pt(c, 103, PTRACE_TRACEME, 0, 0, 0), 0);
	assert_true(jpos(c, "\"action\":\"traceme\"") >= 0);
	/* a second time: already traced */
	assert_int_equal(pt(c, 103, PTRACE_TRACEME, 0, 0, 0), -EPERM);
	/* the parent's plain wait parks */
	int mark = M.ncalls;
	plain_wait(c, TRACER, 103, STATUS, 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACER, -1), 0);
	/* kill(getpid(), SIGSTOP): held for the parent, which is answered */
	mark = M.ncalls;
	M.regs.orig_rax = SYS_wait4;
	engine_handle(c, 103, ST_STOP(SIGSTOP, 0));
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 103, -1), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACER, 0), 1);
	assert_int_equal(status_at(TRACER, STATUS), (SIGSTOP << 8) | 0x7f);
	assert_int_equal((long)M.regs.rax, 103);
	/* no SIGCHLD: the parent had its answer */
	assert_int_equal(mock_count(&M, mark, -SIGCHLD, 101, -1), 0);
	/* the parent sets options and waits again: parked */
	assert_int_equal(pt(c, TRACER, PTRACE_SETOPTIONS, 103, 0,
			    PTRACE_O_EXITKILL | PTRACE_O_TRACEFORK),
			 0);
	plain_wait(c, TRACER, 103, STATUS, 0);
	/* kill(child, SIGKILL): its end runs the parent's wait for real */
	mark = M.ncalls;
	M.regs.orig_rax = SYS_wait4;
	M.regs.rax = (unsigned long long)-ENOSYS;
	engine_handle(c, 103, ST_KILLED(SIGKILL));
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACER, 0), 1);
	assert_int_equal(M.regs.orig_rax, SYS_wait4); /* not skipped */
	mock_free(c);
}

/* A parent asleep in a real wait (let run: nothing emulated to wait for)
 * when its child calls PTRACE_TRACEME is interrupted: its wait restarts
 * and stops at corral. With no waiter, a stop sends the tracer SIGCHLD. */
static void test_traceme_kicks_sleeping_parent(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	mock_creds(&M, 103)->ppid = TRACER;
	table_find(&c->tab, TRACER)->flags |= TF_WTRAP;
	int mark = M.ncalls;
	plain_wait(c, TRACER, 103, STATUS, 0);
	assert_false(skipped());
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACER, 0), 1);
	mark = M.ncalls;
	assert_int_equal(pt(c, 103, PTRACE_TRACEME, 0, 0, 0), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_INTERRUPT, TRACER, -1), 1);
	/* the interrupt lands: the parent runs on (its wait restarts) */
	mark = M.ncalls;
	engine_handle(c, TRACER, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACER, 0), 1);
	/* the child's SIGSTOP with nobody waiting: SIGCHLD to the parent */
	mark = M.ncalls;
	engine_handle(c, 103, ST_STOP(SIGSTOP, 0));
	assert_int_equal(mock_count(&M, mark, -SIGCHLD, TRACER, -1), 1);
	/* its restarted wait is answered at once */
	assert_int_equal(plain_wait(c, TRACER, 103, STATUS, 0), 103);
	mock_free(c);
}

/* PTRACE_O_TRACEFORK: the tracee's fork is an event stop for its tracer
 * (PTRACE_GETEVENTMSG: the child), and the child is auto-attached, seized
 * as its parent was: its first stop a PTRACE_EVENT_STOP (SIGTRAP, the
 * kernel's do_jobctl_trap() outside a group stop). */
static void test_fork_event_auto_attach(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	assert_int_equal(pt(c, TRACER, PTRACE_SEIZE, TRACEE, 0,
			    PTRACE_O_TRACEFORK | PTRACE_O_TRACESYSGOOD),
			 0);
	int mark = M.ncalls;
	tree_child(c, TRACEE, 200, false);
	/* both held */
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACEE, -1), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 200, -1), 0);
	assert_true(jpos(c, "auto-attached") >= 0);
	assert_int_equal(wait_for(c, TRACER, TRACEE, STATUS, __WALL), TRACEE);
	assert_int_equal(status_at(TRACER, STATUS),
			 (PTRACE_EVENT_FORK << 16) | (SIGTRAP << 8) | 0x7f);
	assert_int_equal(pt(c, TRACER, PTRACE_GETEVENTMSG, TRACEE, 0, 0x6100),
			 0);
	unsigned long msg = 0;
	assert_true(mock_written(&M, TRACER, 0x6100, &msg, sizeof(msg)));
	assert_int_equal(msg, 200);
	assert_int_equal(wait_for(c, TRACER, -1, STATUS, __WALL), 200);
	assert_int_equal(status_at(TRACER, STATUS),
			 (PTRACE_EVENT_STOP << 16) | (SIGTRAP << 8) | 0x7f);
	/* resumed by its tracer, the child runs */
	mark = M.ncalls;
	assert_int_equal(pt(c, TRACER, PTRACE_CONT, 200, 0, 0), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 200, 0), 1);
	mock_free(c);
}

/* PTRACE_SYSCALL: corral resumes the tracee with the real request; its
 * syscall stop (SIGTRAP|0x80) is held and reported as the kernel would
 * (0x80 with TRACESYSGOOD); PTRACE_GET_SYSCALL_INFO is corral's real one
 * there, "none" at other stops. A seccomp stop in between stays corral's
 * own and the tracee goes on with PTRACE_SYSCALL. PTRACE_CONT ends it. */
static void test_syscall_stops(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	assert_int_equal(
		pt(c, TRACER, PTRACE_SEIZE, TRACEE, 0, PTRACE_O_TRACESYSGOOD),
		0);
	pt(c, TRACER, PTRACE_INTERRUPT, TRACEE, 0, 0);
	engine_handle(c, TRACEE, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
	assert_int_equal(wait_for(c, TRACER, TRACEE, STATUS, __WALL), TRACEE);
	/* at an event stop: op none, 24 bytes */
	memset(&SI, 0, sizeof(SI));
	SI.op = PTRACE_SYSCALL_INFO_SECCOMP; /* corral's real stop */
	SI.arch = AUDIT_ARCH_X86_64;
	long r = call(c, TRACER, SYS_ptrace, PTRACE_GET_SYSCALL_INFO, TRACEE,
		      sizeof(SI), 0x6200, 0);
	/* (call() rewrote SI for the tracer's own stop: the info written is
	 * the tracer's ptrace stop's, its op forced to none) */
	assert_int_equal(r, 24);
	uint8_t op = 0xff;
	assert_true(mock_written(&M, TRACER, 0x6200, &op, 1));
	assert_int_equal(op, PTRACE_SYSCALL_INFO_NONE);
	int mark = M.ncalls;
	assert_int_equal(pt(c, TRACER, PTRACE_SYSCALL, TRACEE, 0, 0), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_SYSCALL, TRACEE, 0), 1);
	/* a syscall-entry stop: held, reported with 0x80 */
	mark = M.ncalls;
	engine_handle(c, TRACEE, ST_STOP(SIGTRAP | 0x80, 0));
	assert_int_equal(mock_count(&M, mark, PTRACE_SYSCALL, TRACEE, -1), 0);
	assert_int_equal(wait_for(c, TRACER, TRACEE, STATUS, __WALL), TRACEE);
	assert_int_equal(status_at(TRACER, STATUS),
			 ((SIGTRAP | 0x80) << 8) | 0x7f);
	/* GETSIGINFO says so too */
	assert_int_equal(pt(c, TRACER, PTRACE_GETSIGINFO, TRACEE, 0, 0x6300),
			 0);
	siginfo_t si;
	assert_true(mock_written(&M, TRACER, 0x6300, &si, sizeof(si)));
	assert_int_equal(si.si_code, SIGTRAP | 0x80);
	/* GET_SYSCALL_INFO at the syscall stop: the real one, as it is */
	memset(&SI, 0, sizeof(SI));
	r = call(c, TRACER, SYS_ptrace, PTRACE_GET_SYSCALL_INFO, TRACEE,
		 sizeof(SI), 0x6200, 0);
	assert_int_equal(r, sizeof(SI));
	assert_true(mock_written(&M, TRACER, 0x6200, &op, 1));
	assert_int_equal(op, PTRACE_SYSCALL_INFO_SECCOMP); /* what mock said */
	mark = M.ncalls;
	assert_int_equal(pt(c, TRACER, PTRACE_SYSCALL, TRACEE, 0, 0), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_SYSCALL, TRACEE, 0), 1);
	/* a seccomp stop of corral's own in between: it goes on traced */
	mark = M.ncalls;
	call(c, TRACEE, SYS_prctl, PR_SET_PTRACER, 0, 0, 0, 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_SYSCALL, TRACEE, 0), 1);
	/* its exit stop, then PTRACE_CONT: no more syscall stops */
	engine_handle(c, TRACEE, ST_STOP(SIGTRAP | 0x80, 0));
	assert_int_equal(wait_for(c, TRACER, TRACEE, STATUS, __WALL), TRACEE);
	mark = M.ncalls;
	assert_int_equal(pt(c, TRACER, PTRACE_CONT, TRACEE, 0, 0), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACEE, 0), 1);
	/* LISTEN only at a PTRACE_EVENT_STOP */
	engine_handle(c, TRACEE, ST_STOP(SIGUSR1, 0));
	wait_for(c, TRACER, TRACEE, STATUS, __WALL);
	assert_int_equal(pt(c, TRACER, PTRACE_LISTEN, TRACEE, 0, 0), -EIO);
	mock_free(c);
}

/* An emulated tracee that ends while its tracer is not waiting: its end
 * waits for the tracer's next wait (a zombie), after SIGCHLD; the
 * tracer's own child's end is collected by its real wait. */
static void test_exit_collected_later(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	assert_int_equal(pt(c, TRACER, PTRACE_SEIZE, 102, 0, 0), 0);
	int mark = M.ncalls;
	engine_handle(c, 102, ST_EXIT(0));
	assert_int_equal(mock_count(&M, mark, -SIGCHLD, TRACER, -1), 1);
	assert_int_equal(wait_for(c, TRACER, -1, STATUS, __WALL), 102);
	assert_int_equal(status_at(TRACER, STATUS), 0);
	assert_true(skipped());
	/* collected once: nothing left to wait for, the real wait runs */
	wait_for(c, TRACER, -1, STATUS, __WALL | WNOHANG);
	assert_false(skipped());
	/* its own child: the real wait collects the zombie */
	assert_int_equal(pt(c, TRACER, PTRACE_SEIZE, 103, 0, 0), 0);
	engine_handle(c, 103, ST_EXIT(7 << 0));
	mark = M.ncalls;
	wait_for(c, TRACER, -1, STATUS, __WALL);
	assert_false(skipped());
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACER, 0), 1);
	assert_null(c->eptrace.zombies);
	mock_free(c);
}

/* PTRACE_TRACEME of a child whose parent has no wait trap yet (gdb's
 * `run`): answered at once; the parent is interrupted and resumed with
 * PTRACE_SYSCALL, the entry of its next call becomes seccomp() (the
 * trap), and at its exit the call is put back to run again. If seccomp()
 * fails, the child is let go. */
static void test_traceme_installs_parent_trap(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	mock_creds(&M, 103)->ppid = TRACER;
	struct task *pl = table_find(&c->tab, TRACER);
	pl->flags &= ~TF_WTRAP_TRIED;
	int mark = M.ncalls;
	assert_int_equal(pt(c, 103, PTRACE_TRACEME, 0, 0, 0), 0);
	assert_true(skipped());
	assert_int_equal(mock_count(&M, mark, PTRACE_INTERRUPT, TRACER, -1), 1);
	/* the interrupt lands: on with PTRACE_SYSCALL */
	mark = M.ncalls;
	engine_handle(c, TRACER, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
	assert_int_equal(mock_count(&M, mark, PTRACE_SYSCALL, TRACER, 0), 1);
	/* the exit of a call it was in: on to the next entry */
	memset(&SI, 0, sizeof(SI));
	SI.op = PTRACE_SYSCALL_INFO_EXIT;
	mark = M.ncalls;
	engine_handle(c, TRACER, ST_STOP(SIGTRAP | 0x80, 0));
	assert_int_equal(mock_count(&M, mark, PTRACE_SYSCALL, TRACER, 0), 1);
	assert_int_equal(M.nsetregs, 1); /* the TRACEME call's skip only */
	/* the entry of its next call (wait4): becomes seccomp() */
	SI.op = PTRACE_SYSCALL_INFO_ENTRY;
	memset(&M.regs, 0, sizeof(M.regs));
	M.regs.orig_rax = SYS_wait4;
	M.regs.rax = (unsigned long long)-ENOSYS;
	M.regs.rip = 0x402002;
	M.regs.rsp = 0x7ff000;
	M.regs.rdi = 103;
	mark = M.ncalls;
	engine_handle(c, TRACER, ST_STOP(SIGTRAP | 0x80, 0));
	assert_int_equal(M.regs.orig_rax, SYS_seccomp);
	assert_int_equal(M.regs.rdi, SECCOMP_SET_MODE_FILTER);
	assert_int_equal(mock_count(&M, mark, PTRACE_SYSCALL, TRACER, 0), 1);
	/* its exit: wait4 again, one instruction earlier */
	SI.op = PTRACE_SYSCALL_INFO_EXIT;
	M.regs.rax = 0;
	mark = M.ncalls;
	engine_handle(c, TRACER, ST_STOP(SIGTRAP | 0x80, 0));
	assert_int_equal(M.regs.orig_rax, SYS_wait4);
	assert_int_equal(M.regs.rax, SYS_wait4);
	assert_int_equal(M.regs.rip, 0x402000);
	assert_int_equal(M.regs.rdi, 103);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACER, 0), 1);
	assert_true(pl->flags & TF_WTRAP);
	/* the child's SIGSTOP answers its (now trapped) plain wait */
	engine_handle(c, 103, ST_STOP(SIGSTOP, 0));
	assert_int_equal(plain_wait(c, TRACER, 103, STATUS, 0), 103);
	assert_int_equal(status_at(TRACER, STATUS), (SIGSTOP << 8) | 0x7f);
	mock_free(c);

	/* seccomp() refused (a filter of its own): the child is let go */
	c = started(CORRAL_ESCAPE_OFF);
	mock_creds(&M, 103)->ppid = TRACER;
	table_find(&c->tab, TRACER)->flags &= ~TF_WTRAP_TRIED;
	assert_int_equal(pt(c, 103, PTRACE_TRACEME, 0, 0, 0), 0);
	engine_handle(c, TRACER, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
	M.regs.orig_rax = SYS_getpid;
	SI.op = PTRACE_SYSCALL_INFO_ENTRY;
	engine_handle(c, TRACER, ST_STOP(SIGTRAP | 0x80, 0));
	M.regs.rax = (unsigned long long)-EPERM;
	engine_handle(c, TRACER, ST_STOP(SIGTRAP | 0x80, 0));
	assert_false(table_find(&c->tab, TRACER)->flags & TF_WTRAP);
	assert_true(jpos(c, "\"action\":\"tracer-exit\"") >= 0);
	mark = M.ncalls;
	engine_handle(c, 103, ST_STOP(SIGSTOP, 0));
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 103, SIGSTOP), 1);
	mock_free(c);
}

/* PTRACE_SINGLESTEP: corral resumes the tracee with the real request
 * (again after a stop of corral's own in between) until the step's
 * SIGTRAP, reported as a signal stop. */
static void test_single_step(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	pt(c, TRACER, PTRACE_ATTACH, TRACEE, 0, 0);
	engine_handle(c, TRACEE, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
	wait_for(c, TRACER, TRACEE, STATUS, __WALL);
	int mark = M.ncalls;
	assert_int_equal(pt(c, TRACER, PTRACE_SINGLESTEP, TRACEE, 0, 0), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_SINGLESTEP, TRACEE, 0), 1);
	/* a seccomp stop of corral's own: stepping goes on */
	mark = M.ncalls;
	call(c, TRACEE, SYS_prctl, PR_SET_PTRACER, 0, 0, 0, 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_SINGLESTEP, TRACEE, 0), 1);
	/* the step's SIGTRAP: the tracer's */
	mark = M.ncalls;
	engine_handle(c, TRACEE, ST_STOP(SIGTRAP, 0));
	assert_int_equal(mock_count(&M, mark, PTRACE_SINGLESTEP, TRACEE, -1),
			 0);
	assert_int_equal(wait_for(c, TRACER, TRACEE, STATUS, __WALL), TRACEE);
	assert_int_equal(status_at(TRACER, STATUS), (SIGTRAP << 8) | 0x7f);
	mark = M.ncalls;
	pt(c, TRACER, PTRACE_CONT, TRACEE, 0, 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACEE, 0), 1);
	mock_free(c);
}

/* A seized tracee's group-stop is its tracer's PTRACE_EVENT_STOP of the
 * stop signal (GETSIGINFO: EINVAL); PTRACE_LISTEN leaves it stopped
 * (corral's real LISTEN) until SIGCONT, whose signal stop is reported. */
static void test_group_stop_listen(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	pt(c, TRACER, PTRACE_SEIZE, TRACEE, 0, 0);
	/* the SIGSTOP's signal stop first, injected by its tracer */
	engine_handle(c, TRACEE, ST_STOP(SIGSTOP, 0));
	assert_int_equal(wait_for(c, TRACER, TRACEE, STATUS, __WALL), TRACEE);
	assert_int_equal(status_at(TRACER, STATUS), (SIGSTOP << 8) | 0x7f);
	int mark = M.ncalls;
	pt(c, TRACER, PTRACE_CONT, TRACEE, 0, SIGSTOP);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACEE, SIGSTOP), 1);
	/* the group-stop */
	mark = M.ncalls;
	engine_handle(c, TRACEE, ST_STOP(SIGSTOP, PTRACE_EVENT_STOP));
	assert_int_equal(mock_count(&M, mark, PTRACE_LISTEN, TRACEE, -1), 0);
	assert_int_equal(wait_for(c, TRACER, TRACEE, STATUS, __WALL), TRACEE);
	assert_int_equal(status_at(TRACER, STATUS),
			 (PTRACE_EVENT_STOP << 16) | (SIGSTOP << 8) | 0x7f);
	assert_int_equal(pt(c, TRACER, PTRACE_GETSIGINFO, TRACEE, 0, 0x6300),
			 -EINVAL);
	mark = M.ncalls;
	assert_int_equal(pt(c, TRACER, PTRACE_LISTEN, TRACEE, 0, 0), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_LISTEN, TRACEE, -1), 1);
	/* continued: the re-trap runs on, SIGCONT is the tracer's */
	mark = M.ncalls;
	engine_handle(c, TRACEE, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACEE, 0), 1);
	engine_handle(c, TRACEE, ST_STOP(SIGCONT, 0));
	assert_int_equal(wait_for(c, TRACER, TRACEE, STATUS, __WALL), TRACEE);
	assert_int_equal(status_at(TRACER, STATUS), (SIGCONT << 8) | 0x7f);
	mock_free(c);
}

/* The tracer dies while its tracee is syscall-traced: the tracee is let go
 * and its next syscall stop (the request was already made) resumes it
 * with PTRACE_CONT, for good. Kill-all while a wait trap goes in ends
 * everything. */
static void test_tracer_death_during_syscall_trace(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_OFF);
	pt(c, TRACER, PTRACE_SEIZE, TRACEE, 0, PTRACE_O_TRACESYSGOOD);
	pt(c, TRACER, PTRACE_INTERRUPT, TRACEE, 0, 0);
	engine_handle(c, TRACEE, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
	wait_for(c, TRACER, TRACEE, STATUS, __WALL);
	pt(c, TRACER, PTRACE_SYSCALL, TRACEE, 0, 0);
	engine_handle(c, 104, ST_EXIT(0));
	engine_handle(c, TRACER, ST_EXIT(0));
	assert_true(jpos(c, "\"action\":\"tracer-exit\"") >= 0);
	int mark = M.ncalls;
	engine_handle(c, TRACEE, ST_STOP(SIGTRAP | 0x80, 0));
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, TRACEE, 0), 1);
	assert_int_equal(mock_count(&M, mark, PTRACE_SYSCALL, TRACEE, -1), 0);
	/* 103 installs its wait trap; kill-all comes before its exit stop */
	struct task *p = table_find(&c->tab, 103);
	p->flags &= ~TF_WTRAP_TRIED;
	M.regs.rsp = 0x7ff000;
	pt(c, 103, PTRACE_ATTACH, 102, 0, 0);
	assert_int_equal(M.regs.orig_rax, SYS_seccomp);
	assert_true(corral_kill_all(c) >= 0);
	assert_int_equal(c->tab.live, 0);
	assert_null(c->eptrace.list);
	mock_free(c);
}
#endif

int main(void)
{
#ifdef __x86_64__
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attach_park_complete_detach),
		cmocka_unit_test(test_stop_before_wait),
		cmocka_unit_test(test_signal_stop_reported),
		cmocka_unit_test(test_tracer_death_releases),
		cmocka_unit_test(test_tracer_death_exitkill),
		cmocka_unit_test(test_stop_all_and_kill_all_during_hold),
		cmocka_unit_test(test_refused_like_the_kernel),
		cmocka_unit_test(test_yama_ptracer),
		cmocka_unit_test(test_untraced_clone_stripped),
		cmocka_unit_test(test_escape_modes),
		cmocka_unit_test(test_wait_trap_installed),
		cmocka_unit_test(test_traceme_plain_wait),
		cmocka_unit_test(test_traceme_kicks_sleeping_parent),
		cmocka_unit_test(test_fork_event_auto_attach),
		cmocka_unit_test(test_syscall_stops),
		cmocka_unit_test(test_exit_collected_later),
		cmocka_unit_test(test_traceme_installs_parent_trap),
		cmocka_unit_test(test_single_step),
		cmocka_unit_test(test_group_stop_listen),
		cmocka_unit_test(test_tracer_death_during_syscall_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
#else
	return 77; /* the registers are x86_64's */
#endif
}
