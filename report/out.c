/*
 * out.c - numbers and JSON string bytes (with the journal's own convention
 * for bytes that are not UTF-8). Journal strings reach an output only
 * through esc.c, which uses these for JSON.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"

void out_json_chars(FILE *f, const char *s, size_t n, int mode)
{
	const unsigned char *u = (const unsigned char *)s;
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
}

void out_json_str(FILE *f, const char *s, size_t n, int mode)
{
	fputc('"', f);
	out_json_chars(f, s, n, mode);
	fputc('"', f);
}

void out_num(FILE *f, double v)
{
	/* a hand-made journal may hold 1e999, which yajl reads as inf: not
	 * a JSON number */
	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	/* microsecond resolution, like the journal, without trailing zeros */
	char b[400]; /* DBL_MAX is 309 digits */
	snprintf(b, sizeof(b), "%.6f", v);
	char *e = b + strlen(b) - 1;
	while (e > b && *e == '0')
		*e-- = 0;
	if (*e == '.')
		*e = 0;
	fputs(b, f);
}
