/*
 * profile.c - the default bubblewrap profile: validation and argv.
 *
 * The profile is meant to be trusted without reading bwrap(1): every
 * namespace bwrap can make, a read-only view of the system, a private
 * /tmp, /dev and /proc, one writable workspace, no network unless asked.
 * docs/sandbox.md explains each choice; keep it in sync.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "sandbox.h"

/* The sandbox's host name unless --hostname: says nothing of the host. */
#define SANDBOX_HOSTNAME "corral"

/* Is path equal to dir or below it? Both canonical and absolute. */
static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return true;
	return strncmp(path, dir, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

static const char *workspace_of(const struct corral_sandbox_config *sc)
{
	return sc->workspace && sc->workspace[0] ? sc->workspace : ".";
}

int sandbox_validate(const struct corral_sandbox_config *sc,
		     const struct corral_sandbox_opts *so, char *err,
		     size_t errlen)
{
	char dummy[1];
	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (!sc) {
		snprintf(err, errlen, "sandbox: no configuration");
		return -EINVAL;
	}
	const char *ws = workspace_of(sc);
	struct stat st;
	char real[PATH_MAX];
	if (stat(ws, &st) < 0 || !realpath(ws, real)) {
		int e = errno;
		snprintf(err, errlen, "sandbox: workspace %s: %s", ws,
			 strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "sandbox: workspace %s: %s", ws,
			 strerror(ENOTDIR));
		return -ENOTDIR;
	}
	if (strcmp(real, "/") == 0) {
		snprintf(
			err, errlen,
			"sandbox: workspace %s is the root directory; run from "
			"(or pass --workspace) the directory the command may "
			"write",
			ws);
		return -EINVAL;
	}
	return sandbox_validate_opts(sc, so, real, err, errlen);
}

/* A growing argv; the first failure sticks in err. */
struct vec {
	char **v;
	size_t n, cap;
	int err;
};

static void push(struct vec *a, const char *s)
{
	if (a->err)
		return;
	/* room for s and the NULL that ends the list */
	if (GROW(a->v, a->cap, a->n + 2)) {
		a->err = ENOMEM;
		return;
	}
	char *d = strdup(s);
	if (!d) {
		a->err = ENOMEM;
		return;
	}
	a->v[a->n++] = d;
	a->v[a->n] = NULL;
}

static void push3(struct vec *a, const char *opt, const char *x, const char *y)
{
	push(a, opt);
	push(a, x);
	if (y)
		push(a, y);
}

/*
 * The host's top-level links into /usr (merged /usr: /bin -> usr/bin) are
 * recreated as the same links; on a host where they are real directories
 * they are bound read-only. Whatever the command finds at /bin/sh outside
 * it finds inside.
 */
static void push_root_dirs(struct vec *a)
{
	static const char *const dirs[] = {"/bin",   "/sbin",  "/lib",
					   "/lib64", "/lib32", "/libx32"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		struct stat st;
		if (lstat(dirs[i], &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n =
				readlink(dirs[i], target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			push3(a, "--symlink", target, dirs[i]);
		} else if (S_ISDIR(st.st_mode)) {
			push3(a, "--ro-bind", dirs[i], dirs[i]);
		}
	}
}

static bool under_system_dir(const char *p)
{
	static const char *const sys[] = {"/usr",  "/etc", "/proc",
					  "/dev",  "/sys", "/bin",
					  "/sbin", "/lib", "/lib64"};
	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (path_under(p, sys[i]) || path_under(sys[i], p))
			return true;
	return false;
}

/*
 * Give HOME an empty, writable, throw-away tmpfs so tools that keep caches
 * and dotfiles there (pip, cargo, npm, git's config lookup) work without
 * seeing or changing the real one. Not when HOME is (inside) the
 * workspace, which the command already sees, nor when it is a system
 * directory or an ancestor of one.
 */
static void push_home(struct vec *a, const char *ws)
{
	const char *home = getenv("HOME");
	if (!home || home[0] != '/' || strstr(home, "/../") ||
	    strstr(home, "/./"))
		return;
	char real[PATH_MAX];
	/* HOME need not exist on the host: the tmpfs makes it inside. */
	const char *h = realpath(home, real) ? real : home;
	if (strcmp(h, "/") == 0 || path_under(h, ws) || under_system_dir(h))
		return;
	push3(a, "--tmpfs", h, NULL);
}

/* TMPDIR survives only if it names a writable place inside. */
static void push_tmpdir(struct vec *a, const struct corral_sandbox_config *sc,
			const char *ws)
{
	const char *t = getenv("TMPDIR");
	char real[PATH_MAX];
	if (!t)
		return;
	if (realpath(t, real)) {
		if (path_under(real, "/tmp") || path_under(real, ws))
			return;
		/* A writable bind at the same path inside. */
		for (const char *const *b = sc->binds; b && *b; b++) {
			char src[PATH_MAX], dst[PATH_MAX], err[8];
			if (sandbox_mount_resolve("--bind", *b, src, dst, err,
						  sizeof(err)) == 0 &&
			    strcmp(src, dst) == 0 && path_under(real, dst))
				return;
		}
	}
	push3(a, "--setenv", "TMPDIR", "/tmp");
}

/*
 * With the network shared, name resolution must work: /etc/resolv.conf is
 * often a link into /run (systemd-resolved, NetworkManager), which the
 * sandbox does not show otherwise.
 */
static void push_resolv(struct vec *a)
{
	char real[PATH_MAX];
	if (!realpath("/etc/resolv.conf", real))
		return;
	if (path_under(real, "/etc") || path_under(real, "/usr"))
		return;
	push3(a, "--ro-bind-try", real, real);
}

/*
 * Variables naming endpoints outside the sandbox that a command could
 * still reach through an inherited or abstract socket (credential agents,
 * the session bus, the display server: keystrokes), or that only point
 * at directories the sandbox does not have.
 */
static const char *const unset_vars[] = {
	"SSH_AUTH_SOCK",   "SSH_AGENT_PID",
	"GPG_AGENT_INFO",  "DBUS_SESSION_BUS_ADDRESS",
	"XDG_RUNTIME_DIR", "DISPLAY",
	"WAYLAND_DISPLAY", "XAUTHORITY",
	"SESSION_MANAGER",
};

/* One mount of the workspace part of the profile (see push_mounts). */
struct mnt {
	const char *opt; /* --bind, --ro-bind, --dev-bind, --tmpfs */
	char src[PATH_MAX];
	char dst[PATH_MAX];
	int depth;
};

struct mnts {
	struct mnt *v;
	size_t n, cap;
	int err;
};

static struct mnt *mnt_add(struct mnts *m, const char *opt, const char *src,
			   const char *dst)
{
	if (m->err)
		return NULL;
	if (GROW(m->v, m->cap, m->n + 1)) {
		m->err = ENOMEM;
		return NULL;
	}
	struct mnt *x = &m->v[m->n++];
	x->opt = opt;
	snprintf(x->src, sizeof(x->src), "%s", src ? src : "");
	snprintf(x->dst, sizeof(x->dst), "%s", dst);
	x->depth = 0;
	for (const char *p = dst; *p; p++)
		x->depth += *p == '/';
	return x;
}

/*
 * Files and directories of the workspace that a host tool runs later
 * without asking: protected read-only when they exist (docs/sandbox.md,
 * "What the host executes later"). direnv's .envrc, editors' workspace
 * settings and tasks, hook directories git runs through core.hooksPath
 * (husky, .githooks), pre-commit's configuration.
 */
static const char *const host_exec[] = {
	".envrc",    ".vscode", ".idea",
	".githooks", ".husky",	".pre-commit-config.yaml",
};

/* With --sandbox-git=hooks-ro: what in .git makes git run code. */
static const char *const git_exec[] = {
	"config", /* core.fsmonitor, core.hooksPath, aliases, filters... */
	"config.worktree", "hooks", /* post-checkout, pre-commit... */
	"modules",		    /* submodules' own config and hooks */
	"worktrees",
};

/* Protect ws/rel when it exists and is not a symlink (a mount cannot be
 * put on a link; docs list this as a residual risk). */
static void protect(struct mnts *m, const char *ws, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;
	if ((size_t)snprintf(p, sizeof(p), "%s/%s", ws, rel) >= sizeof(p))
		return;
	if (lstat(p, &st) < 0 || S_ISLNK(st.st_mode))
		return;
	mnt_add(m, "--ro-bind", p, p);
}

static void protect_host_exec(struct mnts *m, const char *ws,
			      enum corral_sandbox_git git)
{
	char p[PATH_MAX];
	struct stat st;
	if ((size_t)snprintf(p, sizeof(p), "%s/.git", ws) < sizeof(p) &&
	    lstat(p, &st) == 0 && !S_ISLNK(st.st_mode)) {
		/* A .git file ("gitdir: ...") says where the repository
		 * is: rewritten, it could send the host's git to one the
		 * command made. Protected unless git is rw. */
		if (git == CORRAL_SANDBOX_GIT_RO ||
		    (git == CORRAL_SANDBOX_GIT_HOOKS_RO &&
		     !S_ISDIR(st.st_mode)))
			protect(m, ws, ".git");
		else if (git == CORRAL_SANDBOX_GIT_HOOKS_RO)
			for (size_t i = 0;
			     i < sizeof(git_exec) / sizeof(git_exec[0]); i++) {
				char rel[64];
				snprintf(rel, sizeof(rel), ".git/%s",
					 git_exec[i]);
				protect(m, ws, rel);
			}
	}
	for (size_t i = 0; i < sizeof(host_exec) / sizeof(host_exec[0]); i++)
		protect(m, ws, host_exec[i]);
}

static void add_user_binds(struct mnts *m, const char *opt,
			   const char *const *b)
{
	char src[PATH_MAX], dst[PATH_MAX], err[8];
	for (; b && *b && !m->err; b++) {
		int e = sandbox_mount_resolve(opt, *b, src, dst, err,
					      sizeof(err));
		if (e) {
			m->err = -e;
			return;
		}
		mnt_add(m, opt, src, dst);
	}
}

/*
 * The workspace, its protections and the user's mounts, shallowest
 * destination first (stable: on a tie, the order above). A mount inside
 * another is then always on top of it, whatever the order of the options:
 * `--bind /a --ro-bind /a/b` and `--ro-bind /a/b --bind /a` both leave
 * /a/b read-only; a --bind of a protected path (`--bind .vscode`) comes
 * after the protection and opens it again.
 */
static void push_mounts(struct vec *a, const struct corral_sandbox_config *sc,
			const struct corral_sandbox_opts *so, const char *ws)
{
	struct mnts m = {0};
	mnt_add(&m, "--bind", ws, ws);
	protect_host_exec(&m, ws, so ? so->git : CORRAL_SANDBOX_GIT_RO);
	add_user_binds(&m, "--ro-bind", sc->ro_binds);
	add_user_binds(&m, "--bind", sc->binds);
	if (so) {
		add_user_binds(&m, "--dev-bind", so->dev_binds);
		for (const char *const *t = so->tmpfs; t && *t; t++) {
			char d[PATH_MAX];
			if (sandbox_path_normalize(*t, d, sizeof(d)) < 0) {
				m.err = EINVAL;
				break;
			}
			mnt_add(&m, "--tmpfs", NULL, d);
		}
	}
	if (m.err) {
		a->err = m.err;
		free(m.v);
		return;
	}
	for (size_t i = 1; i < m.n; i++) /* insertion sort: stable */
		for (size_t k = i; k > 0 && m.v[k - 1].depth > m.v[k].depth;
		     k--) {
			struct mnt t = m.v[k];
			m.v[k] = m.v[k - 1];
			m.v[k - 1] = t;
		}
	for (size_t i = 0; i < m.n; i++) {
		if (strcmp(m.v[i].opt, "--tmpfs") == 0)
			push3(a, "--tmpfs", m.v[i].dst, NULL);
		else
			push3(a, m.v[i].opt, m.v[i].src, m.v[i].dst);
	}
	free(m.v);
}

/*
 * Only when a root corral was told to keep host root in the sandbox
 * (--sandbox-user root): root inside is root outside for file access, so
 * the best-known root-only secrets under /etc are covered. A list, hence
 * incomplete: the real answer is the default, an unprivileged sandbox user.
 */
static void push_root_masks(struct vec *a)
{
	static const char *const files[] = {
		"/etc/shadow",
		"/etc/shadow-",
		"/etc/gshadow",
		"/etc/gshadow-",
		"/etc/sudoers",
		"/etc/krb5.keytab",
		"/etc/ssh/ssh_host_*_key",
	};
	static const char *const dirs[] = {
		"/etc/ssl/private",
		"/etc/sudoers.d",
		"/etc/NetworkManager/system-connections",
		"/etc/wireguard",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		glob_t g;
		if (glob(files[i], GLOB_NOSORT, NULL, &g) != 0)
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++)
			push3(a, "--ro-bind", "/dev/null", g.gl_pathv[k]);
		globfree(&g);
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		struct stat st;
		if (stat(dirs[i], &st) == 0 && S_ISDIR(st.st_mode))
			push3(a, "--tmpfs", dirs[i], NULL);
	}
}

/* Kept by --clearenv: needed to find the command and to write a file. */
static const char *const clearenv_keep[] = {"PATH", "TERM", "HOME"};

static void push_env(struct vec *a, const struct corral_sandbox_config *sc,
		     const struct corral_sandbox_opts *so, const char *ws)
{
	if (so && so->clearenv) {
		/* bwrap applies --clearenv/--setenv in order, in its own
		 * environment, before it execs the command. */
		push(a, "--clearenv");
		for (size_t i = 0;
		     i < sizeof(clearenv_keep) / sizeof(clearenv_keep[0]);
		     i++) {
			const char *v = getenv(clearenv_keep[i]);
			if (v)
				push3(a, "--setenv", clearenv_keep[i], v);
		}
		push3(a, "--setenv", "TMPDIR", "/tmp");
	} else {
		/* Environment: kept (PATH, LANG, CI variables...), minus a
		 * few. */
		for (size_t i = 0;
		     i < sizeof(unset_vars) / sizeof(unset_vars[0]); i++)
			push3(a, "--unsetenv", unset_vars[i], NULL);
		push_tmpdir(a, sc, ws);
	}
	push3(a, "--setenv", "PWD", ws);
	push3(a, "--setenv", "CORRAL_SANDBOX", "1");
	/* The user's last: they win over everything above. */
	for (const char *const *e = so ? so->setenv : NULL; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq) {
			a->err = EINVAL;
			return;
		}
		char name[256];
		size_t n = (size_t)(eq - *e);
		if (n == 0 || n >= sizeof(name)) {
			a->err = EINVAL;
			return;
		}
		memcpy(name, *e, n);
		name[n] = '\0';
		push3(a, "--setenv", name, eq + 1);
	}
	for (const char *const *e = so ? so->unsetenv : NULL; e && *e; e++)
		push3(a, "--unsetenv", *e, NULL);
}

char **sandbox_argv(const struct corral_sandbox_config *sc,
		    const struct corral_sandbox_opts *so,
		    const char *bwrap_path, int policy_fd,
		    const char *const *cmd)
{
	char bw[4096], ws[PATH_MAX], fdbuf[16], num[16];
	struct vec a = {0};

	if (!sc || !cmd || !cmd[0]) {
		errno = EINVAL;
		return NULL;
	}
	if (!bwrap_path) {
		int e = sandbox_find_bwrap(sc->bwrap, bw, sizeof(bw));
		if (e) {
			errno = -e;
			return NULL;
		}
		bwrap_path = bw;
	}
	if (!realpath(workspace_of(sc), ws))
		return NULL;

	push(&a, bwrap_path);
	/* Every namespace. cgroup: -try, kernels without it still work. */
	push(&a, "--unshare-user");
	push(&a, "--unshare-pid");
	push(&a, "--unshare-ipc");
	push(&a, "--unshare-uts");
	push(&a, "--unshare-cgroup-try");
	if (!sc->share_net)
		push(&a, "--unshare-net");
	/*
	 * The sandbox ends with its parent (the supervisor's child that
	 * exec'd bwrap). A convenience only (bwrap #633, #700): corral's
	 * tracer, which sees every member, is what actually ends the tree.
	 */
	push(&a, "--die-with-parent");
	/* Root outside keeps no capabilities inside (bwrap keeps them for a
	 * privileged caller by default). A no-op for everyone else. */
	push3(&a, "--cap-drop", "ALL", NULL);
	/* The UTS namespace is new; without a name it keeps the host's. */
	push3(&a, "--hostname",
	      so && so->hostname ? so->hostname : SANDBOX_HOSTNAME, NULL);
	if (so && so->set_uid) {
		snprintf(num, sizeof(num), "%u", (unsigned)so->uid);
		push3(&a, "--uid", num, NULL);
	}
	if (so && so->set_gid) {
		snprintf(num, sizeof(num), "%u", (unsigned)so->gid);
		push3(&a, "--gid", num, NULL);
	}

	/* A read-only view of the system: programs, libraries, config. */
	push3(&a, "--ro-bind", "/usr", "/usr");
	push_root_dirs(&a);
	push3(&a, "--ro-bind", "/etc", "/etc");
	if (geteuid() == 0 && so && sandbox_ident_keeps_root(so->user))
		push_root_masks(&a);
	push3(&a, "--dev", "/dev", NULL);
	push3(&a, "--proc", "/proc", NULL);
	push3(&a, "--tmpfs", "/tmp", NULL);
	push_home(&a, ws);
	if (sc->share_net)
		push_resolv(&a);

	/* The workspace after /tmp and HOME (it often lives below them),
	 * then what protects parts of it and the user's mounts. */
	push_mounts(&a, sc, so, ws);
	/* bwrap's root is a tmpfs; writes there (say /out.log) would
	 * silently vanish with the sandbox. Read-only makes them fail. Last:
	 * the mounts above create their mount points in it. */
	push3(&a, "--remount-ro", "/", NULL);
	push3(&a, "--chdir", ws, NULL);

	push_env(&a, sc, so, ws);

	/* bwrap loads it after its own setup, right before exec. */
	if (policy_fd >= 0) {
		snprintf(fdbuf, sizeof(fdbuf), "%d", policy_fd);
		push3(&a, "--seccomp", fdbuf, NULL);
	}
	push(&a, "--");
	for (const char *const *c = cmd; *c; c++)
		push(&a, *c);

	if (a.err) {
		int e = a.err;
		sandbox_argv_free(a.v);
		errno = e;
		return NULL;
	}
	return a.v;
}

void sandbox_argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **p = argv; *p; p++)
		free(*p);
	free(argv);
}
