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
#include <linux/seccomp.h>

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

static const struct audit_tree_ops tree = {fake_member, fake_pgrp, NULL,
					     NULL};
static const struct audit_ctx ctx = {
	.guard_pid = GUARD,
	.guard_tid = GUARD_TID,
	.guard_pgid = GUARD_PGID,
	.caller = CALLER,
};

/* The native number of a rule's call (tracer/base/syscalls.def). */
static long nr_of(enum filter_rule rule)
{
	static const long nr[FILTER_RULE__COUNT] = {
#define SC(id, name, n, strings, when) [FILTER_RULE_##id] = n,
#include "syscalls.def"
#undef SC
	};
	return rule > FILTER_RULE_NONE && rule < FILTER_RULE__COUNT ? nr[rule]
								    : -1;
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

/* The caller (200) has a second thread, 201; members are processes. */
static pid_t fake_tgid(pid_t tid, void *arg)
{
	if (tid == CALLER || tid == CALLER + 1)
		return CALLER;
	return fake_member(tid, arg) ? tid : 0;
}

static struct audit_call dec_perf(pid_t pid, int cpu, unsigned long flags)
{
	static const struct audit_tree_ops with_tgid = {fake_member, fake_pgrp,
							NULL, fake_tgid};
	struct ptrace_syscall_info si = mk(FILTER_RULE_PERF_EVENT_OPEN, 0x1000,
					   (uint64_t)(int64_t)pid,
					   (uint64_t)(int64_t)cpu, -1);
	si.seccomp.args[4] = flags;
	struct audit_call out;
	assert_int_equal(audit_decode(&si, FILTER_RULE_PERF_EVENT_OPEN, &ctx,
				      &with_tgid, &out),
			 0);
	return out;
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
	assert_int_equal(audit_decode(&si, si.seccomp.ret_data, &x, &tree, &c), 0);
	assert_string_equal(c.text,
			    "pidfd_send_signal(5, SIGKILL, 0, 0) [pid 150]");
	assert_false(c.escape);
	x.fd_target = GUARD;
	assert_int_equal(audit_decode(&si, si.seccomp.ret_data, &x, &tree, &c), 0);
	assert_true(c.guard);
	x.fd_target = 0; /* unknown: cannot vouch for it */
	assert_int_equal(audit_decode(&si, si.seccomp.ret_data, &x, &tree, &c), 0);
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
	assert_int_equal(audit_decode(&si, si.seccomp.ret_data, &ctx, &tree, &c), 0);
	assert_int_equal(c.args[0], 150);
	assert_string_equal(c.text, "kill(150, SIGTERM)");
	assert_false(c.escape);
}

/* perf events: the caller's own process only; the rest is refused in
 * every mode (out.refuse), whatever the tree says. */
static void test_perf_event_open(void **state)
{
	struct audit_call c = dec_perf(CALLER, -1, 0);
	assert_false(c.escape);
	assert_int_equal(c.refuse, 0);
	c = dec_perf(CALLER + 1, 0, 0); /* a thread of its own */
	assert_false(c.escape);
	assert_int_equal(c.refuse, 0);
	c = dec_perf(4242, -1, 8);
	assert_true(c.escape);
	assert_int_equal(c.refuse, EACCES);
	assert_int_equal(c.target, 4242);
	assert_string_equal(c.text, "perf_event_open(0x1000, 4242, -1, -1, 0x8)");
	assert_string_equal(c.why, "perf events of a process outside the tree");
	c = dec_perf(150, -1, 0); /* another member: refused too */
	assert_int_equal(c.refuse, EACCES);
	assert_string_equal(c.why, "perf events of another member process");
	c = dec_perf(GUARD, -1, 0);
	assert_int_equal(c.refuse, EACCES);
	c = dec_perf(-1, 0, 0);
	assert_int_equal(c.refuse, EACCES);
	assert_string_equal(c.why, "perf events of every task on a CPU");
	c = dec_perf(CALLER, 0, 4); /* PERF_FLAG_PID_CGROUP: pid is a cgroup */
	assert_int_equal(c.refuse, EACCES);
	assert_string_equal(c.why, "perf events of a cgroup's tasks");
	/* Without a way to tell a task's process: only the caller itself. */
	struct audit_call out;
	struct ptrace_syscall_info si =
		mk(FILTER_RULE_PERF_EVENT_OPEN, 0, CALLER + 1, -1, -1);
	assert_int_equal(audit_decode(&si, FILTER_RULE_PERF_EVENT_OPEN, &ctx,
				      &tree, &out),
			 0);
	assert_int_equal(out.refuse, EACCES);
}

/* FUSE mounts are named as such; every fsopen is an escape (the name the
 * kernel reads may not be the one corral read). */
static void test_fuse_mounts(void **state)
{
	struct audit_ctx c = ctx;
	c.str[0] = "fuse";
	struct ptrace_syscall_info si = mk(FILTER_RULE_FSOPEN, 0x1000, 0, 0, 0);
	struct audit_call out;
	assert_int_equal(audit_decode(&si, FILTER_RULE_FSOPEN, &c, &tree, &out),
			 0);
	assert_true(out.escape);
	assert_string_equal(out.text, "fsopen(\"fuse\", 0)");
	assert_non_null(strstr(out.why, "FUSE"));
	c.str[0] = "tmpfs";
	assert_int_equal(audit_decode(&si, FILTER_RULE_FSOPEN, &c, &tree, &out),
			 0);
	assert_true(out.escape);
	assert_null(strstr(out.why, "FUSE"));
	c.str[0] = "src";
	c.str[1] = "/mnt";
	c.str[2] = "fuse.sshfs";
	si = mk(FILTER_RULE_MOUNT, 1, 2, 3, 0);
	assert_int_equal(audit_decode(&si, FILTER_RULE_MOUNT, &c, &tree, &out),
			 0);
	assert_true(out.escape);
	assert_non_null(strstr(out.why, "FUSE"));
	c.str[2] = "fusectl"; /* not a FUSE file system */
	assert_int_equal(audit_decode(&si, FILTER_RULE_MOUNT, &c, &tree, &out),
			 0);
	assert_string_equal(out.why, "changes mounts");
}

static void test_bad_input(void **state)
{
	struct ptrace_syscall_info si = mk(FILTER_RULE_SETSID, 0, 0, 0, 0);
	struct audit_call c;
	assert_int_equal(audit_decode(&si, FILTER_RULE__COUNT, &ctx, &tree, &c),
			 -EINVAL);
	si.seccomp.ret_data = 0;
	assert_int_equal(audit_decode(&si, si.seccomp.ret_data, &ctx, &tree, &c), -EINVAL);
	si = mk(FILTER_RULE_SETSID, 0, 0, 0, 0);
	si.op = PTRACE_SYSCALL_INFO_ENTRY;
	assert_int_equal(audit_decode(&si, FILTER_RULE_SETSID, &ctx, &tree, &c),
			 -EINVAL);
	/* a member's own filter TRACEs write() with our setsid data */
	si = mk(FILTER_RULE_SETSID, 0, 0, 0, 0);
	si.seccomp.nr = SYS_write;
	assert_int_equal(audit_decode(&si, si.seccomp.ret_data, &ctx, &tree, &c), -EPROTO);
	/* no tree, no context: still decodes, conservatively */
	si = mk(FILTER_RULE_KILL, 150, SIGTERM, 0, 0);
	assert_int_equal(audit_decode(&si, si.seccomp.ret_data, NULL, NULL, &c), 0);
	assert_true(c.escape);
	/* the text is bounded */
	si = mk(FILTER_RULE_MOUNT, ~0ULL, ~0ULL, ~0ULL, ~0ULL);
	si.seccomp.args[4] = ~0ULL;
	assert_int_equal(audit_decode(&si, si.seccomp.ret_data, &ctx, &tree, &c), 0);
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

/* corral's own filter, built as corral_new() builds it, guarding us. */
static struct sock_fprog prog_for(enum corral_escape_mode mode)
{
	struct filter_params p = {
		.guard_pid = getpid(),
		.guard_pgid = getpgrp(),
		.escape = mode,
	};
	struct sock_fprog prog;
	assert_int_equal(filter_build(&p, &prog), 0);
	return prog;
}

static void test_inspect_refuses_supervisor(void **state)
{
	struct script s;
	struct sock_fprog prog = prog_for(CORRAL_ESCAPE_LOG);
	memset(&s, 0, sizeof(s));
	/* audit_inspect's guard is the caller: this test process. */
	s.si = mk(FILTER_RULE_KILL, (uint64_t)getpid(), SIGKILL, 0, 0);
	struct corral_sys sys = {.ptrace = fake_ptrace, .ctx = &s};
	struct audit_call c;
	assert_int_equal(audit_inspect(&sys, 150, &prog, &tree, &c), 0);
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
	assert_int_equal(audit_inspect(&sys, 151, &prog, &tree, &c), 0);
	assert_false(c.escape);
	assert_false(c.denied);
	assert_int_equal(s.setregs, 0);
	filter_release(&prog);
}

static void test_inspect_task_gone(void **state)
{
	struct script s;
	struct sock_fprog prog = prog_for(CORRAL_ESCAPE_LOG);
	memset(&s, 0, sizeof(s));
	s.fail = -ESRCH;
	struct corral_sys sys = {.ptrace = fake_ptrace, .ctx = &s};
	struct audit_call c;
	assert_int_equal(audit_inspect(&sys, 150, &prog, &tree, &c), -ESRCH);
	assert_int_equal(audit_deny(&sys, 150, 0), -EINVAL);
	filter_release(&prog);
}

/*
 * A member's own filter returns SECCOMP_RET_TRACE with data of its choice
 * (the kernel reports the newest filter's data): the call is judged by
 * what it is, never by that data.
 */
static void test_inspect_forged_data(void **state)
{
	struct script s;
	struct sock_fprog prog = prog_for(CORRAL_ESCAPE_DENY);
	struct corral_sys sys = {.ptrace = fake_ptrace, .ctx = &s};
	struct audit_call c;
	static const unsigned long forged[] = {
		0, FILTER_RULE_PRCTL, FILTER_RULE_KILL, FILTER_RULE__COUNT,
		0xfff, 0xffff,
	};
	for (size_t i = 0; i < sizeof(forged) / sizeof(*forged); i++) {
		memset(&s, 0, sizeof(s));
		s.si = mk(FILTER_RULE_SETSID, 0, 0, 0, 0);
		s.si.seccomp.ret_data = (uint32_t)forged[i];
		assert_int_equal(audit_inspect(&sys, 150, &prog, &tree, &c), 0);
		assert_string_equal(c.name, "setsid");
		assert_string_equal(c.text, "setsid()");
		assert_true(c.escape);
	}
	/* kill(corral) with the data of a harmless rule: still refused */
	memset(&s, 0, sizeof(s));
	s.si = mk(FILTER_RULE_KILL, (uint64_t)getpid(), SIGSTOP, 0, 0);
	s.si.seccomp.ret_data = FILTER_RULE_SETPGID;
	assert_int_equal(audit_inspect(&sys, 150, &prog, &tree, &c), 0);
	assert_true(c.guard);
#ifdef __x86_64__
	assert_true(c.denied);
	assert_int_equal((long long)s.regs.rax, -EPERM);
#endif
	/* a call corral lets run, stopped by the member's filter with our
	 * kill rule's data: not ours, not decoded as kill */
	memset(&s, 0, sizeof(s));
	s.si = mk(FILTER_RULE_NONE, 0, 0, 0, 0);
	s.si.seccomp.nr = SYS_getppid;
	s.si.seccomp.ret_data = FILTER_RULE_KILL;
	assert_int_equal(audit_inspect(&sys, 150, &prog, &tree, &c),
			 AUDIT_NOT_OURS);
	assert_int_equal(s.setregs, 0);
	/* a signal 0 probe: our filter lets it run untraced */
	s.si = mk(FILTER_RULE_KILL, 4242, 0, 0, 0);
	assert_int_equal(audit_inspect(&sys, 150, &prog, &tree, &c),
			 AUDIT_NOT_OURS);
	filter_release(&prog);
}

/* What cannot be judged is refused: an unknown architecture, a failed
 * info call, a stop that is not a seccomp stop. */
static void test_inspect_unjudged(void **state)
{
	struct script s;
	struct sock_fprog prog = prog_for(CORRAL_ESCAPE_LOG);
	struct corral_sys sys = {.ptrace = fake_ptrace, .ctx = &s};
	struct audit_call c;

	memset(&s, 0, sizeof(s));
	s.si = mk(FILTER_RULE_SETSID, 0, 0, 0, 0);
	s.si.arch = 0x12345678; /* no such ABI */
	assert_true(audit_inspect(&sys, 150, &prog, &tree, &c) < 0);
	assert_int_equal(c.refuse_errno, ENOSYS);
	assert_non_null(strstr(c.why, "cannot judge"));
	assert_non_null(strstr(c.text, "arch 0x12345678"));

	memset(&s, 0, sizeof(s));
	s.fail = -EIO;
	assert_int_equal(audit_inspect(&sys, 150, &prog, &tree, &c), -EIO);
	assert_int_equal(c.refuse_errno, ENOSYS);
	assert_true(c.escape);

	memset(&s, 0, sizeof(s));
	s.si = mk(FILTER_RULE_SETSID, 0, 0, 0, 0);
	s.si.op = PTRACE_SYSCALL_INFO_ENTRY;
	assert_true(audit_inspect(&sys, 150, &prog, &tree, &c) < 0);
	assert_int_equal(c.refuse_errno, ENOSYS);
	filter_release(&prog);
}

#ifdef __x86_64__
/* An i386 call (int 0x80) is judged by its own numbers: kill is 37. */
static void test_inspect_i386(void **state)
{
	struct script s;
	struct sock_fprog prog = prog_for(CORRAL_ESCAPE_LOG);
	struct corral_sys sys = {.ptrace = fake_ptrace, .ctx = &s};
	struct audit_call c;
	memset(&s, 0, sizeof(s));
	s.si = mk(FILTER_RULE_KILL, 0xffffffff00001092ULL, SIGTERM, 0, 0);
	s.si.arch = AUDIT_ARCH_I386;
	s.si.seccomp.nr = 37;
	s.si.seccomp.ret_data = 0xabc;
	assert_int_equal(audit_inspect(&sys, 150, &prog, &tree, &c), 0);
	assert_string_equal(c.text, "kill(4242, SIGTERM)");
	assert_true(c.escape);
	/* i386's 20 is getpid: not ours, whatever x86_64's 20 is */
	s.si.seccomp.nr = 20;
	assert_int_equal(audit_inspect(&sys, 150, &prog, &tree, &c),
			 AUDIT_NOT_OURS);
	filter_release(&prog);
}
#endif

/* filter_eval() agrees with the rules the filter was built from. */
static void test_filter_eval(void **state)
{
	struct sock_fprog off = prog_for(CORRAL_ESCAPE_OFF);
	struct sock_fprog log = prog_for(CORRAL_ESCAPE_LOG);
	struct seccomp_data d = {.arch = AUDIT_ARCH_X86_64};
#ifdef __x86_64__
	d.nr = SYS_getpid;
	assert_int_equal(filter_eval(&off, &d), SECCOMP_RET_ALLOW);
	d.nr = SYS_kill;
	d.args[0] = (uint64_t)getpid();
	d.args[1] = SIGSTOP;
	assert_int_equal(filter_eval(&off, &d), SECCOMP_RET_ERRNO | EPERM);
	assert_int_equal(filter_eval(&log, &d),
			 SECCOMP_RET_TRACE | FILTER_RULE_KILL);
	d.args[1] = 0; /* a probe is not traced */
	assert_int_equal(filter_eval(&log, &d), SECCOMP_RET_ALLOW);
	d.nr = SYS_seccomp;
	d.args[0] = SECCOMP_SET_MODE_FILTER;
	d.args[1] = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	assert_int_equal(filter_eval(&log, &d), SECCOMP_RET_ERRNO | EPERM);
	d.args[1] = 0; /* a filter without a listener is fine */
	assert_int_equal(filter_eval(&log, &d), SECCOMP_RET_ALLOW);
	d.nr = SYS_clone;
	d.args[0] = CLONE_NEWNS;
	assert_int_equal(filter_eval(&log, &d),
			 SECCOMP_RET_TRACE | FILTER_RULE_CLONE_NS);
	d.args[0] = CLONE_NEWNS | CLONE_UNTRACED;
	assert_int_equal(filter_eval(&log, &d), SECCOMP_RET_ERRNO | EPERM);
	d.arch = 0x12345678;
	assert_int_equal(filter_eval(&log, &d), SECCOMP_RET_KILL_PROCESS);
#endif
	/* no program, or one that runs off its end */
	assert_int_equal(filter_eval(NULL, &d), SECCOMP_RET_KILL_PROCESS);
	struct sock_filter nop[] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0)};
	struct sock_fprog bad = {1, nop};
	assert_int_equal(filter_eval(&bad, &d), SECCOMP_RET_KILL_PROCESS);
	filter_release(&off);
	filter_release(&log);
}

/*
 * tracer/base/syscalls.def is the list of traced calls: the filter filter.c
 * builds TRACEs exactly its rules, the OBSERVE ones in every mode (corral
 * must see them: the emulated ptrace) and the AUDIT ones only with
 * --escape; each has a name and a case in the decoder.
 */
static void traced_rules(enum corral_escape_mode mode,
			 bool seen[FILTER_RULE__COUNT])
{
	struct filter_params p = {
		.guard_pid = GUARD,
		.guard_pgid = GUARD_PGID,
		.guard_tid = GUARD_TID,
		.escape = mode,
	};
	struct sock_fprog prog;
	assert_int_equal(filter_build(&p, &prog), 0);
	memset(seen, 0, FILTER_RULE__COUNT * sizeof(bool));
	for (unsigned i = 0; i < prog.len; i++) {
		const struct sock_filter *f = &prog.filter[i];
		if (f->code != (BPF_RET | BPF_K) ||
		    (f->k & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_TRACE)
			continue;
		unsigned rule = f->k & SECCOMP_RET_DATA;
		if (rule == FILTER_RULE_NONE || rule >= FILTER_RULE__COUNT)
			fail_msg("the filter TRACEs with data %u: no rule of "
				 "tracer/base/syscalls.def",
				 rule);
		seen[rule] = true;
	}
	filter_release(&prog);
}

static void test_rules_as_declared(void **state)
{
	static const struct {
		const char *id;
		bool observe;
	} def[FILTER_RULE__COUNT] = {
#define SC(id, name, nr, strings, when)                                        \
	[FILTER_RULE_##id] = {#id, !strcmp(#when, "OBSERVE")},
#include "syscalls.def"
#undef SC
	};
	bool off[FILTER_RULE__COUNT], log[FILTER_RULE__COUNT];
	traced_rules(CORRAL_ESCAPE_OFF, off);
	traced_rules(CORRAL_ESCAPE_LOG, log);
	for (unsigned r = 1; r < FILTER_RULE__COUNT; r++) {
		if (!log[r])
			fail_msg("%s: declared in tracer/base/syscalls.def, "
				 "but the filter never TRACEs it (filter.c)",
				 def[r].id);
		if (off[r] != def[r].observe)
			fail_msg("%s: the filter %s it without --escape, but "
				 "tracer/base/syscalls.def says %s",
				 def[r].id,
				 off[r] ? "TRACEs" : "does not TRACE",
				 def[r].observe ? "OBSERVE" : "AUDIT");
		/* a name, and a case in the decoder (-EINVAL without) */
		struct ptrace_syscall_info si = {
			.op = PTRACE_SYSCALL_INFO_SECCOMP,
#ifdef __aarch64__
			.arch = AUDIT_ARCH_AARCH64,
#else
			.arch = AUDIT_ARCH_X86_64,
#endif
			.seccomp.nr = (uint64_t)nr_of(r),
		};
		struct audit_call c;
		assert_int_equal(audit_decode(&si, r, NULL, NULL, &c), 0);
		assert_non_null(c.name);
		assert_int_equal(c.rule, r);
	}
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
		cmocka_unit_test(test_perf_event_open),
		cmocka_unit_test(test_fuse_mounts),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_inspect_refuses_supervisor),
		cmocka_unit_test(test_inspect_task_gone),
		cmocka_unit_test(test_inspect_forged_data),
		cmocka_unit_test(test_inspect_unjudged),
#ifdef __x86_64__
		cmocka_unit_test(test_inspect_i386),
#endif
		cmocka_unit_test(test_filter_eval),
		cmocka_unit_test(test_rules_as_declared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
