/*
 * test_helpers.c - the small shared helpers that several parts of the
 * library use instead of their own copies: the write-all loop
 * (tracer/base/writeall.c), the signal names (tracer/base/names.c) and the
 * growable arrays (tracer/base/grow.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corral.h"
#include "grow.h"
#include "names.h"
#include "writeall.h"

#include "child.h"

/* Everything arrives, in order, across many short writes (a pipe takes at
 * most its capacity at a time; the reader drains it between). */
static void test_write_all_whole(void **state)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	size_t len = 1 << 20;
	char *buf = malloc(len), *got = malloc(len);
	assert_non_null(buf);
	assert_non_null(got);
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(i * 7 + i / 251);
	pid_t pid = test_fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		_exit(write_all(p[1], buf, len) == 0 ? 0 : 1);
	}
	close(p[1]);
	size_t n = 0;
	for (ssize_t r; (r = read(p[0], got + n, len - n)) > 0;)
		n += (size_t)r;
	close(p[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(n, len);
	assert_memory_equal(got, buf, len);
	free(buf);
	free(got);
}

/* The error of the write that failed comes back: a full non-blocking pipe
 * (-EAGAIN, what fitted stays written), a pipe without a reader (-EPIPE),
 * a bad descriptor. */
static void test_write_all_errors(void **state)
{
	int p[2];
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	int cap = fcntl(p[1], F_GETPIPE_SZ);
	assert_true(cap > 0);
	char *buf = calloc(1, (size_t)cap + 1);
	assert_non_null(buf);
	assert_int_equal(write_all(p[1], buf, (size_t)cap + 1), -EAGAIN);
	int avail = 0;
	assert_int_equal(ioctl(p[0], FIONREAD, &avail), 0);
	assert_int_equal(avail, cap);
	close(p[0]);
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	sigaction(SIGPIPE, &ign, &old);
	assert_int_equal(write_all(p[1], "x", 1), -EPIPE);
	sigaction(SIGPIPE, &old, NULL);
	close(p[1]);
	assert_int_equal(write_all(p[1], "x", 1), -EBADF);
	assert_int_equal(write_all(p[1], "", 0), 0); /* nothing to write */
	free(buf);
}

/* send_all passes its flags: MSG_DONTWAIT on a blocking socket whose
 * peer does not read gives -EAGAIN instead of blocking; MSG_NOSIGNAL
 * gives -EPIPE without a SIGPIPE (the default action would kill us). */
static void test_send_all(void **state)
{
	int s[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, s), 0);
	assert_int_equal(send_all(s[0], "hello", 5, MSG_NOSIGNAL), 0);
	char got[8] = {0};
	assert_int_equal(read(s[1], got, sizeof(got)), 5);
	assert_string_equal(got, "hello");
	size_t len = 16 << 20;
	char *buf = calloc(1, len);
	assert_non_null(buf);
	assert_int_equal(send_all(s[0], buf, len, MSG_DONTWAIT), -EAGAIN);
	close(s[1]);
	assert_int_equal(send_all(s[0], "x", 1, MSG_NOSIGNAL), -EPIPE);
	close(s[0]);
	free(buf);
}

/* One set of names, the same through the internal and the public call. */
static void test_signal_names(void **state)
{
	char a[16], b[16];
	assert_string_equal(signal_name(SIGTERM, a), "SIGTERM");
	assert_string_equal(signal_name(SIGKILL, a), "SIGKILL");
	assert_string_equal(signal_name(SIGRTMIN, a), "SIGRTMIN+0");
	assert_string_equal(signal_name(SIGRTMIN + 3, a), "SIGRTMIN+3");
	assert_string_equal(signal_name(SIGRTMAX, a), "SIGRTMIN+30");
	/* glibc keeps 32 and 33 for itself: no name */
	assert_string_equal(signal_name(32, a), "SIG32");
	assert_string_equal(signal_name(0, a), "SIG0");
	assert_string_equal(signal_name(-2147483647 - 1, a),
			    "SIG-2147483648");
	for (int sig = -1; sig <= SIGRTMAX + 1; sig++)
		assert_string_equal(corral_signal_name(sig, b),
				    signal_name(sig, a));
}

/* Room for at least what is asked, doubling (amortised O(1) pushes), the
 * content kept; nothing touched when it already fits or cannot be had. */
static void test_grow(void **state)
{
	long *v = NULL;
	size_t cap = 0;
	assert_int_equal(GROW(v, cap, 1), 0);
	assert_non_null(v);
	assert_int_equal(cap, 16); /* no 1, 2, 4... steps */
	for (long i = 0; i < 16; i++)
		v[i] = i;
	long *before = v;
	assert_int_equal(GROW(v, cap, 16), 0); /* fits: nothing done */
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 16);
	assert_int_equal(GROW(v, cap, 17), 0);
	assert_int_equal(cap, 32); /* doubled */
	assert_int_equal(GROW(v, cap, 100), 0);
	assert_int_equal(cap, 100); /* more than double asked: that much */
	for (long i = 0; i < 16; i++)
		assert_int_equal(v[i], i);
	size_t n = 100;
	size_t reallocs = 0;
	for (size_t i = 0; i < 100000; i++) {
		size_t c = cap;
		assert_int_equal(GROW(v, cap, n + 1), 0);
		reallocs += cap != c;
		v[n++] = (long)i;
	}
	assert_true(reallocs <= 12); /* log2(100100 / 100) + 1 */
	assert_int_equal(v[n - 1], 99999);
	/* need * size would overflow: refused, nothing changed */
	before = v;
	size_t was = cap;
	assert_int_equal(grow(&v, &cap, SIZE_MAX / sizeof(*v) + 1, sizeof(*v)),
			 -ENOMEM);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, was);
	free(v);
	/* bytes: a buffer grown by what is appended */
	char *b = NULL;
	size_t bcap = 0, len = 0;
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(GROW(b, bcap, len + 7), 0);
		memcpy(b + len, "abcdefg", 7);
		len += 7;
	}
	assert_true(bcap >= len && bcap < 2 * len + 16);
	assert_memory_equal(b + len - 7, "abcdefg", 7);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_all_whole),
		cmocka_unit_test(test_write_all_errors),
		cmocka_unit_test(test_send_all),
		cmocka_unit_test(test_signal_names),
		cmocka_unit_test(test_grow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
