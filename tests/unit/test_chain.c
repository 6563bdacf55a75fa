/*
 * test_chain.c - the journal's digest chain (tracer/journal/chain.c): the
 * digest of a line is HMAC-SHA256 as OpenSSL computes it, over the previous
 * digest and the line's bytes; the reader finds a changed line by number,
 * calls back for every line, and refuses what is not a journal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"

static char keypath[64];

static void write_key(const unsigned char *k, size_t n)
{
	snprintf(keypath, sizeof(keypath), "/tmp/corral-test-key.%d",
		 (int)getpid());
	FILE *f = fopen(keypath, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(k, 1, n, f), n);
	fclose(f);
}

static void unhex(const char *h, unsigned char *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		assert_int_equal(sscanf(h + 2 * i, "%2x", &v), 1);
		out[i] = (unsigned char)v;
	}
}

/* The digest a sealed line carries, checked against OpenSSL's HMAC(). */
static void test_hmac_is_openssl_hmac(void **state)
{
	static const size_t keylens[] = {1, 31, 32, 64, 65, 200};
	unsigned char key[200];
	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (unsigned char)(i * 7 + 3);
	for (size_t k = 0; k < sizeof(keylens) / sizeof(keylens[0]); k++) {
		write_key(key, keylens[k]);
		struct chain ch;
		char err[256];
		assert_int_equal(chain_init(&ch, keypath, err, sizeof(err)), 0);
		unsigned char prev[32] = {0};
		for (int line = 0; line < 3; line++) {
			struct sbuf b = {0};
			sb_printf(&b, "{\"event\":\"x\",\"t\":%d,\"pad\":\"%*s\"",
				  line, line * 70, "");
			sb_puts(&b, ",\"n\":");
			sb_long(&b, line);
			/* What the digest covers: the line up to ,"h":" */
			size_t body = b.len;
			unsigned char *msg = malloc(32 + body);
			memcpy(msg, prev, 32);
			memcpy(msg + 32, b.p, body);
			b.len -= strlen(",\"n\":") + 1;
			chain_seal(&ch, &b);
			const char *h = strstr(b.p, ",\"h\":\"");
			assert_non_null(h);
			assert_int_equal((size_t)(h - b.p), body);
			unsigned char got[32], want[32];
			unsigned wl = 0;
			unhex(h + 6, got, 32);
			HMAC(EVP_sha256(), key, (int)keylens[k], msg, 32 + body,
			     want, &wl);
			assert_int_equal(wl, 32);
			assert_memory_equal(got, want, 32);
			assert_string_equal(h + 6 + 64, "\"}\n");
			memcpy(prev, got, 32);
			free(msg);
			sb_free(&b);
		}
		chain_free(&ch);
		unlink(keypath);
	}
}

struct seen {
	size_t n;
	enum corral_line_verdict v[16];
};

static void on_line(const struct corral_journal_line *l, void *arg)
{
	struct seen *s = arg;
	if (s->n < 16)
		s->v[s->n] = l->verdict;
	s->n++;
}

/* Five sealed lines; start and end as corral writes them. */
static char *journal(struct chain *ch)
{
	struct sbuf all = {0}, b = {0};
	for (int i = 0; i < 5; i++) {
		sb_reset(&b);
		sb_printf(&b, "{\"event\":\"%s\",\"t\":0.%06d",
			  i == 0 ? "start" : i == 4 ? "end" : "exec", i);
		chain_seal(ch, &b);
		sb_put(&all, b.p, b.len);
	}
	sb_free(&b);
	return all.p;
}

static void test_verify(void **state)
{
	static const unsigned char key[] = "0123456789abcdef";
	write_key(key, 16);
	struct chain ch;
	char err[256];
	assert_int_equal(chain_init(&ch, keypath, err, sizeof(err)), 0);
	char *j = journal(&ch);
	struct seen s = {0};
	struct corral_journal_check c = {.key = key, .keylen = 16,
					 .on_line = on_line, .arg = &s};
	assert_int_equal(corral_journal_verify(j, strlen(j), &c), 0);
	assert_true(c.intact);
	assert_int_equal(c.lines, 5);
	assert_int_equal(s.n, 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(s.v[i], CORRAL_LINE_OK);

	/* One byte of line 3 changed: line 3, and only it, is changed. */
	char *p = strstr(j, "0.000002");
	p[7] = '9';
	memset(&s, 0, sizeof(s));
	assert_int_equal(corral_journal_verify(j, strlen(j), &c), 0);
	assert_false(c.intact);
	assert_int_equal(c.first_bad, 3);
	assert_int_equal(c.first_verdict, CORRAL_LINE_CHANGED);
	assert_int_equal(c.bad_lines, 1);
	assert_int_equal(s.v[2], CORRAL_LINE_CHANGED);
	assert_int_equal(s.v[3], CORRAL_LINE_OK);

	/* A wrong key: nothing verifies. */
	c.key = (const unsigned char *)"another key.....";
	assert_int_equal(corral_journal_verify(j, strlen(j), &c), 0);
	assert_false(c.intact);
	assert_int_equal(c.first_bad, 1);
	free(j);
	chain_free(&ch);
	unlink(keypath);
}

/*
 * One run of five lines as corral writes it at byte offset of a file,
 * after the line whose digest is after (NULL: none): its start line says
 * so, last before "n", and chains to that digest.
 */
static char *run_at(struct chain *ch, long offset, const char *after,
		    bool not_intact)
{
	struct sbuf all = {0}, b = {0};
	chain_rewind(ch, after ? after : "", 0);
	for (int i = 0; i < 5; i++) {
		sb_reset(&b);
		sb_printf(&b, "{\"event\":\"%s\",\"t\":0.%06d",
			  i == 0 ? "start" : i == 4 ? "end" : "exec", i);
		if (i == 0) {
			sb_printf(&b, ",\"schema\":4,\"offset\":%ld", offset);
			if (after)
				sb_printf(&b, ",\"after\":\"%s\"", after);
		}
		if (i == 4 && not_intact)
			sb_puts(&b, ",\"journal_intact\":false");
		chain_seal(ch, &b);
		sb_put(&all, b.p, b.len);
	}
	sb_free(&b);
	return all.p;
}

/* The digest at the end of the last line of j. */
static void last_h(const char *j, char out[65])
{
	const char *h = j + strlen(j) - 3 - 64;
	memcpy(out, h, 64);
	out[64] = 0;
}

static char *cat3(const char *a, const char *b, const char *c)
{
	char *r = NULL;
	assert_true(asprintf(&r, "%s%s%s", a, b, c ? c : "") > 0);
	return r;
}

static void test_places(void **state)
{
	static const unsigned char key[] = "0123456789abcdef";
	write_key(key, 16);
	struct chain ch;
	char err[256], ha[65], hb[65];
	assert_int_equal(chain_init(&ch, keypath, err, sizeof(err)), 0);
	char *a = run_at(&ch, 0, NULL, false);
	last_h(a, ha);
	char *b = run_at(&ch, (long)strlen(a), ha, false);
	last_h(b, hb);
	char *x = run_at(&ch, 0, NULL, false); /* another journal's run */
	struct seen s = {0};
	struct corral_journal_check c = {.key = key, .keylen = 16,
					 .on_line = on_line, .arg = &s};

	/* A run appended after another: both intact; the head of the second
	 * proves the first (its start line names the first's last line). */
	char *ab = cat3(a, b, NULL);
	c.head = hb;
	assert_int_equal(corral_journal_verify(ab, strlen(ab), &c), 0);
	assert_true(c.intact);
	assert_int_equal(c.runs, 2);
	assert_int_equal(c.head_run, 2);
	assert_int_equal(c.head_line, 10);
	assert_int_equal(c.proven_run, 1);
	assert_int_equal(c.proven_first, 1);
	assert_int_equal(c.end_run, 2);
	assert_int_equal(c.end_first, 6);
	assert_int_equal(c.end_line, 10);
	/* The first run's head: the second run is flagged as appended. */
	c.head = ha;
	assert_int_equal(corral_journal_verify(ab, strlen(ab), &c), 0);
	assert_false(c.intact);
	assert_int_equal(c.head_run, 1);
	assert_int_equal(c.first_bad, 6);

	/* A run put before a real one, with and without the head. */
	char *xa = cat3(x, a, NULL);
	for (int h = 0; h < 2; h++) {
		memset(&s, 0, sizeof(s));
		c.head = h ? ha : NULL;
		assert_int_equal(corral_journal_verify(xa, strlen(xa), &c), 0);
		assert_false(c.intact);
		assert_int_equal(c.first_bad, 6);
		assert_int_equal(c.first_verdict, CORRAL_LINE_MISPLACED);
		assert_int_equal(s.v[5], CORRAL_LINE_MISPLACED);
		assert_int_equal(c.misplaced_runs, 1);
		assert_int_equal(c.end_run, 2);
	}
	/* A run inserted between two: the second no longer follows. */
	char *axb = cat3(a, x, b);
	for (int h = 0; h < 2; h++) {
		c.head = h ? hb : NULL;
		assert_int_equal(corral_journal_verify(axb, strlen(axb), &c), 0);
		assert_false(c.intact);
		assert_int_equal(c.first_bad, 6); /* x is at byte len(a) */
		assert_int_equal(c.misplaced_runs, 2);
	}
	/* The first run taken out: the second is not where it was written. */
	c.head = hb;
	assert_int_equal(corral_journal_verify(b, strlen(b), &c), 0);
	assert_false(c.intact);
	assert_int_equal(c.first_bad, 1);
	assert_int_equal(c.first_verdict, CORRAL_LINE_MISPLACED);

	/* Written after bytes that were not a journal (offset 7, no after),
	 * then cut out of that file: accepted at its start, not elsewhere. */
	char *cut = run_at(&ch, 7, NULL, false);
	c.head = NULL;
	assert_int_equal(corral_journal_verify(cut, strlen(cut), &c), 0);
	assert_true(c.intact);
	char *acut = cat3(a, cut, NULL);
	assert_int_equal(corral_journal_verify(acut, strlen(acut), &c), 0);
	assert_false(c.intact);
	assert_int_equal(c.first_bad, 6);
	free(cut);
	free(acut);

	/* corral said its journal was changed: never intact. */
	char *t = run_at(&ch, 0, NULL, true);
	char ht[65];
	last_h(t, ht);
	for (int h = 0; h < 2; h++) {
		c.head = h ? ht : NULL;
		assert_int_equal(corral_journal_verify(t, strlen(t), &c), 0);
		assert_false(c.intact);
		assert_int_equal(c.not_intact_runs, 1);
		assert_int_equal(c.first_bad, 5);
		assert_int_equal(c.bad_lines, 0);
	}
	free(a);
	free(b);
	free(x);
	free(ab);
	free(xa);
	free(axb);
	free(t);
	chain_free(&ch);
	unlink(keypath);
}

static void test_not_a_journal(void **state)
{
	struct corral_journal_check c = {0};
	static const char *const bad[] = {
		"", "\n", "hello\n", "{\"event\":\"start\"}\n",
		"{\"n\":1,\"h\":\"zz\"}\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(corral_journal_verify(bad[i], strlen(bad[i]), &c),
				 -EINVAL);
	assert_int_equal(corral_journal_verify("x", 1, &c), -EINVAL);
	c.head = "not hex";
	assert_int_equal(corral_journal_verify("x", 1, &c), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hmac_is_openssl_hmac),
		cmocka_unit_test(test_verify),
		cmocka_unit_test(test_places),
		cmocka_unit_test(test_not_a_journal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
