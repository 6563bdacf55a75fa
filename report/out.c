/*
 * out.c - writing bytes out again: for a terminal, as JSON (with the
 * journal's own convention for bytes that are not UTF-8), as argv lists.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "quote.h"
#include "report.h"

void out_text(FILE *f, const char *s, size_t n)
{
	/* as the live tree and messages do (tracer/quote.c): nothing a
	 * member chose as its argv may drive the terminal; bytes that are not
	 * UTF-8 are shown as \xHH */
	char *z = malloc(n + 1);
	if (!z)
		return;
	memcpy(z, s, n);
	z[n] = 0;
	struct sbuf b = {0};
	quote_text(&b, z);
	if (b.p)
		fwrite(b.p, 1, b.len, f);
	sb_free(&b);
	free(z);
}

void out_json_str(FILE *f, const char *s, size_t n, int mode)
{
	const unsigned char *u = (const unsigned char *)s;
	fputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = u[i];
		size_t l = utf8_len(u + i, n - i, NULL);
		if (l == 0) {
			if (mode == OUT_JSON_ASCII)
				fprintf(f, "\\\\x%02x", c);
			else
				fprintf(f, "\\udc%02x", c);
			i++;
			continue;
		}
		if (l > 1) {
			fwrite(u + i, 1, l, f);
			i += l;
			continue;
		}
		i++;
		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '<':
		case '>':
		case '&':
			/* the JSON may sit inside a <script> element */
			fprintf(f, "\\u%04x", c);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

void out_argv_text(FILE *f, const char *argv, size_t len, int argc)
{
	/* each argument as a shell reads it back (quote_arg) */
	struct sbuf b = {0};
	size_t i = 0;
	for (int k = 0; argv && k < argc && i <= len; k++) {
		if (k)
			sb_putc(&b, ' ');
		quote_arg(&b, argv + i);
		i += strlen(argv + i) + 1;
	}
	if (b.p)
		fwrite(b.p, 1, b.len, f);
	sb_free(&b);
}

void out_argv_json(FILE *f, const char *argv, size_t len, int argc, int mode)
{
	fputc('[', f);
	size_t i = 0;
	for (int k = 0; argv && k < argc && i <= len; k++) {
		size_t l = strnlen(argv + i, len - i);
		if (k)
			fputc(',', f);
		out_json_str(f, argv + i, l, mode);
		i += l + 1;
	}
	fputc(']', f);
}

void out_num(FILE *f, double v)
{
	/* microsecond resolution, like the journal, without trailing zeros */
	char b[64];
	snprintf(b, sizeof(b), "%.6f", v);
	char *e = b + strlen(b) - 1;
	while (e > b && *e == '0')
		*e-- = 0;
	if (*e == '.')
		*e = 0;
	fputs(b, f);
}
