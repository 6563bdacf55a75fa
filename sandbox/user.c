/*
 * user.c - which host identity runs the sandbox, and becoming it.
 *
 * A root corral must not hand the command host root: with bwrap run as
 * root, --unshare-user maps 0 to 0, so root-owned files (/etc/shadow, SSH
 * host keys, whatever root owns under a bind) stay readable by owner,
 * capabilities or not. So a root corral execs bwrap as an unprivileged
 * uid, which then builds an unprivileged user namespace exactly as it does
 * for any user: the command holds no capability in the host's namespaces
 * and reads only what that uid may read. Which uid, and why, is in
 * docs/sandbox.md ("Root callers"); in short: --sandbox-user, else the
 * workspace's owner when it is not root, else nobody.
 *
 * The identity is chosen and checked (can it write the workspace, reach
 * every bind?) in corral_new, before anything is started: a refusal there
 * names the path and what to do. The drop itself happens in the first
 * process right before it execs bwrap (sandbox_child_drop), after corral
 * has seized it.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"

#define NOBODY_ID 65534u /* nobody / nogroup on Debian and most others */

static bool parse_id(const char *s, uint32_t *out)
{
	char *end;
	if (!*s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	/* (uid_t)-1 means "no change" to the kernel: never an identity. */
	if (errno || *end || v >= 0xffffffffUL)
		return false;
	*out = (uint32_t)v;
	return true;
}

static void name_of(uid_t uid, char *out, size_t n)
{
	struct passwd *pw = getpwuid(uid);
	if (pw)
		snprintf(out, n, "%s", pw->pw_name);
	else
		snprintf(out, n, "%u", (unsigned)uid);
}

/* nobody's uid and nogroup's gid, by name when the host has them. */
static void nobody(uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam("nobody");
	struct group *gr = getgrnam("nogroup");
	if (!gr)
		gr = getgrnam("nobody");
	*uid = pw && pw->pw_uid ? pw->pw_uid : NOBODY_ID;
	*gid = gr && gr->gr_gid ? gr->gr_gid : NOBODY_ID;
}

/* A user's primary group; never group 0 by default (root's group can read
 * root-group files), nogroup instead. */
static gid_t default_gid(uid_t uid, gid_t fallback)
{
	struct passwd *pw = getpwuid(uid);
	gid_t g = pw ? pw->pw_gid : fallback;
	if (g == 0) {
		uid_t u;
		nobody(&u, &g);
	}
	return g;
}

/* "USER", "UID", "USER:GROUP", "UID:GID". */
static int parse_user(const char *spec, struct sandbox_ident *id, char *err,
		      size_t errlen)
{
	char user[256], *colon;
	uint32_t v;
	if (strlen(spec) >= sizeof(user) || !spec[0])
		goto bad;
	strcpy(user, spec);
	colon = strchr(user, ':');
	if (colon)
		*colon++ = '\0';
	if (!user[0] || (colon && !*colon))
		goto bad;
	if (parse_id(user, &v)) {
		id->uid = v;
		id->gid = default_gid(v, v);
	} else {
		struct passwd *pw = getpwnam(user);
		if (!pw) {
			snprintf(err, errlen,
				 "--sandbox-user %s: no such user on this host",
				 spec);
			return -EINVAL;
		}
		id->uid = pw->pw_uid;
		id->gid = pw->pw_gid;
	}
	if (colon) {
		if (parse_id(colon, &v)) {
			id->gid = v;
		} else {
			struct group *gr = getgrnam(colon);
			if (!gr) {
				snprintf(err, errlen,
					 "--sandbox-user %s: no such group on "
					 "this host",
					 spec);
				return -EINVAL;
			}
			id->gid = gr->gr_gid;
		}
	}
	name_of(id->uid, id->name, sizeof(id->name));
	snprintf(id->why, sizeof(id->why), "--sandbox-user");
	return 0;
bad:
	snprintf(err, errlen,
		 "invalid --sandbox-user '%s' (USER, UID, USER:GROUP or "
		 "UID:GID)",
		 spec);
	return -EINVAL;
}

bool sandbox_ident_keeps_root(const char *spec)
{
	struct sandbox_ident id = {0};
	char err[8];
	return spec && geteuid() == 0 &&
	       parse_user(spec, &id, err, sizeof(err)) == 0 && id.uid == 0;
}

/* Paths the identity must reach, with the access it needs. */
struct need {
	const char *path;
	int mode;
	const char *what;
};

/*
 * access(2) checks with the real ids, which is what we want: in a child
 * that has become the identity (no supplementary groups, like after the
 * drop), so ACLs, read-only mounts and every directory on the way count.
 * Reports the index of the first failure and its errno on a pipe.
 */
static int check_as(const struct sandbox_ident *id, const struct need *v,
		    size_t n, size_t *bad, int *bad_errno)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (pid == 0) {
		int r[2] = {-1, 0};
		close(p[0]);
		if (syscall(SYS_setgroups, 0, NULL) < 0 ||
		    syscall(SYS_setresgid, id->gid, id->gid, id->gid) < 0 ||
		    syscall(SYS_setresuid, id->uid, id->uid, id->uid) < 0) {
			r[1] = errno;
		} else {
			for (size_t i = 0; i < n; i++)
				if (access(v[i].path, v[i].mode) < 0) {
					r[0] = (int)i;
					r[1] = errno;
					break;
				}
		}
		ssize_t w = write(p[1], r, sizeof(r));
		_exit(w == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	int r[2];
	ssize_t got;
	do
		got = read(p[0], r, sizeof(r));
	while (got < 0 && errno == EINTR);
	close(p[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (got != (ssize_t)sizeof(r))
		return -EIO;
	if (r[0] < 0 && r[1])
		return -r[1]; /* could not become the identity */
	*bad = r[0] < 0 ? n : (size_t)r[0];
	*bad_errno = r[1];
	return 0;
}

/* v has room for every need: check_paths() counts them first. */
static void add_need(struct need *v, size_t *n, const char *path, int mode,
		     const char *what)
{
	v[(*n)++] = (struct need){path, mode, what};
}

static void add_binds(struct need *v, size_t *n, const char *const *b,
		      const char *what, char (*srcs)[PATH_MAX], size_t *k)
{
	for (; b && *b; b++) {
		struct sandbox_mount m;
		if (sandbox_mount_split(*b, &m) < 0)
			continue; /* sandbox_validate() reports it */
		snprintf(srcs[*k], PATH_MAX, "%s", m.src);
		add_need(v, n, srcs[(*k)++], F_OK, what);
	}
}

static size_t count(const char *const *v)
{
	size_t n = 0;
	for (; v && v[n]; n++)
		;
	return n;
}

/* The workspace, every bind source and bwrap, reachable as id? */
static int check_paths(const struct corral_sandbox_config *sc,
		       const struct corral_sandbox_opts *so,
		       const struct sandbox_ident *id, const char *ws,
		       const char *bwrap, char *err, size_t errlen)
{
	size_t n = 0, k = 0;
	size_t nb = count(sc->ro_binds) + count(sc->binds) +
		    (so ? count(so->dev_binds) : 0);
	/* the workspace, each bind source, bwrap */
	struct need *v = calloc(nb + 2, sizeof(*v));
	char(*srcs)[PATH_MAX] = calloc(nb ? nb : 1, PATH_MAX);
	int e = v && srcs ? 0 : -ENOMEM;
	if (!e) {
		add_need(v, &n, ws, W_OK | X_OK, "workspace");
		add_binds(v, &n, sc->ro_binds, "--ro-bind", srcs, &k);
		add_binds(v, &n, sc->binds, "--bind", srcs, &k);
		if (so)
			add_binds(v, &n, so->dev_binds, "--dev-bind", srcs, &k);
		if (bwrap)
			add_need(v, &n, bwrap, X_OK, "bubblewrap");
	}
	size_t bad = n;
	int bad_errno = 0;
	e = e ?: check_as(id, v, n, &bad, &bad_errno);
	if (e) {
		snprintf(err, errlen,
			 "sandbox: cannot check what %s can reach: %s",
			 id->name, strerror(-e));
	} else if (bad < n) {
		e = -bad_errno;
		if (v[bad].mode & W_OK)
			snprintf(err, errlen,
				 "sandbox: workspace %s is not writable by %s "
				 "(uid %u), the host user the sandbox runs as "
				 "(%s): %s. Give the workspace to an "
				 "unprivileged user (chown -R USER %s: the "
				 "sandbox then runs as its owner), pass "
				 "--sandbox-user USER for a user who can write "
				 "it, or --sandbox-user root to keep host root "
				 "in the sandbox (unsafe: docs/sandbox.md)",
				 v[bad].path, id->name, (unsigned)id->uid,
				 id->why, strerror(bad_errno), v[bad].path);
		else
			snprintf(err, errlen,
				 "sandbox: %s %s cannot be reached by %s (uid "
				 "%u), the host user the sandbox runs as (%s): "
				 "%s; make it readable for that user or pass "
				 "--sandbox-user",
				 v[bad].what, v[bad].path, id->name,
				 (unsigned)id->uid, id->why,
				 strerror(bad_errno));
	}
	free(v);
	free(srcs);
	return e;
}

int sandbox_ident_resolve(const struct corral_sandbox_config *sc,
			  const struct corral_sandbox_opts *so,
			  struct sandbox_ident *id, char *err, size_t errlen)
{
	const char *spec = so ? so->user : NULL;
	char ws[PATH_MAX];
	struct stat st;
	memset(id, 0, sizeof(*id));
	if (!realpath(sc->workspace && sc->workspace[0] ? sc->workspace : ".",
		      ws) ||
	    stat(ws, &st) < 0) {
		int e = errno;
		snprintf(err, errlen, "sandbox: workspace: %s", strerror(e));
		return -e;
	}
	if (geteuid() != 0) {
		/* Nothing to drop, and no way to become anyone else. */
		id->uid = getuid();
		id->gid = getgid();
		name_of(id->uid, id->name, sizeof(id->name));
		snprintf(id->why, sizeof(id->why), "corral's own user");
		if (spec) {
			struct sandbox_ident want = {0};
			int e = parse_user(spec, &want, err, errlen);
			if (e)
				return e;
			if (want.uid != id->uid) {
				snprintf(err, errlen,
					 "--sandbox-user %s: only root can run "
					 "the sandbox as another user; corral "
					 "runs as %s and so does the sandbox",
					 spec, id->name);
				return -EPERM;
			}
		}
		return 0;
	}
	if (spec) {
		int e = parse_user(spec, id, err, errlen);
		if (e)
			return e;
	} else if (st.st_uid != 0) {
		id->uid = st.st_uid;
		id->gid = default_gid(st.st_uid, st.st_gid);
		name_of(id->uid, id->name, sizeof(id->name));
		snprintf(id->why, sizeof(id->why), "the workspace's owner");
	} else {
		nobody(&id->uid, &id->gid);
		name_of(id->uid, id->name, sizeof(id->name));
		snprintf(id->why, sizeof(id->why),
			 "default for a root-owned workspace");
	}
	if (id->uid == 0) {
		/* Explicitly asked for: today's behaviour, with a warning
		 * (cli) and a mark in the journal. */
		id->kept_root = true;
		id->gid = 0;
		return 0;
	}
	id->drop = true;
	char bwrap[4096];
	bool have_bwrap =
		sandbox_find_bwrap(sc->bwrap, bwrap, sizeof(bwrap)) == 0;
	return check_paths(sc, so, id, ws, have_bwrap ? bwrap : NULL, err,
			   errlen);
}

int sandbox_child_drop(const struct sandbox_ident *id)
{
	if (!id || !id->drop)
		return 0;
	/*
	 * Bounding set first (it needs CAP_SETPCAP, which the uid change
	 * takes away): no exec may ever regain a capability. Then ambient,
	 * groups, gid, uid; all three uids changing from 0 clears permitted
	 * and effective (no SECBIT_KEEP_CAPS: checked below). Raw syscalls:
	 * the libc wrappers broadcast to threads, which a forked child of a
	 * threaded process must not rely on.
	 */
	for (unsigned long cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
			return -errno;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		return -errno;
	if (syscall(SYS_setgroups, 0, NULL) < 0)
		return -errno;
	if (syscall(SYS_setresgid, id->gid, id->gid, id->gid) < 0)
		return -errno;
	if (syscall(SYS_setresuid, id->uid, id->uid, id->uid) < 0)
		return -errno;
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	/* The uid change does not clear the inheritable set: do it. */
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &hdr, d) < 0)
		return -errno;
	/* A setuid program (a setuid-root bwrap included) must not bring
	 * root back. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (syscall(SYS_capget, &hdr, d) < 0)
		return -errno;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable)
			return -EPERM;
	uid_t r, e, s;
	if (getresuid(&r, &e, &s) < 0 || r != id->uid || e != id->uid ||
	    s != id->uid)
		return -EPERM;
	return 0;
}
