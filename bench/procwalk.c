/*
 * procwalk.c - the /proc SIGSTOP walk, as seeds/000 describes it, as the
 * baseline for ending a tree without a tracer.
 *
 * SIGSTOP the root and wait until each of its threads has stopped; then read
 * /proc and SIGSTOP every process whose parent was stopped by an earlier
 * read, wait until those have stopped, and read again, until a read finds
 * nobody new. Each read comes after everything found so far has stopped, so
 * no process found can fork or reap meanwhile: every pid signalled stays
 * that process's own. Then SIGKILL everything found, in reverse order
 * (children before parents). The waits share a 500 ms budget, after which
 * the walk goes on without waiting, as the original does.
 *
 * Written from the description only; it is a baseline, so it is written to
 * be fast where the description leaves room (one stat read per process per
 * level, a pid-indexed mark array), not to be slow on purpose.
 */
#include <dirent.h>
#include <signal.h>

#include "bench.h"
#include "ending.h"

#define BUDGET_NS (500 * 1000000LL)

struct walk {
	unsigned char *mark; /* indexed by pid: 1 = stopped by us */
	long pid_max;
	pid_t *list;	     /* everything found, in stop order */
	long n, cap;
	int64_t deadline;    /* end of the shared wait budget */
	int budget_spent;
};

static long read_pid_max(void)
{
	long v = 4194304; /* the largest pid_max Linux allows */
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 4194304;
		fclose(f);
	}
	return v;
}

static void add(struct walk *w, pid_t pid)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 1024;
		w->list = realloc(w->list, w->cap * sizeof(*w->list));
		if (!w->list)
			die("realloc");
	}
	w->list[w->n++] = pid;
}

/*
 * Has every thread of PID stopped (or died)? One read of /proc/PID/stat
 * answers for single-threaded processes, the common case; otherwise each
 * /proc/PID/task/TID/stat is read.
 */
static int all_threads_stopped(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	char *p = read_stat(path, buf, sizeof(buf));
	if (!p)
		return 1; /* gone */
	char state = p[1];
	/* num_threads is field 20; p points at field 3's leading space. */
	long threads = 1;
	char *q = p;
	for (int field = 2; field < 20 && q; field++)
		q = strchr(q + 1, ' ');
	if (q)
		threads = strtol(q + 1, NULL, 10);
	if (threads <= 1)
		return state == 'T' || state == 't' || state == 'Z' ||
		       state == 'X';

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	DIR *d = opendir(path);
	if (!d)
		return 1;
	int ok = 1;
	struct dirent *e;
	while (ok && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		char tpath[128];
		snprintf(tpath, sizeof(tpath), "/proc/%d/task/%ld/stat", pid,
			 strtol(e->d_name, NULL, 10));
		p = read_stat(tpath, buf, sizeof(buf));
		if (p && !strchr("TtZX", p[1]))
			ok = 0;
	}
	closedir(d);
	return ok;
}

/* Wait until list[from..n) have stopped, within the shared budget. */
static void wait_stopped(struct walk *w, long from)
{
	long pending = from;
	while (pending < w->n) {
		/* Stopped processes stay stopped: only recheck the rest. */
		while (pending < w->n && all_threads_stopped(w->list[pending]))
			pending++;
		if (pending == w->n)
			return;
		if (now_ns() > w->deadline) {
			w->budget_spent = 1;
			return;
		}
		sleep_ns(50000);
	}
}

/* One read of /proc: stop every process whose parent is marked and that is
 * not yet. Returns how many it stopped. */
static long scan_level(struct walk *w, pid_t self)
{
	DIR *d = opendir("/proc");
	if (!d)
		die("opendir /proc");
	long before = w->n;
	struct dirent *e;
	char path[64], buf[1024];
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		long pid = strtol(e->d_name, NULL, 10);
		if (pid <= 0 || pid > w->pid_max || pid == self || w->mark[pid])
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		char *p = read_stat(path, buf, sizeof(buf));
		if (!p)
			continue;
		long ppid = strtol(p + 3, NULL, 10); /* " S ppid ..." */
		if (ppid <= 0 || ppid > w->pid_max || w->mark[ppid] != 1)
			continue;
		kill((pid_t)pid, SIGSTOP);
		add(w, (pid_t)pid);
	}
	closedir(d);
	/* Mark only now: a parent stopped during this read does not count
	 * until it is known to have stopped (the next read). */
	for (long i = before; i < w->n; i++)
		w->mark[w->list[i]] = 1;
	return w->n - before;
}

static pid_t parent_of(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	char *p = read_stat(path, buf, sizeof(buf));
	return p ? (pid_t)strtol(p + 3, NULL, 10) : -1;
}

int procwalk_kill(pid_t root, struct walk_result *r)
{
	pid_t self = getpid();
	memset(r, 0, sizeof(*r));
	/* Never pid 0 or negative (process groups, everybody), never
	 * ourselves, and only our own child. */
	if (root <= 0 || root == self || parent_of(root) != self)
		return -1;

	struct walk w = { 0 };
	w.pid_max = read_pid_max();
	w.mark = calloc(w.pid_max + 1, 1);
	if (!w.mark)
		die("calloc");
	w.deadline = now_ns() + BUDGET_NS;

	kill(root, SIGSTOP);
	add(&w, root);
	wait_stopped(&w, 0);
	w.mark[root] = 1;
	for (;;) {
		long from = w.n;
		if (!scan_level(&w, self))
			break;
		r->levels++;
		wait_stopped(&w, from);
	}
	r->stopped_ns = now_ns();

	for (long i = w.n - 1; i >= 0; i--)
		kill(w.list[i], SIGKILL);

	r->found = w.n;
	r->budget_spent = w.budget_spent;
	free(w.list);
	free(w.mark);
	return 0;
}
