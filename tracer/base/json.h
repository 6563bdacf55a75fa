/*
 * json.h - a growable byte buffer with the few JSON writers the journal
 * needs. Strings are arbitrary bytes: see docs/journal.md for how bytes
 * that are not UTF-8 are written (\udcXX, Python's surrogateescape).
 */
#ifndef CORRAL_JSON_H
#define CORRAL_JSON_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf {
	char *p;
	size_t len, cap;
	bool oom; /* an allocation failed: the content is truncated */
};

void sb_reset(struct sbuf *b);
void sb_free(struct sbuf *b);
void sb_put(struct sbuf *b, const char *s, size_t n);
void sb_puts(struct sbuf *b, const char *s);
void sb_putc(struct sbuf *b, char c);
void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Numbers without printf: the journal writes several per line, and
 * vsnprintf (twice: measure, write) with %f was the largest user-space
 * cost per event (docs/bench.md).
 */
void sb_long(struct sbuf *b, long v);
/* v with exactly 6 decimals, rounded to the nearest microsecond ("%.6f"). */
void sb_fixed6(struct sbuf *b, double v);

/*
 * Length of the valid UTF-8 sequence at s (1..4, of at most n bytes), or 0
 * when the byte at s does not start one (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF: what passes is valid in any parser).
 * Its code point goes to *code unless code is NULL. The one UTF-8 decoder:
 * the JSON writers here and in report/out.c, the terminal quoting
 * (quote.c).
 */
size_t utf8_len(const unsigned char *s, size_t n, unsigned *code);

/* A JSON string literal (with quotes) for n bytes of s. */
void sb_json_str(struct sbuf *b, const char *s, size_t n);
/* "key": prefixed with a comma unless it is the first key. */
void sb_json_key(struct sbuf *b, const char *key);
/* A JSON array of strings from a NULL-terminated vector. */
void sb_json_strv(struct sbuf *b, const char *const *v);

#endif
