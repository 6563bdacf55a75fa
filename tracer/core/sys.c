/*
 * sys.c - the real implementation of the mockable kernel layer (sys.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "execstack.h"
#include "fuse.h"
#include "procfs.h"
#include "sys.h"
#include "walker.h"

static long real_ptrace(void *ctx, int req, pid_t pid, void *addr, void *data)
{
	long r = syscall(SYS_ptrace, req, pid, addr, data);
	return r < 0 ? -errno : r;
}

static pid_t real_waitpid(void *ctx, pid_t pid, int *status, int options,
			  struct rusage *ru)
{
	pid_t r;
	do /* wait4: the exit's resource use at no extra cost */
		r = wait4(pid, status, options, ru);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

static int real_kill(void *ctx, pid_t pid, int sig)
{
	return kill(pid, sig) < 0 ? -errno : 0;
}

static int real_tgkill(void *ctx, pid_t tgid, pid_t tid, int sig)
{
	return syscall(SYS_tgkill, tgid, tid, sig) < 0 ? -errno : 0;
}

static bool real_is_thread_of(void *ctx, pid_t tgid, pid_t tid)
{
	return procfs_is_thread_of(tgid, tid);
}

/*
 * At PTRACE_EVENT_CLONE the creator is stopped inside clone(): orig_rax is
 * the call and rdi its first argument, the flags (x86-64 clone(flags,
 * stack, parent_tid, child_tid, tls)). clone3 is refused by the
 * containment filter, so glibc falls back to clone(). Elsewhere: unknown.
 */
static long real_clone_flags(void *ctx, pid_t creator)
{
#if defined(__x86_64__)
	struct user_regs_struct r;
	if (syscall(SYS_ptrace, PTRACE_GETREGS, creator, 0, &r) < 0)
		return -errno;
	if (r.orig_rax != SYS_clone)
		return -ENOSYS;
	return (long)(r.rdi & 0x7fffffffffffffffUL);
#else
	return -ENOSYS;
#endif
}

static int real_ids(void *ctx, pid_t tid, pid_t *tgid, pid_t *ppid,
		    pid_t *nspid)
{
	return procfs_ids(tid, tgid, ppid, nspid);
}

static char *real_exe(void *ctx, pid_t tid)
{
	return procfs_exe(tid);
}

static void real_warm(void *ctx, pid_t tid)
{
	procfs_warm(tid);
}

static char *real_cwd(void *ctx, pid_t tid)
{
	return procfs_cwd(tid);
}

static int real_fds(void *ctx, pid_t tid,
		    void (*fn)(const char *fd, const char *target, size_t len,
			       void *arg),
		    void *arg)
{
	return procfs_fds(tid, fn, arg);
}

static int real_argv(void *ctx, pid_t tid, char **block, char ***argv)
{
	return procfs_argv(tid, block, argv);
}

static int real_exec_argv(void *ctx, pid_t tid, char **block, char ***argv)
{
	return execstack_argv(tid, block, argv);
}

static double real_now(void *ctx)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int real_poll(void *ctx, struct pollfd *p, unsigned n, double timeout)
{
	struct timespec ts, *tsp = NULL;
	if (timeout >= 0) {
		if (timeout > 3600)
			timeout = 3600;
		ts.tv_sec = (time_t)timeout;
		ts.tv_nsec = (long)((timeout - (double)ts.tv_sec) * 1e9);
		tsp = &ts;
	}
	int r = ppoll(p, n, tsp, NULL);
	return r < 0 ? -errno : r;
}

static ssize_t real_read_signals(void *ctx, int fd, struct signalfd_siginfo *si,
				 size_t max)
{
	ssize_t n = read(fd, si, max * sizeof(*si));
	return n < 0 ? -errno : n / (ssize_t)sizeof(*si);
}

static int real_unwind(void *ctx, struct corral_walker **w, pid_t tgid,
		       pid_t tid, struct corral_frame *frames, int max,
		       double limit, const sigset_t *stop, struct walk_out *out)
{
	/* Off the tracing thread, bounded: walker.c. */
	return walker_stack(w, tgid, tid, frames, max, limit, stop, out);
}

static void real_unwind_end(void *ctx, struct corral_walker **w)
{
	walker_end(w);
}

static pid_t real_fd_target(void *ctx, pid_t tid, int fd)
{
	return procfs_fd_target(tid, fd);
}

static pid_t real_pgid(void *ctx, pid_t tid)
{
	pid_t g = getpgid(tid);
	return g > 0 ? g : 0;
}

/*
 * process_vm_readv/writev() need the same rights over the task as a
 * debugger's attach; a non-dumpable member under an unprivileged corral
 * refuses them with EPERM, but its tracer may still go through
 * /proc/PID/mem.  One fallback for both directions.
 */
static ssize_t proc_mem_io(pid_t tid, uint64_t addr, void *buf, size_t len,
			   bool to_member)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", tid);
	int fd = open(path, (to_member ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = to_member ? pwrite(fd, buf, len, (off_t)addr)
			      : pread(fd, buf, len, (off_t)addr);
	int e = errno;
	close(fd);
	return n < 0 ? -e : n;
}

static ssize_t real_read_mem(void *ctx, pid_t tid, uint64_t addr, void *buf,
			     size_t len)
{
	struct iovec l = {buf, len};
	struct iovec r = {(void *)(uintptr_t)addr, len};
	ssize_t n = process_vm_readv(tid, &l, 1, &r, 1, 0);
	if (n >= 0 || errno != EPERM)
		return n < 0 ? -errno : n;
	return proc_mem_io(tid, addr, buf, len, false);
}

static ssize_t real_write_mem(void *ctx, pid_t tid, uint64_t addr,
			      const void *buf, size_t len)
{
	struct iovec l = {(void *)buf, len};
	struct iovec r = {(void *)(uintptr_t)addr, len};
	ssize_t n = process_vm_writev(tid, &l, 1, &r, 1, 0);
	if (n >= 0 || errno != EPERM)
		return n < 0 ? -errno : n;
	return proc_mem_io(tid, addr, (void *)buf, len, true);
}

static int real_creds(void *ctx, pid_t tid, struct procfs_creds *out)
{
	return procfs_creds(tid, out);
}

static int real_yama_scope(void *ctx)
{
	char b[16] = {0};
	int fd = open("/proc/sys/kernel/yama/ptrace_scope",
		      O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* no Yama */
	ssize_t n = read(fd, b, sizeof(b) - 1);
	close(fd);
	/* Unreadable: the strictest scope, never looser than the host. */
	return n > 0 ? atoi(b) : 3;
}

static pid_t real_parent(void *ctx)
{
	return getppid();
}

static int real_fuse_conns(void *ctx, pid_t tid, unsigned *conns, int max)
{
	return fuse_conns(tid, conns, max);
}

static int real_fuse_abort(void *ctx, unsigned conn)
{
	return fuse_abort(conn);
}

static char real_task_state(void *ctx, pid_t tid, char *wchan, size_t len)
{
	if (len)
		wchan[0] = 0;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && len > 1) {
		ssize_t n = read(fd, wchan, len - 1);
		wchan[n > 0 ? n : 0] = 0;
		/* "0": not waiting, or hidden from us. */
		if (!strcmp(wchan, "0"))
			wchan[0] = 0;
	}
	if (fd >= 0)
		close(fd);
	return procfs_state(tid);
}

const struct corral_sys sys_real = {
	.ptrace = real_ptrace,
	.waitpid = real_waitpid,
	.kill = real_kill,
	.tgkill = real_tgkill,
	.is_thread_of = real_is_thread_of,
	.clone_flags = real_clone_flags,
	.ids = real_ids,
	.exe = real_exe,
	.warm = real_warm,
	.argv = real_argv,
	.now = real_now,
	.poll = real_poll,
	.read_signals = real_read_signals,
	.ctx = 0,
	.exec_argv = real_exec_argv,
	.unwind = real_unwind,
	.unwind_end = real_unwind_end,
	.fd_target = real_fd_target,
	.pgid = real_pgid,
	.read_mem = real_read_mem,
	.parent = real_parent,
	.cwd = real_cwd,
	.fds = real_fds,
	.fuse_conns = real_fuse_conns,
	.fuse_abort = real_fuse_abort,
	.task_state = real_task_state,
	.write_mem = real_write_mem,
	.creds = real_creds,
	.yama_scope = real_yama_scope,
};
