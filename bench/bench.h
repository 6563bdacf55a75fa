/*
 * bench.h - small helpers shared by the benchmark programs in bench/.
 *
 * Everything here is static inline so that each bench program stays a
 * single translation unit (plus procwalk.c and cgkill.c for the runner)
 * and the build rule in bench/bench.mk stays trivial.
 */
#ifndef CORRAL_BENCH_H
#define CORRAL_BENCH_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Monotonic clock in nanoseconds: every figure is a difference of two. */
static inline int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline double ns_to_s(int64_t ns)
{
	return (double)ns / 1e9;
}

static inline void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Fatal error with errno text: bench programs have nothing to recover. */
__attribute__((format(printf, 1, 2), noreturn)) static inline void
die(const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "bench: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (e)
		fprintf(stderr, ": %s", strerror(e));
	fputc('\n', stderr);
	exit(2);
}

/* Parse a non-negative integer option or die: typos must not bench 0. */
static inline long parse_num(const char *s, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0) {
		errno = 0;
		die("bad %s: '%s'", what, s);
	}
	return v;
}

/*
 * Read /proc/PID/stat into buf and return a pointer just past the ")" that
 * ends the command name (which may itself hold spaces and parentheses), or
 * NULL if the process is gone. The state letter is then at p[1].
 */
static inline char *read_stat(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p + 1 : NULL;
}

/*
 * A fork storm worker: fork a child that exits at once, reap it, again,
 * until *stop is set or the deadline (0: none) passes. Counts the forks in
 * *count. fork() failing with EAGAIN (pid or memory limit) is part of a
 * storm, not an error: back off a little and keep going.
 */
static inline void storm_loop(volatile int *stop, uint64_t *count,
			      int64_t deadline)
{
	while (!*stop && (!deadline || now_ns() < deadline)) {
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		if (p < 0) {
			sleep_ns(1000000);
			continue;
		}
		__atomic_add_fetch(count, 1, __ATOMIC_RELAXED);
		while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
			;
	}
}

#endif
