/*
 * test_audit.c - the escape audit decoder on hand-built seccomp stops, and
 * audit_inspect()/audit_deny() on a scripted ptrace (no real process).
 */
#include <errno.h>
#include <linux/sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>
/* After <sys/ptrace.h>. */
#include <linux/audit.h>
#include <linux/ptrace.h>

#include <cmocka.h>

#include "audit.h"
#include "filter.h"
#include "sys.h"

#define GUARD 1000
#define GUARD_TID 1001
#define GUARD_PGID 999
#define CALLER 200

/* The tree: tasks 100..199, groups 100 and 150. */
static bool fake_member(pid_t pid, void *arg)
{
	return pid >= 100 && pid < 200;
}

static bool fake_pgrp(pid_t pgid, void *arg)
{
	return pgid == 100 || pgid == 150;
}

static const struct audit_tree_ops tree = {fake_member, fake_pgrp, NULL};
static const struct audit_ctx ctx = {
	.guard_pid = GUARD,
	.guard_tid = GUARD_TID,
	.guard_pgid = GUARD_PGID,
	.caller = CALLER,
};

static long nr_of(enum filter_rule rule)
{
	switch (rule) {
	case FILTER_RULE_SETSID: return SYS_setsid;
	case FILTER_RULE_SETPGID: return SYS_setpgid;
	case FILTER_RULE_UNSHARE: return SYS_unshare;
	case FILTER_RULE_SETNS: return SYS_setns;
	case FILTER_RULE_CLONE_NS: return SYS_clone;
	case FILTER_RULE_PTRACE: return SYS_ptrace;
	case FILTER_RULE_PRCTL: return SYS_prctl;
	case FILTER_RULE_MOUNT: return SYS_mount;
	case FILTER_RULE_UMOUNT2: return SYS_umount2;
	case FILTER_RULE_CHROOT: return SYS_chroot;
	case FILTER_RULE_PIVOT_ROOT: return SYS_pivot_root;
	case FILTER_RULE_KILL: return SYS_kill;
	case FILTER_RULE_TKILL: return SYS_tkill;
	case FILTER_RULE_TGKILL: return SYS_tgkill;
	case FILTER_RULE_RT_SIGQUEUEINFO: return SYS_rt_sigqueueinfo;
	case FILTER_RULE_RT_TGSIGQUEUEINFO: return SYS_rt_tgsigqueueinfo;
	case FILTER_RULE_PIDFD_SEND_SIGNAL: return SYS_pidfd_send_signal;
	default: return -1;
	}
}

static struct ptrace_syscall_info mk(enum filter_rule rule, uint64_t a0,
				     uint64_t a1, uint64_t a2, uint64_t a3)
{
	struct ptrace_syscall_info si;
	memset(&si, 0, sizeof(si));
	si.op = PTRACE_SYSCALL_INFO_SECCOMP;
	si.arch = AUDIT_ARCH_X86_64;
	si.seccomp.nr = nr_of(rule);
	si.seccomp.args[0] = a0;
	si.seccomp.args[1] = a1;
	si.seccomp.args[2] = a2;
	si.seccomp.args[3] = a3;
	si.seccomp.ret_data = rule;
	return si;
}

static struct audit_call dec(enum filter_rule rule, uint64_t a0, uint64_t a1,
			     uint64_t a2, uint64_t a3)
{
	struct ptrace_syscall_info si = mk(rule, a0, a1, a2, a3);
	struct audit_call out;
	assert_int_equal(audit_decode(&si, rule, &ctx, &tree, &out), 0);
	assert_non_null(out.name);
	assert_non_null(out.why);
	return out;
}

static void test_unshare(void **state)
{
	struct audit_call c =
		dec(FILTER_RULE_UNSHARE, CLONE_NEWUSER | CLONE_NEWNS, 0, 0, 0);
	assert_string_equal(c.name, "unshare");
	assert_string_equal(c.text, "unshare(CLONE_NEWUSER|CLONE_NEWNS)");
	assert_true(c.escape);
	assert_string_equal(c.why, "new namespace");
	assert_false(c.guard);

	c = dec(FILTER_RULE_UNSHARE, CLONE_NEWTIME | CLONE_FILES | 0x1, 0, 0,
		0);
	assert_string_equal(c.text, "unshare(CLONE_NEWTIME|CLONE_FILES|0x1)");
}

static void test_setns_and_setsid(void **state)
{
	struct audit_call c = dec(FILTER_RULE_SETNS, 3, CLONE_NEWNET, 0, 0);
	assert_string_equal(c.text, "setns(3, CLONE_NEWNET)");
	assert_true(c.escape);
	c = dec(FILTER_RULE_SETNS, 4, 0, 0, 0);
	assert_string_equal(c.text, "setns(4, 0)");
	c = dec(FILTER_RULE_SETSID, 0, 0, 0, 0);
	assert_string_equal(c.name, "setsid");
	assert_string_equal(c.text, "setsid()");
	assert_true(c.escape);
}

static void test_clone_namespaces(void **state)
{
	struct audit_call c = dec(FILTER_RULE_CLONE_NS,
				  CLONE_NEWPID | CLONE_NEWNS | SIGCHLD, 0, 0, 0);
	assert_string_equal(c.name, "clone");
	assert_string_equal(c.text, "clone(CLONE_NEWPID|CLONE_NEWNS|SIGCHLD)");
	assert_true(c.escape);
	assert_string_equal(c.why, "new namespace");
	/* bubblewrap's clone */
	c = dec(FILTER_RULE_CLONE_NS,
		CLONE_NEWUSER | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP |
			CLONE_NEWNET | SIGCHLD,
		0, 0, 0);
	assert_string_equal(c.text, "clone(CLONE_NEWUSER|CLONE_NEWNET|"
				    "CLONE_NEWIPC|CLONE_NEWUTS|CLONE_NEWCGROUP|"
				    "SIGCHLD)");
}

static void test_kill_inside_and_outside(void **state)
{
	struct audit_call c = dec(FILTER_RULE_KILL, 150, SIGTERM, 0, 0);
	assert_string_equal(c.text, "kill(150, SIGTERM)");
	assert_false(c.escape);
	assert_false(c.guard);
	assert_int_equal(c.target, 150);

	c = dec(FILTER_RULE_KILL, 4242, SIGTERM, 0, 0);
	assert_string_equal(c.text, "kill(4242, SIGTERM)");
	assert_true(c.escape);
	assert_string_equal(c.why, "signal outside the tree");
	assert_false(c.guard);

	/* groups */
	c = dec(FILTER_RULE_KILL, (uint64_t)-100, SIGKILL, 0, 0);
	assert_string_equal(c.text, "kill(-100, SIGKILL)");
	assert_false(c.escape);
	c = dec(FILTER_RULE_KILL, (uint64_t)-555, SIGKILL, 0, 0);
	assert_true(c.escape);
	assert_string_equal(c.why, "signal to a group outside the tree");
	c = dec(FILTER_RULE_KILL, 0, SIGINT, 0, 0);
	assert_false(c.escape);

	/* a probe sends nothing */
	c = dec(FILTER_RULE_KILL, 4242, 0, 0, 0);
	assert_string_equal(c.text, "kill(4242, 0)");
	assert_false(c.escape);

	/* real-time signals */
	c = dec(FILTER_RULE_KILL, 150, SIGRTMIN + 2, 0, 0);
	assert_string_equal(c.text, "kill(150, SIGRTMIN+2)");
}

static void test_kill_of_supervisor(void **state)
{
	struct audit_call c = dec(FILTER_RULE_KILL, GUARD, SIGKILL, 0, 0);
	assert_true(c.escape);
	assert_true(c.guard);
	assert_false(c.denied); /* the decoder only decodes */
	assert_int_equal(c.target, GUARD);
	c = dec(FILTER_RULE_KILL, GUARD_TID, SIGSTOP, 0, 0);
	assert_true(c.guard);
	c = dec(FILTER_RULE_KILL, (uint64_t)-1, SIGTERM, 0, 0);
	assert_string_equal(c.text, "kill(-1, SIGTERM)");
	assert_true(c.guard);
	c = dec(FILTER_RULE_KILL, (uint64_t)-GUARD_PGID, SIGTERM, 0, 0);
	assert_true(c.guard);
	/* garbage above the int: the kernel reads -1, so do we */
	c = dec(FILTER_RULE_KILL, 0xdead0000ffffffffULL, SIGTERM, 0, 0);
	assert_string_equal(c.text, "kill(-1, SIGTERM)");
	assert_true(c.guard);

	c = dec(FILTER_RULE_TKILL, GUARD_TID, SIGKILL, 0, 0);
	assert_string_equal(c.text, "tkill(1001, SIGKILL)");
	assert_true(c.guard);
	c = dec(FILTER_RULE_TGKILL, GUARD, GUARD_TID, SIGTERM, 0);
	assert_string_equal(c.text, "tgkill(1000, 1001, SIGTERM)");
	assert_true(c.guard);
	c = dec(FILTER_RULE_TGKILL, 150, 151, SIGTERM, 0);
	assert_false(c.escape);
	c = dec(FILTER_RULE_RT_SIGQUEUEINFO, GUARD, SIGUSR1, 0x1000, 0);
	assert_string_equal(c.text, "rt_sigqueueinfo(1000, SIGUSR1, 0x1000)");
	assert_true(c.guard);
	c = dec(FILTER_RULE_RT_TGSIGQUEUEINFO, 4242, 4243, SIGUSR1, 0x1000);
	assert_string_equal(c.text,
			    "rt_tgsigqueueinfo(4242, 4243, SIGUSR1, 0x1000)");
	assert_true(c.escape);
	assert_false(c.guard);
}

static void test_pidfd_send_signal(void **state)
{
	struct ptrace_syscall_info si =
		mk(FILTER_RULE_PIDFD_SEND_SIGNAL, 5, SIGKILL, 0, 0);
	struct audit_ctx x = ctx;
	struct audit_call c;

	x.fd_target = 150;
	assert_int_equal(audit_decode(&si, 0, &x, &tree, &c), 0);
	assert_string_equal(c.text,
			    "pidfd_send_signal(5, SIGKILL, 0, 0) [pid 150]");
	assert_false(c.escape);
	x.fd_target = GUARD;
	assert_int_equal(audit_decode(&si, 0, &x, &tree, &c), 0);
	assert_true(c.guard);
	x.fd_target = 0; /* unknown: cannot vouch for it */
	assert_int_equal(audit_decode(&si, 0, &x, &tree, &c), 0);
	assert_true(c.escape);
	assert_false(c.guard);
}

static void test_prctl(void **state)
{
	struct audit_call c =
		dec(FILTER_RULE_PRCTL, PR_SET_PDEATHSIG, SIGKILL, 0, 0);
	assert_string_equal(c.name, "prctl");
	assert_string_equal(c.text, "prctl(PR_SET_PDEATHSIG, SIGKILL)");
	assert_false(c.escape);
	c = dec(FILTER_RULE_PRCTL, PR_SET_CHILD_SUBREAPER, 1, 0, 0);
	assert_string_equal(c.text, "prctl(PR_SET_CHILD_SUBREAPER, 1)");
	assert_true(c.escape);
	c = dec(FILTER_RULE_PRCTL, PR_SET_CHILD_SUBREAPER, 0, 0, 0);
	assert_false(c.escape);
	c = dec(FILTER_RULE_PRCTL, PR_SET_DUMPABLE, 0, 0, 0);
	assert_string_equal(c.text, "prctl(PR_SET_DUMPABLE, 0)");
	assert_false(c.escape);
	c = dec(FILTER_RULE_PRCTL, PR_SET_PTRACER, (uint64_t)-1, 0, 0);
	assert_string_equal(c.text, "prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY)");
	assert_true(c.escape);
	c = dec(FILTER_RULE_PRCTL, PR_SET_PTRACER, 150, 0, 0);
	assert_false(c.escape);
	c = dec(FILTER_RULE_PRCTL, PR_SET_PTRACER, 4242, 0, 0);
	assert_true(c.escape);
}

static void test_ptrace(void **state)
{
	struct audit_call c = dec(FILTER_RULE_PTRACE, PTRACE_TRACEME, 0, 0, 0);
	assert_string_equal(c.text, "ptrace(PTRACE_TRACEME)");
	assert_true(c.escape);
	assert_false(c.guard);
	c = dec(FILTER_RULE_PTRACE, PTRACE_ATTACH, 4242, 0, 0);
	assert_string_equal(c.text, "ptrace(PTRACE_ATTACH, 4242)");
	assert_string_equal(c.why, "ptrace outside the tree");
	c = dec(FILTER_RULE_PTRACE, PTRACE_SEIZE, 150, 0, 0);
	assert_string_equal(c.why, "ptrace of a member");
	c = dec(FILTER_RULE_PTRACE, PTRACE_SEIZE, GUARD, 0, 0);
	assert_true(c.guard);
}

static void test_setpgid(void **state)
{
	struct audit_call c = dec(FILTER_RULE_SETPGID, 0, 0, 0, 0);
	assert_string_equal(c.text, "setpgid(0, 0)");
	assert_false(c.escape);
	c = dec(FILTER_RULE_SETPGID, 0, 150, 0, 0);
	assert_false(c.escape);
	c = dec(FILTER_RULE_SETPGID, 0, CALLER, 0, 0);
	assert_false(c.escape);
	c = dec(FILTER_RULE_SETPGID, 0, 777, 0, 0);
	assert_true(c.escape);
	assert_string_equal(c.why, "joins a process group outside the tree");
	c = dec(FILTER_RULE_SETPGID, 0, GUARD_PGID, 0, 0);
	assert_true(c.guard);
}

static void test_mounts(void **state)
{
	struct audit_call c = dec(FILTER_RULE_MOUNT, 0x1000, 0x2000, 0,
				  MS_BIND | MS_REC);
	assert_string_equal(c.text, "mount(0x1000, 0x2000, 0, MS_BIND|MS_REC, 0)");
	assert_true(c.escape);
	c = dec(FILTER_RULE_UMOUNT2, 0x1000, MNT_DETACH, 0, 0);
	assert_string_equal(c.text, "umount2(0x1000, MNT_DETACH)");
	c = dec(FILTER_RULE_PIVOT_ROOT, 0x1000, 0x2000, 0, 0);
	assert_string_equal(c.name, "pivot_root");
	assert_true(c.escape);
	c = dec(FILTER_RULE_CHROOT, 0x1000, 0, 0, 0);
	assert_string_equal(c.why, "changes its root");
}

/* An i386 task's registers hold 32 bits; the rest is ignored. */
static void test_compat_args(void **state)
{
	struct ptrace_syscall_info si =
		mk(FILTER_RULE_KILL, 0xffffffff00000096ULL, SIGTERM, 0, 0);
	si.arch = AUDIT_ARCH_I386;
	struct audit_call c;
	assert_int_equal(audit_decode(&si, 0, &ctx, &tree, &c), 0);
	assert_int_equal(c.args[0], 150);
	assert_string_equal(c.text, "kill(150, SIGTERM)");
	assert_false(c.escape);
}

static void test_bad_input(void **state)
{
	struct ptrace_syscall_info si = mk(FILTER_RULE_SETSID, 0, 0, 0, 0);
	struct audit_call c;
	assert_int_equal(audit_decode(&si, FILTER_RULE__COUNT, &ctx, &tree, &c),
			 -EINVAL);
	si.seccomp.ret_data = 0;
	assert_int_equal(audit_decode(&si, 0, &ctx, &tree, &c), -EINVAL);
	si = mk(FILTER_RULE_SETSID, 0, 0, 0, 0);
	si.op = PTRACE_SYSCALL_INFO_ENTRY;
	assert_int_equal(audit_decode(&si, FILTER_RULE_SETSID, &ctx, &tree, &c),
			 -EINVAL);
	/* a member's own filter TRACEs write() with our setsid data */
	si = mk(FILTER_RULE_SETSID, 0, 0, 0, 0);
	si.seccomp.nr = SYS_write;
	assert_int_equal(audit_decode(&si, 0, &ctx, &tree, &c), -EPROTO);
	/* no tree, no context: still decodes, conservatively */
	si = mk(FILTER_RULE_KILL, 150, SIGTERM, 0, 0);
	assert_int_equal(audit_decode(&si, 0, NULL, NULL, &c), 0);
	assert_true(c.escape);
	/* the text is bounded */
	si = mk(FILTER_RULE_MOUNT, ~0ULL, ~0ULL, ~0ULL, ~0ULL);
	si.seccomp.args[4] = ~0ULL;
	assert_int_equal(audit_decode(&si, 0, &ctx, &tree, &c), 0);
	assert_true(strlen(c.text) < sizeof(c.text));
}

/* ------------------------------------------------------------------ */
/* audit_inspect / audit_deny on a scripted ptrace. */

struct script {
	struct ptrace_syscall_info si;
	long fail;	/* returned by GET_SYSCALL_INFO when < 0 */
	int getregs, setregs;
#ifdef __x86_64__
	struct user_regs_struct regs;
#endif
};

static long fake_ptrace(void *ctxp, int req, pid_t pid, void *addr,
			void *data)
{
	struct script *s = ctxp;
	switch (req) {
	case PTRACE_GET_SYSCALL_INFO:
		if (s->fail < 0)
			return s->fail;
		memcpy(data, &s->si, sizeof(s->si));
		return (long)sizeof(s->si);
#ifdef __x86_64__
	case PTRACE_GETREGS:
		s->getregs++;
		memcpy(data, &s->regs, sizeof(s->regs));
		return 0;
	case PTRACE_SETREGS:
		s->setregs++;
		memcpy(&s->regs, data, sizeof(s->regs));
		return 0;
#endif
	}
	return -EINVAL;
}

static void test_inspect_refuses_supervisor(void **state)
{
	struct script s;
	memset(&s, 0, sizeof(s));
	/* audit_inspect's guard is the caller: this test process. */
	s.si = mk(FILTER_RULE_KILL, (uint64_t)getpid(), SIGKILL, 0, 0);
	struct corral_sys sys = {.ptrace = fake_ptrace, .ctx = &s};
	struct audit_call c;
	assert_int_equal(audit_inspect(&sys, 150, FILTER_RULE_KILL, &tree, &c),
			 0);
	assert_true(c.guard);
#ifdef __x86_64__
	assert_true(c.denied);
	assert_int_equal(s.setregs, 1);
	assert_int_equal((long long)s.regs.orig_rax, -1);
	assert_int_equal((long long)s.regs.rax, -EPERM);
#endif

	/* inside the tree: decoded, left alone */
	memset(&s, 0, sizeof(s));
	s.si = mk(FILTER_RULE_KILL, 150, SIGTERM, 0, 0);
	assert_int_equal(audit_inspect(&sys, 151, 0, &tree, &c), 0);
	assert_false(c.escape);
	assert_false(c.denied);
	assert_int_equal(s.setregs, 0);
}

static void test_inspect_task_gone(void **state)
{
	struct script s;
	memset(&s, 0, sizeof(s));
	s.fail = -ESRCH;
	struct corral_sys sys = {.ptrace = fake_ptrace, .ctx = &s};
	struct audit_call c;
	assert_int_equal(audit_inspect(&sys, 150, FILTER_RULE_SETSID, &tree,
				       &c),
			 -ESRCH);
	assert_int_equal(audit_deny(&sys, 150, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unshare),
		cmocka_unit_test(test_setns_and_setsid),
		cmocka_unit_test(test_clone_namespaces),
		cmocka_unit_test(test_kill_inside_and_outside),
		cmocka_unit_test(test_kill_of_supervisor),
		cmocka_unit_test(test_pidfd_send_signal),
		cmocka_unit_test(test_prctl),
		cmocka_unit_test(test_ptrace),
		cmocka_unit_test(test_setpgid),
		cmocka_unit_test(test_mounts),
		cmocka_unit_test(test_compat_args),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_inspect_refuses_supervisor),
		cmocka_unit_test(test_inspect_task_gone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
