/*
 * filter.c - build and install the containment seccomp filter (filter.h).
 *
 * Rules are written with libseccomp only. Two facts shape them:
 *  - libseccomp merges the rules of one syscall into a decision tree whose
 *    order it chooses: when two rules with different actions both match, the
 *    winner is not defined. So every pair of rules of one syscall here is
 *    disjoint (clone: "UNTRACED set" vs "this CLONE_NEW* bit set and
 *    UNTRACED clear"), or the syscall has a single action in a given mode.
 *  - pid-like arguments are C ints: the kernel ignores the upper 32 bits of
 *    the register, a filter does not. Comparisons are masked to the low 32
 *    bits, so 0xdeadbeef00000001 is matched as 1 like the kernel reads it
 *    (a plain 64-bit EQ on -1 would miss 0x00000000ffffffff, and glibc's
 *    sign-extended -1 would miss a 32-bit datum).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_FILTER_FLAG_SPEC_ALLOW
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW (1UL << 2)
#endif
#ifndef PR_SET_PTRACER
#define PR_SET_PTRACER 0x59616d61
#endif
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_WHO_PGRP 2

/* arg == v as the kernel reads an int: low 32 bits only. */
#define ARG_INT(i, v)                                                        \
	SCMP_CMP64((i), SCMP_CMP_MASKED_EQ, 0xffffffffULL,                   \
		   (uint64_t)(uint32_t)(v))
/* (arg & mask) == val */
#define ARG_BITS(i, mask, val)                                               \
	SCMP_CMP64((i), SCMP_CMP_MASKED_EQ, (uint64_t)(mask), (uint64_t)(val))
/* arg != 0 over 64 bits: matches every non-zero int, and more (never less:
 * a value whose low 32 bits are 0 but high bits are not is matched too, and
 * the decoder then sees 0). Used to skip signal-0 probes. */
#define ARG_NONZERO(i) SCMP_CMP64((i), SCMP_CMP_NE, 0)

#define F(x) {x, #x}
const struct flag_name filter_ns_flags[] = {
	F(CLONE_NEWUSER), F(CLONE_NEWPID), F(CLONE_NEWNS),     F(CLONE_NEWNET),
	F(CLONE_NEWIPC),  F(CLONE_NEWUTS), F(CLONE_NEWCGROUP), {0, NULL},
};
#undef F

static const unsigned long prctl_audited[] = {
	PR_SET_CHILD_SUBREAPER,
	PR_SET_PDEATHSIG,
	PR_SET_DUMPABLE,
	PR_SET_PTRACER,
};

static int nr_of(const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);
	/* Negative pseudo numbers are fine (a call only some ABIs have,
	 * like i386's umount); libseccomp maps them per architecture. */
	return nr == __NR_SCMP_ERROR ? -EOPNOTSUPP : nr;
}

static int rule(scmp_filter_ctx ctx, uint32_t action, const char *name,
		unsigned n, const struct scmp_arg_cmp *cmp)
{
	int nr = nr_of(name);
	if (nr == -EOPNOTSUPP)
		return nr;
	int r = seccomp_rule_add_array(ctx, action, nr, n, cmp);
	/* The same rule twice (guard_tid == guard_pid...) is not an error. */
	return r == -EEXIST ? 0 : r;
}

#define RULE(ctx, act, name, ...)                                            \
	rule((ctx), (act), (name),                                           \
	     sizeof((struct scmp_arg_cmp[]){__VA_ARGS__}) /                  \
		     sizeof(struct scmp_arg_cmp),                            \
	     (struct scmp_arg_cmp[]){__VA_ARGS__})
#define RULE0(ctx, act, name) rule((ctx), (act), (name), 0, NULL)

#define EPERM_ACT SCMP_ACT_ERRNO(EPERM)
#define TRACE(r) SCMP_ACT_TRACE(FILTER_RULE_##r)

/* A pid-argument rule for the supervisor's pid and its tracing thread. */
static int rule_pid(scmp_filter_ctx ctx, const char *name, unsigned arg,
		    pid_t pid, pid_t tid)
{
	int r = RULE(ctx, EPERM_ACT, name, ARG_INT(arg, pid));
	if (!r && tid != pid)
		r = RULE(ctx, EPERM_ACT, name, ARG_INT(arg, tid));
	return r;
}

/* Rules that hold in every mode, in four steps: clone, the calls the
 * emulated ptrace must see, the supervisor guarded, the calls refused. */

static int add_clone_rules(scmp_filter_ctx ctx)
{
	int r = 0;
	/* A child made with CLONE_UNTRACED is not auto-attached: it would be
	 * the one task corral does not know. So such a clone is TRACEd and
	 * corral clears the bit before it runs (LeakSanitizer's helper asks
	 * for it: eptrace.c); the kernel re-runs this filter on the new
	 * registers and lets a TRACE rule through without a stop then, so a
	 * clone that also asks for a namespace is refused here, never traced
	 * (it would reach the namespace rules unaudited). The rules are
	 * disjoint: no namespace bit, or this one. clone3 hides its flags in
	 * memory, so it goes entirely; libc falls back to clone on ENOSYS. */
	unsigned long ns_all = 0;
	for (const struct flag_name *ns = filter_ns_flags; ns->name; ns++)
		ns_all |= ns->flag;
	r = r ?: RULE(ctx, TRACE(CLONE_UNTRACED), "clone",
		      ARG_BITS(CLONE_FLAGS_ARG, ns_all | CLONE_UNTRACED,
			       CLONE_UNTRACED));
	for (const struct flag_name *ns = filter_ns_flags; ns->name; ns++)
		r = r ?: RULE(ctx, EPERM_ACT, "clone",
			      ARG_BITS(CLONE_FLAGS_ARG, ns->flag | CLONE_UNTRACED,
				       ns->flag | CLONE_UNTRACED));
	r = r ?: RULE0(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3");
	return r;
}

static int add_observed(scmp_filter_ctx ctx)
{
	int r = 0;
	/* No member is ever a real tracer: every ptrace() call stops at
	 * corral, which emulates it on the stops it holds (eptrace.c) and
	 * never lets the kernel run it. What the emulation needs to see
	 * besides: the waits that can concern an emulated tracee (__WALL:
	 * LeakSanitizer's, gdb's and strace's main loops; a shell's or
	 * make's waits never set it and pay nothing), and the two prctl()
	 * options that change who may trace a process. */
	r = r ?: RULE0(ctx, TRACE(PTRACE), "ptrace");
	r = r ?: RULE(ctx, TRACE(WAIT), "wait4", ARG_BITS(2, __WALL, __WALL));
	r = r ?: RULE(ctx, TRACE(WAIT), "waitid", ARG_BITS(3, __WALL, __WALL));
	r = r ?: RULE(ctx, TRACE(WAIT), "waitpid", ARG_BITS(2, __WALL, __WALL));
	r = r ?: RULE(ctx, TRACE(PRCTL), "prctl", ARG_INT(0, PR_SET_PTRACER));
	r = r ?: RULE(ctx, TRACE(PRCTL), "prctl", ARG_INT(0, PR_SET_DUMPABLE));
	return r;
}

static int add_guard(scmp_filter_ctx ctx, const struct filter_params *p,
		     pid_t tid)
{
	pid_t pid = p->guard_pid, pgid = p->guard_pgid;
	int r = 0;
	/* Reaching into the supervisor by pid. pidfd_getfd and
	 * pidfd_send_signal take a descriptor instead; pidfd_open of the
	 * supervisor is what would hand one out. */
	r = r ?: rule_pid(ctx, "pidfd_open", 0, pid, tid);
	r = r ?: rule_pid(ctx, "process_vm_readv", 0, pid, tid);
	r = r ?: rule_pid(ctx, "process_vm_writev", 0, pid, tid);
	r = r ?: rule_pid(ctx, "prlimit64", 0, pid, tid);
	r = r ?: rule_pid(ctx, "sched_setaffinity", 0, pid, tid);
	r = r ?: rule_pid(ctx, "sched_setscheduler", 0, pid, tid);
	r = r ?: rule_pid(ctx, "sched_setparam", 0, pid, tid);
	r = r ?: rule_pid(ctx, "sched_setattr", 0, pid, tid);
	r = r ?: rule_pid(ctx, "migrate_pages", 0, pid, tid);
	r = r ?: rule_pid(ctx, "move_pages", 0, pid, tid);
	r = r ?: RULE(ctx, EPERM_ACT, "setpriority",
		      ARG_INT(0, PRIO_PROCESS), ARG_INT(1, pid));
	if (!r && tid != pid)
		r = RULE(ctx, EPERM_ACT, "setpriority",
			 ARG_INT(0, PRIO_PROCESS), ARG_INT(1, tid));
	r = r ?: RULE(ctx, EPERM_ACT, "setpriority",
		      ARG_INT(0, PRIO_PGRP), ARG_INT(1, pgid));
	r = r ?: RULE(ctx, EPERM_ACT, "ioprio_set",
		      ARG_INT(0, IOPRIO_WHO_PROCESS), ARG_INT(1, pid));
	if (!r && tid != pid)
		r = RULE(ctx, EPERM_ACT, "ioprio_set",
			 ARG_INT(0, IOPRIO_WHO_PROCESS), ARG_INT(1, tid));
	r = r ?: RULE(ctx, EPERM_ACT, "ioprio_set",
		      ARG_INT(0, IOPRIO_WHO_PGRP), ARG_INT(1, pgid));
	/* SIGIO: F_SETOWN names a process (or -group) that the kernel
	 * signals on I/O, with F_SETSIG's signal, SIGKILL included, under a
	 * same-uid check only. F_SETOWN_EX passes a pointer: not here. */
	static const char *const fcntls[] = {"fcntl", "fcntl64"};
	for (size_t i = 0; i < 2; i++) {
		r = r ?: RULE(ctx, EPERM_ACT, fcntls[i], ARG_INT(1, F_SETOWN),
			      ARG_INT(2, pid));
		if (!r && tid != pid)
			r = RULE(ctx, EPERM_ACT, fcntls[i],
				 ARG_INT(1, F_SETOWN), ARG_INT(2, tid));
		r = r ?: RULE(ctx, EPERM_ACT, fcntls[i], ARG_INT(1, F_SETOWN),
			      ARG_INT(2, -pgid));
	}
	/* Typing into the terminal: ^C or ^Z for the foreground group the
	 * supervisor may be in, or commands for the shell after corral. */
	r = r ?: RULE(ctx, EPERM_ACT, "ioctl", ARG_INT(1, TIOCSTI));
	return r;
}

static int add_refused(scmp_filter_ctx ctx)
{
	int r = 0;
	/*
	 * Calls whose permission check takes a capability where it would
	 * otherwise ask ptrace access (so Landlock's scoping is not asked),
	 * or that change the running kernel, with no use in a tree corral
	 * supervises (docs/threat-model.md, "A root member"):
	 * process_madvise takes a pidfd (no target a filter can read) and
	 * lets CAP_SYS_NICE page out any process's memory; open_by_handle_at
	 * opens any file, or a pidfd (pidfs handles), by CAP_DAC_READ_SEARCH
	 * alone; kexec and modules replace or extend the kernel.
	 */
	static const char *const refused[] = {
		"process_madvise", "open_by_handle_at", "kexec_load",
		"kexec_file_load", "init_module",       "finit_module",
		"delete_module",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		int e = RULE0(ctx, EPERM_ACT, refused[i]);
		/* A call this libseccomp or ABI does not know: nothing to
		 * refuse (kexec_file_load is 64-bit only). */
		r = r ?: (e == -EOPNOTSUPP ? 0 : e);
	}
	return r;
}

static int add_containment(scmp_filter_ctx ctx, const struct filter_params *p,
			   pid_t tid)
{
	int r = add_clone_rules(ctx);
	r = r ?: add_observed(ctx);
	r = r ?: add_guard(ctx, p, tid);
	r = r ?: add_refused(ctx);
	return r;
}

/*
 * perf_event_open(attr, pid, cpu, group_fd, flags) aimed at anything but
 * the calling task. The kernel lets a perfmon_capable() caller (root) at
 * any process without asking ptrace_may_access(), so Landlock's scoping is
 * never consulted: with attr.sigtrap and CAP_KILL the event kills its
 * target, and sampling reads its registers and stack. So, in every mode:
 *  - pid != 0 (another task; pid -1 with a cpu: every task on that CPU);
 *  - PERF_FLAG_PID_CGROUP (pid is then a cgroup: every task in it).
 * A filter cannot compare with the caller's own pid, and libseccomp has no
 * "masked !=": "pid != 0" is one rule per bit of the int, all with the same
 * action. act is ERRNO (no audit) or TRACE (the audit lets the caller's own
 * process through and refuses the rest, journaled, in every mode).
 */
#define PERF_FLAG_PID_CGROUP_ 4
static int add_perf_rules(scmp_filter_ctx ctx, uint32_t act)
{
	int r = RULE(ctx, act, "perf_event_open",
		     ARG_BITS(4, PERF_FLAG_PID_CGROUP_, PERF_FLAG_PID_CGROUP_));
	for (unsigned b = 0; b < 32; b++)
		r = r ?: RULE(ctx, act, "perf_event_open",
			      ARG_BITS(1, 1ULL << b, 1ULL << b));
	return r;
}

/* Without escape audit: refuse what aims at the supervisor, in the kernel. */
static int add_guard_rules(scmp_filter_ctx ctx, const struct filter_params *p,
			   pid_t tid)
{
	pid_t pid = p->guard_pid, pgid = p->guard_pgid;
	int r = 0;

	r = r ?: rule_pid(ctx, "kill", 0, pid, tid);
	r = r ?: RULE(ctx, EPERM_ACT, "kill", ARG_INT(0, -pgid));
	/* kill(-1): every process the caller may signal, the supervisor too. */
	r = r ?: RULE(ctx, EPERM_ACT, "kill", ARG_INT(0, -1));
	r = r ?: rule_pid(ctx, "tkill", 0, pid, tid);
	/* tgkill checks that tid belongs to tgid: tgid == supervisor covers
	 * all its threads. */
	r = r ?: RULE(ctx, EPERM_ACT, "tgkill", ARG_INT(0, pid));
	r = r ?: rule_pid(ctx, "rt_sigqueueinfo", 0, pid, tid);
	r = r ?: RULE(ctx, EPERM_ACT, "rt_tgsigqueueinfo", ARG_INT(0, pid));
	/* Joining the supervisor's group would put the member in reach of
	 * whatever signals that group (and make kill(0) hit corral). */
	r = r ?: RULE(ctx, EPERM_ACT, "setpgid", ARG_INT(1, pgid));
	r = r ?: add_perf_rules(ctx, SCMP_ACT_ERRNO(EACCES));
	return r;
}

/* Escape audit: TRACE with the rule id as data. */
static int add_trace_rules(scmp_filter_ctx ctx)
{
	int r = 0;
	const struct flag_name *ns;
	size_t i;

	r = r ?: RULE0(ctx, TRACE(SETSID), "setsid");
	r = r ?: RULE0(ctx, TRACE(SETPGID), "setpgid");
	r = r ?: RULE0(ctx, TRACE(SETNS), "setns");
	/* One rule per bit: a filter cannot test "any of these bits". Only
	 * namespace unshares: unshare(CLONE_FILES) is not worth a stop. */
	for (ns = filter_ns_flags; ns->name; ns++)
		r = r ?: RULE(ctx, TRACE(UNSHARE), "unshare",
			      ARG_BITS(0, ns->flag, ns->flag));
	r = r ?: RULE(ctx, TRACE(UNSHARE), "unshare",
		      ARG_BITS(0, CLONE_NEWTIME, CLONE_NEWTIME));
	/* Disjoint from the CLONE_UNTRACED rule: UNTRACED must be clear, so a
	 * clone with both is refused (EPERM), never traced and let through. */
	for (ns = filter_ns_flags; ns->name; ns++)
		r = r ?: RULE(ctx, TRACE(CLONE_NS), "clone",
			      ARG_BITS(CLONE_FLAGS_ARG,
				       ns->flag | CLONE_UNTRACED, ns->flag));
	for (i = 0; i < sizeof(prctl_audited) / sizeof(*prctl_audited); i++)
		r = r ?: RULE(ctx, TRACE(PRCTL), "prctl",
			      ARG_INT(0, prctl_audited[i]));
	r = r ?: RULE0(ctx, TRACE(MOUNT), "mount");
	r = r ?: RULE0(ctx, TRACE(UMOUNT2), "umount2");
	r = r ?: RULE0(ctx, TRACE(UMOUNT), "umount");
	r = r ?: RULE0(ctx, TRACE(MOVE_MOUNT), "move_mount");
	r = r ?: RULE0(ctx, TRACE(MOUNT_SETATTR), "mount_setattr");
	r = r ?: RULE0(ctx, TRACE(CHROOT), "chroot");
	r = r ?: RULE0(ctx, TRACE(PIVOT_ROOT), "pivot_root");
	/* The new mount API's first step: fsopen("fuse") is a FUSE mount
	 * that needs no move_mount (a detached mount serves requests too). */
	r = r ?: RULE0(ctx, TRACE(FSOPEN), "fsopen");
	r = r ?: add_perf_rules(ctx, TRACE(PERF_EVENT_OPEN));
	/* Signals: the decoder needs the tree to tell inside from outside,
	 * and refuses the supervisor as a target. Signal 0 (a liveness probe
	 * delivers nothing) is not worth a stop. */
	r = r ?: RULE(ctx, TRACE(KILL), "kill", ARG_NONZERO(1));
	r = r ?: RULE(ctx, TRACE(TKILL), "tkill", ARG_NONZERO(1));
	r = r ?: RULE(ctx, TRACE(TGKILL), "tgkill", ARG_NONZERO(2));
	r = r ?: RULE(ctx, TRACE(RT_SIGQUEUEINFO), "rt_sigqueueinfo",
		      ARG_NONZERO(1));
	r = r ?: RULE(ctx, TRACE(RT_TGSIGQUEUEINFO), "rt_tgsigqueueinfo",
		      ARG_NONZERO(2));
	r = r ?: RULE(ctx, TRACE(PIDFD_SEND_SIGNAL), "pidfd_send_signal",
		      ARG_NONZERO(1));
	/*
	 * A member's own filter answering SECCOMP_RET_USER_NOTIF outranks
	 * our TRACE: its calls would go to its own listener and never stop
	 * at corral. USER_NOTIF needs a listener, which only this flag hands
	 * out; ERRNO outranks whatever the member's filters say. A member
	 * filter returning TRACE is harmless: the supervisor judges the call
	 * by the kernel's (arch, nr, args), not by the stop's data.
	 */
	r = r ?: RULE(ctx, EPERM_ACT, "seccomp",
		      ARG_INT(0, SECCOMP_SET_MODE_FILTER),
		      ARG_BITS(1, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			       SECCOMP_FILTER_FLAG_NEW_LISTENER));
	return r;
}

/* The 32-bit ABIs the native one can also enter. */
static int add_compat_arches(scmp_filter_ctx ctx)
{
	static const uint32_t compat[] = {
#if defined(__x86_64__)
		SCMP_ARCH_X86, SCMP_ARCH_X32,
#elif defined(__aarch64__)
		SCMP_ARCH_ARM,
#endif
		0,
	};
	for (const uint32_t *a = compat; *a; a++) {
		int r = seccomp_arch_add(ctx, *a);
		if (r && r != -EEXIST)
			return r;
	}
	return 0;
}

static int export_prog(scmp_filter_ctx ctx, struct sock_fprog *prog)
{
	int fd = memfd_create("corral-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = seccomp_export_bpf(ctx, fd);
	off_t size = r ? 0 : lseek(fd, 0, SEEK_END);
	if (!r && size < 0)
		r = -errno;
	if (!r && (size == 0 || size % sizeof(struct sock_filter) ||
		   size / sizeof(struct sock_filter) > BPF_MAXINSNS))
		r = -E2BIG;
	struct sock_filter *buf = r ? NULL : malloc(size);
	if (!r && !buf)
		r = -ENOMEM;
	for (off_t got = 0; !r && got < size;) {
		ssize_t n = pread(fd, (char *)buf + got, size - got, got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			r = n < 0 ? -errno : -EIO;
		else
			got += n;
	}
	close(fd);
	if (r) {
		free(buf);
		return r;
	}
	prog->len = size / sizeof(struct sock_filter);
	prog->filter = buf;
	return 0;
}

int filter_build(const struct filter_params *p, struct sock_fprog *prog)
{
	prog->len = 0;
	prog->filter = NULL;
	if (p->guard_pid <= 0 || p->guard_pgid <= 0 || p->guard_tid < 0)
		return -EINVAL;
	pid_t tid = p->guard_tid ? p->guard_tid : p->guard_pid;

	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -ENOMEM;
	int r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
				 SCMP_ACT_KILL_PROCESS);
	/* A binary tree of syscall numbers: every syscall of every member
	 * runs through this filter, most of them to ALLOW. */
	if (!r)
		(void)seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	r = r ?: add_compat_arches(ctx);
	r = r ?: add_containment(ctx, p, tid);
	if (!r && p->escape == CORRAL_ESCAPE_OFF)
		r = add_guard_rules(ctx, p, tid);
	else if (!r)
		r = add_trace_rules(ctx);
	r = r ?: export_prog(ctx, prog);
	seccomp_release(ctx);
	/* libseccomp returns -ECANCELED and friends; keep them negative. */
	return r > 0 ? -r : r;
}

/*
 * filter_eval's instruction classes, each its own step so the loop reads
 * as the machine's cycle. Each answers false for what the kernel's
 * checker would refuse (the filter is then taken as killing).
 */

/* LD, LDX: the value loaded (seccomp_data words, immediates, scratch). */
static bool eval_load(const struct sock_filter *f, const struct seccomp_data *d,
		      const uint32_t *mem, uint32_t *v)
{
	uint32_t k = f->k;
	if (BPF_MODE(f->code) == BPF_ABS) {
		if (BPF_SIZE(f->code) != BPF_W || k % 4 || k + 4 > sizeof(*d))
			return false;
		memcpy(v, (const char *)d + k, 4);
	} else if (BPF_MODE(f->code) == BPF_IMM) {
		*v = k;
	} else if (BPF_MODE(f->code) == BPF_MEM) {
		if (k >= BPF_MEMWORDS)
			return false;
		*v = mem[k];
	} else if (BPF_MODE(f->code) == BPF_LEN) {
		*v = sizeof(*d);
	} else {
		return false;
	}
	return true;
}

/* ALU: a = a OP src (a division by zero kills, as in the kernel). */
static bool eval_alu(uint16_t code, uint32_t src, uint32_t *a)
{
	/* one operation a line, as a table */
	/* clang-format off */
	switch (BPF_OP(code)) {
	case BPF_ADD: *a += src; break;
	case BPF_SUB: *a -= src; break;
	case BPF_MUL: *a *= src; break;
	case BPF_DIV:
		if (!src)
			return false;
		*a /= src;
		break;
	case BPF_MOD:
		if (!src)
			return false;
		*a %= src;
		break;
	case BPF_AND: *a &= src; break;
	case BPF_OR: *a |= src; break;
	case BPF_XOR: *a ^= src; break;
	case BPF_LSH: *a = src < 32 ? *a << src : 0; break;
	case BPF_RSH: *a = src < 32 ? *a >> src : 0; break;
	case BPF_NEG: *a = -*a; break;
	default: return false;
	}
	/* clang-format on */
	return true;
}

/* JMP: how many instructions to skip. */
static bool eval_jump(const struct sock_filter *f, uint32_t a, uint32_t src,
		      unsigned *off)
{
	bool t;
	/* one condition a line, as a table */
	/* clang-format off */
	switch (BPF_OP(f->code)) {
	case BPF_JA: *off = f->k; return true;
	case BPF_JEQ: t = a == src; break;
	case BPF_JGT: t = a > src; break;
	case BPF_JGE: t = a >= src; break;
	case BPF_JSET: t = (a & src) != 0; break;
	default: return false;
	}
	/* clang-format on */
	*off = t ? f->jt : f->jf;
	return true;
}

uint32_t filter_eval(const struct sock_fprog *prog,
		     const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = {0};
	const uint32_t kill = SECCOMP_RET_KILL_PROCESS;
	if (!prog || !prog->filter)
		return kill;
	for (unsigned pc = 0; pc < prog->len; pc++) {
		const struct sock_filter *f = &prog->filter[pc];
		uint32_t k = f->k, src = BPF_SRC(f->code) == BPF_X ? x : k, v;
		unsigned off;
		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
		case BPF_LDX:
			if (!eval_load(f, d, mem, &v))
				return kill;
			if (BPF_CLASS(f->code) == BPF_LD)
				a = v;
			else
				x = v;
			break;
		case BPF_ST:
		case BPF_STX:
			if (k >= BPF_MEMWORDS)
				return kill;
			mem[k] = BPF_CLASS(f->code) == BPF_ST ? a : x;
			break;
		case BPF_ALU:
			if (!eval_alu(f->code, src, &a))
				return kill;
			break;
		case BPF_JMP:
			/* Jumps only go forward: the loop ends. */
			if (!eval_jump(f, a, src, &off) || off >= prog->len - pc)
				return kill;
			pc += off;
			break;
		case BPF_RET:
			return BPF_RVAL(f->code) == BPF_A ? a : k;
		case BPF_MISC:
			if (BPF_MISCOP(f->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		default:
			return kill;
		}
	}
	return kill;
}

void filter_release(struct sock_fprog *prog)
{
	free(prog->filter);
	prog->filter = NULL;
	prog->len = 0;
}

int filter_install(const struct sock_fprog *prog)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (!prog || !prog->filter || !prog->len)
		return -EINVAL;
	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	/* Without CAP_SYS_ADMIN the kernel wants no_new_privs. With it, leave
	 * it off: a root supervisor keeps setuid programs working. */
	if (!(data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &
	      CAP_TO_MASK(CAP_SYS_ADMIN)) &&
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	/* SPEC_ALLOW: this filter contains, it does not defend against
	 * speculation; without the flag some kernels force SSB mitigation on
	 * the whole tree (slower than the same command run without corral).
	 * Kernels before 4.17 do not know the flag: retry without. */
	long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			 SECCOMP_FILTER_FLAG_SPEC_ALLOW, prog);
	if (r < 0 && errno == EINVAL)
		r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog);
	return r < 0 ? -errno : 0;
}
