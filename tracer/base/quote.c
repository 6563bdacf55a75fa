/*
 * quote.c - arguments and messages made safe and unambiguous for a
 * terminal, as a shell would read them back.
 *
 * An argument is printed as is when it is made only of characters no
 * shell treats specially; otherwise in single quotes ('it'\''s'); and when
 * it holds bytes a terminal could act on (control characters, DEL, C1
 * controls encoded in UTF-8, bidi overrides) or bytes that are not UTF-8,
 * in bash's $'...' form with \n, \t, \e, \xHH escapes. So a command's argv
 * printed by --tree keeps its argument boundaries and can be pasted back
 * into bash, and nothing a member chose as its argv can move the cursor,
 * retitle the window, reorder or hide text on the user's terminal.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "corral.h"
#include "json.h"
#include "quote.h"

/*
 * A code point a terminal may act on: C0, DEL, C1, line/para separators;
 * and the bidi marks, embeddings, overrides and isolates (U+200E, U+200F,
 * U+202A-U+202E, U+2066-U+2069), which reorder what follows them on the
 * line: "chain BROKEN" could be drawn to read otherwise.
 */
static bool is_control(unsigned cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 ||
	       cp == 0x2029 || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static bool needs_escape(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		unsigned cp;
		size_t l = utf8_len(u + i, n - i, &cp);
		if (!l || is_control(cp))
			return true;
		i += l;
	}
	return false;
}

static bool plain(const char *s, size_t n)
{
	if (!n)
		return false;
	/* strchr() finds a NUL byte too (the terminator): a NUL among the n
	 * bytes (quote_arg_n) is not plain */
	for (size_t i = 0; i < n; i++)
		if (!s[i] ||
		    !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX"
			    "YZ"
			    "0123456789_@%+=:,./-",
			    s[i]))
			return false;
	return true;
}

static void put_escaped(struct sbuf *b, const char *s, size_t n, bool dollar)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		unsigned cp;
		size_t l = utf8_len(u + i, n - i, &cp);
		if (l && !is_control(cp)) {
			if (dollar && (cp == '\'' || cp == '\\'))
				sb_putc(b, '\\');
			sb_put(b, s + i, l);
			i += l;
			continue;
		}
		if (!l)
			l = 1; /* not UTF-8: one byte at a time */
		for (size_t k = 0; k < l; k++) {
			unsigned char c = u[i + k];
			switch (c) {
			case '\n':
				sb_puts(b, "\\n");
				break;
			case '\t':
				sb_puts(b, "\\t");
				break;
			case '\r':
				sb_puts(b, "\\r");
				break;
			case 0x1b:
				sb_puts(b, "\\e");
				break;
			default:
				sb_printf(b, "\\x%02x", c);
			}
		}
		i += l;
	}
}

void quote_arg(struct sbuf *b, const char *s)
{
	quote_arg_n(b, s, strlen(s));
}

void quote_arg_n(struct sbuf *b, const char *s, size_t n)
{
	if (plain(s, n)) {
		sb_put(b, s, n);
	} else if (needs_escape(s, n)) {
		sb_puts(b, "$'");
		put_escaped(b, s, n, true);
		sb_putc(b, '\'');
	} else {
		sb_putc(b, '\'');
		for (size_t i = 0; i < n; i++) {
			if (s[i] == '\'')
				sb_puts(b, "'\\''");
			else
				sb_putc(b, s[i]);
		}
		sb_putc(b, '\'');
	}
}

void quote_argv(struct sbuf *b, const char *const *argv)
{
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			sb_putc(b, ' ');
		quote_arg(b, argv[i]);
	}
}

void quote_text(struct sbuf *b, const char *s)
{
	put_escaped(b, s, strlen(s), false);
}

void quote_text_n(struct sbuf *b, const char *s, size_t n)
{
	put_escaped(b, s, n, false);
}

static char *finish(struct sbuf *b)
{
	sb_put(b, "", 0); /* allocates and terminates an empty buffer */
	if (b->oom) {
		sb_free(b);
		return NULL;
	}
	return b->p;
}

char *corral_quote(const char *s)
{
	struct sbuf b = {0};
	quote_arg(&b, s ? s : "");
	return finish(&b);
}

char *corral_escape(const char *s)
{
	struct sbuf b = {0};
	quote_text(&b, s ? s : "");
	return finish(&b);
}

void quote_tree_branch(struct sbuf *b, int depth, const bool *last)
{
	const int max = QUOTE_TREE_MAX_INDENT;
	for (int k = 1; k < depth && k <= max; k++)
		sb_puts(b, last[k] ? "   " : "|  ");
	if (depth > max)
		sb_printf(b, "[depth %d] ", depth);
	if (depth)
		sb_puts(b, last[depth <= max ? depth : max] ? "`- " : "|- ");
}
