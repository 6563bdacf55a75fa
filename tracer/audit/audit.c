/*
 * audit.c - judge the calls the filter TRACEs (audit.h), and refuse them.
 *
 * A call is identified by what the kernel says it is (arch, number and
 * arguments from PTRACE_GET_SYSCALL_INFO) run through corral's own filter
 * (filter_eval()), whose TRACE answer names the rule: the same decision
 * the kernel made for our filter, and independent of the stop's data,
 * which a member's own TRACE filter can choose. What cannot be judged is
 * refused, never resumed. An i386 task has other syscall numbers; its
 * arguments are 32-bit (their upper halves are dropped here as the kernel
 * drops them).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unistd.h>
/* After <sys/ptrace.h>: the other order does not compile. */
#include <linux/audit.h>
#include <linux/elf.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/seccomp.h>

#include "audit.h"
#include "filter.h"
#include "names.h"
#ifdef CORRAL_TESTING /* build/tests/corral-testkernel only */
#include "testkernel.h"
#endif

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef PR_SET_PTRACER
#define PR_SET_PTRACER 0x59616d61
#endif

static const char *const rule_names[FILTER_RULE__COUNT] = {
#define SC(id, name, nr, strings, when) [FILTER_RULE_##id] = name,
#include "syscalls.def"
#undef SC
};

/*
 * The native syscall of each rule. A member may stack a filter of its own
 * whose SECCOMP_RET_TRACE data collides with ours: the stop then names
 * another call, which must not be decoded (and denied) as ours.
 */
#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif
static const long rule_nr[FILTER_RULE__COUNT] = {
#define SC(id, name, nr, strings, when) [FILTER_RULE_##id] = nr,
#include "syscalls.def"
#undef SC
};

#define F(x) {x, #x}
/* After the namespaces (filter_ns_flags, named first: they are what the
 * reader looks for). */
static const struct flag_name clone_flags[] = {
	F(CLONE_UNTRACED), F(CLONE_VM), F(CLONE_FS), F(CLONE_FILES),
	F(CLONE_SIGHAND), F(CLONE_PIDFD), F(CLONE_PTRACE), F(CLONE_VFORK),
	F(CLONE_PARENT), F(CLONE_THREAD), F(CLONE_SYSVSEM), F(CLONE_SETTLS),
	F(CLONE_PARENT_SETTID), F(CLONE_CHILD_CLEARTID), F(CLONE_DETACHED),
	F(CLONE_CHILD_SETTID), F(CLONE_IO), {0, NULL},
};
/* unshare also knows CLONE_NEWTIME (bit 7, the exit signal in clone). */
static const struct flag_name unshare_flags[] = {
	F(CLONE_NEWTIME), F(CLONE_FS), F(CLONE_FILES), F(CLONE_SYSVSEM),
	F(CLONE_VM), F(CLONE_SIGHAND), F(CLONE_THREAD), {0, NULL},
};
static const struct flag_name mount_flags[] = {
	F(MS_RDONLY), F(MS_NOSUID), F(MS_NODEV), F(MS_NOEXEC),
	F(MS_SYNCHRONOUS), F(MS_REMOUNT), F(MS_MANDLOCK), F(MS_DIRSYNC),
	F(MS_NOATIME), F(MS_NODIRATIME), F(MS_BIND), F(MS_MOVE), F(MS_REC),
	F(MS_SILENT), F(MS_UNBINDABLE), F(MS_PRIVATE), F(MS_SLAVE),
	F(MS_SHARED), F(MS_RELATIME), F(MS_STRICTATIME), F(MS_LAZYTIME),
	{0, NULL},
};
static const struct flag_name umount_flags[] = {
	F(MNT_FORCE), F(MNT_DETACH), F(MNT_EXPIRE), F(UMOUNT_NOFOLLOW),
	{0, NULL},
};
static const struct flag_name prctl_opts[] = {
	F(PR_SET_CHILD_SUBREAPER), F(PR_SET_PDEATHSIG), F(PR_SET_DUMPABLE),
	F(PR_SET_PTRACER), {0, NULL},
};
static const struct flag_name ptrace_reqs[] = {
	F(PTRACE_TRACEME), F(PTRACE_ATTACH), F(PTRACE_SEIZE),
	F(PTRACE_DETACH), F(PTRACE_INTERRUPT), F(PTRACE_CONT),
	F(PTRACE_KILL), F(PTRACE_PEEKDATA), F(PTRACE_POKEDATA),
	F(PTRACE_PEEKTEXT), F(PTRACE_POKETEXT), F(PTRACE_PEEKUSER),
	F(PTRACE_POKEUSER), F(PTRACE_GETREGS), F(PTRACE_SETREGS),
	F(PTRACE_GETFPREGS), F(PTRACE_SETFPREGS), F(PTRACE_SETOPTIONS),
	F(PTRACE_GETEVENTMSG), F(PTRACE_GETSIGINFO), F(PTRACE_SETSIGINFO),
	F(PTRACE_GETREGSET), F(PTRACE_SETREGSET), F(PTRACE_SYSCALL),
	F(PTRACE_SINGLESTEP), F(PTRACE_LISTEN), F(PTRACE_PEEKSIGINFO),
	F(PTRACE_GET_SYSCALL_INFO), F(PTRACE_SECCOMP_GET_FILTER),
	{0, NULL},
};
#undef F

/* Bounded appender over out->text: truncates, never overflows. */
struct text {
	char *buf;
	size_t cap, len;
};

__attribute__((format(printf, 2, 3))) static void put(struct text *t,
						      const char *fmt, ...)
{
	if (t->len + 1 >= t->cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len += (size_t)n;
	if (t->len >= t->cap)
		t->len = t->cap - 1;
}

/* A pointer argument: the string it points to when it could be read. */
static void put_ptr(struct text *t, const struct audit_ctx *c, int i,
		    unsigned long long v)
{
	if (!c->str[i]) {
		put(t, "%#llx", v);
		return;
	}
	put(t, "\"");
	for (const char *p = c->str[i]; *p; p++)
		put(t, (*p == '"' || *p == '\\') ? "\\%c"
		       : (unsigned char)*p < 0x20 ? "\\x%02x"
						  : "%c",
		    (unsigned char)*p);
	put(t, "\"");
}

/* v as NAME|NAME|0xrest, the names of first (may be NULL), then of then. */
static void put_flags(struct text *t, unsigned long v,
		      const struct flag_name *first,
		      const struct flag_name *then)
{
	bool any = false;
	const struct flag_name *tables[] = {first, then};
	for (size_t i = 0; i < 2; i++) {
		for (const struct flag_name *n = tables[i]; n && n->name; n++) {
			if (n->flag && (v & n->flag) == n->flag) {
				put(t, "%s%s", any ? "|" : "", n->name);
				v &= ~n->flag;
				any = true;
			}
		}
	}
	if (v || !any)
		put(t, any ? "|%#lx" : "%#lx", v);
}

static void put_enum(struct text *t, unsigned long v,
		     const struct flag_name *names)
{
	for (; names->name; names++)
		if (names->flag == v) {
			put(t, "%s", names->name);
			return;
		}
	put(t, "%#lx", v);
}

/* A signal argument: its name, or the number when it is no signal (0, the
 * probe that only checks that a pid exists; garbage). */
static void put_sig(struct text *t, int sig)
{
	char nb[16];
	if (sig > 0 && sig <= SIGRTMAX)
		put(t, "%s", signal_name(sig, nb));
	else
		put(t, "%d", sig);
}

static bool member(const struct audit_tree_ops *tree, pid_t pid)
{
	return tree && tree->is_member && tree->is_member(pid, tree->arg);
}

static bool member_pgrp(const struct audit_tree_ops *tree, pid_t pgid)
{
	return tree && tree->is_member_pgrp &&
	       tree->is_member_pgrp(pgid, tree->arg);
}

static bool is_guard(const struct audit_ctx *c, pid_t pid)
{
	return pid > 0 && (pid == c->guard_pid || pid == c->guard_tid);
}

static void verdict(struct audit_call *out, bool escape, const char *why)
{
	out->escape = escape;
	out->why = why;
}

static void guard_verdict(struct audit_call *out, pid_t target,
			  const char *why)
{
	out->target = target;
	out->guard = true;
	verdict(out, true, why);
}

/* A signal to one process or thread. */
static void judge_task_signal(struct audit_call *out,
			      const struct audit_ctx *c,
			      const struct audit_tree_ops *tree, pid_t pid,
			      int sig)
{
	out->target = pid;
	if (sig == 0)
		verdict(out, false, "probe, no signal sent");
	else if (is_guard(c, pid))
		guard_verdict(out, pid, "signal to the supervisor");
	else if (pid <= 0)
		verdict(out, false, "invalid target");
	else if (member(tree, pid))
		verdict(out, false, "");
	else
		verdict(out, true, "signal outside the tree");
}

static void decode_kill(struct audit_call *out, const struct audit_ctx *c,
			const struct audit_tree_ops *tree, pid_t pid, int sig)
{
	if (pid > 0) {
		judge_task_signal(out, c, tree, pid, sig);
	} else if (sig == 0) {
		out->target = pid;
		verdict(out, false, "probe, no signal sent");
	} else if (pid == 0) {
		/* The caller's own group: members are kept out of the
		 * supervisor's group (setpgid into it is refused). */
		verdict(out, false, "own process group");
	} else if (pid == -1) {
		guard_verdict(out, -1,
			      "signal to every process, supervisor included");
	} else if (pid != INT32_MIN && -pid == c->guard_pgid) {
		guard_verdict(out, pid,
			      "signal to the supervisor's process group");
	} else {
		out->target = pid;
		if (pid != INT32_MIN && member_pgrp(tree, -pid))
			verdict(out, false, "");
		else
			verdict(out, true, "signal to a group outside the tree");
	}
}

static void decode_prctl(struct audit_call *out, struct text *t,
			 const struct audit_ctx *c,
			 const struct audit_tree_ops *tree)
{
	unsigned long opt = (unsigned int)out->args[0], a = out->args[1];
	put(t, "prctl(");
	put_enum(t, opt, prctl_opts);
	switch (opt) {
	case PR_SET_PDEATHSIG:
		put(t, ", ");
		put_sig(t, (int)a);
		verdict(out, false, "parent-death signal");
		break;
	case PR_SET_CHILD_SUBREAPER:
		put(t, ", %lu", a);
		if (a)
			verdict(out, true,
				"subreaper: orphans below it stay with it");
		break;
	case PR_SET_DUMPABLE:
		put(t, ", %lu", a);
		if (!a)
			verdict(out, false, "not dumpable: hides its memory");
		break;
	case PR_SET_PTRACER:
		/* PR_SET_PTRACER_ANY is (unsigned long)-1; an int -1 from
		 * a 32-bit ABI reads the same after truncation. */
		if (a == (unsigned long)-1 || a == UINT32_MAX) {
			put(t, ", PR_SET_PTRACER_ANY");
			verdict(out, true, "lets any process trace it");
		} else {
			pid_t pid = (pid_t)a;
			put(t, ", %d", pid);
			out->target = pid;
			if (pid > 0 && !is_guard(c, pid) && !member(tree, pid))
				verdict(out, true,
					"lets a process outside the tree trace it");
		}
		break;
	default:
		put(t, ", %#lx", a);
		break;
	}
	put(t, ")");
}

static void decode_ptrace(struct audit_call *out, struct text *t,
			  const struct audit_ctx *c,
			  const struct audit_tree_ops *tree)
{
	long req = (long)out->args[0];
	pid_t pid = (pid_t)out->args[1];
	put(t, "ptrace(");
	put_enum(t, (unsigned long)req, ptrace_reqs);
	if (req == PTRACE_TRACEME) {
		/* The member is traced by corral already: the kernel says
		 * EPERM. Still an attempt. */
		put(t, ")");
		verdict(out, true, "wants a tracer");
		return;
	}
	put(t, ", %d)", pid);
	out->target = pid;
	/* Only ATTACH and SEIZE make a tracer; every other request acts on
	 * a tracee the caller has already, which can only be one corral
	 * emulates for it (no member is ever a real tracer: eptrace.c). */
	bool attach = req == PTRACE_ATTACH || req == PTRACE_SEIZE;
	if (is_guard(c, pid))
		guard_verdict(out, pid, "ptrace of the supervisor");
	else if (!attach)
		verdict(out, false, "");
	else if (member(tree, pid))
		verdict(out, true, "ptrace of a member");
	else
		verdict(out, true, "ptrace outside the tree");
}

/* A wait that can concern an emulated tracee (__WALL): quiet. */
static void decode_wait(struct audit_call *out, struct text *t, bool waitid)
{
	const uint64_t *a = out->args;
	if (waitid)
		put(t, "waitid(%d, %d, %#llx, %#x)", (int)a[0], (int)a[1],
		    (unsigned long long)a[2], (unsigned int)a[3]);
	else
		put(t, "wait4(%d, %#llx, %#x)", (int)a[0],
		    (unsigned long long)a[1], (unsigned int)a[2]);
	verdict(out, false, "");
}

static void decode_setpgid(struct audit_call *out, struct text *t,
			   const struct audit_ctx *c,
			   const struct audit_tree_ops *tree)
{
	pid_t pid = (pid_t)out->args[0], pgid = (pid_t)out->args[1];
	put(t, "setpgid(%d, %d)", pid, pgid);
	out->target = pgid;
	if (pgid > 0 && pgid == c->guard_pgid)
		guard_verdict(out, pgid, "joins the supervisor's process group");
	else if (pgid == 0 || pgid == pid || (pid == 0 && pgid == c->caller))
		verdict(out, false, "new process group");
	else if ((pid == 0 || pid == c->caller) && c->caller_pgid &&
		 pgid == c->caller_pgid)
		verdict(out, false, ""); /* the group it is in: a no-op */
	else if (member(tree, pgid) || member_pgrp(tree, pgid))
		/* A group numbered after a live member was made by it: a pid
		 * is not handed out while a group bears its number. */
		verdict(out, false, "");
	else
		verdict(out, true, "joins a process group outside the tree");
}

/* A FUSE file system: its server may be a member, and a member waiting
 * for an answer from its own server cannot die (docs/threat-model.md). */
static bool is_fuse(const char *fstype)
{
	return fstype && !strncmp(fstype, "fuse", 4) &&
	       (!fstype[4] || fstype[4] == '.' || !strcmp(fstype, "fuseblk"));
}

static const char *mount_why(const struct audit_ctx *c, int fs_arg)
{
	return is_fuse(c->str[fs_arg])
		       ? "mounts a FUSE file system (a member serving it can "
			 "make members unkillable)"
		       : "changes mounts";
}

static pid_t tgid_of(const struct audit_tree_ops *tree, pid_t tid)
{
	return tree && tree->tgid_of && tid > 0 ? tree->tgid_of(tid, tree->arg)
						: 0;
}

#define PERF_FLAG_PID_CGROUP_ 4

/*
 * perf_event_open(attr, pid, cpu, group_fd, flags), traced when pid != 0 or
 * the event is a cgroup's: the caller's own process is fine, anything else
 * is refused in every mode (EACCES, like the kernel's own refusals): a
 * capable caller skips the kernel's ptrace check (filter.c says more).
 */
static void decode_perf(struct audit_call *out, struct text *t,
			const struct audit_ctx *c,
			const struct audit_tree_ops *tree)
{
	pid_t pid = (pid_t)out->args[1];
	int cpu = (int)out->args[2];
	unsigned long flags = out->args[4];
	put(t, "perf_event_open(%#llx, %d, %d, %d, %#lx)",
	    (unsigned long long)out->args[0], pid, cpu, (int)out->args[3],
	    flags);
	out->target = pid;
	const char *why = NULL;
	if (flags & PERF_FLAG_PID_CGROUP_) {
		why = "perf events of a cgroup's tasks";
	} else if (pid == -1) {
		why = "perf events of every task on a CPU";
	} else if (pid <= 0) {
		why = "perf events of an invalid target";
	} else if (pid == c->caller) {
		verdict(out, false, "");
		return;
	} else {
		pid_t own = tgid_of(tree, c->caller);
		if (own && tgid_of(tree, pid) == own) {
			verdict(out, false, ""); /* a thread of its own */
			return;
		}
		why = is_guard(c, pid) ? "perf events of the supervisor"
		      : member(tree, pid)
			      ? "perf events of another member process"
			      : "perf events of a process outside the tree";
	}
	verdict(out, true, why);
	out->refuse = EACCES;
}

/* clone() with namespace flags, or with CLONE_UNTRACED (which corral
 * made traced: no escape). */
static void decode_clone(struct audit_call *out, struct text *t,
			 unsigned long msg)
{
	const uint64_t *a = out->args;
#if defined(__s390__) || defined(__s390x__)
	unsigned long flags = a[1];
#else
	unsigned long flags = a[0];
#endif
	bool ns = msg == FILTER_RULE_CLONE_NS;
	put(t, "clone(");
	put_flags(t, flags & ~0xffUL, ns ? filter_ns_flags : NULL, clone_flags);
	if (flags & 0xff) {
		put(t, "|");
		put_sig(t, (int)(flags & 0xff));
	}
	put(t, ")");
	if (ns)
		verdict(out, true, "new namespace");
	else
		/* Made traced by corral: no escape. */
		verdict(out, false, "");
}

/* The calls that change mounts or the root, and fsopen. */
static void decode_mounts(struct audit_call *out, struct text *t,
			  const struct audit_ctx *c, unsigned long msg)
{
	const uint64_t *a = out->args;
	typedef unsigned long long ull;
	switch (msg) {
	case FILTER_RULE_MOUNT:
		put(t, "mount(");
		put_ptr(t, c, 0, (ull)a[0]);
		put(t, ", ");
		put_ptr(t, c, 1, (ull)a[1]);
		put(t, ", ");
		put_ptr(t, c, 2, (ull)a[2]);
		put(t, ", ");
		put_flags(t, a[3], NULL, mount_flags);
		put(t, ", %#llx)", (ull)a[4]);
		verdict(out, true, mount_why(c, 2));
		break;
	case FILTER_RULE_UMOUNT2:
		put(t, "umount2(");
		put_ptr(t, c, 0, (ull)a[0]);
		put(t, ", ");
		put_flags(t, (unsigned int)a[1], NULL, umount_flags);
		put(t, ")");
		verdict(out, true, "changes mounts");
		break;
	case FILTER_RULE_UMOUNT:
		put(t, "umount(");
		put_ptr(t, c, 0, (ull)a[0]);
		put(t, ")");
		verdict(out, true, "changes mounts");
		break;
	case FILTER_RULE_MOVE_MOUNT:
		put(t, "move_mount(%d, %#llx, %d, %#llx, %#x)", (int)a[0],
		    (ull)a[1], (int)a[2], (ull)a[3], (unsigned int)a[4]);
		verdict(out, true, "changes mounts");
		break;
	case FILTER_RULE_MOUNT_SETATTR:
		put(t, "mount_setattr(%d, %#llx, %#x, %#llx, %llu)", (int)a[0],
		    (ull)a[1], (unsigned int)a[2], (ull)a[3], (ull)a[4]);
		verdict(out, true, "changes mounts");
		break;
	case FILTER_RULE_CHROOT:
		put(t, "chroot(");
		put_ptr(t, c, 0, (ull)a[0]);
		put(t, ")");
		verdict(out, true, "changes its root");
		break;
	case FILTER_RULE_PIVOT_ROOT:
		put(t, "pivot_root(");
		put_ptr(t, c, 0, (ull)a[0]);
		put(t, ", ");
		put_ptr(t, c, 1, (ull)a[1]);
		put(t, ")");
		verdict(out, true, "changes its root");
		break;
	case FILTER_RULE_FSOPEN:
		/* Every fsopen is judged: the name read here may not be the
		 * one the kernel reads (another thread can rewrite it). */
		put(t, "fsopen(");
		put_ptr(t, c, 0, (ull)a[0]);
		put(t, ", %#x)", (unsigned int)a[1]);
		verdict(out, true,
			is_fuse(c->str[0]) ? mount_why(c, 0)
					   : "opens a file system to mount");
		break;
	}
}

/* The calls that send a signal: to a member, the supervisor or outside. */
static void decode_signal_call(struct audit_call *out, struct text *t,
			       const struct audit_ctx *c,
			       const struct audit_tree_ops *tree,
			       unsigned long msg)
{
	const uint64_t *a = out->args;
	typedef unsigned long long ull;
	switch (msg) {
	case FILTER_RULE_KILL:
		put(t, "kill(%d, ", (int)a[0]);
		put_sig(t, (int)a[1]);
		put(t, ")");
		decode_kill(out, c, tree, (int)a[0], (int)a[1]);
		break;
	case FILTER_RULE_TKILL:
		put(t, "tkill(%d, ", (int)a[0]);
		put_sig(t, (int)a[1]);
		put(t, ")");
		judge_task_signal(out, c, tree, (int)a[0], (int)a[1]);
		break;
	case FILTER_RULE_TGKILL:
	case FILTER_RULE_RT_TGSIGQUEUEINFO:
		put(t, "%s(%d, %d, ", out->name, (int)a[0], (int)a[1]);
		put_sig(t, (int)a[2]);
		if (msg == FILTER_RULE_RT_TGSIGQUEUEINFO)
			put(t, ", %#llx", (ull)a[3]);
		put(t, ")");
		/* The kernel insists that tid is in tgid: either names the
		 * process. */
		judge_task_signal(out, c, tree, (int)a[0], (int)a[2]);
		if (!out->guard && (int)a[2] && is_guard(c, (int)a[1]))
			guard_verdict(out, (int)a[1],
				      "signal to the supervisor");
		break;
	case FILTER_RULE_RT_SIGQUEUEINFO:
		put(t, "rt_sigqueueinfo(%d, ", (int)a[0]);
		put_sig(t, (int)a[1]);
		put(t, ", %#llx)", (ull)a[2]);
		judge_task_signal(out, c, tree, (int)a[0], (int)a[1]);
		break;
	case FILTER_RULE_PIDFD_SEND_SIGNAL:
		put(t, "pidfd_send_signal(%d, ", (int)a[0]);
		put_sig(t, (int)a[1]);
		put(t, ", %#llx, %#x)", (ull)a[2], (unsigned int)a[3]);
		if (c->fd_target > 0) {
			put(t, " [pid %d]", c->fd_target);
			judge_task_signal(out, c, tree, c->fd_target,
					  (int)a[1]);
		} else if ((int)a[1] == 0) {
			verdict(out, false, "probe, no signal sent");
		} else {
			/* The supervisor cannot vouch for what it can't see. */
			verdict(out, true,
				"signal through a descriptor of unknown "
				"target");
		}
		break;
	}
}

/*
 * Which call the stop is, before what it means: refused (-EINVAL) when it
 * is no seccomp stop or no rule of ours, -EPROTO when the rule and the
 * call's number disagree; else out's rule, number, name and arguments are
 * set (a 32-bit ABI's cut to 32 bits). A step of its own: what follows
 * trusts it.
 */
static int call_of(const struct ptrace_syscall_info *si, unsigned long msg,
		   struct audit_call *out)
{
	if (!si || si->op != PTRACE_SYSCALL_INFO_SECCOMP)
		return -EINVAL;
	if (msg >= FILTER_RULE__COUNT || !rule_names[msg])
		return -EINVAL;

#ifdef NATIVE_ARCH
	/* x32 shares the arch value; its numbers carry bit 30. */
	if (si->arch == NATIVE_ARCH && !(si->seccomp.nr & 0x40000000) &&
	    (long)si->seccomp.nr != rule_nr[msg] &&
	    !(msg == FILTER_RULE_WAIT && (long)si->seccomp.nr == SYS_waitid))
		return -EPROTO;
#endif
	out->rule = (unsigned)msg;
	out->nr = (long)si->seccomp.nr;
	out->name = rule_names[msg];
	/* A 32-bit ABI passes 32-bit registers; what is above is noise. */
	bool narrow = !(si->arch & __AUDIT_ARCH_64BIT);
	for (int i = 0; i < 6; i++)
		out->args[i] = narrow ? (uint32_t)si->seccomp.args[i]
				      : si->seccomp.args[i];
	return 0;
}

int audit_decode(const struct ptrace_syscall_info *si, unsigned long msg,
		 const struct audit_ctx *c, const struct audit_tree_ops *tree,
		 struct audit_call *out)
{
	static const struct audit_ctx none;

	memset(out, 0, sizeof(*out));
	out->why = "";
	struct text t = {.buf = out->text, .cap = sizeof(out->text)};
	if (!c)
		c = &none;
	int err = call_of(si, msg, out);
	if (err)
		return err;
	const uint64_t *a = out->args;

	/* Every rule of syscalls.def has its case: no default (-Wswitch). */
	switch ((enum filter_rule)msg) {
	case FILTER_RULE_NONE:
	case FILTER_RULE__COUNT:
		return -EINVAL; /* refused above: no name */
	case FILTER_RULE_SETSID:
		put(&t, "setsid()");
		verdict(out, true, "new session");
		break;
	case FILTER_RULE_SETPGID:
		decode_setpgid(out, &t, c, tree);
		break;
	case FILTER_RULE_UNSHARE:
		put(&t, "unshare(");
		put_flags(&t, (unsigned int)a[0], filter_ns_flags,
			  unshare_flags);
		put(&t, ")");
		verdict(out, true, "new namespace");
		break;
	case FILTER_RULE_SETNS:
		put(&t, "setns(%d, ", (int)a[0]);
		put_flags(&t, (unsigned int)a[1], filter_ns_flags,
			  unshare_flags);
		put(&t, ")");
		verdict(out, true, "enters another namespace");
		break;
	case FILTER_RULE_CLONE_NS:
	case FILTER_RULE_CLONE_UNTRACED:
		decode_clone(out, &t, msg);
		break;
	case FILTER_RULE_PTRACE:
		decode_ptrace(out, &t, c, tree);
		break;
	case FILTER_RULE_WAIT:
		decode_wait(out, &t,
#ifdef NATIVE_ARCH
			    si->arch == NATIVE_ARCH &&
				    (long)si->seccomp.nr == SYS_waitid
#else
			    false
#endif
		);
		break;
	case FILTER_RULE_PRCTL:
		decode_prctl(out, &t, c, tree);
		break;
	case FILTER_RULE_MOUNT:
	case FILTER_RULE_UMOUNT2:
	case FILTER_RULE_UMOUNT:
	case FILTER_RULE_MOVE_MOUNT:
	case FILTER_RULE_MOUNT_SETATTR:
	case FILTER_RULE_CHROOT:
	case FILTER_RULE_PIVOT_ROOT:
	case FILTER_RULE_FSOPEN:
		decode_mounts(out, &t, c, msg);
		break;
	case FILTER_RULE_KILL:
	case FILTER_RULE_TKILL:
	case FILTER_RULE_TGKILL:
	case FILTER_RULE_RT_TGSIGQUEUEINFO:
	case FILTER_RULE_RT_SIGQUEUEINFO:
	case FILTER_RULE_PIDFD_SEND_SIGNAL:
		decode_signal_call(out, &t, c, tree, msg);
		break;
	case FILTER_RULE_PERF_EVENT_OPEN:
		decode_perf(out, &t, c, tree);
		break;
	}
	return 0;
}

/*
 * Read a NUL-terminated string from a stopped member. process_vm_readv()
 * fails on a range that crosses into an unmapped page, so read up to each
 * page end at a time.
 */
static bool read_str(const struct corral_sys *sys, pid_t tid,
		     unsigned long long addr, char *buf, size_t len)
{
	size_t got = 0;
	if (!addr)
		return false;
	while (got + 1 < len) {
		size_t page = 4096 - ((addr + got) & 4095);
		size_t want = len - 1 - got < page ? len - 1 - got : page;
		ssize_t n = sys->read_mem(sys->ctx, tid, addr + got, buf + got,
					  want);
		if (n <= 0)
			return got > 0 && memchr(buf, 0, got);
		if (memchr(buf + got, 0, (size_t)n))
			return true;
		got += (size_t)n;
	}
	buf[len - 1] = 0;
	return true;
}

/* Which arguments of a rule's call are strings worth showing. */
static unsigned str_args(unsigned long rule)
{
	static const unsigned char strings[FILTER_RULE__COUNT] = {
#define SC(id, name, nr, str, when) [FILTER_RULE_##id] = str,
#include "syscalls.def"
#undef SC
	};
	return rule < FILTER_RULE__COUNT ? strings[rule] : 0;
}

/* Why a call cannot be judged: recorded, and the call is refused. */
static int unjudged(struct audit_call *out, int err, int refuse,
		    const char *why)
{
	out->why = why;
	out->escape = true;
	out->refuse_errno = refuse;
	return err;
}

/*
 * What the kernel says the stopped call is (PTRACE_GET_SYSCALL_INFO): 0,
 * -ESRCH (gone), or unjudged()'s return when it cannot say. Its own step:
 * a kernel before 5.3 (or one pretended, testkernel.h) ends here.
 */
static int syscall_info(const struct corral_sys *sys, pid_t tid,
			struct ptrace_syscall_info *si, struct audit_call *out)
{
	long r;
#ifdef CORRAL_TESTING /* a kernel before 5.3, pretended (testkernel.h) */
	if (testkernel_no_syscall_info())
		r = -EIO;
	else
#endif
		r = sys_ptrace(sys, PTRACE_GET_SYSCALL_INFO, tid,
			       (void *)sizeof(*si), si);
	if (r == -ESRCH)
		return -ESRCH;
	if (r < 0) {
		snprintf(out->text, sizeof(out->text),
			 "PTRACE_GET_SYSCALL_INFO: %s", strerror((int)-r));
		return unjudged(out, (int)r, ENOSYS,
				"cannot judge: no syscall information");
	}
	if (si->op != PTRACE_SYSCALL_INFO_SECCOMP) {
		snprintf(out->text, sizeof(out->text),
			 "syscall information of kind %u", (unsigned)si->op);
		return unjudged(out, -EPROTO, ENOSYS,
				"cannot judge: not a seccomp stop");
	}
	return 0;
}

/*
 * Which of our rules this is, from what the kernel says the call is and
 * our own filter, never from the stop's data: a member's filter returning
 * TRACE with data of its choice wins that field. 0 with *rule set,
 * AUDIT_NOT_OURS, or unjudged()'s return.
 */
static int our_rule(const struct sock_fprog *prog,
		    const struct ptrace_syscall_info *si,
		    struct audit_call *out, uint32_t *rule)
{
	struct seccomp_data d = {
		.nr = (int)si->seccomp.nr,
		.arch = si->arch,
		.instruction_pointer = si->instruction_pointer,
	};
	for (int i = 0; i < 6; i++)
		d.args[i] = si->seccomp.args[i];
	uint32_t act = filter_eval(prog, &d);
	*rule = act & SECCOMP_RET_DATA;
	switch (act & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW:
	case SECCOMP_RET_LOG:
		for (int i = 0; i < 6; i++)
			out->args[i] = si->seccomp.args[i];
		return AUDIT_NOT_OURS;
	case SECCOMP_RET_TRACE:
		return 0;
	case SECCOMP_RET_ERRNO:
		/* Cannot happen (ERRNO outranks TRACE): fail as we would. */
		return unjudged(out, -EPROTO, *rule ? (int)*rule : EPERM,
				"cannot judge: corral's filter refuses it");
	default:
		/* An architecture the filter does not know, or worse. */
		return unjudged(out, -EPROTO, ENOSYS,
				"cannot judge: corral's filter kills it");
	}
}

/*
 * What the decoder may need beyond the registers, read from the member
 * and the system: the supervisor it guards (only the tracer calls this),
 * a pidfd's target, the caller's group, the string arguments (into strs).
 */
static void audit_ctx_of(const struct corral_sys *sys, pid_t tid,
			 const struct ptrace_syscall_info *si, uint32_t rule,
			 struct audit_ctx *c, char strs[3][256])
{
	*c = (struct audit_ctx){
		.guard_pid = getpid(),
		.guard_tid = gettid(),
		.guard_pgid = getpgrp(),
		.caller = tid,
	};
	if (rule == FILTER_RULE_PIDFD_SEND_SIGNAL)
		c->fd_target =
			sys->fd_target(sys->ctx, tid, (int)si->seccomp.args[0]);
	if (rule == FILTER_RULE_SETPGID)
		c->caller_pgid = sys->pgid(sys->ctx, tid);
	unsigned want = str_args(rule);
	for (int i = 0; i < 3; i++)
		if ((want & (1u << i)) &&
		    read_str(sys, tid, si->seccomp.args[i], strs[i],
			     sizeof(strs[i])))
			c->str[i] = strs[i];
}

/* The verdict carried out: a call against the supervisor refused with
 * EPERM, one the policy refuses with its errno. 0, -ESRCH, or unjudged's. */
static int enforce(const struct corral_sys *sys, pid_t tid,
		   struct audit_call *out)
{
	int refuse = out->guard ? EPERM : out->refuse;
	if (!out->guard && !out->refuse)
		return 0;
	int err = audit_deny(sys, tid, refuse);
	if (err)
		return err == -ESRCH
			       ? err
			       : unjudged(out, err, refuse, "cannot refuse it");
	out->denied = true;
	return 0;
}

int audit_inspect(const struct corral_sys *sys, pid_t tid,
		  const struct sock_fprog *prog,
		  const struct audit_tree_ops *tree, struct audit_call *out)
{
	struct ptrace_syscall_info si;

	memset(out, 0, sizeof(*out));
	out->why = "";
	memset(&si, 0, sizeof(si));
	int err = syscall_info(sys, tid, &si, out);
	if (err)
		return err;
	out->nr = (long)si.seccomp.nr;
	out->arch = si.arch;
	snprintf(out->text, sizeof(out->text), "syscall %ld (arch %#x)",
		 out->nr, (unsigned)si.arch);
	uint32_t rule;
	err = our_rule(prog, &si, out, &rule);
	if (err)
		return err;

	struct audit_ctx c;
	char strs[3][256];
	audit_ctx_of(sys, tid, &si, rule, &c, strs);
	char seen[sizeof(out->text)];
	memcpy(seen, out->text, sizeof(seen));
	err = audit_decode(&si, rule, &c, tree, out);
	if (err) {
		memcpy(out->text, seen, sizeof(seen));
		return unjudged(out, err, ENOSYS,
				"cannot judge: a rule corral does not know");
	}
	return enforce(sys, tid, out);
}

int audit_deny(const struct corral_sys *sys, pid_t tid, int err)
{
	if (err <= 0 || err > 4095)
		return -EINVAL;
	return audit_skip(sys, tid, -(long)err);
}

int audit_skip(const struct corral_sys *sys, pid_t tid, long ret)
{
	long err = -ret;
#if defined(__x86_64__)
	struct user_regs_struct regs;
	long r = sys_ptrace(sys, PTRACE_GETREGS, tid, NULL, &regs);
	if (r < 0)
		return (int)r;
	/* At a seccomp stop, syscall number -1 means "skip it"; the task
	 * then sees whatever rax holds. */
	regs.orig_rax = (unsigned long long)-1;
	regs.rax = (unsigned long long)-err;
	r = sys_ptrace(sys, PTRACE_SETREGS, tid, NULL, &regs);
	return r < 0 ? (int)r : 0;
#elif defined(__aarch64__)
	int nr = -1;
	struct iovec iov = {.iov_base = &nr, .iov_len = sizeof(nr)};
	long r = sys_ptrace(sys, PTRACE_SETREGSET, tid,
			    (void *)NT_ARM_SYSTEM_CALL, &iov);
	if (r < 0)
		return (int)r;
	struct user_regs_struct regs;
	iov = (struct iovec){.iov_base = &regs, .iov_len = sizeof(regs)};
	r = sys_ptrace(sys, PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov);
	if (r < 0)
		return (int)r;
	regs.regs[0] = (unsigned long long)-err;
	r = sys_ptrace(sys, PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &iov);
	return r < 0 ? (int)r : 0;
#else
	(void)sys;
	(void)tid;
	return -EOPNOTSUPP;
#endif
}
