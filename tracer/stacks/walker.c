/*
 * walker.c - stack walks made off the tracing thread, by a process corral
 * can kill (walker.h; docs/stacks.md, "Bounds").
 *
 * The split: the tracer does what only it may do and what cannot hang on
 * member data: check that tid is a thread of tgid (/proc/TGID/task/TID),
 * take its registers (PTRACE_GETREGSET answers only the tracing thread)
 * and open /proc/TGID/mem (the open is checked against the tracer; reads
 * through the descriptor are not checked again, so a walker that is no
 * ancestor of the member, under Yama's ptrace_scope 1, still reads). The
 * walker, forked from corral, gets them over a socket (the descriptor with
 * SCM_RIGHTS) and runs libunwind (unwind.c) with its own budget and the
 * deadline it is told; its answer is the frames, serialized.
 *
 * The tracer waits for the answer with poll() in short slices, checking
 * between them for a signal corral must act on (sigpending: the signals
 * corral reads from its signalfd stay pending until read). When the
 * deadline (plus a little slack for the walker's own, gentler stop) passes
 * or such a signal comes, the walker is SIGKILLed, reaped, and the walk
 * has its first frame only (the ip from the registers); the next walk of
 * the session forks a new walker.
 *
 * Why a process and not a thread: a thread stuck in libunwind (a loop, an
 * open() of a FIFO, a FUSE read) cannot be stopped safely, and abandoned it
 * would spin or hold locks shared with the tracer for the rest of the run.
 * A process is killed, and nothing it held is shared.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unwind.h"
#include "walker.h"

/* The walker stops itself at the deadline; it is killed this much later. */
#define WALK_SLACK 0.25
/* How long a killed walker may take to go before it is left to the loop. */
#define KILL_WAIT 1.0
/* Waiting for an answer: how often pending signals are looked at. */
#define SLICE_MS 20
/* /proc/TGID/mem descriptors kept open during a session. */
#define MEMFDS 8
/* Strings in an answer are cut to these lengths. */
#define FUNC_MAX   511
#define MODULE_MAX 1023
#define ANSWER_MAX                                                             \
	(sizeof(struct answer) +                                               \
	 UNWINDER_MAX_FRAMES *                                                 \
		 (sizeof(struct aframe) + FUNC_MAX + MODULE_MAX))

struct request {
	pid_t tgid, tid;
	int max;
	double deadline; /* CLOCK_MONOTONIC seconds */
	struct user_regs_struct regs;
};

struct answer {
	int n; /* frames, or -errno */
	int failed;
	char why[96];
	char cut[16];
	/* then n struct aframe, each followed by its strings */
};

struct aframe {
	uint64_t ip, off;
	int16_t funclen, modlen; /* -1: none */
};

struct corral_walker {
	pid_t pid; /* 0: none running */
	int sock;
	struct {
		pid_t tgid;
		int fd;
	} mem[MEMFDS];
	unsigned nextmem;
	char *buf;  /* the last answer */
	char *strs; /* its strings, NUL-terminated, for the frames */
	char why[96];
};

static struct walker_stats stats;

void walker_get_stats(struct walker_stats *st)
{
	*st = stats;
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------ */
/* The walker process */

static size_t put_answer(char *buf, int n, bool failed, const char *why,
			 const char *cut, const struct corral_frame *f)
{
	struct answer *a = (struct answer *)buf;
	memset(a, 0, sizeof(*a));
	a->n = n;
	a->failed = failed;
	if (why)
		snprintf(a->why, sizeof(a->why), "%s", why);
	if (cut)
		snprintf(a->cut, sizeof(a->cut), "%s", cut);
	size_t len = sizeof(*a);
	for (int i = 0; i < n; i++) {
		struct aframe af = {f[i].ip, f[i].off, -1, -1};
		size_t fl = f[i].func ? strnlen(f[i].func, FUNC_MAX) : 0;
		size_t ml = f[i].module ? strnlen(f[i].module, MODULE_MAX) : 0;
		if (f[i].func)
			af.funclen = (int16_t)fl;
		if (f[i].module)
			af.modlen = (int16_t)ml;
		memcpy(buf + len, &af, sizeof(af));
		len += sizeof(af);
		if (fl)
			memcpy(buf + len, f[i].func, fl);
		len += fl;
		if (ml)
			memcpy(buf + len, f[i].module, ml);
		len += ml;
	}
	return len;
}

/* One request: its bytes and the /proc/TGID/mem descriptor (or -1). */
static ssize_t get_request(int sock, struct request *rq, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {rq, sizeof(*rq)};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf)};
	ssize_t n;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	*fd = -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	return n;
}

static __attribute__((noreturn)) void walker_main(int sock)
{
	struct corral_unwinder *u;
	char *buf = malloc(ANSWER_MAX);
	if (!buf || unwinder_new(&u) < 0)
		_exit(1);
	struct corral_frame frames[UNWINDER_MAX_FRAMES];
	for (;;) {
		struct request rq;
		int memfd;
		ssize_t n = get_request(sock, &rq, &memfd);
		if (n != (ssize_t)sizeof(rq)) /* 0: the session ended */
			_exit(n == 0 ? 0 : 2);
		struct unwinder_limits lim = {.memfd = memfd,
					      .deadline = rq.deadline};
		int max = rq.max < UNWINDER_MAX_FRAMES ? rq.max
						       : UNWINDER_MAX_FRAMES;
		const char *why, *cut;
		bool failed;
		int got =
			unwinder_stack_regs(u, rq.tgid, rq.tid, &rq.regs, &lim,
					    frames, max, &why, &cut, &failed);
		if (memfd >= 0)
			close(memfd);
		/*
		 * The process is walked once per session in most rounds, but
		 * a crash's session may meet a tgid again in a later session
		 * with a new program: nothing is kept past a session anyway
		 * (this process ends with it).
		 */
		size_t len = put_answer(buf, got, failed, why, cut, frames);
		if (send(sock, buf, len, MSG_NOSIGNAL) < 0)
			_exit(0);
	}
}

static int walker_start(struct corral_walker *w)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	/* Room for the largest answer in one message. */
	int sz = (int)ANSWER_MAX + 4096;
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	if (pid == 0) {
		/* Never outlive corral, whatever it dies of. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		/*
		 * Only the socket: no copy of the journal, the members'
		 * pipes or the signalfd stays open here (a reader waiting
		 * for EOF on one of them must not wait for us).
		 */
		int fd = sv[1];
		close(sv[0]);
		if (fd != 3) {
			if (dup2(fd, 3) < 0)
				_exit(1);
			close(fd);
		}
		syscall(SYS_close_range, 4u, ~0u, 0u);
		walker_main(3);
	}
	close(sv[1]);
	w->sock = sv[0];
	w->pid = pid;
	stats.started++;
	return 0;
}

/* Reap a walker that is going (its socket closed) or kill it first. */
static void walker_stop(struct corral_walker *w, bool kill_it)
{
	if (!w->pid)
		return;
	if (kill_it) {
		kill(w->pid, SIGKILL);
		stats.killed++;
	} else {
		shutdown(w->sock, SHUT_WR); /* its recvmsg returns 0: exit */
	}
	/*
	 * Its end of the socket closes as it exits: wait for that, bounded
	 * (a task in an uninterruptible wait does not die even of SIGKILL,
	 * e.g. a FUSE request its server read and never answers).
	 */
	double end = mono_now() + KILL_WAIT;
	bool gone = false;
	for (;;) {
		struct pollfd p = {w->sock, POLLIN, 0};
		double left = end - mono_now();
		if (left <= 0)
			break;
		int r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r > 0 && (p.revents & (POLLHUP | POLLERR))) {
			gone = true;
			break;
		}
		if (r > 0 && (p.revents & POLLIN)) {
			char sink[256]; /* a late answer */
			if (recv(w->sock, sink, sizeof(sink), MSG_DONTWAIT) ==
			    0) {
				gone = true;
				break;
			}
		}
	}
	if (!gone && !kill_it) { /* idle walkers exit; this one did not */
		kill(w->pid, SIGKILL);
		stats.killed++;
		gone = true; /* reaped below, or left */
	}
	close(w->sock);
	w->sock = -1;
	pid_t r;
	if (gone) {
		do
			r = waitpid(w->pid, NULL, __WALL);
		while (r < 0 && errno == EINTR);
	} else {
		r = waitpid(w->pid, NULL, WNOHANG | __WALL);
	}
	/* Not reaped: the loop's waitpid(-1) takes it when it goes (an
	 * unknown pid's exit is ignored there). */
	if (r == 0)
		stats.lost++;
	w->pid = 0;
}

/* ------------------------------------------------------------------ */
/* The tracer's side */

static bool thread_of(pid_t tgid, pid_t tid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)tgid, (int)tid);
	return access(path, F_OK) == 0;
}

/* The session's /proc/TGID/mem descriptor for tgid, or -1. */
static int mem_fd(struct corral_walker *w, pid_t tgid)
{
	for (unsigned i = 0; i < MEMFDS; i++)
		if (w->mem[i].fd >= 0 && w->mem[i].tgid == tgid)
			return w->mem[i].fd;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)tgid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	unsigned i = w->nextmem++ % MEMFDS;
	if (w->mem[i].fd >= 0)
		close(w->mem[i].fd);
	w->mem[i].tgid = tgid;
	w->mem[i].fd = fd;
	return fd;
}

static bool signal_pending(const sigset_t *stop)
{
	if (!stop)
		return false;
	sigset_t p;
	if (sigpending(&p) < 0)
		return false;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(stop, s) == 1 && sigismember(&p, s) == 1)
			return true;
	return false;
}

static int send_request(struct corral_walker *w, const struct request *rq,
			int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	memset(cbuf, 0, sizeof(cbuf));
	struct iovec iov = {(void *)rq, sizeof(*rq)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	if (fd >= 0) {
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	ssize_t n;
	do
		n = sendmsg(w->sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*rq) ? 0 : -EPIPE;
}

/*
 * The answer's length, or why there is none: "deadline" (kill_at passed),
 * "signal" (one of stop is pending), "walker" (the walker died).
 */
static ssize_t await_answer(struct corral_walker *w, double kill_at,
			    const sigset_t *stop, const char **cut)
{
	for (;;) {
		double left = kill_at - mono_now();
		if (left <= 0) {
			*cut = "deadline";
			return -1;
		}
		int ms = left * 1000 < SLICE_MS ? (int)(left * 1000) + 1
						: SLICE_MS;
		struct pollfd p = {w->sock, POLLIN, 0};
		int r = poll(&p, 1, ms);
		if (r > 0) {
			ssize_t n =
				recv(w->sock, w->buf, ANSWER_MAX, MSG_DONTWAIT);
			if (n > 0)
				return n;
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			*cut = "walker";
			return -1;
		}
		if (r < 0 && errno != EINTR) {
			*cut = "walker";
			return -1;
		}
		if (signal_pending(stop)) {
			*cut = "signal";
			return -1;
		}
	}
}

/* Frames out of an answer of len bytes; their count, or -EPROTO. */
static int take_answer(struct corral_walker *w, size_t len,
		       struct corral_frame *frames, int max, bool *failed,
		       struct walk_out *out)
{
	const struct answer *a = (const struct answer *)w->buf;
	if (len < sizeof(*a))
		return -EPROTO;
	*failed = a->failed;
	snprintf(w->why, sizeof(w->why), "%.*s", (int)sizeof(a->why) - 1,
		 a->why);
	out->why = w->why[0] ? w->why : NULL;
	/* The cut reasons are ours: map the text back to our constants. */
	static const char *const cuts[] = {"deadline", "budget", "frames"};
	out->cut = NULL;
	for (size_t i = 0; i < sizeof(cuts) / sizeof(*cuts); i++)
		if (!strncmp(a->cut, cuts[i], sizeof(a->cut)))
			out->cut = cuts[i];
	if (a->n < 0)
		return a->n;
	if (a->n > max)
		return -EPROTO;
	size_t off = sizeof(*a);
	char *s = w->strs;
	for (int i = 0; i < a->n; i++) {
		struct aframe af;
		if (off + sizeof(af) > len)
			return -EPROTO;
		memcpy(&af, w->buf + off, sizeof(af));
		off += sizeof(af);
		frames[i] = (struct corral_frame){.ip = af.ip, .off = af.off};
		int16_t lens[2] = {af.funclen, af.modlen};
		const char **dst[2] = {&frames[i].func, &frames[i].module};
		for (int k = 0; k < 2; k++) {
			*dst[k] = NULL;
			if (lens[k] < 0)
				continue;
			if (off + (size_t)lens[k] > len)
				return -EPROTO;
			memcpy(s, w->buf + off, (size_t)lens[k]);
			s[lens[k]] = 0;
			*dst[k] = s;
			s += lens[k] + 1;
			off += (size_t)lens[k];
		}
	}
	return a->n;
}

static int take_regs(pid_t tid, struct user_regs_struct *regs, uint64_t *ip)
{
	struct iovec iov = {regs, sizeof(*regs)};
	if (syscall(SYS_ptrace, PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS,
		    &iov) < 0)
		return -errno;
#if defined(__x86_64__)
	*ip = regs->rip;
#elif defined(__aarch64__)
	*ip = regs->pc;
#else
	*ip = 0;
#endif
	return 0;
}

static int walker_new(struct corral_walker **wp)
{
	struct corral_walker *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->buf = malloc(ANSWER_MAX);
	w->strs = malloc(ANSWER_MAX);
	if (!w->buf || !w->strs) {
		free(w->buf);
		free(w->strs);
		free(w);
		return -ENOMEM;
	}
	w->sock = -1;
	for (unsigned i = 0; i < MEMFDS; i++)
		w->mem[i].fd = -1;
	*wp = w;
	return 0;
}

/* A walk that got no answer: the ip from the registers, and why. */
static int first_frame_only(struct corral_walker *w, uint64_t ip,
			    struct corral_frame *frames, int max,
			    const char *cut, struct walk_out *out)
{
	out->cut = cut;
	if (!strcmp(cut, "signal"))
		out->why = "signal: corral has a signal to act on first";
	else if (!strcmp(cut, "walker"))
		out->why = "the walking process died";
	else
		out->why = "deadline: no answer in time, the walk was "
			   "abandoned";
	if (!ip || max < 1)
		return 0;
	frames[0] = (struct corral_frame){.ip = ip};
	return 1;
}

int walker_stack(struct corral_walker **wp, pid_t tgid, pid_t tid,
		 struct corral_frame *frames, int max, double limit,
		 const sigset_t *stop, struct walk_out *out)
{
	out->why = out->cut = NULL;
	if (!wp || !frames || max < 0 || tid <= 0 || tgid <= 0)
		return -EINVAL;
	if (max > UNWINDER_MAX_FRAMES)
		max = UNWINDER_MAX_FRAMES;
	if (!*wp) {
		int r = walker_new(wp);
		if (r < 0)
			return r;
	}
	struct corral_walker *w = *wp;
	if (!thread_of(tgid, tid))
		return -ESRCH;
	struct request rq = {.tgid = tgid, .tid = tid, .max = max};
	uint64_t ip0 = 0;
	int r = take_regs(tid, &rq.regs, &ip0);
	if (r < 0)
		return r;
	if (signal_pending(stop))
		return first_frame_only(w, ip0, frames, max, "signal", out);
	if (max == 0) {
		out->why = "max frames";
		out->cut = "frames";
		return 0;
	}
	int fd = mem_fd(w, tgid);
	if (!w->pid && (r = walker_start(w)) < 0)
		return r;
	double now = mono_now();
	rq.deadline = now + (limit > 0 ? limit : 0);
	const char *cut = NULL;
	ssize_t len = -1;
	if (send_request(w, &rq, fd) < 0)
		cut = "walker";
	else
		len = await_answer(w, rq.deadline + WALK_SLACK, stop, &cut);
	if (len < 0) {
		walker_stop(w, true);
		return first_frame_only(w, ip0, frames, max, cut, out);
	}
	bool failed = false;
	int n = take_answer(w, (size_t)len, frames, max, &failed, out);
	if (n == -EPROTO) { /* not our walker's answer: trust it no more */
		walker_stop(w, true);
		return first_frame_only(w, ip0, frames, max, "walker", out);
	}
	/*
	 * libunwind gave up on an error: the thread may have died under the
	 * walk (SIGKILL from elsewhere ends even a ptrace-stopped thread).
	 */
	if (n >= 0 && failed && take_regs(tid, &rq.regs, &ip0) == -ESRCH)
		return -ESRCH;
	return n;
}

void walker_end(struct corral_walker **wp)
{
	struct corral_walker *w = wp ? *wp : NULL;
	if (!w)
		return;
	walker_stop(w, false);
	for (unsigned i = 0; i < MEMFDS; i++)
		if (w->mem[i].fd >= 0)
			close(w->mem[i].fd);
	free(w->buf);
	free(w->strs);
	free(w);
	*wp = NULL;
}
