/*
 * json.c - JSON text for the journal, without a library: the journal writes
 * a handful of flat objects on the hot path, and the only hard part is
 * turning arbitrary argv bytes into valid JSON losslessly.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "json.h"

void sb_reset(struct sbuf *b)
{
	b->len = 0;
	b->oom = false;
}

void sb_free(struct sbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

static bool reserve(struct sbuf *b, size_t more)
{
	if (GROW(b->p, b->cap, b->len + more + 1)) {
		b->oom = true;
		return false;
	}
	return true;
}

void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (!reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void sb_puts(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

void sb_putc(struct sbuf *b, char c)
{
	sb_put(b, &c, 1);
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Decimal digits of v, backwards from end; returns the first. */
static char *digits(char *end, unsigned long long v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

void sb_long(struct sbuf *b, long v)
{
	char buf[24];
	char *e = buf + sizeof(buf);
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v
				     : (unsigned long long)v;
	char *p = digits(e, u);
	if (v < 0)
		*--p = '-';
	sb_put(b, p, (size_t)(e - p));
}

void sb_fixed6(struct sbuf *b, double v)
{
	if (!(v > -9e12 && v < 9e12)) { /* NaN, huge: not worth a fast path */
		sb_printf(b, "%.6f", v);
		return;
	}
	bool neg = v < 0;
	unsigned long long us =
		(unsigned long long)((neg ? -v : v) * 1e6 + 0.5);
	char buf[40];
	char *e = buf + sizeof(buf);
	char *p = e;
	for (int i = 0; i < 6; i++) {
		*--p = (char)('0' + us % 10);
		us /= 10;
	}
	*--p = '.';
	p = digits(p, us);
	if (neg)
		*--p = '-';
	sb_put(b, p, (size_t)(e - p));
}

/* See json.h. The lead byte's range already rules out the overlong 2-byte
 * forms (0xc0, 0xc1) and most of what lies past U+10FFFF. */
size_t utf8_len(const unsigned char *s, size_t n, unsigned *code)
{
	unsigned c = s[0];
	size_t len;
	uint32_t cp;
	if (c < 0x80) {
		if (code)
			*code = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (code)
		*code = cp;
	return len;
}

void sb_json_str(struct sbuf *b, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	/* Worst case is 6 bytes out per byte in; reserve once. */
	if (!reserve(b, n * 6 + 2))
		return;
	char *o = b->p + b->len;
	*o++ = '"';
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			*o++ = (char)c;
			i++;
			continue;
		}
		if (c >= 0x80) {
			size_t l = utf8_len(s + i, n - i, NULL);
			if (l) {
				memcpy(o, s + i, l);
				o += l;
				i += l;
				continue;
			}
			/* Not UTF-8: keep the byte as a lone low surrogate. */
			memcpy(o, "\\udc", 4);
			o[4] = hex[c >> 4];
			o[5] = hex[c & 15];
			o += 6;
			i++;
			continue;
		}
		*o++ = '\\';
		switch (c) {
		case '"':
			*o++ = '"';
			break;
		case '\\':
			*o++ = '\\';
			break;
		case '\n':
			*o++ = 'n';
			break;
		case '\t':
			*o++ = 't';
			break;
		case '\r':
			*o++ = 'r';
			break;
		case '\b':
			*o++ = 'b';
			break;
		case '\f':
			*o++ = 'f';
			break;
		default: /* other controls and DEL */
			memcpy(o, "u00", 3);
			o[3] = hex[c >> 4];
			o[4] = hex[c & 15];
			o += 5;
		}
		i++;
	}
	*o++ = '"';
	b->len = (size_t)(o - b->p);
	b->p[b->len] = 0;
}

void sb_json_key(struct sbuf *b, const char *key)
{
	size_t n = strlen(key);
	if (!reserve(b, n + 4))
		return;
	char *o = b->p + b->len;
	if (b->len && b->p[b->len - 1] != '{')
		*o++ = ',';
	*o++ = '"';
	memcpy(o, key, n);
	o += n;
	*o++ = '"';
	*o++ = ':';
	*o = 0;
	b->len = (size_t)(o - b->p);
}

void sb_json_strv(struct sbuf *b, const char *const *v)
{
	sb_putc(b, '[');
	for (size_t i = 0; v && v[i]; i++) {
		if (i)
			sb_putc(b, ',');
		sb_json_str(b, v[i], strlen(v[i]));
	}
	sb_putc(b, ']');
}
