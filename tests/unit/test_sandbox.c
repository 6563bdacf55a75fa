/*
 * test_sandbox.c - the sandbox building blocks: bwrap argv, validation,
 * host probe, and real sandboxes run with bwrap (without corral's tracer)
 * checked from inside.
 *
 * The real runs need bubblewrap and /usr/bin/python3, and a host where
 * `corral probe` says yes; otherwise they are skipped with the reason.
 * They pass as root and as an ordinary user (docs/sandbox.md).
 * Every test waits for each child it made and checks ECHILD at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "child.h"
#include "sandbox.h"
#include "skip.h"

#define PY "/usr/bin/python3"

static struct sandbox_probe probe;
static bool probed;

/* A fresh workspace (and a sibling the sandbox must not see) per test. */
struct fixture {
	char ws[64];
	char sibling[64];
};

static void no_children_left(void)
{
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG | __WALL), -1);
	assert_int_equal(errno, ECHILD);
}

static void rm_rf(const char *dir)
{
	char cmd[256];
	if (!dir[0])
		return;
	/* Paths are ours (mkdtemp): no quoting issues. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	strcpy(f->ws, "/tmp/corral-ws-XXXXXX");
	strcpy(f->sibling, "/tmp/corral-sib-XXXXXX");
	if (!mkdtemp(f->ws) || !mkdtemp(f->sibling))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	rm_rf(f->ws);
	rm_rf(f->sibling);
	free(f);
	return 0;
}

static int argv_count(char **v)
{
	int n = 0;
	while (v[n])
		n++;
	return n;
}

/* Index of option opt followed by a, b (NULL: not checked), or -1. */
static int find_opt(char **v, const char *opt, const char *a, const char *b)
{
	for (int i = 0; v[i]; i++) {
		if (strcmp(v[i], "--") == 0)
			return -1; /* the command starts: not an option */
		if (strcmp(v[i], opt) != 0)
			continue;
		if (a && (!v[i + 1] || strcmp(v[i + 1], a) != 0))
			continue;
		if (b && (!v[i + 1] || !v[i + 2] || strcmp(v[i + 2], b) != 0))
			continue;
		return i;
	}
	return -1;
}

static int dashdash(char **v)
{
	for (int i = 0; v[i]; i++)
		if (strcmp(v[i], "--") == 0)
			return i;
	return -1;
}

/* ---- argv ---- */

static void test_argv_default_profile(void **state)
{
	struct fixture *f = *state;
	struct corral_sandbox_config sc = { .enabled = true, .workspace = f->ws };
	const char *cmd[] = { "/bin/echo", "--", "hello world", NULL };
	char **v = sandbox_argv(&sc, NULL, "/opt/bw/bwrap", 7, cmd);
	assert_non_null(v);

	assert_string_equal(v[0], "/opt/bw/bwrap");
	static const char *const flags[] = {
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--unshare-cgroup-try", "--unshare-net", "--die-with-parent",
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		assert_true(find_opt(v, flags[i], NULL, NULL) > 0);
	/* The terminal session is kept (TIOCSTI is denied by the policy). */
	assert_int_equal(find_opt(v, "--new-session", NULL, NULL), -1);
	assert_true(find_opt(v, "--cap-drop", "ALL", NULL) > 0);
	assert_true(find_opt(v, "--ro-bind", "/usr", "/usr") > 0);
	assert_true(find_opt(v, "--ro-bind", "/etc", "/etc") > 0);
	assert_true(find_opt(v, "--dev", "/dev", NULL) > 0);
	assert_true(find_opt(v, "--proc", "/proc", NULL) > 0);
	int tmp = find_opt(v, "--tmpfs", "/tmp", NULL);
	int ws = find_opt(v, "--bind", f->ws, f->ws);
	assert_true(tmp > 0);
	/* The workspace (below /tmp here) is mounted after /tmp's tmpfs. */
	assert_true(ws > tmp);
	assert_true(find_opt(v, "--remount-ro", "/", NULL) > ws);
	assert_true(find_opt(v, "--chdir", f->ws, NULL) > ws);
	assert_true(find_opt(v, "--setenv", "PWD", f->ws) > 0);
	assert_true(find_opt(v, "--unsetenv", "SSH_AUTH_SOCK", NULL) > 0);
	assert_true(find_opt(v, "--seccomp", "7", NULL) > 0);

	/* /bin, /lib...: as on the host (link or directory). */
	struct stat st;
	if (lstat("/bin", &st) == 0) {
		if (S_ISLNK(st.st_mode))
			assert_true(find_opt(v, "--symlink", NULL, "/bin") > 0);
		else
			assert_true(find_opt(v, "--ro-bind", "/bin", "/bin") > 0);
	}

	/* The command, verbatim, after the first "--". */
	int dd = dashdash(v);
	assert_true(dd > 0);
	assert_int_equal(argv_count(v), dd + 4);
	assert_string_equal(v[dd + 1], "/bin/echo");
	assert_string_equal(v[dd + 2], "--");
	assert_string_equal(v[dd + 3], "hello world");
	assert_null(v[dd + 4]);
	sandbox_argv_free(v);
	no_children_left();
}

static void test_argv_share_net_and_no_policy(void **state)
{
	struct fixture *f = *state;
	struct corral_sandbox_config sc = { .enabled = true, .workspace = f->ws,
					    .share_net = true };
	const char *cmd[] = { "true", NULL };
	char **v = sandbox_argv(&sc, NULL, "/usr/bin/bwrap", -1, cmd);
	assert_non_null(v);
	assert_int_equal(find_opt(v, "--unshare-net", NULL, NULL), -1);
	assert_true(find_opt(v, "--unshare-pid", NULL, NULL) > 0);
	assert_int_equal(find_opt(v, "--seccomp", NULL, NULL), -1);
	sandbox_argv_free(v);
}

static void test_argv_binds(void **state)
{
	struct fixture *f = *state;
	char sub[128], rel[128];
	snprintf(sub, sizeof(sub), "%s/ro", f->ws);
	assert_int_equal(mkdir(sub, 0755), 0);
	/* A non-canonical spelling becomes the canonical path. */
	snprintf(rel, sizeof(rel), "%s/./", f->sibling);
	const char *ro[] = { sub, "/usr/share", NULL };
	const char *rw[] = { rel, NULL };
	struct corral_sandbox_config sc = { .enabled = true, .workspace = f->ws,
					    .ro_binds = ro, .binds = rw };
	const char *cmd[] = { "true", NULL };
	char **v = sandbox_argv(&sc, NULL, "/usr/bin/bwrap", 3, cmd);
	assert_non_null(v);
	int ws = find_opt(v, "--bind", f->ws, f->ws);
	int r1 = find_opt(v, "--ro-bind", sub, sub);
	int r2 = find_opt(v, "--ro-bind", "/usr/share", "/usr/share");
	int b1 = find_opt(v, "--bind", f->sibling, f->sibling);
	assert_true(ws > 0 && r2 > 0 && b1 > 0);
	/* Order: shallowest destination first, so a mount inside another
	 * (the read-only sub inside the workspace) is on top of it. */
	assert_true(r1 > ws);
	sandbox_argv_free(v);

	/* Whatever the order of the options: --bind /x and --ro-bind
	 * /x/ro leave /x/ro read-only (the ro one comes later). */
	const char *ro2[] = { sub, NULL };
	const char *rw2[] = { f->ws, NULL };
	sc.ro_binds = ro2;
	sc.binds = rw2;
	v = sandbox_argv(&sc, NULL, "/usr/bin/bwrap", 3, cmd);
	assert_non_null(v);
	int last_ws = -1;
	for (int i = 1; v[i]; i++)
		if (!strcmp(v[i], "--bind") && v[i + 1] &&
		    !strcmp(v[i + 1], f->ws))
			last_ws = i;
	assert_true(find_opt(v, "--ro-bind", sub, sub) > last_ws);
	sandbox_argv_free(v);
	sc.ro_binds = ro;

	/* A missing bind source: NULL with errno. */
	const char *bad[] = { "/nonexistent/corral", NULL };
	sc.binds = bad;
	errno = 0;
	assert_null(sandbox_argv(&sc, NULL, "/usr/bin/bwrap", 3, cmd));
	assert_int_equal(errno, ENOENT);
	/* No command. */
	const char *empty[] = { NULL };
	sc.binds = NULL;
	assert_null(sandbox_argv(&sc, NULL, "/usr/bin/bwrap", 3, empty));
	assert_int_equal(errno, EINVAL);
}

static void restore_env(const char *name, char *old)
{
	if (old)
		setenv(name, old, 1);
	else
		unsetenv(name);
	free(old);
}

static void test_argv_home_and_tmpdir(void **state)
{
	struct fixture *f = *state;
	char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char *old_tmp = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	struct corral_sandbox_config sc = { .enabled = true, .workspace = f->ws };
	const char *cmd[] = { "true", NULL };
	char inws[128];
	snprintf(inws, sizeof(inws), "%s/tmp", f->ws);
	assert_int_equal(mkdir(inws, 0755), 0);

	/* HOME elsewhere: an empty tmpfs there; TMPDIR not visible: /tmp. */
	setenv("HOME", "/home/nobody-corral", 1);
	setenv("TMPDIR", "/var/tmp", 1);
	char **v = sandbox_argv(&sc, NULL, "/usr/bin/bwrap", -1, cmd);
	assert_non_null(v);
	int home = find_opt(v, "--tmpfs", "/home/nobody-corral", NULL);
	assert_true(home > 0);
	assert_true(find_opt(v, "--bind", f->ws, f->ws) > home);
	assert_true(find_opt(v, "--setenv", "TMPDIR", "/tmp") > 0);
	sandbox_argv_free(v);

	/* HOME is the workspace, TMPDIR inside it: both left alone. */
	setenv("HOME", f->ws, 1);
	setenv("TMPDIR", inws, 1);
	v = sandbox_argv(&sc, NULL, "/usr/bin/bwrap", -1, cmd);
	assert_non_null(v);
	assert_int_equal(find_opt(v, "--tmpfs", f->ws, NULL), -1);
	assert_int_equal(find_opt(v, "--setenv", "TMPDIR", NULL), -1);
	sandbox_argv_free(v);

	/* HOME=/ (or a system directory) is never covered. */
	setenv("HOME", "/", 1);
	v = sandbox_argv(&sc, NULL, "/usr/bin/bwrap", -1, cmd);
	assert_non_null(v);
	assert_int_equal(find_opt(v, "--tmpfs", "/", NULL), -1);
	sandbox_argv_free(v);
	setenv("HOME", "/usr/local", 1);
	v = sandbox_argv(&sc, NULL, "/usr/bin/bwrap", -1, cmd);
	assert_non_null(v);
	assert_int_equal(find_opt(v, "--tmpfs", "/usr/local", NULL), -1);
	sandbox_argv_free(v);

	restore_env("HOME", old_home);
	restore_env("TMPDIR", old_tmp);
}

/* ---- validation ---- */

static void test_validate(void **state)
{
	struct fixture *f = *state;
	char err[512], file[128];
	struct corral_sandbox_config sc = { .enabled = true, .workspace = f->ws };
	assert_int_equal(sandbox_validate(&sc, NULL, err, sizeof(err)), 0);
	assert_string_equal(err, "");

	sc.workspace = "/nonexistent/corral-ws";
	assert_int_equal(sandbox_validate(&sc, NULL, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "workspace"));
	assert_non_null(strstr(err, "/nonexistent/corral-ws"));

	snprintf(file, sizeof(file), "%s/file", f->ws);
	int fd = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	sc.workspace = file;
	assert_int_equal(sandbox_validate(&sc, NULL, err, sizeof(err)), -ENOTDIR);
	assert_non_null(strstr(err, file));

	sc.workspace = "/";
	assert_int_equal(sandbox_validate(&sc, NULL, err, sizeof(err)), -EINVAL);
	assert_true(err[0] != '\0');

	sc.workspace = f->ws;
	const char *ro[] = { "/usr", "/nonexistent/corral-ro", NULL };
	sc.ro_binds = ro;
	assert_int_equal(sandbox_validate(&sc, NULL, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "--ro-bind"));
	assert_non_null(strstr(err, "/nonexistent/corral-ro"));

	sc.ro_binds = NULL;
	const char *rw[] = { "/nonexistent/corral-rw", NULL };
	sc.binds = rw;
	assert_int_equal(sandbox_validate(&sc, NULL, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "--bind"));
	assert_non_null(strstr(err, "/nonexistent/corral-rw"));

	const char *root[] = { "/", NULL };
	sc.binds = root;
	assert_int_equal(sandbox_validate(&sc, NULL, err, sizeof(err)), -EINVAL);

	/* Default workspace: the cwd. */
	sc.binds = NULL;
	sc.workspace = NULL;
	char cwd[PATH_MAX];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(f->ws), 0);
	assert_int_equal(sandbox_validate(&sc, NULL, err, sizeof(err)), 0);
	const char *cmd[] = { "true", NULL };
	char **v = sandbox_argv(&sc, NULL, "/usr/bin/bwrap", -1, cmd);
	assert_int_equal(chdir(cwd), 0);
	assert_non_null(v);
	assert_true(find_opt(v, "--bind", f->ws, f->ws) > 0);
	sandbox_argv_free(v);

	assert_int_equal(sandbox_validate(NULL, NULL, err, sizeof(err)), -EINVAL);
}

/* ---- policy ---- */

static void test_policy_fd(void **state)
{
	struct corral_sandbox_config sc = { .enabled = true };
	int fd = sandbox_policy_fd(&sc);
	assert_true(fd >= 0);
	/* bwrap inherits it through exec and reads it from the start. */
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(st.st_size > 0);
	assert_int_equal(st.st_size % sizeof(struct sock_filter), 0);

	/* Load it in a child (no bwrap) and see it answer. */
	pid_t pid = test_fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static struct sock_filter prog[4096];
		ssize_t n = read(fd, prog, sizeof(prog));
		struct sock_fprog fp = { (unsigned short)(n / sizeof(prog[0])), prog };
		int sv[2];
		if (n <= 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) < 0)
			_exit(10);
		if (socket(AF_INET, SOCK_STREAM, 0) != -1 || errno != EAFNOSUPPORT)
			_exit(11);
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
			_exit(12);
		if (syscall(SYS_clone3, NULL, 0) != -1 || errno != ENOSYS)
			_exit(13);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(fd);

	/* share_net: no socket rules at all; the rest is unchanged. */
	sc.share_net = true;
	FILE *m = tmpfile();
	assert_non_null(m);
	assert_int_equal(sandbox_policy_pfc(&sc, fileno(m)), 0);
	static char buf[1 << 17];
	rewind(m);
	size_t n = fread(buf, 1, sizeof(buf) - 1, m);
	buf[n] = '\0';
	fclose(m);
	assert_null(strstr(buf, "\"socket\""));
	/* ptrace is corral's containment filter's (TRACEd and emulated:
	 * tracer/audit/eptrace.c), not the policy's: an ERRNO here would win.
	 */
	assert_null(strstr(buf, "\"ptrace\""));
	assert_non_null(strstr(buf, "\"mount\""));
	no_children_left();
}

/* ---- probe ---- */

static void test_probe(void **state)
{
	struct sandbox_probe p;
	assert_int_equal(sandbox_probe(NULL, &p), 0);
	no_children_left();
	assert_int_equal(p.is_root, geteuid() == 0);
	assert_true(p.yama_ptrace_scope >= -1 && p.yama_ptrace_scope <= 3);
	if (p.bwrap_found) {
		assert_true(p.bwrap_path[0] == '/');
		assert_int_equal(access(p.bwrap_path, X_OK), 0);
		assert_true(p.bwrap_version[0] != '\0');
	}
	if (p.cgroup2)
		assert_true(p.cgroup2_mount[0] == '/');
	/* The verdict agrees with the parts. */
	if (p.sandbox_ok) {
		assert_string_equal(p.reason, "");
		assert_true(p.bwrap_found && p.seccomp && p.ptrace && p.userns &&
			    p.bwrap_works);
	} else {
		assert_true(p.reason[0] != '\0');
	}

	/* The public API (corral_probe) gives the same answers; the CLI
	 * prints them (install_probe_cli.sh). */
	struct corral_probe cp;
	assert_int_equal(corral_probe(NULL, &cp), 0);
	no_children_left();
	assert_int_equal(cp.size, sizeof(cp));
	assert_int_equal(cp.sandbox_ok, p.sandbox_ok);
	assert_string_equal(cp.reason, p.reason);
	assert_string_equal(cp.bwrap_path, p.bwrap_path);
	assert_int_equal(cp.yama_ptrace_scope, p.yama_ptrace_scope);

	/* A bwrap that does not exist is a refusal with a reason. */
	assert_int_equal(sandbox_probe("/nonexistent/bwrap", &p), 0);
	no_children_left();
	assert_false(p.bwrap_found);
	assert_false(p.sandbox_ok);
	assert_non_null(strstr(p.reason, "bwrap"));
}

/* ---- the sandbox's shape (corral_sandbox_opts) ---- */

static int validate_so(struct fixture *f, const struct corral_sandbox_opts *so,
		       const char *const *ro, const char *const *rw, char *err,
		       size_t errlen)
{
	struct corral_sandbox_config sc = { .enabled = true, .workspace = f->ws,
					    .ro_binds = ro, .binds = rw };
	return sandbox_validate(&sc, so, err, errlen);
}

static void test_validate_shape(void **state)
{
	struct fixture *f = *state;
	char err[512], parent[128], a[200], b[200];
	struct corral_sandbox_opts so = { 0 };
	snprintf(parent, sizeof(parent), "%s", f->ws);
	*strrchr(parent, '/') = '\0'; /* /tmp: an ancestor of the workspace */

	/* Good: SRC:DST, a tmpfs, a dev-bind, names. */
	snprintf(a, sizeof(a), "%s:/opt/x", f->sibling);
	const char *ro_ok[] = { a, NULL };
	const char *tmpfs_ok[] = { "/opt/scratch", NULL };
	const char *dev_ok[] = { "/dev/null:/dev/corral-null", NULL };
	const char *env_ok[] = { "A=b=c", NULL };
	const char *unset_ok[] = { "B", NULL };
	so.tmpfs = tmpfs_ok;
	so.dev_binds = dev_ok;
	so.setenv = env_ok;
	so.unsetenv = unset_ok;
	so.hostname = "build-1.example";
	assert_int_equal(validate_so(f, &so, ro_ok, NULL, err, sizeof(err)), 0);

	/* Each bad destination, with the option in the message. */
	static const char *const bad_dst[] = {
		"rel/dir", "/", "/proc", "/proc/sys", "/dev", "/tmp",
		"/opt/../proc", "/opt/./x",
	};
	memset(&so, 0, sizeof(so));
	for (size_t i = 0; i < sizeof(bad_dst) / sizeof(bad_dst[0]); i++) {
		snprintf(a, sizeof(a), "%s:%s", f->sibling, bad_dst[i]);
		const char *rw[] = { a, NULL };
		assert_true(validate_so(f, &so, NULL, rw, err, sizeof(err)) < 0);
		assert_non_null(strstr(err, "--bind"));
	}
	/* An ancestor of the workspace would hide it; the workspace itself
	 * may be replaced by a bind (--ro-bind . makes it read-only). */
	char sub[160];
	snprintf(sub, sizeof(sub), "%s/sub", f->ws);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(a, sizeof(a), "%s:%s", f->sibling, f->ws);
	const char *hide[] = { a, NULL };
	struct corral_sandbox_config subsc = { .enabled = true, .workspace = sub,
					       .ro_binds = hide };
	assert_int_equal(sandbox_validate(&subsc, &so, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "hide the workspace"));
	/* ... and /tmp, its ancestor here, is the sandbox's own */
	snprintf(a, sizeof(a), "%s:%s", f->sibling, parent);
	assert_int_equal(validate_so(f, &so, hide, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/tmp"));
	const char *self[] = { f->ws, NULL };
	assert_int_equal(validate_so(f, &so, self, NULL, err, sizeof(err)), 0);
	/* The same destination twice, across options. */
	snprintf(a, sizeof(a), "%s:/opt/x", f->sibling);
	snprintf(b, sizeof(b), "%s:/opt//x/", f->ws);
	const char *d1[] = { a, NULL }, *d2[] = { b, NULL };
	assert_int_equal(validate_so(f, &so, d1, d2, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "already given"));
	/* tmpfs: relative, on the workspace, on /tmp. */
	const char *t1[] = { "scratch", NULL }, *t2[] = { f->ws, NULL },
		   *t3[] = { "/tmp", NULL };
	const char *const *tb[] = { t1, t2, t3 };
	for (size_t i = 0; i < 3; i++) {
		memset(&so, 0, sizeof(so));
		so.tmpfs = tb[i];
		assert_int_equal(validate_so(f, &so, NULL, NULL, err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, "--tmpfs"));
	}
	/* Names. */
	static const char *const bad_host[] = { "", "a b", "-a", "a-", "a..b",
						"x/y" };
	for (size_t i = 0; i < sizeof(bad_host) / sizeof(bad_host[0]); i++) {
		memset(&so, 0, sizeof(so));
		so.hostname = bad_host[i];
		assert_int_equal(validate_so(f, &so, NULL, NULL, err, sizeof(err)),
				 -EINVAL);
	}
	memset(&so, 0, sizeof(so));
	const char *e1[] = { "NOVALUE", NULL }, *e2[] = { "=x", NULL };
	so.setenv = e1;
	assert_int_equal(validate_so(f, &so, NULL, NULL, err, sizeof(err)), -EINVAL);
	so.setenv = e2;
	assert_int_equal(validate_so(f, &so, NULL, NULL, err, sizeof(err)), -EINVAL);
	so.setenv = NULL;
	const char *u1[] = { "A=B", NULL };
	so.unsetenv = u1;
	assert_int_equal(validate_so(f, &so, NULL, NULL, err, sizeof(err)), -EINVAL);
}

static void test_argv_shape(void **state)
{
	struct fixture *f = *state;
	char p[200];
	struct corral_sandbox_config sc = { .enabled = true, .workspace = f->ws };
	const char *cmd[] = { "true", NULL };

	/* Defaults: a neutral host name, no --uid, no masks, nothing of
	 * the workspace protected when there is nothing to protect. */
	char **v = sandbox_argv(&sc, NULL, "/usr/bin/bwrap", -1, cmd);
	assert_non_null(v);
	assert_true(find_opt(v, "--hostname", "corral", NULL) > 0);
	assert_int_equal(find_opt(v, "--uid", NULL, NULL), -1);
	assert_int_equal(find_opt(v, "--clearenv", NULL, NULL), -1);
	assert_int_equal(find_opt(v, "--ro-bind", "/dev/null", NULL), -1);
	sandbox_argv_free(v);

	/* A repository and host-executed files: protected after the
	 * workspace, each at its own path. */
	snprintf(p, sizeof(p), "%s/.git/hooks", f->ws);
	char mk[512];
	snprintf(mk, sizeof(mk), "mkdir -p '%s' '%s/.vscode' && touch '%s/.git/config' '%s/.envrc'",
		 p, f->ws, f->ws, f->ws);
	assert_int_equal(system(mk), 0);
	char git[200], cfg[200], envrc[200], vsc[200];
	snprintf(git, sizeof(git), "%s/.git", f->ws);
	snprintf(cfg, sizeof(cfg), "%s/.git/config", f->ws);
	snprintf(envrc, sizeof(envrc), "%s/.envrc", f->ws);
	snprintf(vsc, sizeof(vsc), "%s/.vscode", f->ws);
	v = sandbox_argv(&sc, NULL, "/usr/bin/bwrap", -1, cmd);
	assert_non_null(v);
	int ws = find_opt(v, "--bind", f->ws, f->ws);
	assert_true(ws > 0);
	assert_true(find_opt(v, "--ro-bind", git, git) > ws);
	assert_true(find_opt(v, "--ro-bind", envrc, envrc) > ws);
	assert_true(find_opt(v, "--ro-bind", vsc, vsc) > ws);
	sandbox_argv_free(v);

	/* hooks-ro: config and hooks, not all of .git; rw: nothing of .git
	 * (.envrc stays protected); a --bind of a protected path comes
	 * after its protection. */
	struct corral_sandbox_opts so = { .git = CORRAL_SANDBOX_GIT_HOOKS_RO };
	v = sandbox_argv(&sc, &so, "/usr/bin/bwrap", -1, cmd);
	assert_int_equal(find_opt(v, "--ro-bind", git, git), -1);
	assert_true(find_opt(v, "--ro-bind", cfg, cfg) > 0);
	assert_true(find_opt(v, "--ro-bind", p, p) > 0);
	sandbox_argv_free(v);
	so.git = CORRAL_SANDBOX_GIT_RW;
	const char *open_vsc[] = { vsc, NULL };
	sc.binds = open_vsc;
	v = sandbox_argv(&sc, &so, "/usr/bin/bwrap", -1, cmd);
	assert_int_equal(find_opt(v, "--ro-bind", git, git), -1);
	assert_int_equal(find_opt(v, "--ro-bind", cfg, cfg), -1);
	assert_true(find_opt(v, "--ro-bind", envrc, envrc) > 0);
	assert_true(find_opt(v, "--bind", vsc, vsc) > find_opt(v, "--ro-bind", vsc, vsc));
	sandbox_argv_free(v);
	sc.binds = NULL;

	/* uid/gid, hostname, a DST, a tmpfs, the environment in order:
	 * --clearenv first, the user's --setenv/--unsetenv last. */
	const char *ro[] = { "/usr/share:/opt/share", NULL };
	const char *tmpfs[] = { "/opt//scratch/", NULL };
	const char *env[] = { "TMPDIR=/opt/scratch", NULL };
	const char *unset[] = { "PATH", NULL };
	struct corral_sandbox_opts so2 = {
		.set_uid = true, .uid = 0, .set_gid = true, .gid = 42,
		.hostname = "box", .clearenv = true, .tmpfs = tmpfs,
		.setenv = env, .unsetenv = unset,
	};
	sc.ro_binds = ro;
	v = sandbox_argv(&sc, &so2, "/usr/bin/bwrap", -1, cmd);
	assert_non_null(v);
	assert_true(find_opt(v, "--uid", "0", NULL) > 0);
	assert_true(find_opt(v, "--gid", "42", NULL) > 0);
	assert_true(find_opt(v, "--hostname", "box", NULL) > 0);
	assert_true(find_opt(v, "--ro-bind", "/usr/share", "/opt/share") > 0);
	assert_true(find_opt(v, "--tmpfs", "/opt/scratch", NULL) > 0);
	int ce = find_opt(v, "--clearenv", NULL, NULL);
	int st = find_opt(v, "--setenv", "TMPDIR", "/opt/scratch");
	assert_true(ce > 0 && st > ce);
	assert_true(find_opt(v, "--setenv", "TMPDIR", "/tmp") < st);
	assert_true(find_opt(v, "--unsetenv", "PATH", NULL) > st);
	assert_int_equal(find_opt(v, "--unsetenv", "SSH_AUTH_SOCK", NULL), -1);
	sandbox_argv_free(v);
}

/* ---- real sandboxes ---- */

/* Why a real sandbox cannot run here (sandbox_probe ran bwrap), or NULL. */
static const char *sandbox_missing(void)
{
	static char why[512];
	if (!probed) {
		assert_int_equal(sandbox_probe(NULL, &probe), 0);
		probed = true;
	}
	if (!probe.sandbox_ok) {
		/* one line: the runner lists it */
		snprintf(why, sizeof(why), "%s", probe.reason);
		for (char *c = why; *c; c++)
			if (*c == '\n')
				*c = ' ';
		return why;
	}
	if (access(PY, X_OK) != 0) {
		snprintf(why, sizeof(why), "%s not found", PY);
		return why;
	}
	return NULL;
}

/* A macro: skip_because names the case. */
#define need_sandbox()                                                       \
	do {                                                                 \
		const char *why_ = sandbox_missing();                        \
		if (why_)                                                    \
			skip_because("the sandbox is not usable here: %s",   \
				     why_);                                  \
	} while (0)

/*
 * Run cmd in the sandbox (bwrap with the built argv and policy, no
 * tracer), stdout+stderr captured. Returns the exit code, or -signal.
 */
static int sb_run(const struct corral_sandbox_config *sc,
		  const char *const *cmd, char *out, size_t outlen)
{
	int pfd = sandbox_policy_fd(sc);
	assert_true(pfd >= 0);
	char **argv = sandbox_argv(sc, NULL, probe.bwrap_path, pfd, cmd);
	assert_non_null(argv);
	int mfd = memfd_create("sb-out", MFD_CLOEXEC);
	assert_true(mfd >= 0);
	pid_t pid = test_fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
		dup2(nul, 0);
		dup2(mfd, 1);
		dup2(mfd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pfd);
	sandbox_argv_free(argv);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	ssize_t n = pread(mfd, out, outlen - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(mfd);
	/*
	 * bwrap's monitor exits once the sandbox's PID 1 has reported the
	 * command's status, possibly before that PID 1 is gone. We are a
	 * subreaper (main): it was reparented to us; wait for it (its exit
	 * takes every member of the PID namespace with it), then nothing may
	 * be left.
	 */
	while (waitpid(-1, NULL, __WALL) > 0)
		;
	assert_int_equal(errno, ECHILD);
	no_children_left();
	int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
	if (rc != 0)
		fprintf(stderr, "sandbox output (rc %d):\n%s\n", rc, out);
	return rc;
}

static int py(const struct corral_sandbox_config *sc, const char *code)
{
	static char out[16384];
	const char *cmd[] = { PY, "-c", code, NULL };
	return sb_run(sc, cmd, out, sizeof(out));
}

/* Shared by the Python snippets: a libc call must fail with an errno. */
#define PY_PRELUDE                                                            \
	"import ctypes, errno, os, socket, sys\n"                             \
	"libc = ctypes.CDLL(None, use_errno=True)\n"                          \
	"L = ctypes.c_long\n"                                                 \
	"def denied(what, r, want):\n"                                        \
	"    e = ctypes.get_errno()\n"                                        \
	"    if r != -1 or e != want:\n"                                      \
	"        print(what, 'returned', r, errno.errorcode.get(e, e),\n"     \
	"              'expected', errno.errorcode[want], file=sys.stderr)\n" \
	"        sys.exit(1)\n"

static void test_run_network_denied(void **state)
{
	struct fixture *f = *state;
	need_sandbox();
	struct corral_sandbox_config sc = { .enabled = true, .workspace = f->ws };
	assert_int_equal(py(&sc, PY_PRELUDE
		"for fam, typ in ((socket.AF_INET, socket.SOCK_STREAM),\n"
		"                 (socket.AF_INET, socket.SOCK_DGRAM),\n"
		"                 (socket.AF_INET6, socket.SOCK_STREAM),\n"
		"                 (socket.AF_NETLINK, socket.SOCK_RAW),\n"
		"                 (socket.AF_PACKET, socket.SOCK_RAW)):\n"
		"    try:\n"
		"        s = socket.socket(fam, typ)\n"
		"        s.connect(('127.0.0.1', 9))\n"
		"        sys.exit('%s/%s: socket allowed' % (fam, typ))\n"
		"    except OSError as e:\n"
		"        if e.errno != errno.EAFNOSUPPORT: raise\n"
		"# junk in the upper half of the domain must not sneak through\n"
		"denied('socket(1<<32|AF_INET)', libc.syscall(L(41), L((1 << 32) | 2), L(1), L(0)), errno.EAFNOSUPPORT)\n"
		"denied('socketpair(AF_INET)', libc.socketpair(2, 1, 0, (ctypes.c_int * 2)()), errno.EAFNOSUPPORT)\n"
		"a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)\n"
		"a.sendall(b'ping')\n"
		"assert b.recv(4) == b'ping'\n"
		"u = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
		"u.bind('sock')\n"), 0);

	/* --share-net: the same program may open sockets. */
	sc.share_net = true;
	assert_int_equal(py(&sc,
		"import socket\n"
		"socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()\n"
		"socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()\n"), 0);
}

static void test_run_filesystem(void **state)
{
	struct fixture *f = *state;
	need_sandbox();
	char secret[128], path[256], tmpname[64];
	static char code[4096];
	snprintf(secret, sizeof(secret), "%s/secret", f->sibling);
	int fd = open(secret, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	/* A /tmp name nobody else uses. */
	snprintf(tmpname, sizeof(tmpname), "/tmp/corral-tmpfs-%d", (int)getpid());

	struct corral_sandbox_config sc = { .enabled = true, .workspace = f->ws };
	snprintf(code, sizeof(code),
		 "import errno, os, sys\n"
		 "assert os.getcwd() == '%s', os.getcwd()\n"
		 "assert os.environ.get('PWD') == os.getcwd()\n"
		 "assert os.environ.get('CORRAL_SANDBOX') == '1'\n"
		 "assert 'SSH_AUTH_SOCK' not in os.environ\n"
		 "open('inside.txt', 'w').write('written inside')\n"
		 "for p in ('/usr/corral-test', '/etc/corral-test', '/corral-test'):\n"
		 "    try:\n"
		 "        open(p, 'w')\n"
		 "        sys.exit(p + ': writable')\n"
		 "    except OSError as e:\n"
		 "        if e.errno not in (errno.EROFS, errno.EACCES, errno.EPERM): raise\n"
		 "try:\n"
		 "    open('%s')\n"
		 "    sys.exit('host directory outside the workspace is visible')\n"
		 "except FileNotFoundError:\n"
		 "    pass\n"
		 "open('%s', 'w').write('gone with the sandbox')\n"
		 "assert os.path.exists('/usr/bin/env') and os.path.exists('/bin/sh')\n",
		 f->ws, secret, tmpname);
	setenv("SSH_AUTH_SOCK", "/nonexistent/agent", 1);
	int rc = py(&sc, code);
	unsetenv("SSH_AUTH_SOCK");
	assert_int_equal(rc, 0);

	/* The workspace write reached the host; the /tmp one did not. */
	snprintf(path, sizeof(path), "%s/inside.txt", f->ws);
	char buf[64] = { 0 };
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_true(read(fd, buf, sizeof(buf) - 1) > 0);
	close(fd);
	assert_string_equal(buf, "written inside");
	assert_int_equal(access(tmpname, F_OK), -1);

	/* A read-only bind is readable, not writable; a bind is writable. */
	const char *ro[] = { f->sibling, NULL };
	sc.ro_binds = ro;
	snprintf(code, sizeof(code),
		 "import errno\n"
		 "open('%s').read()\n"
		 "try:\n"
		 "    open('%s', 'w')\n"
		 "    raise SystemExit('ro-bind is writable')\n"
		 "except OSError as e:\n"
		 "    if e.errno not in (errno.EROFS, errno.EACCES): raise\n",
		 secret, secret);
	assert_int_equal(py(&sc, code), 0);
	sc.ro_binds = NULL;
	const char *rw[] = { f->sibling, NULL };
	sc.binds = rw;
	snprintf(code, sizeof(code), "open('%s/new', 'w').write('x')\n", f->sibling);
	assert_int_equal(py(&sc, code), 0);
	snprintf(path, sizeof(path), "%s/new", f->sibling);
	assert_int_equal(access(path, F_OK), 0);
}

static void test_run_denied_syscalls(void **state)
{
	struct fixture *f = *state;
	need_sandbox();
	struct corral_sandbox_config sc = { .enabled = true, .workspace = f->ws };
	assert_int_equal(py(&sc, PY_PRELUDE
		"# ptrace and clone(CLONE_UNTRACED) are corral's containment filter's\n"
		"# (TRACEd, emulated: tests/unit/test_filter.c), not the policy's\n"
		"denied('unshare(NEWUSER)', libc.unshare(0x10000000), errno.EPERM)\n"
		"denied('unshare(NEWNS)', libc.unshare(0x00020000), errno.EPERM)\n"
		"denied('unshare(NEWNET)', libc.unshare(0x40000000), errno.EPERM)\n"
		"# raw clone (x86_64: flags first) with a namespace flag\n"
		"denied('clone(NEWPID)', libc.syscall(L(56), L(0x20000000 | 17), L(0), L(0), L(0), L(0)), errno.EPERM)\n"
		"denied('clone(NEWPID|UNTRACED)', libc.syscall(L(56), L(0x20800000 | 17), L(0), L(0), L(0), L(0)), errno.EPERM)\n"
		"denied('clone3', libc.syscall(L(435), L(0), L(0)), errno.ENOSYS)\n"
		"denied('mount', libc.mount(b'none', b'/tmp', b'tmpfs', L(0), None), errno.EPERM)\n"
		"denied('umount2', libc.umount2(b'/proc', 2), errno.EPERM)\n"
		"denied('chroot', libc.chroot(b'/tmp'), errno.EPERM)\n"
		"denied('setns', libc.setns(0, 0), errno.EPERM)\n"
		"denied('bpf', libc.syscall(L(321), L(0), L(0), L(0)), errno.EPERM)\n"
		"denied('perf_event_open', libc.syscall(L(298), L(0), L(0), L(-1), L(-1), L(0)), errno.EPERM)\n"
		"denied('keyctl', libc.syscall(L(250), L(0), L(0)), errno.EPERM)\n"
		"denied('io_uring_setup', libc.syscall(L(425), L(1), L(0)), errno.EPERM)\n"
		"denied('userfaultfd', libc.syscall(L(323), L(0)), errno.EPERM)\n"
		"denied('TIOCSTI', libc.ioctl(0, L(0x5412), ctypes.c_char_p(b'x')), errno.EPERM)\n"
		"denied('TIOCSTI, upper bits', libc.syscall(L(16), L(0), L((1 << 32) | 0x5412), ctypes.c_char_p(b'x')), errno.EPERM)\n"
		"# fork (clone without namespace flags) still works\n"
		"pid = os.fork()\n"
		"if pid == 0: os._exit(7)\n"
		"assert os.waitpid(pid, 0)[1] >> 8 == 7\n"), 0);
}

static void test_run_pid_namespace(void **state)
{
	struct fixture *f = *state;
	need_sandbox();
	struct corral_sandbox_config sc = { .enabled = true, .workspace = f->ws };
	/* PID 1 is bwrap's reaper, the command is PID 2: nothing else. */
	assert_int_equal(py(&sc,
		"import os, sys\n"
		"pids = sorted(int(d) for d in os.listdir('/proc') if d.isdigit())\n"
		"if pids != [1, os.getpid()]: sys.exit('pids: %r (me %d)' % (pids, os.getpid()))\n"), 0);
}

static void test_run_exit_status(void **state)
{
	struct fixture *f = *state;
	need_sandbox();
	struct corral_sandbox_config sc = { .enabled = true, .workspace = f->ws };
	char out[256];
	/* bwrap passes the command's status through. */
	const char *cmd[] = { "/bin/sh", "-c", "echo out; exit 42", NULL };
	assert_int_equal(sb_run(&sc, cmd, out, sizeof(out)), 42);
	assert_string_equal(out, "out\n");
}

int main(void)
{
	/* Orphans of the sandboxes we start come to us, to be waited for. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		perror("PR_SET_CHILD_SUBREAPER");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_argv_default_profile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_argv_share_net_and_no_policy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_argv_binds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_argv_home_and_tmpdir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_validate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_validate_shape, setup, teardown),
		cmocka_unit_test_setup_teardown(test_argv_shape, setup, teardown),
		cmocka_unit_test(test_policy_fd),
		cmocka_unit_test(test_probe),
		cmocka_unit_test_setup_teardown(test_run_network_denied, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_filesystem, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_denied_syscalls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_pid_namespace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_exit_status, setup, teardown),
	};
	return cmocka_run_group_tests_name("sandbox", tests, NULL, NULL);
}
