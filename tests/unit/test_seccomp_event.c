/*
 * test_seccomp_event.c - the engine at PTRACE_EVENT_SECCOMP stops, on the
 * mock kernel (mock_kernel.h): a call is judged by the arch, number and
 * arguments PTRACE_GET_SYSCALL_INFO reports, run through corral's own
 * filter, never by the stop's data; what cannot be judged is refused
 * (the registers are rewritten before the task is resumed) and recorded.
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

#include "filter.h"
#include "names.h"

static struct ptrace_syscall_info SI;

/* The last escape event a callback saw: its typed verdict and its word,
 * which must agree (names.c). */
static struct {
	int n;
	enum corral_verdict v;
} seen;

static void on_event(const struct corral_event *ev, void *arg)
{
	if (ev->type != CORRAL_EV_ESCAPE)
		return;
	assert_non_null(ev->verdict);
	assert_string_equal(ev->verdict, verdict_name(ev->escape_verdict));
	seen.n++;
	seen.v = ev->escape_verdict;
}

/* corral's own containment filter for mode, guarding this process. */
static void with_filter(struct corral *c, enum corral_escape_mode mode)
{
	c->cfg.escape = mode;
	c->cfg.stacks = 0;
	struct filter_params fp = {
		.guard_pid = getpid(),
		.guard_pgid = getpgrp(),
		.guard_tid = gettid(),
		.escape = mode,
	};
	assert_int_equal(filter_build(&fp, &OWN(c, spawn)->filter), 0);
	M.syscall_info = &SI;
	M.syscall_info_len = sizeof(SI);
}

static struct corral *started(enum corral_escape_mode mode)
{
	mock_init(&M);
	struct corral *c = mock_corral(&M, ROOT);
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_EXEC));
	with_filter(c, mode);
	c->cfg.on_event = on_event;
	memset(&seen, 0, sizeof(seen));
	return c;
}

/* What PTRACE_GET_SYSCALL_INFO will say at tid's next seccomp stop. */
static void call_is(pid_t tid, uint32_t arch, long nr, uint64_t a0, uint64_t a1,
		    uint32_t data)
{
	memset(&SI, 0, sizeof(SI));
	SI.op = PTRACE_SYSCALL_INFO_SECCOMP;
	SI.arch = arch;
	SI.seccomp.nr = (uint64_t)nr;
	SI.seccomp.args[0] = a0;
	SI.seccomp.args[1] = a1;
	SI.seccomp.ret_data = data;
	M.eventmsg[tid] = data; /* what GETEVENTMSG would say: not read */
}

static void stop_at(struct corral *c, uint32_t arch, long nr, uint64_t a0,
		    uint32_t data)
{
	call_is(ROOT, arch, nr, a0, 0, data);
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
}

#ifdef __x86_64__
#define NATIVE	      AUDIT_ARCH_X86_64
#define REFUSED(mark) mock_count(&M, (mark), PTRACE_SETREGS, ROOT, -1)
/* The call was skipped (number -1) and returns -err. */
#define FAILS_WITH(err)                                                        \
	do {                                                                   \
		assert_true(M.regs.orig_rax == (unsigned long long)-1);        \
		assert_int_equal((long long)M.regs.rax, -(err));               \
	} while (0)
#endif

#ifdef NATIVE
/* A member's TRACE filter stops setsid with data 0xfff (no such rule):
 * under deny it is still refused, and recorded as setsid. */
static void test_forged_data_judged(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_DENY);
	int mark = M.ncalls;
	M.regs.orig_rax = SYS_setsid;
	stop_at(c, NATIVE, SYS_setsid, 0, 0xfff);
	assert_int_equal(REFUSED(mark), 1);
	FAILS_WITH(EPERM);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	assert_true(jpos(c, "\"call\":\"setsid()\",\"verdict\":\"deny\"") >= 0);
	assert_int_equal(c->result.res.escapes, 1);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.v, CORRAL_VERDICT_DENY);
	mock_free(c);
}

/* The same filter stops getppid, which corral lets run, with the data of
 * corral's kill rule: resumed untouched, nothing recorded. */
static void test_not_ours_resumed(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_DENY);
	int mark = M.ncalls;
	stop_at(c, NATIVE, SYS_getppid, 0, FILTER_RULE_KILL);
	assert_int_equal(REFUSED(mark), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	assert_true(jpos(c, "\"event\":\"escape\"") < 0);
	assert_int_equal(c->result.res.escapes, 0);
	mock_free(c);
}

/* An architecture corral's filter does not know: refused even under log,
 * recorded with why, and the task resumed (into the failed call). */
static void test_unknown_arch_refused(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_LOG);
	int mark = M.ncalls;
	stop_at(c, 0x12345678, SYS_setsid, 0, 1);
	assert_int_equal(REFUSED(mark), 1);
	FAILS_WITH(ENOSYS);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	assert_true(jpos(c, "cannot judge") >= 0);
	assert_true(jpos(c, "\"verdict\":\"deny\"") >= 0);
	mock_free(c);
}

/* No syscall information (the info call wrote nothing): refused. */
static void test_no_info_refused(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_LOG);
	M.syscall_info = NULL;
	int mark = M.ncalls;
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
	assert_int_equal(REFUSED(mark), 1);
	FAILS_WITH(ENOSYS);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	assert_true(jpos(c, "cannot judge") >= 0);
	mock_free(c);
}

/* The task died at the stop: nothing to refuse or resume. */
static void test_task_gone(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_LOG);
	M.esrch[M.nesrch++] = ROOT;
	int mark = M.ncalls;
	stop_at(c, NATIVE, SYS_setsid, 0, 1);
	assert_int_equal(REFUSED(mark), 0);
	assert_true(jpos(c, "\"event\":\"escape\"") < 0);
	M.nesrch = 0;
	mock_free(c);
}
/* --escape=log: the escape runs (registers untouched, resumed with no
 * signal), one line records it, and the tree goes on. */
static void test_log_mode_runs_it(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_LOG);
	int mark = M.ncalls;
	stop_at(c, NATIVE, SYS_setsid, 0, FILTER_RULE_SETSID);
	assert_int_equal(REFUSED(mark), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	assert_true(jpos(c, "\"call\":\"setsid()\",\"verdict\":\"log\"") >= 0);
	assert_int_equal(c->result.res.escapes, 1);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.v, CORRAL_VERDICT_LOG);
	assert_int_equal(c->phase.now, PH_RUN);
	mock_free(c);
}

/* A signal aimed at corral itself is refused (EPERM) even under log, where
 * escapes run: the one decision that is not the mode's. */
static void test_signal_to_corral_refused_under_log(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_LOG);
	int mark = M.ncalls;
	call_is(ROOT, NATIVE, SYS_kill, (uint64_t)getpid(), SIGTERM,
		FILTER_RULE_KILL);
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
	assert_int_equal(REFUSED(mark), 1);
	FAILS_WITH(EPERM);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	char want[64];
	snprintf(want, sizeof(want), "\"call\":\"kill(%d, SIGTERM)\"",
		 getpid());
	assert_true(jline_has(c, "\"event\":\"escape\"", want));
	assert_true(
		jline_has(c, "\"event\":\"escape\"", "\"verdict\":\"deny\""));
	assert_int_equal(c->phase.now, PH_RUN);
	mock_free(c);
}

/*
 * --escape=kill, through the loop: a member's setsid stops it at its
 * seccomp stop; it stays there (never resumed, the call never runs), the
 * ending says escape, and the tree is stopped and killed in the same
 * round, with no SIGTERM and no grace whatever --kill-after says. corral
 * exits 123.
 */
static void test_kill_mode_ends_without_grace(void **state)
{
	struct corral *c = tree_at_zero();
	with_filter(c, CORRAL_ESCAPE_KILL);
	c->cfg.kill_after = 5;
	M.clock = 1;
	call_is(101, NATIVE, SYS_setsid, 0, 0, FILTER_RULE_SETSID);
	mock_wait(&M, 101, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
	int mark = M.ncalls;
	assert_int_equal(corral_step(c, -1), 0);
	assert_true(M.clock == 1.0);
	/* 101 was held at its stop, then killed with the rest. */
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, 101, -1), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_SETREGS, 101, -1), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_INTERRUPT, 101, -1), 0);
	for (pid_t p = 100; p <= 104; p++) {
		assert_int_equal(mock_count(&M, mark, -SIGTERM, p, -1), 0);
		assert_int_equal(mock_count(&M, mark, -SIGCONT, p, -1), 0);
		assert_int_equal(mock_count(&M, mark, PTRACE_CONT, p, -1), 0);
	}
	for (int i = 0; i < NPROCS; i++)
		assert_int_equal(
			mock_count(&M, mark, -SIGKILL, TREE_PROCS[i], -1), 1);
	long esc = jpos(c, "\"event\":\"escape\"");
	long ending = jpos(c, "\"event\":\"ending\"");
	long end = jpos(c, "\"event\":\"end\"");
	assert_true(esc >= 0 && ending > esc && end > ending);
	assert_true(jline_has(c, "\"event\":\"escape\"", "\"pid\":101"));
	assert_true(jline_has(c, "\"event\":\"escape\"",
			      "\"call\":\"setsid()\",\"verdict\":\"kill\""));
	assert_true(
		jline_has(c, "\"event\":\"ending\"", "\"reason\":\"escape\""));
	assert_true(jline_has(c, "\"event\":\"end\"", "\"exit_code\":123"));
	assert_true(jline_has(c, "\"event\":\"end\"", "\"grace\":0.0"));
	assert_int_equal(c->result.res.exit_code, CORRAL_EXIT_ESCAPE);
	mock_free(c);
}
/* The escape's line carries the stack of the call (--stacks escape), from
 * the unwinder behind the kernel seam, taken at the seccomp stop. */
static void test_escape_carries_its_stack(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_LOG);
	c->cfg.stacks = CORRAL_STACKS_ESCAPE;
	static const char *const frames[] = {"setsid", "daemonize", "main"};
	mock_stack(&M, ROOT, 3, frames, NULL);
	int mark = M.ncalls;
	stop_at(c, NATIVE, SYS_setsid, 0, FILTER_RULE_SETSID);
	int unw = mock_first(&M, mark, MOCK_UNWIND);
	int cont = mock_first(&M, mark, PTRACE_CONT);
	assert_true(unw >= 0 && cont > unw); /* at the stop, before it runs */
	assert_true(jline_has(
		c, "\"event\":\"escape\"",
		"\"verdict\":\"log\",\"why\":\"new session\","
		"\"frames\":[{\"ip\":\"0x401000\",\"func\":\"setsid\""));
	assert_true(
		jline_has(c, "\"event\":\"escape\"", "\"func\":\"daemonize\""));
	mock_free(c);
}

/*
 * mount's strings are read from the member's memory through the kernel
 * seam, a page at a time: the source ends at the last byte of a mapped
 * page with nothing mapped after it (one read across would fail whole);
 * an argument that points at nothing mapped is shown as its address.
 */
static void test_mount_strings_read(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_LOG);
	static char page[4096];
	memset(page, 'x', sizeof(page));
	strcpy(page + 4096 - 6, "tmpfs"); /* ends at the page's end */
	mock_map(&M, ROOT, 0x10000, page, sizeof(page));
	static char page2[4096]; /* the target, at the start of a page */
	strcpy(page2, "/mnt/q");
	mock_map(&M, ROOT, 0x20000, page2, sizeof(page2));
	memset(&SI, 0, sizeof(SI));
	SI.op = PTRACE_SYSCALL_INFO_SECCOMP;
	SI.arch = NATIVE;
	SI.seccomp.nr = SYS_mount;
	SI.seccomp.args[0] = 0x10000 + 4096 - 6;
	SI.seccomp.args[1] = 0x20000;
	SI.seccomp.args[2] = 0x30000; /* unmapped */
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
	assert_true(M.nread_mem >= 3);
	assert_true(jline_has(c, "\"event\":\"escape\"",
			      "\"call\":\"mount(\\\"tmpfs\\\", \\\"/mnt/q\\\", "
			      "0x30000, 0, 0)\""));
	assert_true(
		jline_has(c, "\"event\":\"escape\"", "\"verdict\":\"log\""));
	mock_free(c);
}

/*
 * pidfd_send_signal is judged by the process its descriptor stands for,
 * which the audit asks the kernel seam: corral itself is refused in every
 * mode; a member is left alone; a target nobody can tell is an escape
 * (refused under deny).
 */
static void test_pidfd_target_from_seam(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_LOG);
	M.fd_targets[M.nfd_targets][0] = ROOT;
	M.fd_targets[M.nfd_targets][1] = 7;
	M.fd_targets[M.nfd_targets++][2] = getpid();
	int mark = M.ncalls;
	call_is(ROOT, NATIVE, SYS_pidfd_send_signal, 7, SIGTERM,
		FILTER_RULE_PIDFD_SEND_SIGNAL);
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
	assert_int_equal(REFUSED(mark), 1);
	FAILS_WITH(EPERM);
	char want[64];
	snprintf(want, sizeof(want), "[pid %d]", getpid());
	assert_true(jline_has(c, "\"event\":\"escape\"", want));
	assert_true(
		jline_has(c, "\"event\":\"escape\"", "\"verdict\":\"deny\""));
	mock_free(c);

	c = started(CORRAL_ESCAPE_DENY);
	M.fd_targets[M.nfd_targets][0] = ROOT;
	M.fd_targets[M.nfd_targets][1] = 7;
	M.fd_targets[M.nfd_targets++][2] = ROOT; /* itself: a member */
	mark = M.ncalls;
	call_is(ROOT, NATIVE, SYS_pidfd_send_signal, 7, SIGTERM,
		FILTER_RULE_PIDFD_SEND_SIGNAL);
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
	assert_int_equal(REFUSED(mark), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	/* fd 8: the seam cannot tell (a descriptor of another kind) */
	mark = M.ncalls;
	call_is(ROOT, NATIVE, SYS_pidfd_send_signal, 8, SIGTERM,
		FILTER_RULE_PIDFD_SEND_SIGNAL);
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
	assert_int_equal(REFUSED(mark), 1);
	FAILS_WITH(EPERM);
	assert_true(jline_has(c, "\"event\":\"escape\"", "unknown target"));
	mock_free(c);
}

/*
 * setpgid back into the group the member is already in is a no-op, which
 * only its process group (asked of the kernel seam) can tell from joining
 * a group outside the tree.
 */
static void test_setpgid_own_group_from_seam(void **state)
{
	struct corral *c = started(CORRAL_ESCAPE_DENY);
	M.pgids[M.npgids][0] = ROOT;
	M.pgids[M.npgids++][1] = 777;
	int mark = M.ncalls;
	call_is(ROOT, NATIVE, SYS_setpgid, 0, 777, FILTER_RULE_SETPGID);
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
	assert_int_equal(REFUSED(mark), 0);
	assert_int_equal(mock_count(&M, mark, PTRACE_CONT, ROOT, 0), 1);
	assert_int_equal(jpos(c, "\"event\":\"escape\""), -1);
	/* In group 555 now: joining 777 is leaving the tree. */
	M.pgids[0][1] = 555;
	mark = M.ncalls;
	call_is(ROOT, NATIVE, SYS_setpgid, 0, 777, FILTER_RULE_SETPGID);
	engine_handle(c, ROOT, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
	assert_int_equal(REFUSED(mark), 1);
	FAILS_WITH(EPERM);
	assert_true(
		jline_has(c, "\"event\":\"escape\"",
			  "\"call\":\"setpgid(0, 777)\",\"verdict\":\"deny\""));
	mock_free(c);
}
/*
 * --escape=kill with escape stacks: the call's own stack in its line, then
 * at the ending every task's stack (why "escape"), and the tree is killed
 * as it was held for them: nothing is resumed in between.
 */
static void test_kill_mode_stacks_then_kill(void **state)
{
	struct corral *c = tree_at_zero();
	with_filter(c, CORRAL_ESCAPE_KILL);
	c->cfg.stacks = CORRAL_STACKS_ESCAPE;
	static const char *const f[] = {"unshare", "main"};
	for (pid_t p = 100; p <= 104; p++)
		mock_stack(&M, p, 2, f, NULL);
	call_is(101, NATIVE, SYS_setsid, 0, 0, FILTER_RULE_SETSID);
	mock_wait(&M, 101, ST_STOP(SIGTRAP, PTRACE_EVENT_SECCOMP));
	int mark = M.ncalls;
	assert_int_equal(corral_step(c, -1), 0);
	/* One unwind for the escape's line, one per task at the ending. */
	assert_int_equal(M.nunwinds, 1 + NPROCS + NTHREADS);
	assert_int_equal(mock_count(&M, mark, MOCK_UNWIND, 101, -1), 2);
	assert_true(
		jline_has(c, "\"event\":\"escape\"", "\"func\":\"unshare\""));
	assert_int_equal(jcount(c, "\"event\":\"stack\""), NPROCS + NTHREADS);
	assert_true(jline_has(c, "\"event\":\"stack\"", "\"why\":\"escape\""));
	int first_kill = call_at(mark, -SIGKILL, ROOT);
	for (pid_t p = 100; p <= 104; p++) {
		assert_int_equal(mock_count(&M, mark, PTRACE_CONT, p, -1), 0);
		assert_true(call_at(mark, MOCK_UNWIND, p) < first_kill);
	}
	assert_int_equal(c->result.res.exit_code, CORRAL_EXIT_ESCAPE);
	mock_free(c);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
#ifdef NATIVE
		cmocka_unit_test(test_forged_data_judged),
		cmocka_unit_test(test_not_ours_resumed),
		cmocka_unit_test(test_unknown_arch_refused),
		cmocka_unit_test(test_no_info_refused),
		cmocka_unit_test(test_task_gone),
		cmocka_unit_test(test_log_mode_runs_it),
		cmocka_unit_test(test_signal_to_corral_refused_under_log),
		cmocka_unit_test(test_kill_mode_ends_without_grace),
		cmocka_unit_test(test_escape_carries_its_stack),
		cmocka_unit_test(test_kill_mode_stacks_then_kill),
		cmocka_unit_test(test_mount_strings_read),
		cmocka_unit_test(test_pidfd_target_from_seam),
		cmocka_unit_test(test_setpgid_own_group_from_seam),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
