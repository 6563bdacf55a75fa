/*
 * skip.h - a cmocka case that cannot run here says why, then skips.
 *
 * cmocka's skip() prints only "[  SKIPPED ] case"; tests/run.sh pairs that
 * line with the "SKIP [case]: reason" line printed here and lists it with
 * the suite's skips (a binary whose every case skipped counts as skipped).
 * Both are macros: __func__ is the case's name.
 * Call it only after a probe that ran the thing and saw it fail: a skip
 * must never hide what the machine does have (.ci/must-not-skip).
 */
#ifndef CORRAL_TEST_SKIP_H
#define CORRAL_TEST_SKIP_H

#include <stdio.h>

#define skip_because(...)                                                    \
	do {                                                                 \
		fflush(stdout);                                              \
		fprintf(stderr, "SKIP [%s]: ", __func__);                    \
		fprintf(stderr, __VA_ARGS__);                                \
		fputc('\n', stderr);                                         \
		skip();                                                      \
	} while (0)

/* A part of a case cannot run here; the rest of the case goes on. */
#define skip_part_because(part, ...)                                         \
	do {                                                                 \
		fflush(stdout);                                              \
		fprintf(stderr, "SKIP [%s / %s]: ", __func__, part);         \
		fprintf(stderr, __VA_ARGS__);                                \
		fputc('\n', stderr);                                         \
	} while (0)

#endif
