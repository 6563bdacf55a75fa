/*
 * filter.h - the containment seccomp filter every member of the tree runs
 * under (docs/threat-model.md explains each rule).
 *
 * The filter is built in the supervisor before fork (libseccomp allocates)
 * and installed in the forked child before exec (no allocation there). It is
 * inherited by every task the command creates and cannot be removed.
 *
 * Two kinds of rules:
 *  - containment, in every mode: no untraced clone (CLONE_UNTRACED alone is
 *    TRACEd and corral clears the bit, with a CLONE_NEW* flag it is refused),
 *    no clone3 (its flags are out of reach of a filter), no real tracing
 *    (every ptrace() call is TRACEd and emulated by corral, eptrace.c, as
 *    are the __WALL waits and prctl(PR_SET_PTRACER/PR_SET_DUMPABLE) that
 *    emulation needs), nothing aimed at the supervisor by pid (signals,
 *    pidfd_open, process_vm_*, prlimit, scheduling...);
 *  - audit, when escape != CORRAL_ESCAPE_OFF: SECCOMP_RET_TRACE for the
 *    calls that can take a task out of the tree's reach, with the rule id
 *    (enum filter_rule) as data. The supervisor then sees them as
 *    PTRACE_EVENT_SECCOMP stops and decodes them with audit_inspect().
 *
 * In escape mode the signal calls, ptrace and setpgid are TRACEd as a whole
 * rather than refused by pid in the filter: one libseccomp filter cannot
 * give "EPERM if aimed at the supervisor, else TRACE" a defined order (it
 * merges overlapping rules in an order of its own). audit_inspect() refuses
 * those aimed at the supervisor itself, whatever the mode.
 *
 * Requirements on the caller (the engine):
 *  - with escape != OFF, set PTRACE_O_TRACESECCOMP: without it every TRACEd
 *    call fails with ENOSYS;
 *  - call audit_inspect() at every PTRACE_EVENT_SECCOMP stop before resuming;
 *  - the first member must not stay in guard_pgid: kill(0, sig) signals the
 *    caller's own group, which no filter can tell apart by argument.
 */
#ifndef CORRAL_FILTER_H
#define CORRAL_FILTER_H

#include <linux/filter.h>
#include <sys/types.h>

#include "corral.h"

struct filter_params {
	pid_t guard_pid;  /* the supervisor: no member may trace, signal or
			     pidfd_open it */
	pid_t guard_pgid; /* the supervisor's process group */
	enum corral_escape_mode escape; /* OFF: no SECCOMP_RET_TRACE rules */
	pid_t guard_tid;  /* the tracing thread when it is not the leader,
			     0 = guard_pid (tkill/kill of any thread of a
			     process can kill the whole process) */
};

/*
 * SECCOMP_RET_TRACE data values (PTRACE_GETEVENTMSG at the seccomp stop):
 * they name the rule, hence the call, independently of the architecture's
 * syscall numbers (an i386 task has other numbers). The list, with each
 * call's name, number and when it is traced, is syscalls.def.
 */
enum filter_rule {
	FILTER_RULE_NONE = 0,
#define SC(id, ...) FILTER_RULE_##id,
#include "syscalls.def"
#undef SC
	FILTER_RULE__COUNT
};

/* clone's flags are its first argument except on s390 (newsp first). */
#if defined(__s390__) || defined(__s390x__)
#define CLONE_FLAGS_ARG 1
#else
#define CLONE_FLAGS_ARG 0
#endif

/* A flag and the name the escape audit writes for it. */
struct flag_name {
	unsigned long flag;
	const char *name;
};

/*
 * The namespace flags clone() and unshare() take, named, in the order the
 * audit names them, ending with {0, NULL}: what the containment filter
 * traces (filter.c), what the sandbox's policy refuses (sandbox/policy.c)
 * and how the audit starts a clone's or an unshare's flags (audit.c).
 * CLONE_NEWTIME is not in it: unshare and clone3 only, in clone() bit 7
 * belongs to the exit signal; each of them adds it for unshare.
 */
extern const struct flag_name filter_ns_flags[];

/*
 * Build the filter for p into prog (prog->filter is malloc'd). Native
 * architecture plus its 32-bit compat ABIs (x86_64: i386 and x32; aarch64:
 * arm), so an `int 0x80` clone meets the same rules; any other
 * architecture kills the process. 0 or -errno.
 */
int filter_build(const struct filter_params *p, struct sock_fprog *prog);
void filter_release(struct sock_fprog *prog);

/*
 * What prog answers for one call, computed the way the kernel runs it
 * (classic BPF, the subset seccomp accepts). The supervisor uses it at a
 * seccomp stop on the arch, number and arguments the kernel reports
 * (PTRACE_GET_SYSCALL_INFO), so that it never depends on the stop's data,
 * which a member's own filter can forge. A program that would read out of
 * bounds or run off its end answers SECCOMP_RET_KILL_PROCESS.
 */
struct seccomp_data;
uint32_t filter_eval(const struct sock_fprog *prog,
		     const struct seccomp_data *d);

/*
 * In the forked child, before exec: async-signal-safe, no allocation.
 * PR_SET_NO_NEW_PRIVS only if the process lacks CAP_SYS_ADMIN (a root
 * supervisor keeps setuid semantics for its command), then
 * seccomp(SECCOMP_SET_MODE_FILTER). 0 or -errno.
 */
int filter_install(const struct sock_fprog *prog);

#endif
