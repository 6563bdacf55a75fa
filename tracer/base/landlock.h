/*
 * landlock.h - the kernel-enforced boundary around the tree: a Landlock
 * domain the first process enters before exec (docs/threat-model.md).
 *
 * A Landlock domain confines its processes, whatever their uid:
 *  - since ABI 1, ptrace and every ptrace-mode access (/proc/PID/mem,
 *    process_vm_readv/writev, pidfd_getfd...) only reach processes inside
 *    the domain;
 *  - since ABI 6 (Linux 6.12), with scoped = SIGNAL, no signal leaves the
 *    domain by any path (kill, tgkill, pidfd_send_signal, a SIGIO/SIGURG
 *    owner), and with scoped = ABSTRACT_UNIX_SOCKET no connection goes to
 *    an abstract unix socket bound outside it.
 * The supervisor stays outside (only the child restricts itself), so its
 * own ptrace requests and signals into the tree are allowed.
 *
 * The kernel's UAPI is declared here: Debian 12's headers predate `scoped`.
 */
#ifndef CORRAL_LANDLOCK_H
#define CORRAL_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "corral.h"

/* What the boundary of a run is, once decided (landlock_plan()). */
struct landlock_plan {
	int abi;	 /* the host's Landlock ABI, 0 if none */
	bool active;	 /* the first process enters a domain */
	unsigned scopes; /* CORRAL_SCOPE_* in force when active */
};

/* The host's Landlock ABI (>= 1), or -errno: -ENOSYS (not built in),
 * -EOPNOTSUPP (built in, not enabled at boot). */
int landlock_abi(void);

/*
 * Decide the boundary for a run (see enum corral_boundary). AUTO: the full
 * scoping on ABI >= 6; on ABI 1..5 the ptrace-only domain, except when
 * sandboxed (such a domain must handle a filesystem right, which makes the
 * kernel refuse mount(2) to the tree: bubblewrap could not build the
 * sandbox); SECCOMP: no domain; LANDLOCK: the full scoping or -EOPNOTSUPP
 * with a message in err (nothing may be started).
 */
int landlock_plan(enum corral_boundary want, bool sandboxed,
		  struct landlock_plan *out, char *err, size_t errlen);

/* The same for a given ABI (landlock_abi()'s answer): the tests' entry. */
int landlock_plan_abi(int abi, enum corral_boundary want, bool sandboxed,
		      struct landlock_plan *out, char *err, size_t errlen);

/* "landlock" (full scoping), "landlock-ptrace" or "seccomp". */
const char *landlock_boundary_name(const struct landlock_plan *p);

/*
 * In the forked child, before exec, after no_new_privs is set (or with
 * CAP_SYS_ADMIN): create the ruleset and restrict the calling process.
 * Async-signal-safe. 0 or -errno.
 */
int landlock_enter(const struct landlock_plan *p);

#endif
