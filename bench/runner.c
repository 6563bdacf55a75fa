/*
 * runner - run one benchmark trial and print what it measured as one JSON
 * line. The driver (bench/bench.py) calls it once per trial, alternating
 * the contenders, and does the statistics.
 *
 *   runner [-w] [-m] [-e MODE] [-T SECONDS] [-G CGROUP_DIR] -- COMMAND...
 *
 *   -w        COMMAND prints a line on stdout when it is ready (a tree that
 *             has all its members); wait for it before anything else
 *   -m        at ready, read COMMAND's VmHWM and VmRSS (its peak and current
 *             memory: COMMAND is corral when corral's memory is measured)
 *   -e MODE   how the run ends, once ready:
 *               none    COMMAND ends by itself (the overhead workloads)
 *               term    SIGTERM to COMMAND (corral -k 0: stop-all + kill-all)
 *               walk    the /proc SIGSTOP walk (procwalk.c)
 *               cgroup  COMMAND runs in a fresh cgroup: cgroup.freeze (stop
 *                       latency), thaw, then cgroup.kill until populated 0
 *   -T SECS   safety limit (default 300): past it, everything is killed
 *
 * Times are in seconds: "wall" from fork to COMMAND reaped, "ready" from
 * fork to the ready line, "stop" from the request to everything stopped,
 * "end" from the request to everything gone.
 *
 * The runner is a child subreaper, so whatever COMMAND leaves behind is
 * reparented to it: it counts those processes ("left"), kills them and
 * reaps everything before it exits. No trial leaves a process behind.
 */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>

#include "bench.h"
#include "ending.h"

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

/* VmHWM / VmRSS of PID in kB, from /proc/PID/status. */
static void read_mem(pid_t pid, long *hwm, long *rss)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "VmHWM:", 6))
			*hwm = strtol(line + 6, NULL, 10);
		else if (!strncmp(line, "VmRSS:", 6))
			*rss = strtol(line + 6, NULL, 10);
	}
	fclose(f);
}

/* Read what is in the (non-blocking) pipe into buf, keeping at most its
 * size. Returns 0 at EOF. */
static int drain(int fd, char *buf, size_t *len)
{
	char tmp[4096];
	for (;;) {
		ssize_t n = read(fd, tmp, sizeof(tmp));
		if (n == 0)
			return 0;
		if (n < 0)
			return errno == EINTR ? 1 : errno == EAGAIN ? 1 : 0;
		size_t room = 4095 - *len;
		size_t k = (size_t)n < room ? (size_t)n : room;
		memcpy(buf + *len, tmp, k);
		*len += k;
		buf[*len] = 0;
	}
}

/* Our children right now, from /proc (ppid == us). */
static long kill_children(pid_t self)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	long n = 0;
	struct dirent *e;
	char path[64], buf[1024];
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		long pid = strtol(e->d_name, NULL, 10);
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		char *p = read_stat(path, buf, sizeof(buf));
		if (!p || strtol(p + 3, NULL, 10) != self || p[1] == 'Z')
			continue;
		kill((pid_t)pid, SIGKILL);
		n++;
	}
	closedir(d);
	return n;
}

/*
 * Kill and reap everything still below us. A killed process's children
 * are reparented to us (we are a subreaper), so repeat until nothing is
 * left. Returns how many live processes had to be killed.
 */
static long cleanup(pid_t self)
{
	long left = 0;
	for (;;) {
		while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
			;
		long n = kill_children(self);
		left += n;
		if (!n) {
			/* Zombies only, or nothing: reap and check again. */
			pid_t p = waitpid(-1, NULL, WNOHANG | __WALL);
			if (p < 0 && errno == ECHILD)
				return left;
			if (p == 0)
				sleep_ns(1000000);
			continue;
		}
		sleep_ns(1000000);
	}
}

/* Reap until nothing is left below us (ECHILD); the last step of ending
 * a tree. Returns -1 if the safety limit hit first. */
static int reap_all(void)
{
	for (;;) {
		pid_t p = waitpid(-1, NULL, __WALL);
		if (p > 0)
			continue;
		if (errno == ECHILD)
			return 0;
		if (errno == EINTR && timed_out)
			return -1;
	}
}

int main(int argc, char **argv)
{
	int want_ready = 0, want_mem = 0, opt;
	const char *mode = "none", *cgparent = NULL;
	long limit = 300;
	while ((opt = getopt(argc, argv, "+wme:T:G:")) != -1) {
		switch (opt) {
		case 'w': want_ready = 1; break;
		case 'm': want_mem = 1; break;
		case 'e': mode = optarg; break;
		case 'T': limit = parse_num(optarg, "SECONDS"); break;
		case 'G': cgparent = optarg; break;
		default: goto usage;
		}
	}
	if (optind >= argc)
		goto usage;
	int m_none = !strcmp(mode, "none"), m_term = !strcmp(mode, "term"),
	    m_walk = !strcmp(mode, "walk"), m_cg = !strcmp(mode, "cgroup");
	if (!m_none && !m_term && !m_walk && !m_cg)
		goto usage;
	if (!m_none)
		want_ready = 1; /* a tree is ended once it is complete */

	pid_t self = getpid();
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		die("PR_SET_CHILD_SUBREAPER");
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	alarm(limit);

	char cg[4096] = "";
	if (m_cg) {
		int e = cg_create(cgparent, cg, sizeof(cg));
		if (e) {
			errno = -e;
			die("cannot create a cgroup (%s)", cg);
		}
	}

	int out[2];
	if (pipe2(out, O_CLOEXEC) < 0)
		die("pipe");
	int64_t t0 = now_ns();
	pid_t child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		if (m_cg && cg_enter(cg) < 0) {
			fprintf(stderr, "runner: cannot enter %s\n", cg);
			_exit(125);
		}
		dup2(out[1], 1);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "runner: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	close(out[1]);

	/* COMMAND's stdout: the ready line, then (for the storm) its figures.
	 * Only the first 4 KiB are kept. */
	char buf[4096];
	size_t len = 0;
	int64_t t_ready = 0;
	if (want_ready) {
		while (!t_ready) {
			ssize_t n = read(out[0], buf + len, sizeof(buf) - 1 - len);
			if (n <= 0 && !(n < 0 && errno == EINTR && !timed_out))
				break;
			if (n > 0)
				len += n;
			buf[len] = 0;
			if (memchr(buf, '\n', len))
				t_ready = now_ns();
			if (len == sizeof(buf) - 1)
				break;
		}
	}
	long hwm = -1, rss = -1;
	if (want_mem && t_ready)
		read_mem(child, &hwm, &rss);

	int64_t t_req = 0, t_stop = 0, t_end = 0, stop_ns = 0;
	struct walk_result wr = { 0 };
	int cg_err = 0, ok = !want_ready || t_ready;
	if (ok && !m_none) {
		t_req = now_ns();
		int64_t deadline = t_req + (limit * 1000000000LL);
		if (m_term) {
			kill(child, SIGTERM);
		} else if (m_walk) {
			if (procwalk_kill(child, &wr) < 0)
				ok = 0;
			t_stop = wr.stopped_ns;
			stop_ns = t_stop - t_req;
		} else {
			cg_err = cg_freeze(cg, 1, deadline);
			t_stop = now_ns();
			stop_ns = t_stop - t_req;
			if (!cg_err)
				cg_err = cg_freeze(cg, 0, deadline);
			t_req = now_ns(); /* the kill is timed on its own */
			if (!cg_err)
				cg_err = cg_kill(cg, deadline);
			t_end = now_ns();
			if (cg_err)
				ok = 0;
		}
	}
	if (m_none) {
		/*
		 * Drain stdout so COMMAND never blocks on a full pipe, until
		 * COMMAND exits: its pidfd says so. Not until EOF: a process it
		 * leaves behind may hold the pipe open for ever.
		 */
		int pfd = (int)syscall(SYS_pidfd_open, child, 0);
		if (pfd < 0)
			die("pidfd_open");
		fcntl(out[0], F_SETFL, O_NONBLOCK);
		struct pollfd fds[2] = { { .fd = pfd, .events = POLLIN },
					 { .fd = out[0], .events = POLLIN } };
		int nfds = 2;
		while (!timed_out) {
			if (poll(fds, nfds, -1) < 0)
				continue; /* EINTR: the safety limit, maybe */
			if (fds[1].revents)
				if (drain(out[0], buf, &len) == 0)
					nfds = 1; /* EOF */
			if (fds[0].revents)
				break;
		}
		drain(out[0], buf, &len); /* what it printed before exiting */
		close(pfd);
	}
	/* A run that went wrong (no ready line, past the safety limit) is
	 * killed here; the cleanup below takes care of the rest. */
	if (timed_out || !ok)
		kill(child, SIGKILL);
	int st = 0;
	struct rusage ru = { 0 };
	while (wait4(child, &st, __WALL, &ru) < 0) {
		if (errno == EINTR && timed_out) {
			kill(child, SIGKILL);
			continue;
		}
		if (errno != EINTR)
			break;
	}
	int64_t t_exit = now_ns();
	if (m_walk || m_term) {
		/* Everything gone: the command (corral, or the tree root) and
		 * every member reparented to us. For corral this finds nothing:
		 * it reaps its own tree before it exits. */
		if (reap_all() < 0)
			ok = 0;
		t_end = now_ns();
	}
	long left = cleanup(self);
	if (m_cg) {
		cg_kill(cg, now_ns() + 10 * 1000000000LL);
		if (cg_remove(cg) < 0)
			fprintf(stderr, "runner: cannot remove %s\n", cg);
	}

	/* The first line of COMMAND's stdout, JSON-escaped just enough for
	 * the plain ASCII our bench programs print. */
	char first[256];
	size_t k = 0;
	for (size_t i = 0; i < len && buf[i] != '\n' && k < sizeof(first) - 2; i++)
		if (buf[i] >= 0x20 && buf[i] != '"' && buf[i] != '\\')
			first[k++] = buf[i];
	first[k] = 0;

	printf("{\"ok\":%s,\"timeout\":%s,\"status\":%d,\"signal\":%d,"
	       "\"wall\":%.6f,\"ready\":%.6f,\"stop\":%.6f,\"end\":%.6f,"
	       "\"exit\":%.6f,\"maxrss_kb\":%ld,\"hwm_kb\":%ld,\"rss_kb\":%ld,"
	       "\"found\":%ld,\"levels\":%ld,\"budget_spent\":%d,\"left\":%ld,"
	       "\"out\":\"%s\"}\n",
	       ok && !timed_out ? "true" : "false", timed_out ? "true" : "false",
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1,
	       WIFSIGNALED(st) ? WTERMSIG(st) : 0, ns_to_s(t_exit - t0),
	       t_ready ? ns_to_s(t_ready - t0) : 0,
	       ns_to_s(stop_ns),
	       t_end && t_req ? ns_to_s(t_end - t_req) : 0,
	       t_req ? ns_to_s(t_exit - t_req) : 0, ru.ru_maxrss, hwm, rss,
	       wr.found, wr.levels, wr.budget_spent, left, first);
	return 0;

usage:
	fprintf(stderr, "usage: runner [-w] [-m] [-e none|term|walk|cgroup] "
			"[-T SECONDS] [-G CGROUP_DIR] -- COMMAND...\n");
	return 2;
}
