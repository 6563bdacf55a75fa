/*
 * probe.c - can `corral run --sandbox` work on this host, and if not, why.
 *
 * Every answer that matters is found by trying, not by reading sysctls
 * whose names differ between distributions: a child makes and maps a user
 * namespace, a child is seized with ptrace, and a trial sandbox with the
 * real profile and policy runs /bin/true with bwrap seized the way the
 * engine seizes it (which is what strips a setuid bwrap of its
 * privileges). Each child is waited for by pid; nothing is left running.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landlock.h"
#include "sandbox.h"
#include "writeall.h"

/* Truncating copy (messages and paths only need to be readable). */
static void copy(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);
	memcpy(dst, src, l);
	dst[l] = '\0';
}

static int read_int_file(const char *path, int *v)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	int ok = fscanf(f, "%d", v) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

static bool seccomp_errno_available(void)
{
	uint32_t act = SECCOMP_RET_ERRNO;
	/* Linux >= 4.14; also proves filter mode is compiled in. */
	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &act) == 0;
}

/* Wait for one child of ours, retrying on EINTR. */
static int wait_pid(pid_t pid, int *status)
{
	while (waitpid(pid, status, __WALL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/*
 * Make a user namespace and map our uid in it, the two steps bwrap needs.
 * Mapping is what fails under Ubuntu's AppArmor userns restriction, where
 * unshare() itself succeeds. The child reports (step, errno) on a pipe.
 */
static bool try_userns(char *err, size_t errlen)
{
	char map[64];
	int fds[2], rep[2] = {0, 0};
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)getuid(),
		 (unsigned)getuid());
	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return false;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (pid == 0) {
		/* Only async-signal-safe calls: the host may be threaded. */
		int r[2] = {0, 0};
		int fd, w = 0;
		close(fds[0]);
		if (unshare(CLONE_NEWUSER) < 0) {
			r[0] = 1, r[1] = errno;
		} else if ((fd = open("/proc/self/setgroups",
				      O_WRONLY | O_CLOEXEC)) >= 0 &&
			   (w = write_all(fd, "deny", 4)) < 0) {
			r[0] = 2, r[1] = -w;
		} else if ((fd = open("/proc/self/uid_map",
				      O_WRONLY | O_CLOEXEC)) < 0 ||
			   (w = write_all(fd, map, strlen(map))) < 0) {
			r[0] = 3, r[1] = w < 0 ? -w : errno;
		}
		if (write(fds[1], r, sizeof(r)) < 0)
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	ssize_t n;
	do
		n = read(fds[0], rep, sizeof(rep));
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	int st;
	wait_pid(pid, &st);
	if (n != (ssize_t)sizeof(rep)) {
		snprintf(err, errlen, "test child failed");
		return false;
	}
	static const char *const step[] = {"", "unshare(CLONE_NEWUSER)",
					   "writing setgroups",
					   "writing uid_map"};
	if (rep[0]) {
		snprintf(err, errlen, "%s: %s", step[rep[0]], strerror(rep[1]));
		return false;
	}
	return true;
}

/* Can we seize a child of ours? (Yama, a seccomp profile, a container.) */
static bool try_ptrace(void)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return false;
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (pid == 0) {
		char c;
		close(fds[1]);
		/* Returns 0 (EOF) once the parent closes its end. */
		while (read(fds[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(fds[0]);
	bool ok = ptrace(PTRACE_SEIZE, pid, 0, (void *)PTRACE_O_EXITKILL) == 0;
	close(fds[1]);
	int st;
	wait_pid(pid, &st);
	return ok;
}

/*
 * The helper of run_capture(): a child subreaper that runs argv (seized
 * first when trace) and reaps everything reparented to it until ECHILD.
 * bwrap's monitor exits as soon as the sandbox's PID 1 reports the
 * command's status, before that PID 1 is gone; as a subreaper the helper
 * inherits and waits for it, so when the helper has exited, nothing of
 * the trial is left, and no orphan ever reaches the process hosting us.
 * Async-signal-safe calls only (we may have been forked from threads).
 */
static void capture_helper(char *const argv[], bool trace,
			   const struct sandbox_ident *id, int mfd, int rep)
{
	int r[2] = {0, 0}; /* -errno of the seize, wait status */
	int sync[2] = {-1, -1};

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 ||
	    (trace && pipe2(sync, O_CLOEXEC) < 0))
		_exit(2);
	pid_t pid = fork();
	if (pid < 0)
		_exit(2);
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(mfd, 1);
		dup2(mfd, 2);
		if (trace) {
			char c;
			close(sync[1]);
			if (read(sync[0], &c, 1) != 1)
				_exit(127); /* not seized: do not run untraced
					     */
		}
		/* As the engine does: a root corral runs bwrap as an
		 * unprivileged host user. */
		if (sandbox_child_drop(id) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	if (trace) {
		close(sync[0]);
		if (ptrace(PTRACE_SEIZE, pid, 0, (void *)PTRACE_O_EXITKILL) < 0)
			r[0] = -errno;
		else if (write(sync[1], "x", 1) != 1)
			r[0] = -EIO;
		close(sync[1]); /* on failure the child sees EOF and exits */
	}
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, __WALL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: all gone */
		}
		if (w != pid)
			continue; /* an orphan of bwrap's, reaped */
		if (WIFSTOPPED(st)) {
			/* A signal stop: deliver it. An event stop
			 * (status>>16 set, e.g. a seize-mode group stop):
			 * just resume. */
			int sig = (st >> 16) ? 0 : WSTOPSIG(st);
			ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig);
		} else {
			r[1] = st;
		}
	}
	if (write(rep, r, sizeof(r)) != sizeof(r))
		_exit(2);
	_exit(0);
}

/*
 * Run argv with stdout and stderr captured (into a memfd, not a pipe: a
 * traced child may sit in a ptrace stop while we would block reading).
 * With trace, the process is PTRACE_SEIZEd before it execs, the way the
 * engine seizes bwrap; only that process is traced, not its children.
 */
static int run_capture(char *const argv[], bool trace,
		       const struct sandbox_ident *id, int *status, char *out,
		       size_t outlen)
{
	int rep[2];
	int r[2] = {-EIO, 0};
	int mfd = memfd_create("corral-probe", MFD_CLOEXEC);
	if (mfd < 0)
		return -errno;
	if (pipe2(rep, O_CLOEXEC) < 0) {
		int e = -errno;
		close(mfd);
		return e;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(rep[0]);
		capture_helper(argv, trace, id, mfd, rep[1]);
	}
	int err = pid < 0 ? -errno : 0;
	close(rep[1]);
	if (pid > 0) {
		ssize_t n;
		do
			n = read(rep[0], r, sizeof(r));
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof(r))
			r[0] = -EIO; /* the helper failed */
		int st;
		wait_pid(pid, &st);
		err = r[0];
	}
	close(rep[0]);
	*status = r[1];
	if (out && outlen) {
		ssize_t n = pread(mfd, out, outlen - 1, 0);
		out[n > 0 ? n : 0] = '\0';
	}
	close(mfd);
	return err;
}

static void first_line(char *s)
{
	s[strcspn(s, "\n")] = '\0';
}

static void get_bwrap_version(struct sandbox_probe *p)
{
	char out[256];
	char *argv[] = {p->bwrap_path, (char *)"--version", NULL};
	int st;
	if (run_capture(argv, false, NULL, &st, out, sizeof(out)) < 0 ||
	    !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return;
	first_line(out);
	/* "bubblewrap 0.8.0" */
	const char *v = strncmp(out, "bubblewrap ", 11) == 0 ? out + 11 : out;
	copy(p->bwrap_version, sizeof(p->bwrap_version), v);
}

static const char *true_path(void)
{
	return access("/bin/true", X_OK) == 0 ? "/bin/true" : "/usr/bin/true";
}

/* The real profile and policy, bwrap seized as the engine seizes it. */
static void trial_run(struct sandbox_probe *p)
{
	struct corral_sandbox_config sc = {.enabled = true,
					   .workspace = "/tmp"};
	const char *cmd[] = {true_path(), NULL};
	char out[512];
	int st = 0;

	/* The identity a run with this workspace gets: nobody for root. */
	struct sandbox_ident id;
	char ierr[512];
	if (sandbox_ident_resolve(&sc, NULL, &id, ierr, sizeof(ierr)) < 0) {
		copy(p->bwrap_error, sizeof(p->bwrap_error), ierr);
		return;
	}
	copy(p->trial_user, sizeof(p->trial_user), id.name);
	int pfd = sandbox_policy_fd(&sc);
	if (pfd < 0) {
		snprintf(p->bwrap_error, sizeof(p->bwrap_error),
			 "cannot build the seccomp policy: %s", strerror(-pfd));
		return;
	}
	char **argv = sandbox_argv(&sc, NULL, p->bwrap_path, pfd, cmd);
	if (!argv) {
		snprintf(p->bwrap_error, sizeof(p->bwrap_error),
			 "cannot build bwrap's arguments: %s", strerror(errno));
		close(pfd);
		return;
	}
	int err = run_capture(argv, true, &id, &st, out, sizeof(out));
	sandbox_argv_free(argv);
	close(pfd);
	first_line(out);
	if (err < 0)
		snprintf(p->bwrap_error, sizeof(p->bwrap_error), "%s",
			 strerror(-err));
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		p->bwrap_works = true;
	else if (out[0])
		copy(p->bwrap_error, sizeof(p->bwrap_error), out);
	else if (WIFSIGNALED(st))
		snprintf(p->bwrap_error, sizeof(p->bwrap_error),
			 "bwrap killed by signal %d", WTERMSIG(st));
	else
		snprintf(p->bwrap_error, sizeof(p->bwrap_error),
			 "bwrap exited with status %d", WEXITSTATUS(st));
}

/* The first cgroup2 mount in our mount namespace. */
static void find_cgroup2(struct sandbox_probe *p)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		/* id parent major:minor root mountpoint ... */
		char mnt[256];
		if (sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1)
			continue;
		/* mountinfo escapes space, tab, newline, backslash as \ooo */
		char *d = mnt;
		for (const char *s = mnt; *s; s++) {
			if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
			    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
			    s[3] <= '7') {
				*d++ = (char)((s[1] - '0') * 64 +
					      (s[2] - '0') * 8 + (s[3] - '0'));
				s += 3;
			} else {
				*d++ = *s;
			}
		}
		*d = '\0';
		p->cgroup2 = true;
		copy(p->cgroup2_mount, sizeof(p->cgroup2_mount), mnt);
		break;
	}
	fclose(f);
}

static void verdict(struct sandbox_probe *p)
{
	char *r = p->reason;
	size_t n = sizeof(p->reason);
	p->sandbox_ok = false;
	if (!p->bwrap_found) {
		snprintf(r, n,
			 "bubblewrap (bwrap) was not found; install the "
			 "bubblewrap package or give its path");
	} else if (!p->seccomp) {
		snprintf(
			r, n,
			"the kernel does not offer seccomp filters with "
			"errno returns (CONFIG_SECCOMP_FILTER, Linux >= 4.14)");
	} else if (p->yama_ptrace_scope >= 3 ||
		   (p->yama_ptrace_scope == 2 && !p->is_root)) {
		snprintf(
			r, n,
			"Yama ptrace_scope is %d, which forbids corral "
			"to trace the sandbox%s (kernel.yama.ptrace_scope <= 1 "
			"is needed)",
			p->yama_ptrace_scope,
			p->yama_ptrace_scope == 2 ? " unless run as root" : "");
	} else if (!p->ptrace) {
		snprintf(r, n,
			 "ptrace is not permitted here (a container's "
			 "seccomp profile or an LSM forbids PTRACE_SEIZE)");
	} else if (!p->userns) {
		snprintf(r, n,
			 "user namespaces are not usable (%s)%s; enable "
			 "them: sysctl user.max_user_namespaces > 0, "
			 "kernel.unprivileged_userns_clone=1 on some kernels, "
			 "or allow bwrap in AppArmor's userns restriction",
			 p->userns_error,
			 p->bwrap_setuid && !p->is_root
				 ? "; bwrap is setuid, but under corral's "
				   "tracer "
				   "it runs without its privileges and needs "
				   "them"
				 : "");
	} else if (!p->bwrap_works) {
		snprintf(r, n,
			 "bubblewrap cannot build the sandbox here: %s%s%s%s",
			 p->bwrap_error[0] ? p->bwrap_error : "unknown error",
			 p->is_root && p->trial_user[0]
				 ? " (as root, the sandbox runs as the "
				   "unprivileged user "
				 : "",
			 p->is_root && p->trial_user[0] ? p->trial_user : "",
			 p->is_root && p->trial_user[0]
				 ? ", which needs unprivileged user "
				   "namespaces: docs/sandbox.md, \"Root "
				   "callers\")"
				 : "");
	} else {
		p->sandbox_ok = true;
	}
}

int sandbox_probe(const char *bwrap_override, struct sandbox_probe *p)
{
	if (!p)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->is_root = geteuid() == 0;
	if (read_int_file("/proc/sys/kernel/yama/ptrace_scope",
			  &p->yama_ptrace_scope) < 0)
		p->yama_ptrace_scope = -1;
	p->seccomp = seccomp_errno_available();
	p->ptrace = try_ptrace();
	p->userns = try_userns(p->userns_error, sizeof(p->userns_error));
	find_cgroup2(p);

	if (sandbox_find_bwrap(bwrap_override, p->bwrap_path,
			       sizeof(p->bwrap_path)) == 0) {
		struct stat st;
		p->bwrap_found = true;
		if (stat(p->bwrap_path, &st) == 0)
			p->bwrap_setuid = (st.st_mode & S_ISUID) != 0;
		get_bwrap_version(p);
		if (p->seccomp && p->ptrace)
			trial_run(p);
		else
			copy(p->bwrap_error, sizeof(p->bwrap_error),
			     "not tried (needs seccomp and ptrace)");
	}
	verdict(p);
	struct landlock_plan lp;
	char ignored[8];
	landlock_plan(CORRAL_BOUNDARY_AUTO, false, &lp, ignored,
		      sizeof(ignored));
	p->landlock_abi = lp.abi;
	p->boundary = landlock_boundary_name(&lp);
	landlock_plan(CORRAL_BOUNDARY_AUTO, true, &lp, ignored,
		      sizeof(ignored));
	p->boundary_sandbox = landlock_boundary_name(&lp);
	return 0;
}
