/*
 * cores.c - core files of members (--core): when, which, where, within
 * what budget, and the journal's `core` event (docs/cores.md). The file
 * itself is coredump.c's.
 *
 * When: at the moments --stacks knows. At the end of the tree for a
 * timeout, a signal or an escape (--escape kill), the tree is held by the
 * ending's stop-all and every chosen member is written. At a crash (the
 * signal-delivery stop of SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) the
 * crashing thread is kept at its stop with the signal pending, and the
 * loop (loop.c), between batches, stops the tree, has the core written
 * here, and resumes everything (the signal is then delivered unchanged).
 *
 * Budget: --core-budget bytes and seconds for the whole run. Registers and
 * /proc are read here, on the tracing thread; the memory and the disk are
 * a worker thread's, which the tracing thread waits for until the time
 * left (plus CORES_SLACK). A worker stuck in a write (a stalled disk) is
 * told to stop and left behind: the ending goes on, the journal says the
 * core was abandoned. Nothing else of corral waits for it.
 *
 * Where: --core-dir, opened once in corral_new() with no symlink in the
 * path (openat2 RESOLVE_NO_SYMLINKS), created 0700 if absent, refused if
 * it belongs to someone else, is writable by others, or lies inside what
 * the sandbox lets the tree write. Files are created in that descriptor,
 * O_EXCL | O_NOFOLLOW, mode 0600: what the tree does to the path later
 * cannot redirect them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <time.h>
#include <unistd.h>

#include "coredump.h"
#include "internal.h"
#include "log.h"

#define CORES_SLACK	      0.5 /* seconds past the budget for a worker to finish */
#define CORES_BYTES_DEFAULT   (1ull << 30)
#define CORES_SECONDS_DEFAULT 10.0

struct pending {
	pid_t tid, tgid;
	int sig;
};

struct cores {
	int dirfd;
	char *dir; /* absolute */
	unsigned when;
	bool root_only, running;
	char **names;
	size_t nnames;
	unsigned long max; /* 0: no limit */
	uint64_t bytes_left;
	double time_left;
	unsigned long chosen; /* cores begun (for max) */
	bool spent_said;
	struct pending *pend;
	size_t npend, cap;
};

/* ---------------------------------------------------------------- setup */

static int parse_filter(struct cores *k, const char *s, char *err,
			size_t errlen)
{
	if (!s || !*s)
		return 0;
	char *copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	int r = 0;
	char *save = NULL;
	for (char *w = strtok_r(copy, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "all")) {
			continue;
		} else if (!strcmp(w, "root")) {
			k->root_only = true;
		} else if (!strcmp(w, "running")) {
			k->running = true;
		} else if (!strncmp(w, "name=", 5) && w[5]) {
			char **nv = realloc(k->names,
					    (k->nnames + 1) * sizeof(*nv));
			if (!nv || !(nv[k->nnames] = strdup(w + 5))) {
				if (nv)
					k->names = nv;
				r = -ENOMEM;
				break;
			}
			k->names = nv;
			k->nnames++;
		} else if (!strncmp(w, "max=", 4)) {
			char *end;
			errno = 0;
			unsigned long v = strtoul(w + 4, &end, 10);
			if (errno || *end || !w[4] || w[4] == '-' || !v) {
				r = -EINVAL;
				break;
			}
			k->max = v;
		} else {
			r = -EINVAL;
			break;
		}
	}
	free(copy);
	if (r == -EINVAL)
		err_fmt(err, errlen, -r,
			"invalid --core-filter '%s' (a comma list of all, "
			"root, running, name=PROG, max=N)",
			s);
	return r;
}

/* Is path (absolute, no symlink) dir itself or under it? */
static bool inside(const char *path, const char *dir)
{
	char real[PATH_MAX];
	if (!dir || !realpath(dir, real))
		return false;
	size_t n = strlen(real);
	while (n > 1 && real[n - 1] == '/')
		n--;
	if (n == 1) /* "/" */
		return true;
	return !strncmp(path, real, n) && (path[n] == '/' || !path[n]);
}

/* SRC of a bind "SRC[:DST]", in a buffer. */
static const char *bind_src(const char *b, char *buf, size_t len)
{
	size_t n = strcspn(b, ":");
	if (n >= len)
		n = len - 1;
	memcpy(buf, b, n);
	buf[n] = 0;
	return buf;
}

/* The directories the sandboxed tree may write: refused for cores. */
static const char *writable_by_tree(const struct corral_config *cfg,
				    const char *path)
{
	static char src[PATH_MAX];
	if (!cfg->sandbox.enabled)
		return NULL;
	char cwd[PATH_MAX];
	const char *ws = cfg->sandbox.workspace;
	if (!ws)
		ws = getcwd(cwd, sizeof(cwd));
	if (inside(path, ws))
		return ws;
	for (const char *const *b = cfg->sandbox.binds; b && *b; b++)
		if (inside(path, bind_src(*b, src, sizeof(src))))
			return src;
	for (const char *const *b = cfg->sandbox_opts.dev_binds; b && *b; b++)
		if (inside(path, bind_src(*b, src, sizeof(src))))
			return src;
	return NULL;
}

static int open_dir(struct cores *k, const struct corral_config *cfg, char *err,
		    size_t errlen)
{
	const char *d = cfg->core_dir;
	char abs[PATH_MAX];
	if (d[0] == '/') {
		snprintf(abs, sizeof(abs), "%s", d);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd)))
			return err_fmt(err, errlen, errno,
				       "--core-dir: getcwd: %s",
				       strerror(errno));
		if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", cwd, d) >=
		    sizeof(abs))
			return err_fmt(err, errlen, ENAMETOOLONG,
				       "--core-dir: path too long");
	}
	size_t n = strlen(abs);
	while (n > 1 && abs[n - 1] == '/')
		abs[--n] = 0;
	const char *who = writable_by_tree(cfg, abs);
	if (who)
		return err_fmt(
			err, errlen, EPERM,
			"--core-dir %s: inside %s, which the sandboxed "
			"tree may write (cores hold its secrets and it "
			"could replace them): choose a directory outside",
			d, who);
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS};
	/* Create the last component if absent (the parent must exist). */
	char *slash = strrchr(abs, '/');
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%.*s",
		 slash == abs ? 1 : (int)(slash - abs), abs);
	int pfd =
		(int)syscall(SYS_openat2, AT_FDCWD, parent, &how, sizeof(how));
	if (pfd < 0)
		return err_fmt(err, errlen, errno, "--core-dir %s: %s%s", d,
			       strerror(errno),
			       errno == ELOOP ? " (a symlink in the path: give "
						"its real path)"
					      : "");
	const char *last = slash[1] ? slash + 1 : ".";
	if (mkdirat(pfd, last, 0700) < 0 && errno != EEXIST) {
		int e = errno;
		close(pfd);
		return err_fmt(err, errlen, e, "--core-dir %s: %s", d,
			       strerror(e));
	}
	how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH;
	int fd = (int)syscall(SYS_openat2, pfd, last, &how, sizeof(how));
	int e = errno;
	close(pfd);
	if (fd < 0)
		return err_fmt(err, errlen, e, "--core-dir %s: %s%s", d,
			       strerror(e),
			       e == ELOOP || e == ENOTDIR
				       ? " (a symlink, or not a directory: "
					 "refused)"
				       : "");
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		close(fd);
		return err_fmt(err, errlen, EPERM,
			       "--core-dir %s: must belong to you and be "
			       "writable by no one else (mode 0700 is what "
			       "corral creates)",
			       d);
	}
	k->dirfd = fd;
	k->dir = strdup(abs);
	return k->dir ? 0 : -ENOMEM;
}

int cores_open(struct corral *c, char *err, size_t errlen)
{
	const struct corral_config *cfg = &c->cfg;
	if (!cfg->core)
		return 0;
	if (cfg->core &
	    ~(uint64_t)(CORRAL_STACKS_TIMEOUT | CORRAL_STACKS_SIGNAL |
			CORRAL_STACKS_CRASH | CORRAL_STACKS_ESCAPE))
		return err_fmt(err, errlen, EINVAL,
			       "--core: only timeout, signal, crash, escape");
	if (!cfg->core_dir || !*cfg->core_dir)
		return err_fmt(
			err, errlen, EINVAL,
			"--core needs --core-dir DIR (where the cores go)");
	if (cfg->core_budget_seconds < 0)
		return err_fmt(err, errlen, EINVAL, "negative --core-budget");
	struct cores *k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->dirfd = -1;
	k->when = (unsigned)cfg->core;
	k->bytes_left = cfg->core_budget_bytes ? cfg->core_budget_bytes
					       : CORES_BYTES_DEFAULT;
	k->time_left = cfg->core_budget_seconds > 0 ? cfg->core_budget_seconds
						    : CORES_SECONDS_DEFAULT;
	int r = parse_filter(k, cfg->core_filter, err, errlen);
	if (r == 0)
		r = open_dir(k, cfg, err, errlen);
	c->cores = k;
	if (r < 0)
		cores_close(c);
	return r;
}

void cores_close(struct corral *c)
{
	struct cores *k = c->cores;
	if (!k)
		return;
	if (k->dirfd >= 0)
		close(k->dirfd);
	for (size_t i = 0; i < k->nnames; i++)
		free(k->names[i]);
	free(k->names);
	free(k->dir);
	free(k->pend);
	free(k);
	c->cores = NULL;
}

/* ------------------------------------------------------------ choosing */

static const char *base(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

static bool name_ok(const struct cores *k, const struct task *p)
{
	if (!k->nnames)
		return true;
	/* The executable (symlinks resolved: /usr/bin/dash) or argv[0]
	 * (what it was called: sh). */
	const struct prog *g = p ? p->prog : NULL;
	const char *progs[2] = {g ? g->path : NULL,
				g && g->argv ? g->argv[0] : NULL};
	for (size_t i = 0; i < k->nnames; i++) {
		const char *want = k->names[i];
		for (int n = 0; n < 2; n++)
			if (progs[n] &&
			    (strchr(want, '/') ? !strcmp(progs[n], want)
					       : !strcmp(base(progs[n]), want)))
				return true;
	}
	return false;
}

/* Stopped in user space (not asleep in a system call): busy. */
static bool thread_busy(struct corral *c, pid_t tid)
{
#if defined(__x86_64__)
	struct user_regs_struct regs;
	if (sys_ptrace(c->sys, PTRACE_GETREGS, tid, 0, &regs) < 0)
		return false;
	return (long)regs.orig_rax < 0;
#else
	return true; /* not known here: every member counts as running */
#endif
}

/* --------------------------------------------------------------- writing */

struct job {
	struct coredump *d;
	pid_t pid;
	char name[96]; /* the worker's: the name it created */
	char plan[96]; /* the tracing thread's: the name meant */
	int ret;
	struct coredump_out out;
	bool opened;
	int open_err;
};

struct batch {
	struct job *v;
	size_t n;
	int dirfd;
	double deadline;
	atomic_int cancel;
	atomic_size_t done; /* jobs [0, done) are finished and stable */
	atomic_int refs;
};

static void batch_put(struct batch *b)
{
	if (atomic_fetch_sub(&b->refs, 1) != 1)
		return;
	for (size_t i = 0; i < b->n; i++)
		coredump_free(b->v[i].d);
	free(b->v);
	close(b->dirfd);
	free(b);
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void write_job(struct batch *b, struct job *j)
{
	char name[sizeof(j->name) + 16];
	int fd = -1;
	for (int i = 0; i < 100 && fd < 0; i++) {
		if (i)
			snprintf(name, sizeof(name), "%s.%d", j->name, i);
		else
			snprintf(name, sizeof(name), "%s", j->name);
		fd = openat(b->dirfd, name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		j->open_err = errno;
		j->ret = -errno;
		return;
	}
	snprintf(j->name, sizeof(j->name), "%.*s", (int)sizeof(j->name) - 1,
		 name);
	j->opened = true;
	j->ret = coredump_write(j->d, fd, b->deadline, &b->cancel, &j->out);
	if (close(fd) < 0 && !j->out.cut) {
		j->out.err = errno;
		j->out.cut = errno == ENOSPC ? "disk full" : "write error";
		j->out.has_sha = false;
	}
}

static void *worker(void *arg)
{
	struct batch *b = arg;
	for (size_t i = 0; i < b->n; i++) {
		/*
		 * Past the deadline a core still gets its headers (the
		 * registers, the maps): coredump_write() cuts the rest.
		 * Only the tracing thread's giving up stops the round.
		 */
		if (atomic_load(&b->cancel))
			break;
		write_job(b, &b->v[i]);
		atomic_store(&b->done, i + 1);
	}
	batch_put(b);
	return NULL;
}

static void emit_core(struct corral *c, const char *why, const struct job *j,
		      bool abandoned)
{
	struct cores *k = c->cores;
	char path[PATH_MAX], hex[65], err[PATH_MAX + 256] = "";
	snprintf(path, sizeof(path), "%s/%s", k->dir,
		 abandoned ? j->plan : j->name);
	struct corral_event ev = {.type = CORRAL_EV_CORE,
				  .pid = j->pid,
				  .tgid = j->pid,
				  .detail = why};
	if (abandoned) {
		snprintf(err, sizeof(err),
			 "abandoned: the write did not finish within the "
			 "core budget (a stalled disk?); the file may be "
			 "incomplete");
		ev.path = path;
		ev.cut = "abandoned";
		result_cores(c, 0, 1, 0, 0);
	} else if (!j->opened) {
		snprintf(err, sizeof(err), "cannot create %s: %s", path,
			 strerror(j->open_err));
		result_cores(c, 0, 0, 1, 0);
	} else {
		ev.path = path;
		ev.bytes = j->out.size;
		ev.count = j->out.threads;
		ev.cut = j->out.cut;
		if (j->out.has_sha) {
			for (int i = 0; i < 32; i++)
				snprintf(hex + 2 * i, 3, "%02x",
					 j->out.sha256[i]);
			ev.sha256 = hex;
		}
		/* A cut core is written, and counted cut too. */
		result_cores(c, 1, j->out.cut ? 1 : 0, 0, 0);
		if (j->out.cut) {
			if (j->out.err)
				snprintf(err, sizeof(err),
					 "%s: %s after %llu bytes", j->out.cut,
					 strerror(j->out.err),
					 (unsigned long long)j->out.size);
		}
	}
	if (k->bytes_left > ev.bytes)
		k->bytes_left -= ev.bytes;
	else
		k->bytes_left = 0;
	ev.error = err[0] ? err : NULL;
	emit(c, &ev);
	/* Said where a person sees it, not only in the journal. */
	if (err[0])
		log_msg(c->cfg.log, c->cfg.log_arg, "core of %d: %s", j->pid,
			err);
}

static void emit_error(struct corral *c, const char *why, pid_t pid,
		       const char *msg)
{
	struct corral_event ev = {.type = CORRAL_EV_CORE,
				  .pid = pid,
				  .tgid = pid,
				  .detail = why,
				  .error = msg};
	emit(c, &ev);
	result_cores(c, 0, 0, pid != 0, 0);
}

/* What one process of the round needs: its threads and whom it is. */
struct member {
	struct task *leader; /* may be NULL (leader gone, threads live) */
	pid_t tgid;
	size_t first, n; /* its tids in the sorted array */
};

struct gather {
	pid_t (*pairs)[2]; /* (tgid, tid) of every held task */
	size_t n, cap;
};

static int collect(struct task *t, void *arg)
{
	struct gather *g = arg;
	if (t->state != TS_HELD || !(t->flags & TF_SEEN_STOP) ||
	    (t->flags & TF_SETUP))
		return 0;
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 256;
		void *nv = realloc(g->pairs, cap * sizeof(*g->pairs));
		if (!nv)
			return 0;
		g->pairs = nv;
		g->cap = cap;
	}
	g->pairs[g->n][0] = t->tgid;
	g->pairs[g->n][1] = t->tid;
	g->n++;
	return 0;
}

static int by_tgid(const void *a, const void *b)
{
	const pid_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static void file_name(char *buf, size_t len, const struct task *p, pid_t pid)
{
	char prog[40] = "";
	const char *path = p && p->prog ? p->prog->path : NULL;
	const char *b = path ? base(path) : NULL;
	size_t k = 0;
	for (; b && *b && k < sizeof(prog) - 1; b++)
		prog[k++] =
			((*b >= 'a' && *b <= 'z') || (*b >= 'A' && *b <= 'Z') ||
			 (*b >= '0' && *b <= '9') || *b == '-' || *b == '_' ||
			 *b == '+')
				? *b
				: '_';
	prog[k] = 0;
	if (k)
		snprintf(buf, len, "core.%s.%d", prog, pid);
	else
		snprintf(buf, len, "core.%d", pid);
}

/*
 * Write the cores of the given members (the tree held). sig_tid/sig: a
 * crash. Runs the worker and waits for it within the time left.
 */
static void write_round(struct corral *c, const char *why, struct member *m,
			size_t nm, const pid_t *tids, pid_t sig_tid, int sig)
{
	struct cores *k = c->cores;
	double t0 = mono(), deadline = t0 + k->time_left;
	struct batch *b = calloc(1, sizeof(*b));
	if (b)
		b->v = calloc(nm ? nm : 1, sizeof(*b->v));
	if (!b || !b->v || (b->dirfd = dup(k->dirfd)) < 0) {
		if (b)
			free(b->v);
		free(b);
		emit_error(c, why, 0, "out of memory (or descriptors)");
		return;
	}
	uint64_t bytes = k->bytes_left;
	unsigned long skipped = 0;
	for (size_t i = 0; i < nm; i++) {
		if ((k->max && k->chosen >= k->max) || mono() >= deadline ||
		    !bytes) {
			skipped++;
			continue;
		}
		struct coredump_req r = {.pid = m[i].tgid,
					 .tids = tids + m[i].first,
					 .ntids = m[i].n,
					 .sig_tid = sig_tid,
					 .sig = sig,
					 .max_bytes = bytes};
		char err[200] = "";
		unsigned left_out;
		struct job *j = &b->v[b->n];
		int ret = coredump_prepare(&r, &j->d, &left_out, err,
					   sizeof(err));
		if (ret < 0) {
			emit_error(c, why, m[i].tgid, err);
			continue;
		}
		k->chosen++;
		j->pid = m[i].tgid;
		file_name(j->plan, sizeof(j->plan), m[i].leader, m[i].tgid);
		memcpy(j->name, j->plan, sizeof(j->name));
		uint64_t plan = coredump_planned(j->d);
		bytes = bytes > plan ? bytes - plan : 0;
		b->n++;
	}
	if (b->n) {
		b->deadline = deadline;
		atomic_init(&b->refs, 2);
		/* The worker takes no signal: they are the loop's. */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		pthread_t th;
		int e = pthread_create(&th, NULL, worker, b);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (e) {
			worker(b); /* no thread: write here, same bounds */
		} else {
			struct timespec ts;
			double until = deadline + CORES_SLACK;
			ts.tv_sec = (time_t)until;
			ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
			if (pthread_clockjoin_np(th, NULL, CLOCK_MONOTONIC,
						 &ts) != 0) {
				atomic_store(&b->cancel, 1);
				pthread_detach(th);
			}
		}
	}
	if (b) {
		size_t done = atomic_load(&b->done);
		for (size_t i = 0; i < b->n; i++)
			emit_core(c, why, &b->v[i], i >= done);
		batch_put(b);
	}
	double spent = mono() - t0;
	k->time_left = k->time_left > spent ? k->time_left - spent : 0;
	if (skipped) {
		char d[128];
		snprintf(d, sizeof(d),
			 "core budget spent (or max reached): %lu process(es) "
			 "skipped",
			 skipped);
		emit_error(c, why, 0, d);
		result_cores(c, 0, 0, 0, skipped);
	}
}

/* Every chosen member of the held tree (restricted to tgid if non-zero). */
static void round_of(struct corral *c, const char *why, pid_t only,
		     pid_t sig_tid, int sig)
{
	struct cores *k = c->cores;
	struct gather g = {0};
	table_foreach_live(&c->tab, collect, &g);
	if (!g.n) {
		free(g.pairs);
		return;
	}
	qsort(g.pairs, g.n, sizeof(*g.pairs), by_tgid);
	pid_t *tids = malloc(g.n * sizeof(*tids));
	struct member *m = calloc(g.n, sizeof(*m));
	size_t nm = 0;
	if (!tids || !m)
		goto out;
	for (size_t i = 0; i < g.n; i++)
		tids[i] = g.pairs[i][1];
	/* Birth order (the root first): the order of the process list. */
	for (struct task *p = c->tab.first; p; p = p->next) {
		if (p->state == TS_DEAD || (p->flags & TF_SETUP))
			continue;
		if (only && p->tid != only)
			continue;
		if (k->root_only && p->tid != c->spawn.root)
			continue;
		if (!name_ok(k, p))
			continue;
		pid_t key[2] = {p->tid, 0};
		size_t lo = 0, hi = g.n;
		while (lo < hi) { /* first pair with tgid >= p->tid */
			size_t mid = (lo + hi) / 2;
			if (by_tgid(g.pairs[mid], key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		size_t end = lo;
		bool busy = !k->running;
		while (end < g.n && g.pairs[end][0] == p->tid) {
			if (!busy)
				busy = thread_busy(c, g.pairs[end][1]);
			end++;
		}
		if (end == lo || !busy)
			continue;
		m[nm++] = (struct member){p, p->tid, lo, end - lo};
	}
	write_round(c, why, m, nm, tids, sig_tid, sig);
out:
	free(m);
	free(tids);
	free(g.pairs);
}

/* -------------------------------------------------------------- moments */

/*
 * The moments are --stacks' (stacks_moment); k->when never holds
 * exit-left (cores_new refuses it), so that moment wants no core.
 */
bool cores_wanted(const struct corral *c)
{
	const char *name;
	return c->cores &&
	       (c->cores->when & stacks_moment(c->result.res.reason, &name));
}

void cores_at_ending(struct corral *c)
{
	const char *name;
	if (cores_wanted(c)) {
		stacks_moment(c->result.res.reason, &name);
		round_of(c, name, 0, 0, 0);
	}
}

/*
 * Does the process catch sig (SigCgt)? Then the signal is not a crash yet:
 * a JVM takes SIGSEGV for its null checks thousands of times a run, a
 * crash reporter's handler runs first and re-raises with the default
 * action (that delivery is the crash).
 */
static bool caught(pid_t tid, int sig)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	const char *v = strstr(buf, "\nSigCgt:");
	if (!v)
		return false;
	unsigned long long mask = strtoull(v + 8, NULL, 16);
	return sig >= 1 && sig <= 64 && (mask >> (sig - 1) & 1);
}

bool cores_crash(struct corral *c, struct task *t, int sig)
{
	struct cores *k = c->cores;
	if (!k || !(k->when & CORRAL_STACKS_CRASH) || !stacks_is_crash(sig) ||
	    (t->flags & TF_SETUP) || c->phase.now > PH_GRACE)
		return false;
	if (caught(t->tid, sig))
		return false;
	if (k->root_only && t->tgid != c->spawn.root)
		return false;
	if (!name_ok(k, table_find(&c->tab, t->tgid)))
		return false;
	if ((k->max && k->chosen >= k->max) || k->time_left <= 0 ||
	    !k->bytes_left)
		return false;
	for (size_t i = 0; i < k->npend; i++)
		if (k->pend[i].tgid == t->tgid)
			return false; /* one core per process and crash */
	if (k->npend == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 8;
		struct pending *nv = realloc(k->pend, cap * sizeof(*nv));
		if (!nv)
			return false;
		k->pend = nv;
		k->cap = cap;
	}
	k->pend[k->npend++] = (struct pending){t->tid, t->tgid, sig};
	/* Kept at its stop; resume-all delivers the signal after the core. */
	table_set_state(&c->tab, t, TS_HELD);
	t->pending_sig = sig;
	return true;
}

bool cores_pending(struct corral *c)
{
	struct cores *k = c->cores;
	if (k && c->phase.now > PH_GRACE)
		k->npend = 0; /* kill-all has them: no core now */
	return k && k->npend;
}

void cores_crashed(struct corral *c)
{
	struct cores *k = c->cores;
	while (k && k->npend) {
		struct pending p = k->pend[--k->npend];
		struct task *t = table_find(&c->tab, p.tid);
		if (!t || t->state != TS_HELD)
			continue;
		round_of(c, "crash", p.tgid, p.tid, p.sig);
	}
}
