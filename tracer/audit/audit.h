/*
 * audit.h - decode the escape-relevant calls the containment filter sends
 * to the supervisor (SECCOMP_RET_TRACE, see filter.h) and refuse them.
 *
 * At a PTRACE_EVENT_SECCOMP stop the engine calls audit_inspect(), reports
 * the result (CORRAL_EV_ESCAPE) and, depending on --escape, resumes the
 * task (log), calls audit_deny() (deny) or ends the tree (kill).
 *
 * One decision is not the engine's: a call aimed at the supervisor itself
 * (kill(-1, sig), a signal to its pid or group, ptrace of it, setpgid into
 * its group), or a perf event aimed at anything but the caller's own
 * process, is refused by audit_inspect() in every mode and reported with
 * denied = true. The filter refuses these in the kernel when escape is OFF;
 * with escape on, it TRACEs those calls as a whole (filter.h says why).
 */
#ifndef CORRAL_AUDIT_H
#define CORRAL_AUDIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sys.h"

/* <linux/ptrace.h>; include it after <sys/ptrace.h> where you need it. */
struct ptrace_syscall_info;
struct sock_fprog;

struct audit_tree_ops {
	bool (*is_member)(pid_t pid, void *arg);      /* a live member task */
	bool (*is_member_pgrp)(pid_t pgid, void *arg); /* a group of members */
	void *arg;
	/* The process (tgid) a member task belongs to, 0 if not a member
	 * (NULL: unknown for every task). */
	pid_t (*tgid_of)(pid_t tid, void *arg);
};

struct audit_call {
	long nr;	  /* syscall number in the task's own ABI */
	uint32_t arch;	  /* its AUDIT_ARCH_* (set for AUDIT_NOT_OURS too) */
	const char *name; /* "setsid", "unshare", ... */
	uint64_t args[6]; /* truncated to 32 bits for a 32-bit ABI */
	char text[320];	  /* unshare(CLONE_NEWUSER|CLONE_NEWNS), kill(4242, SIGTERM) */
	bool escape;	  /* an escape attempt */
	const char *why;  /* short reason, "" when nothing to say */
	pid_t target;	  /* the pid/pgid/tid the call is aimed at, 0 if none */
	bool guard;	  /* aimed at the supervisor itself */
	bool denied;	  /* audit_inspect() already made it fail (EPERM) */
	int refuse;	  /* refused in every mode, with this errno (a
			     perf event aimed outside the caller's process) */
	int refuse_errno; /* when it cannot be judged: fail it with this */
	unsigned rule;	  /* the filter's rule (enum filter_rule) */
};

/*
 * Everything the decoder needs besides the syscall info: who the supervisor
 * is, who calls, and for pidfd_send_signal which process its descriptor
 * refers to (audit_inspect() asks the kernel seam, sys->fd_target: 0 =
 * unknown).
 */
struct audit_ctx {
	pid_t guard_pid, guard_tid, guard_pgid;
	pid_t caller;	  /* the stopped tid */
	pid_t caller_pgid; /* its process group, 0 if unknown */
	pid_t fd_target;
	/* Strings behind pointer arguments, read from the member's memory
	 * by audit_inspect() (path, fs type...); NULL: print the address. */
	const char *str[6];
};

/*
 * Pure decoder: fill out from a PTRACE_SYSCALL_INFO_SECCOMP record and the
 * rule (enum filter_rule) that corral's own filter gives that call. Never
 * the stop's data (si->seccomp.ret_data): between two filters returning
 * TRACE the kernel reports the newest one's, which a member can install.
 * -EINVAL if si is not a seccomp stop or the rule is unknown; -EPROTO if
 * the call is not the rule's.
 */
int audit_decode(const struct ptrace_syscall_info *si, unsigned long rule,
		 const struct audit_ctx *ctx, const struct audit_tree_ops *tree,
		 struct audit_call *out);

/* audit_inspect(): the call is not one corral's filter traces. */
#define AUDIT_NOT_OURS 1

/*
 * tid is stopped at PTRACE_EVENT_SECCOMP. Reads the call with
 * PTRACE_GET_SYSCALL_INFO through sys (and, through sys too, what a rule
 * needs of the member: a descriptor's target, its process group, the
 * strings its arguments point to), asks corral's own filter (prog,
 * filter_eval()) what it answers for that (arch, nr, args), and:
 *  - TRACE with rule R: decodes the call as R and returns 0; a call aimed
 *    at the supervisor (the calling process) is refused here
 *    (out->denied, EPERM);
 *  - ALLOW or LOG: returns AUDIT_NOT_OURS (a member's own filter made the
 *    stop for a call corral lets run: resume it as if that filter had
 *    not been there, or the emulated ptrace's wait trap; out->arch, nr
 *    and args are set);
 *  - -ESRCH: the task died;
 *  - any other -errno: the call cannot be judged (the info is missing, an
 *    architecture the filter does not know, an answer that cannot lead to
 *    a TRACE stop). out->text and out->why say what was seen; the caller
 *    must refuse the call (out->refuse_errno), never resume it as is.
 */
int audit_inspect(const struct corral_sys *sys, pid_t tid,
		  const struct sock_fprog *prog,
		  const struct audit_tree_ops *tree, struct audit_call *out);

/*
 * Make the stopped syscall fail with -err without running it: x86_64 sets
 * orig_rax to -1 and rax to -err; aarch64 sets the syscall number to -1
 * (NT_ARM_SYSTEM_CALL) and x0 to -err. 0 or -errno (-EOPNOTSUPP elsewhere).
 */
int audit_deny(const struct corral_sys *sys, pid_t tid, int err);
/* The same, the call returning ret (>= 0 a result, < 0 -errno). */
int audit_skip(const struct corral_sys *sys, pid_t tid, long ret);

#endif
