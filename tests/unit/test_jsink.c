/*
 * test_jsink.c - the journal's sink (tracer/journal/jsink.c) on a real pipe
 * with a one-page buffer: what the reader gets is always whole lines, in order,
 * none lost while the queue has room; a full queue drops and counts whole
 * lines; a line longer than PIPE_BUF goes out in parts but nothing comes
 * between them; a reader that goes away makes the sink stop, counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"

struct rig {
	int rd, wr;
	struct jsink s;
	char *got;
	size_t ngot;
};

static void rig_open(struct rig *r, size_t queue_max)
{
	int p[2];
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	/* One page: the sink meets a full pipe after a few lines. */
	assert_true(fcntl(p[1], F_SETPIPE_SZ, 4096) >= 4096);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	r->rd = p[0];
	r->wr = p[1];
	struct corral_config cfg;
	corral_config_init(&cfg);
	cfg.journal_fd = r->wr;
	cfg.journal_queue_max = queue_max;
	char err[256];
	assert_int_equal(jsink_open(&r->s, &cfg, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(r->s.kind, JS_STREAM);
	/* The caller's description was not made non-blocking. */
	assert_false(fcntl(r->wr, F_GETFL) & O_NONBLOCK);
	r->got = NULL;
	r->ngot = 0;
}

/* Read what the pipe has now; true if anything came. */
static int rig_read(struct rig *r)
{
	char buf[65536];
	ssize_t n = read(r->rd, buf, sizeof(buf));
	if (n <= 0)
		return 0;
	r->got = realloc(r->got, r->ngot + (size_t)n + 1);
	memcpy(r->got + r->ngot, buf, (size_t)n);
	r->ngot += (size_t)n;
	r->got[r->ngot] = 0;
	return 1;
}

static void rig_close(struct rig *r)
{
	jsink_close(&r->s);
	close(r->wr);
	if (r->rd >= 0)
		close(r->rd);
	free(r->got);
}

static char *line(int i, size_t len)
{
	char *l = malloc(len + 1);
	int n = snprintf(l, len, "{\"line\":%d,\"pad\":\"", i);
	memset(l + n, 'a' + i % 26, len - (size_t)n - 3);
	memcpy(l + len - 3, "\"}\n", 3);
	l[len] = 0;
	return l;
}

/* Everything read so far is whole lines (ends with '\n'). */
static void assert_whole(const struct rig *r)
{
	if (r->ngot)
		assert_int_equal(r->got[r->ngot - 1], '\n');
}

static void test_full_pipe_queues_whole_lines(void **state)
{
	struct rig r;
	rig_open(&r, 1 << 20);
	struct sbuf all = {0};
	for (int i = 0; i < 200; i++) {
		char *l = line(i, 100 + (size_t)(i % 7) * 13);
		sb_puts(&all, l);
		jsink_put(&r.s, l, strlen(l), false);
		free(l);
	}
	/* 4096 bytes of pipe: most lines wait in the queue. */
	assert_true(r.s.wait_out);
	struct pollfd p;
	assert_int_equal(jsink_pollfd(&r.s, &p), 1);
	assert_int_equal(p.events, POLLOUT);
	int rounds = 0;
	while (r.s.head < r.s.len && rounds++ < 1000) {
		rig_read(&r);
		assert_whole(&r); /* never half a line at any instant */
		jsink_flush(&r.s);
	}
	while (rig_read(&r))
		;
	assert_int_equal(r.ngot, all.len);
	assert_memory_equal(r.got, all.p, all.len);
	assert_int_equal(r.s.lost, 0);
	assert_int_equal(r.s.written, 200);
	assert_int_equal(jsink_pollfd(&r.s, &p), 0);
	sb_free(&all);
	rig_close(&r);
}

static void test_full_queue_drops_whole_lines(void **state)
{
	struct rig r;
	rig_open(&r, 2000); /* bytes queued at most */
	for (int i = 0; i < 200; i++) {
		char *l = line(i, 100);
		jsink_put(&r.s, l, strlen(l), false);
		free(l);
	}
	assert_true(r.s.lost > 0);
	assert_true(r.s.loss);
	/* What was taken, pipe and queue, is at most the bound past the pipe. */
	assert_true(r.s.len - r.s.head <= 2000);
	while (r.s.head < r.s.len) {
		rig_read(&r);
		jsink_flush(&r.s);
	}
	while (rig_read(&r))
		;
	assert_whole(&r);
	size_t lines = 0;
	for (size_t i = 0; i < r.ngot; i++)
		lines += r.got[i] == '\n';
	assert_int_equal(lines + r.s.lost, 200);
	assert_int_equal(lines, r.s.written);
	rig_close(&r);
}

static void test_long_line_in_parts(void **state)
{
	struct rig r;
	rig_open(&r, 1 << 20);
	char *a = line(1, 10000), *b = line(2, 50);
	jsink_put(&r.s, a, strlen(a), false);
	jsink_put(&r.s, b, strlen(b), false);
	while (r.s.head < r.s.len) {
		rig_read(&r);
		jsink_flush(&r.s);
	}
	while (rig_read(&r))
		;
	assert_int_equal(r.ngot, strlen(a) + strlen(b));
	assert_memory_equal(r.got, a, strlen(a));
	assert_memory_equal(r.got + strlen(a), b, strlen(b));
	free(a);
	free(b);
	rig_close(&r);
}

/*
 * A later line (an exit) waits for the next line, which takes it along in
 * order, or until it is due: the loop's sleep before then leaves it
 * queued and says how long it may sleep; once due, the sleep writes it.
 */
static void test_later_waits_for_flush(void **state)
{
	struct rig r;
	rig_open(&r, 1 << 20);
	char *a = line(1, 80), *b = line(2, 80);
	struct pollfd p;

	/* Rides with the next line. */
	assert_true(jsink_later_due(&r.s) == -1);
	jsink_put(&r.s, a, strlen(a), true);
	assert_int_equal(rig_read(&r), 0); /* not written yet */
	double due = jsink_later_due(&r.s);
	assert_true(due > 0 && due <= JSINK_LATER);
	assert_int_equal(jsink_pollfd(&r.s, &p), 0); /* not due: waits */
	assert_int_equal(rig_read(&r), 0);
	jsink_put(&r.s, b, strlen(b), false);
	assert_int_equal(rig_read(&r), 1);
	assert_int_equal(r.ngot, strlen(a) + strlen(b));
	assert_memory_equal(r.got, a, strlen(a));
	assert_memory_equal(r.got + strlen(a), b, strlen(b));
	assert_int_equal(r.s.written, 2);
	assert_true(jsink_later_due(&r.s) == -1);

	/* Nothing else comes: written by the sleep once due. */
	jsink_put(&r.s, a, strlen(a), true);
	r.s.later_at -= JSINK_LATER; /* the time has passed */
	assert_true(jsink_later_due(&r.s) == 0);
	assert_int_equal(jsink_pollfd(&r.s, &p), 0);
	assert_int_equal(rig_read(&r), 1);
	assert_int_equal(r.s.written, 3);
	assert_true(jsink_later_due(&r.s) == -1);
	free(a);
	free(b);
	rig_close(&r);
}

static void test_reader_gone(void **state)
{
	struct rig r;
	rig_open(&r, 1 << 20);
	close(r.rd);
	r.rd = -1;
	char *a = line(1, 80);
	jsink_put(&r.s, a, strlen(a), false);
	jsink_put(&r.s, a, strlen(a), false);
	assert_true(r.s.dead);
	assert_int_equal(r.s.errors, 1);
	assert_int_equal(r.s.lost, 2);
	assert_int_equal(r.s.written, 0);
	free(a);
	rig_close(&r);
}

/* A line as the chain ends it: ...,"h":"<64 hex>"}\n (h from i). */
static char *sealed(int i, size_t len)
{
	char *l = line(i, len);
	char h[65];
	for (int k = 0; k < 64; k++)
		h[k] = "0123456789abcdef"[(i * 7 + k) % 16];
	h[64] = 0;
	snprintf(l + len - 73, 74, ",\"h\":\"%s\"}\n", h);
	return l;
}

/*
 * The digest of the last line that went out whole is known at every
 * instant, also when a line went out in parts and the queue was compacted
 * under it (the end line chains on it).
 */
static void test_last_digest(void **state)
{
	struct rig r;
	rig_open(&r, 1 << 20);
	for (int i = 0; i < 120; i++) {
		char *l = sealed(i, i % 10 == 3 ? 9000 : 90 + (size_t)(i % 5) * 40);
		jsink_put(&r.s, l, strlen(l), false);
		free(l);
		/* Read (all of the one-page pipe) now and then only, so that
		 * lines queue up, go out in parts and the queue compacts. */
		if (i % 3 == 0 && rig_read(&r)) {
			/* the last whole line the reader has, and its digest */
			char *end = r.got + r.ngot;
			while (end > r.got && end[-1] != '\n')
				end--;
			if (end - r.got >= 72) {
				assert_memory_equal(r.s.last_h, end - 67, 64);
			}
		}
	}
	while (r.s.head < r.s.len) {
		rig_read(&r);
		jsink_flush(&r.s);
	}
	while (rig_read(&r))
		;
	assert_int_equal(r.s.written, 120);
	assert_memory_equal(r.s.last_h, r.got + r.ngot - 67, 64);
	rig_close(&r);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_pipe_queues_whole_lines),
		cmocka_unit_test(test_full_queue_drops_whole_lines),
		cmocka_unit_test(test_long_line_in_parts),
		cmocka_unit_test(test_later_waits_for_flush),
		cmocka_unit_test(test_reader_gone),
		cmocka_unit_test(test_last_digest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
