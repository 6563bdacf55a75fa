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

/* A JSON string literal (with quotes) for n bytes of s. */
void sb_json_str(struct sbuf *b, const char *s, size_t n);
/* "key": prefixed with a comma unless it is the first key. */
void sb_json_key(struct sbuf *b, const char *key);
/* A JSON array of strings from a NULL-terminated vector. */
void sb_json_strv(struct sbuf *b, const char *const *v);

#endif
