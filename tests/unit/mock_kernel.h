/*
 * mock_kernel.h - a scripted kernel (struct corral_sys, tracer/core/sys.h) for
 * the unit tests of the engine, the ending and the loop.
 *
 * The tests feed wait statuses in the awkward orders the real kernel can
 * produce and check which ptrace calls and signals corral made, and what
 * it wrote to the journal (a memfd, through the real sink). Time is the
 * test's (fake_clock), as are the loop's sleep and the signals it reads,
 * the stacks the unwinder finds, and what the escape audit reads of a
 * member. With the tree modelled (mock_task) the kernel also answers
 * interrupts and SIGKILL on its own. No process is created.
 */
#ifndef MOCK_KERNEL_H
#define MOCK_KERNEL_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "walker.h"

#define MAXCALLS 8192
/* calls[].req of an unwind through the seam (not a ptrace request). */
#define MOCK_UNWIND  0x7fff0001
#define MOCK_WARM    0x7fff0002 /* sys->warm(tid) */
#define MOCK_READSIG 0x7fff0003 /* sys->read_signals() */
#define MOCK_EMPTY   0x7fff0004 /* a waitpid(-1) that found nothing */
#define MOCK_FUSE_ABORT 0x7fff0005 /* sys->fuse_abort(data: connection) */

struct mcall {
	int req; /* ptrace request, or -SIG for kill/tgkill */
	pid_t pid;
	long data;
};

struct mock {
	bool journal_strict; /* mock_corral(): --journal-strict */
	struct mcall calls[MAXCALLS];
	int ncalls;
	unsigned long eventmsg[65536]; /* GETEVENTMSG answer per tid */
	pid_t esrch[16];	       /* tids whose ptrace calls fail */
	int nesrch;
	pid_t thread_of[64][2]; /* (tgid, tid) pairs */
	int nthread_of;
	int nthread_of_calls;
	long clone_flags[64][2]; /* (creator, flags) at its clone event */
	int nclone_flags;
	pid_t ids[64][3]; /* tid, tgid, ppid */
	int nids;
	struct {
		pid_t pid;
		int status;
		bool taken;
	} waits[4096];
	int nwaits, wpos;
	bool more; /* after the script: 0 (tracees left) instead of ECHILD */
	/* PTRACE_GET_SYSCALL_INFO's answer (a struct ptrace_syscall_info),
	 * for every tid; NULL: the call succeeds and writes nothing. */
	const void *syscall_info;
	size_t syscall_info_len;
	int nwait_any, nwait_tid; /* waitpid(-1) and waitpid(tid) calls */
	/* The clock: real time, unless fake_clock (then clock, in seconds,
	 * which the test advances; waitpid(-1) adds wait_any_cost to it). */
	bool fake_clock;
	double clock, wait_any_cost;
	/* Signals to corral, delivered at its next sleep (the loop's ppoll):
	 * signo and sender. With fake_clock a sleep without them advances
	 * the clock by its whole timeout. */
	int sigs[16];
	pid_t sigfrom[16];
	int nsigs;
	/*
	 * The tree as the kernel knows it (optional; see mock_task()). With
	 * it the kernel answers: PTRACE_INTERRUPT queues the task's
	 * interrupt stop, SIGKILL queues the deaths of the process's threads
	 * then of the process, and once every modelled task's death was
	 * queued and taken, waitpid says ECHILD (m->more is then ignored).
	 */
	struct {
		pid_t tid, tgid;
		bool alive;	   /* its death is not queued yet */
		bool no_interrupt; /* stuck in the kernel: never stops */
		/* waits on this FUSE connection: SIGKILL does not end it,
		 * an abort of it does */
		unsigned fuse_wait;
	} tasks[256];
	/* FUSE devices in members' file tables: (tid, connection). */
	unsigned fuse_held[16][2];
	int nfuse_held;
	int fuse_abort_err; /* what sys->fuse_abort answers (-errno) */
	int ntasks;
#ifdef __x86_64__
	/* The registers GETREGS reads and SETREGS writes (one task at a
	 * time: the test looks right after the stop it scripted). */
	struct user_regs_struct regs;
	int nsetregs;
#endif
	/*
	 * Stacks the unwinder finds (sys->unwind), by tid: a tid without one
	 * fails with -ESRCH, as the real unwinder does on a task that is not
	 * a stopped tracee.
	 */
	struct {
		pid_t tid;
		int n;
		struct corral_frame f[8];
		const char *why; /* stopped early because */
	} stacks[16];
	int nstacks, nunwinds, nunwind_ends;
	double unwind_cost; /* with fake_clock: seconds each unwind takes */
	/* What the audit reads of a member (sys->fd_target, pgid, read_mem):
	 * the process behind (tid, fd), a task's process group, and its
	 * memory as mapped ranges (a read must lie within one, as
	 * process_vm_readv's single range fails whole on an unmapped page). */
	pid_t fd_targets[16][3]; /* tid, fd, pid */
	int nfd_targets;
	pid_t pgids[16][2]; /* tid, pgid */
	int npgids;
	struct {
		pid_t tid;
		uint64_t addr;
		const char *bytes;
		size_t len;
	} mem[16];
	int nmem, nread_mem;
	pid_t ppid; /* corral's parent (sys->parent); mock_init: 50 */
	/*
	 * The emulated ptrace (eptrace.c): what members write (sys->
	 * write_mem, the last writes kept), their credentials (sys->creds:
	 * uid and gid 1000, no capabilities, one user and pid namespace,
	 * dumpable, unless a test sets an entry) and Yama's scope.
	 */
	struct {
		pid_t tid;
		uint64_t addr;
		unsigned char bytes[256];
		size_t len;
	} wr[64];
	int nwr;
	struct {
		pid_t tid;
		struct procfs_creds c;
	} creds[16];
	int ncreds;
	int yama;
	struct corral_sys sys;
};

#define ST_STOP(sig, ev) (((ev) << 16) | ((sig) << 8) | 0x7f)
#define ST_EXIT(code)	 (((code)&0xff) << 8)
#define ST_KILLED(sig)	 (sig)

static bool mock_esrch(struct mock *m, pid_t pid)
{
	for (int i = 0; i < m->nesrch; i++)
		if (m->esrch[i] == pid)
			return true;
	return false;
}

static void mock_wait(struct mock *m, pid_t pid, int status);

/* The modelled task tid, NULL if not modelled. */
static inline int mock_task_index(struct mock *m, pid_t tid)
{
	for (int i = 0; i < m->ntasks; i++)
		if (m->tasks[i].tid == tid)
			return i;
	return -1;
}

/* Model a live task (tgid == tid: a process). */
static inline void mock_task(struct mock *m, pid_t tid, pid_t tgid)
{
	m->tasks[m->ntasks].tid = tid;
	m->tasks[m->ntasks].tgid = tgid;
	m->tasks[m->ntasks++].alive = true;
}

/* A modelled task ends: its status is queued, it will not report again. */
static inline void mock_exit(struct mock *m, pid_t tid, int status)
{
	int i = mock_task_index(m, tid);
	if (i >= 0)
		m->tasks[i].alive = false;
	mock_wait(m, tid, status);
}

static bool mock_any_alive(struct mock *m)
{
	for (int i = 0; i < m->ntasks; i++)
		if (m->tasks[i].alive)
			return true;
	return false;
}

/* SIGKILL to any task of a modelled process: every thread, then it. */
static void mock_kill_group(struct mock *m, pid_t tid)
{
	int i = mock_task_index(m, tid);
	if (i < 0 || !m->tasks[i].alive)
		return;
	pid_t tgid = m->tasks[i].tgid;
	for (int k = 0; k < m->ntasks; k++)
		if (m->tasks[k].alive && m->tasks[k].tgid == tgid &&
		    m->tasks[k].tid != tgid && !m->tasks[k].fuse_wait)
			mock_exit(m, m->tasks[k].tid, ST_KILLED(SIGKILL));
	if (mock_task_index(m, tgid) >= 0 &&
	    m->tasks[mock_task_index(m, tgid)].alive &&
	    !m->tasks[mock_task_index(m, tgid)].fuse_wait)
		mock_exit(m, tgid, ST_KILLED(SIGKILL));
}

static long m_ptrace(void *ctx, int req, pid_t pid, void *addr, void *data)
{
	struct mock *m = ctx;
	if (m->ncalls < MAXCALLS)
		m->calls[m->ncalls++] = (struct mcall){req, pid, (long)data};
	if (mock_esrch(m, pid))
		return -ESRCH;
	int ti = mock_task_index(m, pid);
	if (ti >= 0 && !m->tasks[ti].alive)
		return -ESRCH;
	if (req == PTRACE_INTERRUPT && ti >= 0 && !m->tasks[ti].no_interrupt)
		mock_wait(m, pid, ST_STOP(SIGTRAP, PTRACE_EVENT_STOP));
#ifdef __x86_64__
	if (req == PTRACE_GETREGS)
		memcpy(data, &m->regs, sizeof(m->regs));
	if (req == PTRACE_SETREGS) {
		memcpy(&m->regs, data, sizeof(m->regs));
		m->nsetregs++;
	}
#endif
	if (req == PTRACE_GETEVENTMSG)
		*(unsigned long *)data = m->eventmsg[pid & 0xffff];
	if (req == PTRACE_GET_SYSCALL_INFO && m->syscall_info) {
		size_t n = m->syscall_info_len < (size_t)addr
				   ? m->syscall_info_len
				   : (size_t)addr;
		memcpy(data, m->syscall_info, n);
		return (long)m->syscall_info_len;
	}
	return 0;
}

/*
 * The script is the kernel's queue, in order. waitpid(-1) takes the first
 * status not yet taken; waitpid(tid) the first of that tid (a status of
 * another tid stays queued for later).
 */
static pid_t m_waitpid(void *ctx, pid_t pid, int *status, int options,
		       struct rusage *ru)
{
	struct mock *m = ctx;
	if (ru)
		memset(ru, 0, sizeof(*ru));
	if (pid > 0)
		m->nwait_tid++;
	else
		m->nwait_any++, m->clock += m->wait_any_cost;
	for (int i = m->wpos; i < m->nwaits; i++) {
		if (m->waits[i].taken || (pid > 0 && m->waits[i].pid != pid))
			continue;
		m->waits[i].taken = true;
		*status = m->waits[i].status;
		while (m->wpos < m->nwaits && m->waits[m->wpos].taken)
			m->wpos++;
		return m->waits[i].pid;
	}
	/* The script is over: either nothing yet, or no tracee left. */
	bool more = m->ntasks ? mock_any_alive(m) : m->more;
	if (pid <= 0 && m->ncalls < MAXCALLS)
		m->calls[m->ncalls++] = (struct mcall){MOCK_EMPTY, 0, 0};
	return (more && (options & WNOHANG)) ? 0 : -ECHILD;
}

static int m_poll(void *ctx, struct pollfd *p, unsigned n, double timeout)
{
	struct mock *m = ctx;
	for (unsigned i = 0; i < n; i++)
		p[i].revents = 0;
	/* p[0] is the signalfd: ready with a signal, or with a status not
	 * taken yet (it raised SIGCHLD). */
	bool ready = m->nsigs > 0;
	for (int i = m->wpos; i < m->nwaits && !ready; i++)
		ready = !m->waits[i].taken;
	if (ready) {
		p[0].revents = POLLIN;
		return 1;
	}
	if (m->fake_clock && timeout > 0)
		m->clock += timeout;
	return 0;
}

static ssize_t m_read_signals(void *ctx, int fd, struct signalfd_siginfo *si,
			      size_t max)
{
	struct mock *m = ctx;
	if (m->ncalls < MAXCALLS)
		m->calls[m->ncalls++] = (struct mcall){MOCK_READSIG, 0, 0};
	size_t k = 0;
	for (; k < (size_t)m->nsigs && k < max; k++) {
		memset(&si[k], 0, sizeof(si[k]));
		si[k].ssi_signo = (uint32_t)m->sigs[k];
		si[k].ssi_pid = (uint32_t)m->sigfrom[k];
	}
	m->nsigs = 0;
	return (ssize_t)k;
}

static inline void mock_signal(struct mock *m, int sig, pid_t from)
{
	m->sigs[m->nsigs] = sig;
	m->sigfrom[m->nsigs++] = from;
}

static double m_now(void *ctx)
{
	struct mock *m = ctx;
	if (m->fake_clock)
		return m->clock;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int m_kill(void *ctx, pid_t pid, int sig)
{
	struct mock *m = ctx;
	if (sig && m->ncalls < MAXCALLS)
		m->calls[m->ncalls++] = (struct mcall){-sig, pid, 0};
	if (mock_esrch(m, pid))
		return -ESRCH;
	int ti = mock_task_index(m, pid);
	if (ti >= 0 && !m->tasks[ti].alive)
		return -ESRCH;
	if (sig == SIGKILL)
		mock_kill_group(m, pid);
	/* Signal 0: a modelled task that is alive exists, nothing else. */
	return sig || (ti >= 0 && m->tasks[ti].alive) ? 0 : -ESRCH;
}

static int m_tgkill(void *ctx, pid_t tgid, pid_t tid, int sig)
{
	return m_kill(ctx, tid, sig);
}

static long m_clone_flags(void *ctx, pid_t creator)
{
	struct mock *m = ctx;
	for (int i = 0; i < m->nclone_flags; i++)
		if (m->clone_flags[i][0] == creator)
			return m->clone_flags[i][1];
	return -ENOSYS; /* unknown: the engine asks is_thread_of */
}

static bool m_is_thread_of(void *ctx, pid_t tgid, pid_t tid)
{
	struct mock *m = ctx;
	m->nthread_of_calls++;
	for (int i = 0; i < m->nthread_of; i++)
		if (m->thread_of[i][0] == tgid && m->thread_of[i][1] == tid)
			return true;
	return false;
}

static int m_ids(void *ctx, pid_t tid, pid_t *tgid, pid_t *ppid, pid_t *ns)
{
	struct mock *m = ctx;
	for (int i = 0; i < m->nids; i++)
		if (m->ids[i][0] == tid) {
			*tgid = m->ids[i][1];
			*ppid = m->ids[i][2];
			return 0;
		}
	return -ESRCH;
}

static char *m_exe(void *ctx, pid_t tid)
{
	char b[64];
	snprintf(b, sizeof(b), "/bin/prog%d", tid);
	return strdup(b);
}

static void m_warm(void *ctx, pid_t tid)
{
	struct mock *m = ctx;
	if (m->ncalls < MAXCALLS)
		m->calls[m->ncalls++] = (struct mcall){MOCK_WARM, tid, 0};
}

static int m_argv(void *ctx, pid_t tid, char **block, char ***argv)
{
	*block = malloc(32);
	snprintf(*block, 32, "prog%d", tid);
	*argv = calloc(2, sizeof(char *));
	(*argv)[0] = *block;
	return 0;
}

/* The stack read at exec does not apply here: the engine asks m_argv. */
static int m_exec_argv(void *ctx, pid_t tid, char **block, char ***argv)
{
	return -ENOSYS;
}

static int m_unwind(void *ctx, struct corral_walker **w, pid_t tgid,
		    pid_t tid, struct corral_frame *frames, int max,
		    double limit, const sigset_t *stop, struct walk_out *out)
{
	struct mock *m = ctx;
	const char **why = &out->why;
	out->cut = NULL;
	m->nunwinds++;
	m->clock += m->unwind_cost;
	if (m->ncalls < MAXCALLS)
		m->calls[m->ncalls++] = (struct mcall){MOCK_UNWIND, tid, 0};
	for (int i = 0; i < m->nstacks; i++) {
		if (m->stacks[i].tid != tid)
			continue;
		int n = m->stacks[i].n < max ? m->stacks[i].n : max;
		memcpy(frames, m->stacks[i].f, (size_t)n * sizeof(*frames));
		*why = m->stacks[i].why;
		return n;
	}
	return -ESRCH;
}

static void m_unwind_end(void *ctx, struct corral_walker **w)
{
	struct mock *m = ctx;
	m->nunwind_ends++;
}

/* tid's stack, innermost first: n functions of /bin/prog<tid>. */
static inline void mock_stack(struct mock *m, pid_t tid, int n,
			      const char *const *funcs, const char *why)
{
	m->stacks[m->nstacks].tid = tid;
	m->stacks[m->nstacks].n = n;
	m->stacks[m->nstacks].why = why;
	for (int i = 0; i < n; i++)
		m->stacks[m->nstacks].f[i] = (struct corral_frame){
			.ip = 0x401000 + 0x10 * (uint64_t)i,
			.off = 0x10,
			.func = funcs[i],
			.module = "/bin/prog",
		};
	m->nstacks++;
}

static pid_t m_fd_target(void *ctx, pid_t tid, int fd)
{
	struct mock *m = ctx;
	for (int i = 0; i < m->nfd_targets; i++)
		if (m->fd_targets[i][0] == tid && m->fd_targets[i][1] == fd)
			return m->fd_targets[i][2];
	return 0;
}

static pid_t m_pgid(void *ctx, pid_t tid)
{
	struct mock *m = ctx;
	for (int i = 0; i < m->npgids; i++)
		if (m->pgids[i][0] == tid)
			return m->pgids[i][1];
	return 0;
}

static ssize_t m_read_mem(void *ctx, pid_t tid, uint64_t addr, void *buf,
			  size_t len)
{
	struct mock *m = ctx;
	m->nread_mem++;
	for (int i = 0; i < m->nmem; i++) {
		uint64_t a = m->mem[i].addr, e = a + m->mem[i].len;
		if (m->mem[i].tid == tid && addr >= a && addr + len <= e) {
			memcpy(buf, m->mem[i].bytes + (addr - a), len);
			return (ssize_t)len;
		}
	}
	return -EFAULT;
}

/* len bytes mapped at addr in tid's memory (bytes must outlive the test). */
static inline void mock_map(struct mock *m, pid_t tid, uint64_t addr,
			    const char *bytes, size_t len)
{
	m->mem[m->nmem].tid = tid;
	m->mem[m->nmem].addr = addr;
	m->mem[m->nmem].bytes = bytes;
	m->mem[m->nmem++].len = len;
}

static pid_t m_parent(void *ctx)
{
	return ((struct mock *)ctx)->ppid;
}

/* A snapshot's view of a member: a directory and two descriptors. */
static char *m_cwd(void *ctx, pid_t tid)
{
	char b[64];
	snprintf(b, sizeof(b), "/w/%d", tid);
	return strdup(b);
}

static int m_fds(void *ctx, pid_t tid,
		 void (*fn)(const char *fd, const char *target, size_t len,
			    void *arg),
		 void *arg)
{
	fn("0", "/dev/null", 9, arg);
	fn("1", "pipe:[7]", 8, arg);
	return 0;
}

static int m_fuse_conns(void *ctx, pid_t tid, unsigned *conns, int max)
{
	struct mock *m = ctx;
	int n = 0;
	for (int i = 0; i < m->nfuse_held && n < max; i++)
		if ((pid_t)m->fuse_held[i][0] == tid)
			conns[n++] = m->fuse_held[i][1];
	return n;
}

/* An abort ends the wait of the tasks on that connection: they die (of
 * the SIGKILL they have pending). */
static int m_fuse_abort(void *ctx, unsigned conn)
{
	struct mock *m = ctx;
	if (m->ncalls < MAXCALLS)
		m->calls[m->ncalls++] =
			(struct mcall){MOCK_FUSE_ABORT, 0, (long)conn};
	if (m->fuse_abort_err)
		return m->fuse_abort_err;
	for (int i = 0; i < m->ntasks; i++)
		if (m->tasks[i].alive && m->tasks[i].fuse_wait == conn)
			mock_exit(m, m->tasks[i].tid, ST_KILLED(SIGKILL));
	return 0;
}

static char m_task_state(void *ctx, pid_t tid, char *wchan, size_t len)
{
	struct mock *m = ctx;
	int i = mock_task_index(m, tid);
	bool fuse = i >= 0 && m->tasks[i].fuse_wait;
	snprintf(wchan, len, "%s", fuse ? "request_wait_answer" : "");
	return fuse ? 'D' : 'S';
}

static ssize_t m_write_mem(void *ctx, pid_t tid, uint64_t addr,
			   const void *buf, size_t len)
{
	struct mock *m = ctx;
	int i = m->nwr < 64 ? m->nwr++ : 63;
	m->wr[i].tid = tid;
	m->wr[i].addr = addr;
	m->wr[i].len = len < 256 ? len : 256;
	memcpy(m->wr[i].bytes, buf, m->wr[i].len);
	return (ssize_t)len;
}

/* The last n bytes written at addr in tid's memory; false if none. */
static inline bool mock_written(struct mock *m, pid_t tid, uint64_t addr,
				void *buf, size_t n)
{
	for (int i = m->nwr - 1; i >= 0; i--)
		if (m->wr[i].tid == tid && m->wr[i].addr == addr &&
		    m->wr[i].len >= n) {
			memcpy(buf, m->wr[i].bytes, n);
			return true;
		}
	return false;
}

static int m_creds(void *ctx, pid_t tid, struct procfs_creds *out)
{
	struct mock *m = ctx;
	for (int i = 0; i < m->ncreds; i++)
		if (m->creds[i].tid == tid) {
			*out = m->creds[i].c;
			return 0;
		}
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < 4; i++)
		out->uid[i] = out->gid[i] = 1000;
	out->userns = out->pidns = 1;
	out->dumpable = true;
	out->nspid = tid;
	int ti = mock_task_index(m, tid);
	out->tgid = ti >= 0 ? m->tasks[ti].tgid : tid;
	return 0;
}

/* tid's credentials as m_creds gives them, to change in a test. */
static inline struct procfs_creds *mock_creds(struct mock *m, pid_t tid)
{
	m->creds[m->ncreds].tid = tid;
	m_creds(m, tid, &m->creds[m->ncreds].c);
	m->creds[m->ncreds].tid = tid;
	return &m->creds[m->ncreds++].c;
}

static int m_yama_scope(void *ctx)
{
	return ((struct mock *)ctx)->yama;
}

static void mock_init(struct mock *m)
{
	memset(m, 0, sizeof(*m));
	m->sys = (struct corral_sys){
		.ptrace = m_ptrace,
		.waitpid = m_waitpid,
		.kill = m_kill,
		.tgkill = m_tgkill,
		.is_thread_of = m_is_thread_of,
		.clone_flags = m_clone_flags,
		.ids = m_ids,
		.exe = m_exe,
		.warm = m_warm,
		.argv = m_argv,
		.now = m_now,
		.poll = m_poll,
		.read_signals = m_read_signals,
		.ctx = m,
		.exec_argv = m_exec_argv,
		.unwind = m_unwind,
		.unwind_end = m_unwind_end,
		.fd_target = m_fd_target,
		.pgid = m_pgid,
		.read_mem = m_read_mem,
		.parent = m_parent,
		.cwd = m_cwd,
		.fds = m_fds,
		.fuse_conns = m_fuse_conns,
		.fuse_abort = m_fuse_abort,
		.task_state = m_task_state,
		.write_mem = m_write_mem,
		.creds = m_creds,
		.yama_scope = m_yama_scope,
	};
	m->ppid = 50; /* the shell that started corral */
}

static void mock_wait(struct mock *m, pid_t pid, int status)
{
	m->waits[m->nwaits].pid = pid;
	m->waits[m->nwaits++].status = status;
}

/* How many calls of req to pid (data == -1: any data) since index from. */
static inline int mock_count(struct mock *m, int from, int req, pid_t pid,
			     long data)
{
	int n = 0;
	for (int i = from; i < m->ncalls; i++)
		if (m->calls[i].req == req && m->calls[i].pid == pid &&
		    (data == -1 || m->calls[i].data == data))
			n++;
	return n;
}

/*
 * A supervisor on the mock kernel (the library's own constructor,
 * supervisor_alloc), root already seized as tid root, the journal on a
 * memfd through the real sink.
 */
static struct corral *mock_corral(struct mock *m, pid_t root)
{
	struct corral_config cfg;
	corral_config_init(&cfg);
	static const char *const argv[] = {"prog", NULL};
	cfg.argv = argv;
	cfg.self_argv = argv;
	cfg.watch_parent = false;
	/* Sealable: a test can make the sink's writes fail (F_SEAL_GROW). */
	cfg.journal_fd = memfd_create("journal", MFD_ALLOW_SEALING);
	cfg.journal_strict = m->journal_strict;
	struct corral *c = supervisor_alloc(&cfg, &m->sys);
	if (!c)
		abort();
	char err[256];
	if (journal_open(c, err, sizeof(err)) < 0)
		fprintf(stderr, "mock journal: %s\n", err);
	OWN(c, lifecycle)->want_argv = true;
	OWN(c, spawn)->root = root;
	engine_add_root(c, root);
	return c;
}

/* The journal so far, as one string (caller frees). */
static char *mock_journal(struct corral *c)
{
	off_t len = lseek(c->cfg.journal_fd, 0, SEEK_END);
	char *s = calloc(1, (size_t)len + 1);
	if (pread(c->cfg.journal_fd, s, (size_t)len, 0) != len)
		s[0] = 0;
	return s;
}

/* How many times needle is in the journal. */
static inline int jcount(struct corral *c, const char *needle)
{
	char *j = mock_journal(c);
	int n = 0;
	for (char *p = j; (p = strstr(p, needle)); p++)
		n++;
	free(j);
	return n;
}

/* The index of the first call of req since index from, -1 if none. */
static inline int mock_first(struct mock *m, int from, int req)
{
	for (int i = from; i < m->ncalls; i++)
		if (m->calls[i].req == req)
			return i;
	return -1;
}

static void mock_free(struct corral *c)
{
	OWN(c, spawn)->finished = true; /* nothing real to kill */
	int jfd = c->cfg.journal_fd;
	corral_free(c);
	close(jfd);
}

/* Position of needle in the journal, -1 if absent. */
static inline long jpos(struct corral *c, const char *needle)
{
	char *j = mock_journal(c);
	char *p = strstr(j, needle);
	long r = p ? p - j : -1;
	free(j);
	return r;
}

#endif
