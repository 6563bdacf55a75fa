/*
 * test_json.c - the journal's string encoder: every byte string becomes
 * valid JSON, and the original bytes can be recovered (docs/journal.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static char *enc(const char *s, size_t n)
{
	static struct sbuf b;
	sb_reset(&b);
	sb_json_str(&b, s, n);
	return b.p;
}

static void test_plain_and_escapes(void **state)
{
	assert_string_equal(enc("abc", 3), "\"abc\"");
	assert_string_equal(enc("a\"b\\c", 5), "\"a\\\"b\\\\c\"");
	assert_string_equal(enc("\n\t\r\b\f", 5), "\"\\n\\t\\r\\b\\f\"");
	assert_string_equal(enc("\x01\x1f\x7f", 3), "\"\\u0001\\u001f\\u007f\"");
	/* An embedded NUL is a byte like any other. */
	assert_string_equal(enc("a\0b", 3), "\"a\\u0000b\"");
	assert_string_equal(enc("", 0), "\"\"");
	/* '/' needs no escape. */
	assert_string_equal(enc("/bin/true", 9), "\"/bin/true\"");
}

static void test_utf8_kept(void **state)
{
	const char *s = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x8e";
	assert_string_equal(enc(s, strlen(s)), "\"caf\xc3\xa9 \xe2\x82\xac "
					       "\xf0\x9f\x90\x8e\"");
}

static void test_invalid_utf8_surrogateescape(void **state)
{
	/* A lone continuation byte, a truncated sequence, 0xff. */
	assert_string_equal(enc("\x80", 1), "\"\\udc80\"");
	assert_string_equal(enc("a\xc3", 2), "\"a\\udcc3\"");
	assert_string_equal(enc("\xff\xfe", 2), "\"\\udcff\\udcfe\"");
	/* Overlong '/', an encoded surrogate, past U+10FFFF: all invalid. */
	assert_string_equal(enc("\xc0\xaf", 2), "\"\\udcc0\\udcaf\"");
	assert_string_equal(enc("\xed\xa0\x80", 3),
			    "\"\\udced\\udca0\\udc80\"");
	assert_string_equal(enc("\xf4\x90\x80\x80", 4),
			    "\"\\udcf4\\udc90\\udc80\\udc80\"");
	/* Valid text around an invalid byte stays as it is. */
	assert_string_equal(enc("\xc3\xa9\xe9\xc3\xa9", 5),
			    "\"\xc3\xa9\\udce9\xc3\xa9\"");
}

static void test_objects(void **state)
{
	struct sbuf b = {0};
	sb_putc(&b, '{');
	sb_json_key(&b, "a");
	sb_puts(&b, "1");
	sb_json_key(&b, "argv");
	const char *v[] = {"x", "y\"", NULL};
	sb_json_strv(&b, v);
	sb_putc(&b, '}');
	assert_string_equal(b.p, "{\"a\":1,\"argv\":[\"x\",\"y\\\"\"]}");
	sb_free(&b);
}

/* A long argument grows the buffer; nothing is cut. */
static void test_large(void **state)
{
	size_t n = 1 << 20;
	char *s = malloc(n);
	memset(s, '"', n);
	char *e = enc(s, n);
	assert_int_equal(strlen(e), 2 * n + 2);
	free(s);
}

/* The printf-free numbers write what printf would. */
static void test_numbers(void **state)
{
	static struct sbuf b;
	char want[64];
	long ints[] = {0, 1, -1, 9, 10, 4711, -4711, 2147483647L,
		       -2147483648L, 9223372036854775807L,
		       -9223372036854775807L - 1};
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		sb_reset(&b);
		sb_long(&b, ints[i]);
		snprintf(want, sizeof(want), "%ld", ints[i]);
		assert_string_equal(b.p, want);
	}
	/* Times as the journal has them: whole microseconds, up to days. */
	unsigned long long x = 88172645463325252ULL;
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		unsigned long long us = x % (i & 1 ? 100000000000ULL : 10000000ULL);
		double v = (double)us / 1e6;
		sb_reset(&b);
		sb_fixed6(&b, v);
		snprintf(want, sizeof(want), "%.6f", v);
		assert_string_equal(b.p, want);
	}
	double odd[] = {0.0, 2.0, 0.000001, 0.0000004, 0.0000006, 1e9, -1.5};
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		sb_reset(&b);
		sb_fixed6(&b, odd[i]);
		snprintf(want, sizeof(want), "%.6f", odd[i]);
		assert_string_equal(b.p, want);
	}
	sb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_escapes),
		cmocka_unit_test(test_utf8_kept),
		cmocka_unit_test(test_invalid_utf8_surrogateescape),
		cmocka_unit_test(test_objects),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
