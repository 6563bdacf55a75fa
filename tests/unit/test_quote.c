/*
 * test_quote.c - arguments quoted as a shell reads them back, text made
 * safe for a terminal (tracer/base/quote.c, used by --tree, the live view and
 * every CLI message).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corral.h"
#include "result.h"

static void check(char *(*fn)(const char *), const char *in, const char *want)
{
	char *got = fn(in);
	assert_non_null(got);
	if (strcmp(got, want))
		fail_msg("'%s': got [%s], want [%s]", in, got, want);
	free(got);
}

static void test_quote(void **state)
{
	check(corral_quote, "ls", "ls");
	check(corral_quote, "/usr/bin/env", "/usr/bin/env");
	check(corral_quote, "a=b,c:d@e%f+g", "a=b,c:d@e%f+g");
	check(corral_quote, "", "''");
	check(corral_quote, "a b", "'a b'");
	check(corral_quote, "it's", "'it'\\''s'");
	check(corral_quote, "$HOME", "'$HOME'");
	check(corral_quote, "echo \"x\"; ls *", "'echo \"x\"; ls *'");
	check(corral_quote, "a\nb", "$'a\\nb'");
	check(corral_quote, "\x1b[31mred", "$'\\e[31mred'");
	check(corral_quote, "tab\there", "$'tab\\there'");
	check(corral_quote, "bell\a", "$'bell\\x07'");
	check(corral_quote, "del\x7f", "$'del\\x7f'");
	/* In $'...' a quote and a backslash are escaped. */
	check(corral_quote, "it's\n\\", "$'it\\'s\\n\\\\'");
	/* UTF-8 is kept; a C1 control (U+009B, CSI) and bad bytes are not. */
	check(corral_quote, "caf\xc3\xa9", "'caf\xc3\xa9'");
	check(corral_quote,
	      "x\xc2\x9b"
	      "31m",
	      "$'x\\xc2\\x9b31m'");
	check(corral_quote, "bad\xff", "$'bad\\xff'");
	check(corral_quote, "over\xc0\xaf", "$'over\\xc0\\xaf'");
	check(corral_quote, "sep\xe2\x80\xa8", "$'sep\\xe2\\x80\\xa8'");
	/* Bidi overrides and isolates reorder the line: escaped too. */
	check(corral_quote, "rlo\xe2\x80\xae", "$'rlo\\xe2\\x80\\xae'");
	check(corral_quote, "lri\xe2\x81\xa6", "$'lri\\xe2\\x81\\xa6'");
	check(corral_quote, "rlm\xe2\x80\x8f", "$'rlm\\xe2\\x80\\x8f'");
}

static void test_escape(void **state)
{
	check(corral_escape, "plain text: ok", "plain text: ok");
	check(corral_escape, "a\nb\rc\td\x1b]0;t\a",
	      "a\\nb\\rc\\td\\e]0;t\\x07");
	check(corral_escape, "it's \\ fine", "it's \\ fine");
	check(corral_escape, "", "");
	check(corral_escape, "\xff", "\\xff");
	check(corral_escape,
	      "a\xe2\x80\xae"
	      "b\xe2\x81\xa9",
	      "a\\xe2\\x80\\xaeb\\xe2\\x81\\xa9");
}

/* cli/result.c's JSON strings (--result, ps --json): what is not
 * well-formed UTF-8 is \udcXX, byte by byte, so every output parses. */
static void jcheck(const char *in, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	result_json_str(f, in);
	fclose(f);
	if (strcmp(buf, want))
		fail_msg("json(%s): got %s, want %s", in, buf, want);
	free(buf);
}

static void test_json_str(void **state)
{
	(void)state;
	jcheck("a\"b\\\n", "\"a\\\"b\\\\\\u000a\"");
	jcheck("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
	       "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	/* a surrogate (ED A0 80), overlongs (E0 80 80, F0 80 80 80, C0 AF),
	 * past U+10FFFF (F4 90 80 80), a cut sequence */
	jcheck("\xed\xa0\x80", "\"\\udced\\udca0\\udc80\"");
	jcheck("\xe0\x80\x80", "\"\\udce0\\udc80\\udc80\"");
	jcheck("\xf0\x80\x80\x80", "\"\\udcf0\\udc80\\udc80\\udc80\"");
	jcheck("\xc0\xaf", "\"\\udcc0\\udcaf\"");
	jcheck("\xf4\x90\x80\x80", "\"\\udcf4\\udc90\\udc80\\udc80\"");
	jcheck("a\xe2\x82", "\"a\\udce2\\udc82\"");
	/* the edges that are well-formed: U+D7FF, U+E000, U+10FFFF */
	jcheck("\xed\x9f\xbf\xee\x80\x80\xf4\x8f\xbf\xbf",
	       "\"\xed\x9f\xbf\xee\x80\x80\xf4\x8f\xbf\xbf\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_json_str),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
