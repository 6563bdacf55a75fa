/*
 * fuzz_report.c - libFuzzer target for the report's journal reader and
 * every writer behind it (summary in three formats, tree, Perfetto, HTML):
 * whatever the bytes, corral_report_load_buffer() either refuses them with
 * a message or builds a model every writer can print, without a crash, a
 * leak or undefined behaviour (built with ASan + UBSan by `make fuzz`).
 *
 * And what a journal says never reaches an output raw (report/esc.c):
 *
 * - what a terminal gets (the text summary, --tree, the notes): UTF-8
 *   only, no control byte but '\n', no DEL, no C1, no line/paragraph
 *   separator, no bidi mark, embedding, override or isolate;
 * - the Markdown summary: the same, and on each line every backquote run
 *   opens a code span that a run of the same length closes on that line;
 *   outside code spans only the report's own words: no '[' or ']' (but
 *   its "[exit 3]", "[killed by SIGTERM at 1.000s]"...), '!', '*', '_',
 *   '~', '&', '@', '\\', no HTML tag but "<br>", no "://" nor "www."; and
 *   no '|' inside a code span on a table row (it would end the cell);
 * - the JSON summary and the Perfetto trace parse (yajl).
 *
 * A violation traps, so libFuzzer keeps the input (fuzz/README).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "corral.h"
#include "json.h"

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "fuzz_report: %s:%d: %s\n", __FILE__,  \
				__LINE__, #c);                                 \
			__builtin_trap();                                      \
		}                                                              \
	} while (0)

/* A terminal cannot be driven by anything in s[0..n). */
static void terminal_safe(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		unsigned cp;
		size_t l = utf8_len(u + i, n - i, &cp);
		CHECK(l > 0); /* UTF-8 only */
		CHECK(cp >= 0x20 || cp == '\n');
		CHECK(cp < 0x7f || cp > 0x9f);
		CHECK(cp != 0x2028 && cp != 0x2029);
		CHECK(cp != 0x200e && cp != 0x200f);
		CHECK(cp < 0x202a || cp > 0x202e);
		CHECK(cp < 0x2066 || cp > 0x2069);
		i += l;
	}
}

static bool digits(const char **p, const char *e, const char *extra)
{
	const char *s = *p;
	while (*p < e && ((**p >= '0' && **p <= '9') || strchr(extra, **p)))
		(*p)++;
	return *p > s;
}

/* "1.250s" (%.3f of a time the journal chose: inf and nan too) at *p. */
static bool seconds(const char **p, const char *e)
{
	const char *q = *p;
	if (q < e && *q == '-')
		q++;
	if (e - q > 3 && (!memcmp(q, "inf", 3) || !memcmp(q, "nan", 3)))
		q += 3;
	else if (!digits(&q, e, "."))
		return false;
	if (q >= e || *q != 's')
		return false;
	*p = q + 1;
	return true;
}

/*
 * The report's own "[exit 3]", "[killed by SIGTERM (core dumped)]", "[no
 * exit seen]", with " at 1.000s" and ", ran 0.500s" after it, at p (a
 * '['): its length, or 0.
 */
static size_t status_bracket(const char *p, const char *e)
{
	const char *q = p + 1;
	if (e - q > 12 && !memcmp(q, "no exit seen", 12)) {
		q += 12;
	} else if (e - q > 5 && !memcmp(q, "exit ", 5)) {
		q += 5;
		if (!digits(&q, e, "-"))
			return 0;
	} else if (e - q > 13 && !memcmp(q, "killed by SIG", 13)) {
		q += 13;
		while (q < e && ((*q >= 'A' && *q <= 'Z') || strchr("+-", *q) ||
				 (*q >= '0' && *q <= '9')))
			q++;
		if (e - q > 14 && !memcmp(q, " (core dumped)", 14))
			q += 14;
	} else {
		return 0;
	}
	if (e - q > 4 && !memcmp(q, " at ", 4)) {
		q += 4;
		if (!seconds(&q, e))
			return 0;
	}
	if (e - q > 6 && !memcmp(q, ", ran ", 6)) {
		q += 6;
		if (!seconds(&q, e))
			return 0;
	}
	return q < e && *q == ']' ? (size_t)(q - p + 1) : 0;
}

/* Outside code spans, line [p, e) holds only the report's own words. */
static void md_outside(const char *p, const char *e)
{
	for (const char *q = p; q < e; q++) {
		size_t k;
		switch (*q) {
		case '[':
			k = status_bracket(q, e);
			CHECK(k);
			q += k - 1;
			break;
		case ']':
		case '!':
		case '*':
		case '_':
		case '~':
		case '&':
		case '@':
		case '\\':
			CHECK(0);
			break;
		case '<':
			if (e - q >= 4 && !memcmp(q, "<br>", 4))
				q += 3;
			else
				CHECK(q + 1 == e ||
				      !strchr("abcdefghijklmnopqrstuvwxyzABCDEF"
					      "GHIJKLMNOPQRSTUVWXYZ/!?",
					      q[1]) ||
				      !q[1]);
			break;
		case ':':
			CHECK(!(e - q >= 3 && !memcmp(q, "://", 3)));
			break;
		case 'w':
			CHECK(!(e - q >= 4 && !memcmp(q, "www.", 4)));
			break;
		}
	}
}

static size_t run_at(const char *p, const char *e)
{
	size_t n = 0;
	while (p + n < e && p[n] == '`')
		n++;
	return n;
}

static void markdown_safe(const char *s, size_t n)
{
	terminal_safe(s, n);
	const char *end = s + n;
	for (const char *line = s; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *e = nl ? nl : end;
		bool table = *line == '|';
		const char *out = line; /* start of the current outside part */
		for (const char *q = line; q < e;) {
			if (*q != '`') {
				q++;
				continue;
			}
			md_outside(out, q);
			size_t run = run_at(q, e);
			/* the closing run: the next one of exactly this length
			 */
			const char *c = q + run, *close = NULL;
			while (c < e) {
				if (*c != '`') {
					c++;
					continue;
				}
				size_t r = run_at(c, e);
				if (r == run) {
					close = c;
					break;
				}
				c += r;
			}
			CHECK(close); /* no span left open */
			if (table)
				CHECK(!memchr(q + run, '|',
					      (size_t)(close - q - run)));
			q = close + run;
			out = q;
		}
		md_outside(out, e);
		line = e + 1;
	}
}

static void json_parses(const char *s, size_t n)
{
	char err[256];
	CHECK(strlen(s) == n); /* no NUL byte in a JSON text */
	yajl_val v = yajl_tree_parse(s, err, sizeof(err));
	if (!v)
		fprintf(stderr, "fuzz_report: %s\n", err);
	CHECK(v);
	yajl_tree_free(v);
}

/* What writer fn prints, in a malloc'ed buffer. */
static char *capture(const struct corral_report *r,
		     int (*fn)(const struct corral_report *, FILE *),
		     enum corral_report_format fmt, size_t *len)
{
	char *buf = NULL;
	*len = 0;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	if (fn)
		fn(r, f);
	else
		corral_report_summary(r, f, fmt);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct corral_report *r;
	char err[512];
	int e = corral_report_load_buffer((const char *)data, size, "fuzz", &r,
					  err, sizeof(err));
	if (e < 0) {
		/* a refusal must say why */
		if (!err[0])
			__builtin_trap();
		return 0;
	}
	size_t n;
	char *s = capture(r, NULL, CORRAL_REPORT_TEXT, &n);
	if (s)
		terminal_safe(s, n);
	free(s);
	s = capture(r, corral_report_tree, 0, &n);
	if (s)
		terminal_safe(s, n);
	free(s);
	s = capture(r, NULL, CORRAL_REPORT_MD, &n);
	if (s)
		markdown_safe(s, n);
	free(s);
	s = capture(r, NULL, CORRAL_REPORT_JSON, &n);
	if (s)
		json_parses(s, n);
	free(s);
	s = capture(r, corral_report_perfetto, 0, &n);
	if (s)
		json_parses(s, n);
	free(s);
	FILE *f = fopen("/dev/null", "w");
	if (f) {
		corral_report_html(r, f);
		fclose(f);
	}
	unsigned long line;
	const char *note;
	for (size_t i = 0; (note = corral_report_note(r, i, &line)); i++)
		terminal_safe(note, strlen(note));
	corral_report_free(r);
	return 0;
}
