/*
 * corral/probe.h - can corral's sandbox work on this host, and if not, why:
 * what `corral probe` prints (docs/sandbox.md). In libcorral only (the
 * trial sandbox uses its seccomp policy).
 */
#ifndef CORRAL_PUBLIC_PROBE_H
#define CORRAL_PUBLIC_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/*
 * Can the sandbox (bubblewrap under corral) work on this host, and if not,
 * why. Allocated by the caller: corral_probe_init() sets size; filled by
 * corral_probe_host(). size first, new fields appended at the end only.
 */
struct corral_probe {
	size_t size;		/* sizeof(struct corral_probe) the caller knows */
	bool sandbox_ok;	/* can the sandbox work here */
	char reason[512];	/* if not, why (user-facing) */
	int yama_ptrace_scope;	/* -1 if no Yama */
	bool seccomp;		/* seccomp filter mode with ERRNO available */
	bool ptrace;		/* we can PTRACE_SEIZE a child of ours */
	bool userns;		/* a user namespace can be made and mapped */
	char userns_error[128]; /* what failed when !userns */
	bool bwrap_found;
	char bwrap_path[4096];
	char bwrap_version[64];
	bool bwrap_setuid;	/* setuid bit on bwrap (its privileges are not
				   used under corral) */
	bool bwrap_works;	/* a trial sandbox with the real profile and
				   policy ran /bin/true under a ptrace seize */
	char bwrap_error[256];	/* bwrap's own message when !bwrap_works */
	bool cgroup2;
	char cgroup2_mount[256];
	bool is_root;
	/* Added for issue 9: the kernel boundary (docs/threat-model.md). */
	int landlock_abi;	      /* 0: no Landlock */
	const char *boundary;	      /* what a run gets: "landlock",
					 "landlock-ptrace" or "seccomp" */
	const char *boundary_sandbox; /* the same with --sandbox */
	char trial_user[64];	/* host user the trial ran as (nobody for
				   root: a root corral's sandbox does not
				   run as root, docs/sandbox.md) */
};

/*
 * Probe the host: bwrap is bwrap_path, or NULL for a PATH lookup. Runs a
 * few short-lived children (a user namespace try, a ptrace try, a trial
 * sandbox) and waits for each by pid: nothing is left running. Do not call
 * it while a supervisor runs in another thread of the process (its
 * waitpid(-1) could take the probe's children). Fills the first p->size
 * bytes (corral_probe_init() first). 0 (the verdict is in sandbox_ok and
 * reason) or -errno.
 */
int corral_probe_host(const char *bwrap_path, struct corral_probe *p);

/*
 * p as one JSON object (no newline), keys = field names, strings in the
 * journal's convention (docs/journal.md: bytes that are not UTF-8 as
 * \udcXX): what `corral probe --json` prints. malloc'd, free() it; NULL
 * when out of memory or p->size is not one the library can read.
 */
char *corral_probe_json(const struct corral_probe *p);

static inline void corral_probe_init(struct corral_probe *p)
{
	__builtin_memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
}

/* Shorthand, kept for the programs that use it: sets p->size, then
 * corral_probe_host(). */
static inline int corral_probe(const char *bwrap_path, struct corral_probe *p)
{
	p->size = sizeof(*p);
	return corral_probe_host(bwrap_path, p);
}

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
