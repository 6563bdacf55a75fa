/*
 * sandbox.h - the building blocks of `corral run --sandbox`.
 *
 * The engine (tracer/) does, in this order:
 *
 *	sandbox_probe()       refuse early, with a reason, on a host where the
 *	                      sandbox cannot work (exit 125);
 *	sandbox_validate()    refuse a bad configuration before anything runs;
 *	sandbox_policy_fd()   the seccomp policy for the command, as a BPF
 *	                      program in a file descriptor;
 *	sandbox_argv()        bubblewrap's argv, which the engine spawns under
 *	                      ptrace itself (bwrap is seized before it runs);
 *
 * then closes the policy fd in the supervisor once bwrap has been started.
 * What the profile and the policy contain, and why: docs/sandbox.md.
 *
 * All functions return 0 (or a count / fd) or a negative errno.
 */
#ifndef CORRAL_SANDBOX_H
#define CORRAL_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "corral.h"

struct sandbox_probe {
	int yama_ptrace_scope;	/* -1 if no Yama */
	bool seccomp;		/* seccomp filter mode with ERRNO available */
	bool ptrace;		/* we can PTRACE_SEIZE a child of ours */
	bool userns;		/* an unprivileged user namespace can be made
				   and mapped (tried in a child) */
	char userns_error[128]; /* what failed when !userns */
	bool bwrap_found;
	char bwrap_path[4096];
	char bwrap_version[64];
	bool bwrap_setuid; /* setuid bit on bwrap (informational, see docs) */
	bool bwrap_works;  /* a trial sandbox with the default profile and
			      policy ran /bin/true under a ptrace seize */
	char bwrap_error[256]; /* bwrap's own message when !bwrap_works */
	bool cgroup2;
	char cgroup2_mount[256];
	bool is_root;
	bool sandbox_ok;  /* can --sandbox work here */
	char reason[512]; /* if not, why (user-facing) */
	/* The kernel boundary (issue 9, tracer/landlock.h): the Landlock ABI
	 * (0: none) and what a default run gets, without and with --sandbox
	 * ("landlock", "landlock-ptrace", "seccomp"). */
	int landlock_abi;
	const char *boundary, *boundary_sandbox;
};

/*
 * Probe the host. bwrap_override: path of bwrap, NULL for a PATH lookup.
 * Runs a few short-lived children (userns try, ptrace try, a trial
 * sandbox) and waits for each: nothing is left running. Must not be
 * called while a corral supervisor is running in the process (it reaps
 * its own children by pid only, but see corral.h on waitpid(-1)).
 * Returns 0 (the verdict is in p->sandbox_ok / p->reason) or -errno.
 */
int sandbox_probe(const char *bwrap_override, struct sandbox_probe *p);
/* Printed by the CLI (cli/probe.c) from corral_probe() (tracer/host_probe.c). */

/*
 * Find bwrap: override when given (must be executable), else "bwrap" in
 * PATH (default PATH when unset). Writes the path into out.
 */
int sandbox_find_bwrap(const char *override, char *out, size_t outlen);

/*
 * Validate the config before anything is spawned: the workspace (default
 * cwd) exists, is a directory and is not "/"; every bind source exists.
 * On error return -errno and write a user-facing message into err.
 */
int sandbox_validate(const struct corral_sandbox_config *sc, char *err,
		     size_t errlen);

/*
 * Build the seccomp policy for the COMMAND with libseccomp and export it
 * as a BPF program into a memfd (a pipe when memfd_create is missing)
 * readable by bwrap's `--seccomp FD`. Returns the fd (not CLOEXEC: bwrap
 * must inherit it; positioned at 0) or -errno. The caller closes it.
 */
int sandbox_policy_fd(const struct corral_sandbox_config *sc);
/* The same policy as libseccomp's pseudo filter code, for humans. */
int sandbox_policy_pfc(const struct corral_sandbox_config *sc, int fd);

/*
 * Build bwrap's argv: bwrap path, the default profile, `--seccomp
 * <policy_fd>` (omitted when policy_fd < 0), `--`, then cmd. bwrap_path
 * NULL: sc->bwrap, else a PATH lookup. Paths of the workspace and binds
 * are made canonical (realpath), and the same path is used inside.
 * Returns a malloc'd NULL-terminated array (free with sandbox_argv_free)
 * or NULL with errno set. Reads the environment (HOME, TMPDIR) and the
 * host's root directory layout; call sandbox_validate() first for a
 * user-facing message.
 */
char **sandbox_argv(const struct corral_sandbox_config *sc,
		    const char *bwrap_path, int policy_fd,
		    const char *const *cmd);
void sandbox_argv_free(char **argv);

#endif
