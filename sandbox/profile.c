/*
 * profile.c - the default bubblewrap profile: validation and argv.
 *
 * The profile is meant to be trusted without reading bwrap(1): every
 * namespace bwrap can make, a read-only view of the system, a private
 * /tmp, /dev and /proc, one writable workspace, no network unless asked.
 * docs/sandbox.md explains each choice; keep it in sync.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox.h"

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

static int check_bind(const char *kind, const char *path, char *err,
		      size_t errlen)
{
	struct stat st;
	char real[PATH_MAX];
	if (!path || !path[0]) {
		snprintf(err, errlen, "sandbox: %s: empty path", kind);
		return -EINVAL;
	}
	if (stat(path, &st) < 0 || !realpath(path, real)) {
		int e = errno;
		snprintf(err, errlen, "sandbox: %s %s: %s", kind, path,
			 strerror(e));
		return -e;
	}
	/* A bind of / would cover the sandbox's own /dev, /proc and /tmp. */
	if (strcmp(real, "/") == 0) {
		snprintf(err, errlen,
			 "sandbox: %s /: refusing to expose the whole root; "
			 "name the directories you need",
			 kind);
		return -EINVAL;
	}
	return 0;
}

int sandbox_validate(const struct corral_sandbox_config *sc, char *err,
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
	for (const char *const *b = sc->ro_binds; b && *b; b++) {
		int e = check_bind("--ro-bind", *b, err, errlen);
		if (e)
			return e;
	}
	for (const char *const *b = sc->binds; b && *b; b++) {
		int e = check_bind("--bind", *b, err, errlen);
		if (e)
			return e;
	}
	return 0;
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
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		char **v = realloc(a->v, cap * sizeof(*v));
		if (!v) {
			a->err = ENOMEM;
			return;
		}
		a->v = v;
		a->cap = cap;
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

/* Same canonical path outside and inside. */
static void push_bind(struct vec *a, const char *opt, const char *path)
{
	char real[PATH_MAX];
	if (a->err)
		return;
	if (!realpath(path, real)) {
		a->err = errno;
		return;
	}
	push3(a, opt, real, real);
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
		for (const char *const *b = sc->binds; b && *b; b++) {
			char rb[PATH_MAX];
			if (realpath(*b, rb) && path_under(real, rb))
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

char **sandbox_argv(const struct corral_sandbox_config *sc,
		    const char *bwrap_path, int policy_fd,
		    const char *const *cmd)
{
	char bw[4096], ws[PATH_MAX], fdbuf[16];
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

	/* A read-only view of the system: programs, libraries, config. */
	push3(&a, "--ro-bind", "/usr", "/usr");
	push_root_dirs(&a);
	push3(&a, "--ro-bind", "/etc", "/etc");
	push3(&a, "--dev", "/dev", NULL);
	push3(&a, "--proc", "/proc", NULL);
	push3(&a, "--tmpfs", "/tmp", NULL);
	push_home(&a, ws);
	if (sc->share_net)
		push_resolv(&a);

	/* Later mounts cover earlier ones: the workspace after /tmp and
	 * HOME (it often lives below them), --ro-bind after the workspace
	 * (to protect a part of it), --bind last (to open a part of a
	 * read-only bind). */
	push3(&a, "--bind", ws, ws);
	for (const char *const *b = sc->ro_binds; b && *b; b++)
		push_bind(&a, "--ro-bind", *b);
	for (const char *const *b = sc->binds; b && *b; b++)
		push_bind(&a, "--bind", *b);
	/* bwrap's root is a tmpfs; writes there (say /out.log) would
	 * silently vanish with the sandbox. Read-only makes them fail. Last:
	 * the mounts above create their mount points in it. */
	push3(&a, "--remount-ro", "/", NULL);
	push3(&a, "--chdir", ws, NULL);

	/* Environment: kept (PATH, LANG, CI variables...), minus a few. */
	for (size_t i = 0; i < sizeof(unset_vars) / sizeof(unset_vars[0]); i++)
		push3(&a, "--unsetenv", unset_vars[i], NULL);
	push_tmpdir(&a, sc, ws);
	push3(&a, "--setenv", "PWD", ws);
	push3(&a, "--setenv", "CORRAL_SANDBOX", "1");

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
