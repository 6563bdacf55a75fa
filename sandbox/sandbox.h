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
	bool bwrap_setuid;   /* setuid bit on bwrap (informational, see docs) */
	bool bwrap_works;    /* a trial sandbox with the default profile and
				policy ran /bin/true under a ptrace seize */
	char trial_user[64]; /* host user the trial ran as (nobody for root) */
	char bwrap_error[256]; /* bwrap's own message when !bwrap_works */
	bool cgroup2;
	char cgroup2_mount[256];
	bool is_root;
	bool sandbox_ok;  /* can --sandbox work here */
	char reason[512]; /* if not, why (user-facing) */
	/* The kernel boundary (issue 9, tracer/base/landlock.h): the Landlock
	 * ABI (0: none) and what a default run gets, without and with --sandbox
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
/* Printed by the CLI (cli/probe.c) from corral_probe()
 * (tracer/core/host_probe.c). */

/*
 * Find bwrap: override when given (must be an executable regular file),
 * else "bwrap" in PATH (PATH_DEFAULT when PATH is unset or empty; empty
 * elements are not the current directory): tracer/base/pathfind.c's search.
 * Writes the path into out.
 */
int sandbox_find_bwrap(const char *override, char *out, size_t outlen);

/*
 * Validate the config before anything is spawned: the workspace (default
 * cwd) exists, is a directory and is not "/"; every bind source exists
 * and is not "/"; every destination and --tmpfs is absolute, does not
 * cover /, /proc, /dev, /tmp or the workspace, and is not given twice;
 * hostname, environment names are well-formed. so may be NULL (defaults).
 * On error return -errno and write a user-facing message into err.
 */
int sandbox_validate(const struct corral_sandbox_config *sc,
		     const struct corral_sandbox_opts *so, char *err,
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
 * Build bwrap's argv: bwrap path, the default profile shaped by so (NULL:
 * defaults), `--seccomp <policy_fd>` (omitted when policy_fd < 0), `--`,
 * then cmd. bwrap_path NULL: sc->bwrap, else a PATH lookup. Sources are
 * made canonical (realpath); a bind without ":DST" uses the same path
 * inside. Returns a malloc'd NULL-terminated array (free with
 * sandbox_argv_free) or NULL with errno set. Reads the environment (HOME,
 * TMPDIR) and the host's root directory layout; call sandbox_validate()
 * first for a user-facing message.
 */
char **sandbox_argv(const struct corral_sandbox_config *sc,
		    const struct corral_sandbox_opts *so,
		    const char *bwrap_path, int policy_fd,
		    const char *const *cmd);
void sandbox_argv_free(char **argv);

/* A bind argument "SRC" or "SRC:DST" split (mounts.c). */
struct sandbox_mount {
	char src[4096]; /* as given (not canonical) */
	char dst[4096]; /* inside; == src when no ":DST" */
	bool has_dst;
};
int sandbox_mount_split(const char *arg, struct sandbox_mount *m);
/*
 * Resolve a bind argument: src made canonical (realpath), dst normalised
 * (absolute, no "." or ".." parts, no trailing or double slash; the
 * canonical src when no ":DST"). -errno (and a message in err) when the
 * source is missing or the destination is not absolute.
 */
int sandbox_mount_resolve(const char *kind, const char *arg, char *src,
			  char *dst, char *err, size_t errlen);
/* An absolute path with "." and ".." refused and slashes collapsed. */
int sandbox_path_normalize(const char *in, char *out, size_t outlen);
/* The checks of sandbox_validate() on binds, --tmpfs, hostname, env. */
int sandbox_validate_opts(const struct corral_sandbox_config *sc,
			  const struct corral_sandbox_opts *so, const char *ws,
			  char *err, size_t errlen);

/*
 * The host identity bwrap runs as (user.c). A root corral does not hand
 * the command host root: bwrap is exec'd as an unprivileged uid, without
 * supplementary groups or capabilities, and makes an unprivileged user
 * namespace like it does for any user.
 */
struct sandbox_ident {
	bool drop;	/* corral is root and gives up root for bwrap */
	bool kept_root; /* corral is root and was told to keep it */
	uid_t uid;
	gid_t gid;
	char name[64]; /* for messages and the journal */
	char why[96];  /* how it was chosen (journal, docs) */
};

/*
 * Decide the identity from so->user (see corral_sandbox_opts) and check,
 * as that identity, in a short-lived child that is waited for, that it
 * can write the workspace and read every bind source: a refusal names
 * the path and what to do. Non-root corral: the caller's own identity;
 * --sandbox-user is refused unless it names the caller. 0 or -errno with
 * a message in err.
 */
int sandbox_ident_resolve(const struct corral_sandbox_config *sc,
			  const struct corral_sandbox_opts *so,
			  struct sandbox_ident *id, char *err, size_t errlen);

/*
 * In the first process, right before it execs bwrap: become id (no
 * supplementary groups, gid, uid), with an empty capability bounding set,
 * no ambient capabilities and no_new_privs. Async-signal-safe. A no-op
 * unless id->drop. Returns 0 or -errno (the caller must not exec then).
 */
int sandbox_child_drop(const struct sandbox_ident *id);
/* Does this --sandbox-user keep host root (corral being root)? */
bool sandbox_ident_keeps_root(const char *spec);

#endif
