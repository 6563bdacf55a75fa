/*
 * test: needs ptrace (real traced children: tests/run.sh skips it where
 * its probe sees ptrace refused, as in some package build chroots)
 *
 * test_api.c - the promises of corral.h about its ABI and its use from a
 * host program, with real processes: caller structs of other sizes
 * (older and newer headers), what a callback may call (-EDEADLK, an end
 * requested from a callback), and corral_fd() in the caller's own poll
 * loop (readable when there is work, deadlines included, no spinning; the
 * pty relay and the live socket served through it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corral.h"

/* Nothing left to reap: every child the test made is gone. */
static void no_child_left(void)
{
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static bool alive(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

static void test_version(void **state)
{
	char v[32];
	snprintf(v, sizeof(v), "%d.%d.%d", CORRAL_VERSION_MAJOR,
		 CORRAL_VERSION_MINOR, CORRAL_VERSION_PATCH);
	assert_string_equal(corral_version(), CORRAL_VERSION);
	assert_string_equal(CORRAL_VERSION, v);
}

/* An older caller's config (smaller size): only its bytes are written. */
static void test_config_defaults_older(void **state)
{
	size_t old = offsetof(struct corral_config, timeout);
	union {
		struct corral_config cfg;
		unsigned char b[sizeof(struct corral_config) + 16];
	} u;
	memset(&u, 0xab, sizeof(u));
	u.cfg.size = old;
	assert_int_equal(corral_config_defaults(&u.cfg), 0);
	assert_int_equal(u.cfg.size, old);
	assert_null(u.cfg.argv);
	assert_int_equal(u.cfg.journal_fd, -1);
	for (size_t i = old; i < sizeof(u.b); i++)
		assert_int_equal(u.b[i], 0xab);
	u.cfg.size = 0;
	assert_int_equal(corral_config_defaults(&u.cfg), -EINVAL);
}

/* A newer caller's config: the bytes past ours are zeroed, size kept. */
static void test_config_defaults_newer(void **state)
{
	union {
		struct corral_config cfg;
		unsigned char b[sizeof(struct corral_config) + 16];
	} u;
	memset(&u, 0xab, sizeof(u));
	u.cfg.size = sizeof(u.b);
	assert_int_equal(corral_config_defaults(&u.cfg), 0);
	assert_int_equal(u.cfg.size, sizeof(u.b));
	assert_true(u.cfg.kill_after == 2.0);
	for (size_t i = sizeof(struct corral_config); i < sizeof(u.b); i++)
		assert_int_equal(u.b[i], 0);
}

static int run_true(const struct corral_config *cfg, char *err, size_t n,
		    struct corral_result *r)
{
	struct corral *c;
	int e = corral_new(cfg, &c, err, n);
	if (e < 0)
		return e;
	e = corral_spawn(c);
	if (!e)
		e = corral_wait(c);
	corral_result(c, r);
	assert_int_equal(corral_free(c), 0);
	return e;
}

/*
 * corral_new() with an older caller's struct: what lies past its size is
 * never read (here garbage where on_event would be: reading it would
 * call through a wild pointer), and those fields take their defaults.
 */
static void test_new_older_caller(void **state)
{
	static const char *const argv[] = {"/bin/true", NULL};
	union {
		struct corral_config cfg;
		unsigned char b[sizeof(struct corral_config)];
	} u;
	memset(&u, 0, sizeof(u));
	u.cfg.size = offsetof(struct corral_config, stacks);
	assert_int_equal(corral_config_defaults(&u.cfg), 0);
	u.cfg.argv = argv;
	u.cfg.watch_parent = false;
	memset(u.b + u.cfg.size, 0xab, sizeof(u.b) - u.cfg.size);
	char err[256];
	struct corral_result r;
	assert_int_equal(run_true(&u.cfg, err, sizeof(err), &r), 0);
	assert_int_equal(r.exit_code, 0);
	assert_int_equal(r.execs, 1);
	no_child_left();
}

/* A newer caller's struct: accepted when the unknown tail is zero. */
static void test_new_newer_caller(void **state)
{
	static const char *const argv[] = {"/bin/true", NULL};
	union {
		struct corral_config cfg;
		unsigned char b[sizeof(struct corral_config) + 32];
	} u;
	memset(&u, 0, sizeof(u));
	u.cfg.size = sizeof(u.b);
	assert_int_equal(corral_config_defaults(&u.cfg), 0);
	u.cfg.argv = argv;
	u.cfg.watch_parent = false;
	char err[256];
	struct corral_result r;
	assert_int_equal(run_true(&u.cfg, err, sizeof(err), &r), 0);
	assert_int_equal(r.exit_code, 0);

	/* A setting this library does not know: refused, nothing started. */
	u.b[sizeof(struct corral_config) + 5] = 1;
	struct corral *c = (struct corral *)1;
	assert_int_equal(corral_new(&u.cfg, &c, err, sizeof(err)), -E2BIG);
	assert_null(c);
	assert_non_null(strstr(err, "newer corral.h"));
	u.cfg.size = 2;
	assert_int_equal(corral_new(&u.cfg, &c, err, sizeof(err)), -EINVAL);
	no_child_left();
}

/* corral_result() fills exactly the caller's size. */
static void test_result_sizes(void **state)
{
	static const char *const argv[] = {"/bin/sh", "-c", "exit 5", NULL};
	struct corral_config cfg;
	corral_config_init(&cfg);
	cfg.argv = argv;
	cfg.watch_parent = false;
	struct corral *c;
	char err[256];
	assert_int_equal(corral_new(&cfg, &c, err, sizeof(err)), 0);
	assert_int_equal(corral_spawn(c), 0);
	assert_int_equal(corral_wait(c), 0);

	union {
		struct corral_result r;
		unsigned char b[sizeof(struct corral_result) + 16];
	} u;
	/* Older: up to exit_code only; the bytes after it are not touched. */
	size_t old = offsetof(struct corral_result, status);
	memset(&u, 0xab, sizeof(u));
	u.r.size = old;
	assert_int_equal(corral_get_result(c, &u.r), 0);
	assert_int_equal(u.r.size, old);
	assert_int_equal(u.r.exit_code, 5);
	for (size_t i = old; i < sizeof(u.b); i++)
		assert_int_equal(u.b[i], 0xab);
	/* Newer: what we do not know is zeroed. */
	memset(&u, 0xab, sizeof(u));
	u.r.size = sizeof(u.b);
	assert_int_equal(corral_get_result(c, &u.r), 0);
	assert_int_equal(u.r.exit_code, 5);
	assert_int_equal(u.r.survivors, 0);
	for (size_t i = sizeof(struct corral_result); i < sizeof(u.b); i++)
		assert_int_equal(u.b[i], 0);
	u.r.size = 0;
	assert_int_equal(corral_get_result(c, &u.r), -EINVAL);
	assert_int_equal(corral_free(c), 0);
	no_child_left();
}

/* What a callback sees when it calls back into the library. */
struct reentry {
	struct corral *c;
	bool tried;
	int step, wait, free_, stop, resume, kill, snap, spawn, stacks;
	int res, tree;
	bool tree_has_sleep;
	unsigned long execs_seen;
	pid_t sleeper;
};

static void reenter(const struct corral_event *ev, void *arg)
{
	struct reentry *x = arg;
	if (ev->type != CORRAL_EV_EXEC || !x->c || x->tried)
		return;
	if (!ev->argv || !ev->argv[0] || strcmp(ev->argv[0], "sleep") != 0)
		return;
	x->tried = true;
	x->sleeper = ev->pid;
	x->step = corral_step(x->c, 0);
	x->wait = corral_wait(x->c);
	x->free_ = corral_free(x->c);
	x->stop = corral_stop_all(x->c);
	x->resume = corral_resume_all(x->c);
	x->kill = corral_kill_all(x->c);
	x->snap = corral_snapshot(x->c, false);
	x->spawn = corral_spawn(x->c);
	char *text = NULL;
	x->stacks = corral_tree_text(
		x->c, CORRAL_TREE_LIVE | CORRAL_TREE_STACKS, &text);
	free(text);
	text = NULL;
	/* Allowed: the tree as text without stacks. */
	x->tree = corral_tree_text(x->c, CORRAL_TREE_LIVE, &text);
	x->tree_has_sleep = text && strstr(text, "sleep 100");
	free(text);
	/* Allowed: reading the result, and asking for the end. */
	struct corral_result r;
	x->res = corral_result(x->c, &r);
	x->execs_seen = r.execs;
	corral_request_end(x->c, CORRAL_REASON_REQUEST);
}

/*
 * The library's messages for a person go to cfg.log, and without one
 * nowhere: nothing on the host's stderr (docs/api.md, "Messages"). A
 * journal on /dev/full has one to say (its first write fails).
 */
struct logged {
	int n;
	char first[512];
};

static void on_log(const char *msg, void *arg)
{
	struct logged *l = arg;
	if (!l->n++)
		snprintf(l->first, sizeof(l->first), "%s", msg);
}

static void run_full_journal(struct logged *l)
{
	static const char *const argv[] = {"/bin/true", NULL};
	struct corral_config cfg;
	corral_config_init(&cfg);
	cfg.argv = argv;
	cfg.watch_parent = false;
	cfg.stacks = 0;
	cfg.kill_after = 0;
	cfg.journal_path = "/dev/full";
	if (l) {
		cfg.log = on_log;
		cfg.log_arg = l;
	}
	struct corral *c;
	char err[256];
	assert_int_equal(corral_new(&cfg, &c, err, sizeof(err)), 0);
	assert_int_equal(corral_spawn(c), 0);
	assert_int_equal(corral_wait(c), 0);
	struct corral_result r;
	corral_result(c, &r);
	assert_true(r.journal_errors > 0);
	corral_free(c);
}

static void test_log_callback(void **state)
{
	struct logged l = {0};
	run_full_journal(&l);
	assert_true(l.n >= 1);
	if (strncmp(l.first, "journal: /dev/full: No space left on device; ",
		    45))
		fail_msg("first message: \"%s\"", l.first);
	/* No callback: stderr (a memfd here) stays empty. */
	int mfd = memfd_create("stderr", MFD_CLOEXEC);
	assert_true(mfd >= 0);
	fflush(stderr);
	int saved = dup(2);
	assert_int_equal(dup2(mfd, 2), 2);
	run_full_journal(NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	off_t len = lseek(mfd, 0, SEEK_END);
	char buf[512] = "";
	if (len > 0 && pread(mfd, buf, sizeof(buf) - 1, 0) < 0)
		buf[0] = 0;
	close(mfd);
	if (len)
		fail_msg("the library wrote %ld bytes on stderr: %s", (long)len,
			 buf);
}

static void test_callback_reentry(void **state)
{
	static const char *const argv[] = {"/bin/sh", "-c", "exec sleep 100",
					   NULL};
	struct reentry x = {0};
	struct corral_config cfg;
	corral_config_init(&cfg);
	cfg.argv = argv;
	cfg.watch_parent = false;
	cfg.stacks = 0;
	cfg.kill_after = 0;
	cfg.on_event = reenter;
	cfg.on_event_arg = &x;
	char err[256];
	assert_int_equal(corral_new(&cfg, &x.c, err, sizeof(err)), 0);
	assert_int_equal(corral_spawn(x.c), 0);
	/* sleep 100 runs until the end asked for in the callback. */
	assert_int_equal(corral_wait(x.c), 0);
	assert_true(x.tried);
	assert_int_equal(x.step, -EDEADLK);
	assert_int_equal(x.wait, -EDEADLK);
	assert_int_equal(x.free_, -EDEADLK);
	assert_int_equal(x.stop, -EDEADLK);
	assert_int_equal(x.resume, -EDEADLK);
	assert_int_equal(x.kill, -EDEADLK);
	assert_int_equal(x.snap, -EDEADLK);
	assert_int_equal(x.spawn, -EDEADLK);
	assert_int_equal(x.stacks, -EDEADLK);
	assert_true(x.tree > 0);
	assert_true(x.tree_has_sleep);
	assert_int_equal(x.res, 0);
	assert_int_equal(x.execs_seen, 2);
	struct corral_result r;
	corral_result(x.c, &r);
	assert_int_equal(r.reason, CORRAL_REASON_REQUEST);
	assert_int_equal(r.survivors, 0);
	assert_int_equal(corral_free(x.c), 0);
	assert_false(alive(x.sleeper));
	no_child_left();
}

/*
 * The caller's own poll loop: wait on corral_fd() with no timeout of its
 * own, step without blocking. Returns the number of wakeups.
 */
static int poll_loop(struct corral *c)
{
	int fd = corral_fd(c);
	assert_true(fd >= 0);
	assert_int_equal(corral_fd(c), fd); /* the same descriptor */
	int wakeups = 0, r;
	do {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		assert_int_equal(poll(&p, 1, -1), 1);
		wakeups++;
		r = corral_step(c, 0);
	} while (r > 0);
	assert_int_equal(r, 0);
	return wakeups;
}

static struct corral *started(const char *const *argv, double timeout)
{
	struct corral_config cfg;
	corral_config_init(&cfg);
	cfg.argv = argv;
	cfg.watch_parent = false;
	cfg.stacks = 0;
	cfg.timeout = timeout;
	cfg.kill_after = 0.2;
	struct corral *c;
	char err[256];
	assert_int_equal(corral_new(&cfg, &c, err, sizeof(err)), 0);
	assert_int_equal(corral_spawn(c), 0);
	return c;
}

static void test_fd_loop(void **state)
{
	/* A small tree, then a command that is quiet for a while. */
	static const char *const argv[] = {
		"/bin/sh", "-c",
		"/bin/true & /bin/true & wait; sleep 0.3; exit 3", NULL};
	struct corral *c = started(argv, 0);
	int wakeups = poll_loop(c);
	struct corral_result r;
	corral_result(c, &r);
	assert_int_equal(r.exit_code, 3);
	assert_int_equal(r.processes, 4);
	/* Readable only with work to do: a spinning descriptor would wake
	 * the loop thousands of times during the quiet 0.3 s. */
	assert_true(wakeups < 100);
	assert_int_equal(corral_free(c), 0);
	no_child_left();
}

/* The deadline makes the descriptor readable: no news from the kernel
 * comes while `sleep 100` sleeps, yet the loop ends it at the timeout. */
static void test_fd_deadline(void **state)
{
	static const char *const argv[] = {"/bin/sleep", "100", NULL};
	/* SIGTERM ignored from the start (inherited through fork and exec),
	 * not by a shell's trap, which a loaded machine may not have run yet
	 * when the 0.2 s timeout fires. */
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	assert_int_equal(sigaction(SIGTERM, &ign, &old), 0);
	struct corral *c = started(argv, 0.2);
	assert_int_equal(sigaction(SIGTERM, &old, NULL), 0);
	poll_loop(c);
	struct corral_result r;
	corral_result(c, &r);
	assert_int_equal(r.reason, CORRAL_REASON_TIMEOUT);
	assert_int_equal(r.exit_code, CORRAL_EXIT_TIMEOUT);
	assert_int_equal(r.survivors, 0);
	assert_true(r.killed >= 1); /* the shell ignored SIGTERM: grace */
	assert_int_equal(corral_free(c), 0);
	no_child_left();
}

/*
 * A pty run through corral_fd(): the relay is served from the caller's
 * loop. The command writes far more than a pty buffers, so it would block
 * forever if the relay waited for the end. Our stdout is a memfd for the
 * run; stdin is whatever the runner gave (/dev/null: not pollable by
 * epoll, read to its end at once).
 */
static void test_fd_pty(void **state)
{
	static const char *const argv[] = {
		"/bin/sh", "-c",
		"test -t 1 && head -c 300000 /dev/zero | tr '\\0' x; echo; "
		"echo pty-done; exit 2",
		NULL};
	struct corral_config cfg;
	corral_config_init(&cfg);
	cfg.argv = argv;
	cfg.watch_parent = false;
	cfg.stacks = 0;
	cfg.pty = true;
	int out = memfd_create("pty-out", MFD_CLOEXEC);
	assert_true(out >= 0);
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0);
	dup2(out, STDOUT_FILENO);
	struct corral *c;
	char err[256];
	int r = corral_new(&cfg, &c, err, sizeof(err));
	if (r == 0)
		r = corral_spawn(c);
	int wakeups = -1;
	if (r == 0) {
		int fd = corral_fd(c);
		wakeups = 0;
		do {
			struct pollfd p = {.fd = fd, .events = POLLIN};
			if (poll(&p, 1, -1) != 1)
				break;
			wakeups++;
			r = corral_step(c, 0);
		} while (r > 0);
	}
	dup2(saved, STDOUT_FILENO); /* before any assertion */
	close(saved);
	assert_int_equal(r, 0);
	struct corral_result res;
	corral_result(c, &res);
	assert_int_equal(res.exit_code, 2);
	assert_int_equal(corral_free(c), 0);
	no_child_left();
	off_t len = lseek(out, 0, SEEK_END);
	char *text = calloc(1, (size_t)len + 1);
	assert_int_equal(pread(out, text, (size_t)len, 0), len);
	close(out);
	size_t xs = 0;
	for (off_t i = 0; i < len; i++)
		xs += text[i] == 'x';
	assert_int_equal(xs, 300000);
	assert_non_null(strstr(text, "pty-done"));
	free(text);
	assert_true(wakeups > 0);
}

/* The live socket (`corral ps`) is answered while the caller sleeps in its
 * own poll(): a client thread asks once the command runs, then wakes the
 * loop through an eventfd of the caller's, which ends the run. */
struct live_client {
	pid_t pid;
	int wake;
	char reply[8192];
	size_t len;
};

static void *ask_live(void *arg)
{
	struct live_client *k = arg;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int n = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1,
			 CORRAL_LIVE_SOCKET_FMT, (int)k->pid);
	socklen_t alen =
		(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	/* A safety net against a hang, not a measure. */
	struct timeval tv = {.tv_sec = 20};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, alen) == 0 &&
	    write(fd, "tree\n", 5) == 5) {
		ssize_t r;
		while (k->len < sizeof(k->reply) - 1 &&
		       (r = read(fd, k->reply + k->len,
				 sizeof(k->reply) - 1 - k->len)) > 0)
			k->len += (size_t)r;
	}
	if (fd >= 0)
		close(fd);
	uint64_t one = 1;
	if (write(k->wake, &one, sizeof(one)) != sizeof(one))
		abort();
	return NULL;
}

static void saw_sleep(const struct corral_event *ev, void *arg)
{
	if (ev->type == CORRAL_EV_EXEC && ev->argv && ev->argv[0] &&
	    strcmp(ev->argv[0], "sleep") == 0)
		*(bool *)arg = true;
}

static void test_fd_live(void **state)
{
	static const char *const argv[] = {"/bin/sh", "-c", "exec sleep 100",
					   NULL};
	bool running = false;
	struct corral_config cfg;
	corral_config_init(&cfg);
	cfg.argv = argv;
	cfg.watch_parent = false;
	cfg.stacks = 0;
	cfg.kill_after = 0;
	cfg.live_socket = true;
	cfg.on_event = saw_sleep;
	cfg.on_event_arg = &running;
	struct live_client k = {.pid = getpid()};
	k.wake = eventfd(0, EFD_CLOEXEC);
	assert_true(k.wake >= 0);
	struct corral *c;
	char err[256];
	assert_int_equal(corral_new(&cfg, &c, err, sizeof(err)), 0);
	assert_int_equal(corral_spawn(c), 0);
	int fd = corral_fd(c);
	assert_true(fd >= 0);
	pthread_t th;
	bool asked = false;
	int r;
	do {
		struct pollfd p[2] = {{.fd = fd, .events = POLLIN},
				      {.fd = k.wake, .events = POLLIN}};
		assert_true(poll(p, 2, -1) > 0);
		if (p[1].revents & POLLIN) {
			uint64_t v;
			assert_int_equal(read(k.wake, &v, sizeof(v)),
					 sizeof(v));
			corral_request_end(c, CORRAL_REASON_REQUEST);
		}
		r = corral_step(c, 0);
		if (running && !asked) {
			assert_int_equal(
				pthread_create(&th, NULL, ask_live, &k), 0);
			asked = true;
		}
	} while (r > 0);
	assert_int_equal(r, 0);
	assert_true(asked);
	pthread_join(th, NULL);
	close(k.wake);
	struct corral_result res;
	corral_result(c, &res);
	assert_int_equal(res.reason, CORRAL_REASON_REQUEST);
	assert_int_equal(corral_free(c), 0);
	no_child_left();
	k.reply[k.len] = 0;
	assert_non_null(strstr(k.reply, "sleep 100"));
}

/*
 * A journal reader that stalls, then reads again, while the caller sleeps
 * in its own poll(): the lines queued meanwhile reach it through
 * corral_fd(). The command makes far more journal than a pipe holds, then
 * sleeps: once it sleeps, only the journal's descriptor can wake the loop.
 */
static int journal_execs(const char *buf, size_t len)
{
	static const char key[] = "\"event\":\"exec\"";
	int n = 0;
	const char *p = buf, *e = buf + len;
	while ((p = memmem(p, (size_t)(e - p), key, sizeof(key) - 1))) {
		n++;
		p += sizeof(key) - 1;
	}
	return n;
}

static void test_fd_journal(void **state)
{
	static const char *const argv[] = {
		"/bin/sh", "-c",
		"i=0; while [ $i -lt 400 ]; do /bin/true; i=$((i+1)); done; "
		"exec sleep 100",
		NULL};
	bool running = false;
	int jp[2];
	assert_int_equal(pipe2(jp, O_CLOEXEC | O_NONBLOCK), 0);
	struct corral_config cfg;
	corral_config_init(&cfg);
	cfg.argv = argv;
	cfg.watch_parent = false;
	cfg.stacks = 0;
	cfg.kill_after = 0;
	cfg.journal_fd = jp[1];
	cfg.on_event = saw_sleep;
	cfg.on_event_arg = &running;
	struct corral *c;
	char err[256];
	assert_int_equal(corral_new(&cfg, &c, err, sizeof(err)), 0);
	assert_int_equal(corral_spawn(c), 0);
	int fd = corral_fd(c);
	assert_true(fd >= 0);
	size_t cap = 1 << 22, len = 0;
	char *buf = malloc(cap);
	assert_non_null(buf);
	bool asked = false;
	int r;
	do {
		/* Nobody reads the journal until the command sleeps. */
		struct pollfd p[2] = {{.fd = fd, .events = POLLIN},
				      {.fd = jp[0], .events = POLLIN}};
		int np = poll(p, running ? 2 : 1, 30000); /* safety net */
		assert_true(np > 0);
		if (running && (p[1].revents & POLLIN)) {
			ssize_t n;
			while (len < cap &&
			       (n = read(jp[0], buf + len, cap - len)) > 0)
				len += (size_t)n;
			/* 402 execs: sh, 400 x true, sleep. */
			if (!asked && journal_execs(buf, len) == 402) {
				corral_request_end(c, CORRAL_REASON_REQUEST);
				asked = true;
			}
		}
		/* Only when corral_fd() says so: the contract under test. */
		r = (p[0].revents & POLLIN) ? corral_step(c, 0) : 1;
	} while (r > 0);
	assert_int_equal(r, 0);
	assert_true(asked);
	assert_true(len > 65536); /* more than the pipe holds: it stalled */
	struct corral_result res;
	corral_result(c, &res);
	assert_int_equal(res.reason, CORRAL_REASON_REQUEST);
	assert_int_equal(res.execs, 402);
	assert_int_equal(res.journal_lost, 0);
	assert_int_equal(corral_free(c), 0);
	close(jp[1]);
	free(buf);
	close(jp[0]);
	no_child_left();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_config_defaults_older),
		cmocka_unit_test(test_config_defaults_newer),
		cmocka_unit_test(test_new_older_caller),
		cmocka_unit_test(test_new_newer_caller),
		cmocka_unit_test(test_result_sizes),
		cmocka_unit_test(test_callback_reentry),
		cmocka_unit_test(test_log_callback),
		cmocka_unit_test(test_fd_loop),
		cmocka_unit_test(test_fd_deadline),
		cmocka_unit_test(test_fd_pty),
		cmocka_unit_test(test_fd_live),
		cmocka_unit_test(test_fd_journal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
