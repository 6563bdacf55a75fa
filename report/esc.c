/*
 * esc.c - the one way a journal string reaches an output. The model keeps
 * journal strings as struct ustr (report.h); this file alone reads their
 * bytes, and writes them out through the escaper of the output's kind:
 *
 * - terminal text: control bytes (C0, DEL), C1 controls, line and
 *   paragraph separators, bidi marks, embeddings, overrides and isolates,
 *   and bytes that are not UTF-8 are shown as \n, \e, \xHH (quote.c), so
 *   nothing in a journal can move the cursor, rewrite a line, set the
 *   clipboard (OSC 52), swallow what follows (an unterminated OSC) or
 *   reorder a line;
 * - Markdown: the terminal-safe text in a code span whose fence is longer
 *   than any run of backquotes in it (nothing inside a code span is
 *   Markdown, HTML or an autolink), with no '|' at all in a table cell
 *   (shown as \x7c). Not backslash escapes: GitHub's renderer (cmark-gfm)
 *   still makes a mailto: link of "a\@b\.example";
 * - JSON: a string literal (out.c), bytes that are not UTF-8 as \udcXX
 *   (the journal's convention) or \xNN, '<' '>' '&' as \u00XX so the same
 *   text is safe inside the HTML page's <script>.
 *
 * Enumerated fields (reasons, verdicts, signal names, a stack's why) are
 * printed as they are only when they are one of the values corral writes;
 * anything else is shown quoted, so a journal cannot make a value look
 * like one corral wrote.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "names.h"
#include "quote.h"
#include "report.h"

/* ------------------------------------------------------------- ustr */

struct ustr us_dup(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (!p)
		return (struct ustr){0};
	if (n)
		memcpy(p, s, n);
	p[n] = 0;
	return (struct ustr){.p_ = p, .n_ = n};
}

struct ustr us_take(char *p, size_t n)
{
	return (struct ustr){.p_ = p, .n_ = p ? n : 0};
}

void us_free(struct ustr *u)
{
	free(u->p_);
	*u = (struct ustr){0};
}

struct ustr us_lit(const char *s)
{
	return (struct ustr){.p_ = (char *)s, .n_ = s ? strlen(s) : 0};
}

size_t us_len(struct ustr u)
{
	return u.n_;
}

struct ustr us_or(struct ustr u, const char *d)
{
	return u.p_ ? u : us_lit(d);
}

struct ustr us_sub(struct ustr u, size_t off, size_t n)
{
	if (!u.p_)
		return u;
	if (off > u.n_)
		off = u.n_;
	if (n > u.n_ - off)
		n = u.n_ - off;
	return (struct ustr){.p_ = u.p_ + off, .n_ = n};
}

size_t us_strlen(struct ustr u)
{
	return u.p_ ? strnlen(u.p_, u.n_) : 0;
}

size_t us_cspn(struct ustr u, size_t from, const char *set)
{
	size_t i = from;
	for (; i < u.n_; i++)
		if (strchr(set, u.p_[i]) && u.p_[i])
			break;
	return i < u.n_ ? i : u.n_;
}

bool us_eq(struct ustr u, const char *s)
{
	size_t n = strlen(s);
	return u.p_ && u.n_ == n && !memcmp(u.p_, s, n);
}

bool us_prefix(struct ustr u, const char *s)
{
	size_t n = strlen(s);
	return u.p_ && u.n_ >= n && !memcmp(u.p_, s, n);
}

struct ustr us_base(struct ustr u)
{
	if (!u.p_)
		return u;
	for (size_t i = u.n_; i-- > 0;)
		if (u.p_[i] == '/')
			return i + 1 < u.n_ ? us_sub(u, i + 1, u.n_) : u;
	return u;
}

bool us_line(struct ustr u, size_t *pos, struct ustr *line)
{
	if (!u.p_ || *pos >= u.n_)
		return false;
	size_t e = us_cspn(u, *pos, "\n");
	*line = us_sub(u, *pos, e - *pos);
	*pos = e + 1;
	return true;
}

const char *us_key_bytes(struct ustr u, size_t *n)
{
	*n = u.p_ ? u.n_ : 0;
	return u.p_;
}

struct ustr us_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return (struct ustr){0};
	return us_take(s, (size_t)n);
}

char *us_shown(struct ustr u)
{
	struct sbuf b = {0};
	quote_text_n(&b, u.p_ ? u.p_ : "?", u.p_ ? u.n_ : 1);
	sb_put(&b, "", 0);
	if (b.oom) {
		sb_free(&b);
		return NULL;
	}
	return b.p;
}

/* -------------------------------------------------------- escapers */

static void put_sbuf(FILE *f, struct sbuf *b)
{
	if (b->p)
		fwrite(b->p, 1, b->len, f);
	sb_free(b);
}

static void text(FILE *f, struct ustr u)
{
	struct sbuf b = {0};
	quote_text_n(&b, u.p_, u.n_);
	put_sbuf(f, &b);
}

/*
 * A code span around n bytes that are already terminal-safe (no control
 * byte, no line break): the fence is one backquote longer than the longest
 * run inside; a space pads content that starts or ends with a backquote or
 * a space (CommonMark strips one from each side when both are there). In
 * a table cell a '|' would end the cell even inside the span: it is shown
 * as \x7c, as the terminal escaper shows a byte.
 */
static void md_span(FILE *f, const char *s, size_t n, bool table)
{
	size_t run = 0, longest = 0;
	for (size_t i = 0; i < n; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	bool pad = !n || s[0] == '`' || s[0] == ' ' || s[n - 1] == '`' ||
		   s[n - 1] == ' ';
	for (size_t k = 0; k <= longest; k++)
		fputc('`', f);
	if (pad)
		fputc(' ', f);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '|' && table)
			fputs("\\x7c", f);
		else
			fputc(s[i], f);
	}
	if (pad)
		fputc(' ', f);
	for (size_t k = 0; k <= longest; k++)
		fputc('`', f);
}

static void md_code(FILE *f, struct ustr u, bool table)
{
	struct sbuf b = {0};
	quote_text_n(&b, u.p_, u.n_);
	md_span(f, b.p ? b.p : "", b.len, table);
	sb_free(&b);
}

void esc_put(FILE *f, struct ustr u, enum esc_kind k)
{
	if (!u.p_) {
		fputs(k == ESC_JSON || k == ESC_JSON_ASCII ? "null" : "?", f);
		return;
	}
	switch (k) {
	case ESC_TEXT:
		text(f, u);
		break;
	case ESC_MD:
	case ESC_MD_TABLE:
		md_code(f, u, k == ESC_MD_TABLE);
		break;
	case ESC_JSON:
	case ESC_JSON_ASCII:
		out_json_str(f, u.p_, u.n_,
			     k == ESC_JSON ? OUT_JSON : OUT_JSON_ASCII);
		break;
	}
}

void esc_quoted(FILE *f, struct ustr u)
{
	if (!u.p_) {
		fputc('?', f);
		return;
	}
	struct sbuf b = {0};
	quote_arg_n(&b, u.p_, u.n_);
	put_sbuf(f, &b);
}

const char *const esc_reasons[] = {"none",    "exited",	   "timeout", "signal",
				   "parent",  "max-procs", "escape",  "request",
				   "journal", NULL};
const char *const esc_verdicts[] = {"deny", "allow", "setup",
				    "kill", "log",   NULL};
const char *const esc_whys[] = {"timeout",  "signal", "crash", "exit-left",
				"snapshot", "escape", NULL};

static bool known_signal(struct ustr u)
{
	if (!us_prefix(u, "SIG") || u.n_ > 15)
		return false;
	char nb[16];
	for (int s = 1; s <= SIGRTMAX; s++)
		if (us_eq(u, signal_name(s, nb)))
			return true;
	return false;
}

bool esc_known(struct ustr u, const char *const *set)
{
	if (!u.p_)
		return false;
	if (!set)
		return known_signal(u);
	for (; *set; set++)
		if (us_eq(u, *set))
			return true;
	return false;
}

void esc_enum(FILE *f, struct ustr u, const char *const *set, enum esc_kind k)
{
	if (!u.p_ || k == ESC_JSON || k == ESC_JSON_ASCII ||
	    !esc_known(u, set)) {
		if (k == ESC_TEXT)
			esc_quoted(f, u);
		else
			esc_put(f, u, k);
		return;
	}
	fwrite(u.p_, 1, u.n_, f); /* one of ours: letters, digits, '-', '+' */
}

void esc_json_open(FILE *f)
{
	fputc('"', f);
}

void esc_json_piece(FILE *f, struct ustr u, enum esc_kind k)
{
	if (u.p_)
		out_json_chars(f, u.p_, u.n_,
			       k == ESC_JSON_ASCII ? OUT_JSON_ASCII : OUT_JSON);
}

void esc_json_close(FILE *f)
{
	fputc('"', f);
}

void esc_argv(FILE *f, struct ustr argv, int argc, enum esc_kind k)
{
	const char *p = argv.p_;
	size_t len = argv.n_, i = 0;
	if (k == ESC_JSON || k == ESC_JSON_ASCII) {
		fputc('[', f);
		for (int n = 0; p && n < argc && i <= len; n++) {
			size_t l = strnlen(p + i, len - i);
			if (n)
				fputc(',', f);
			out_json_str(f, p + i, l,
				     k == ESC_JSON ? OUT_JSON : OUT_JSON_ASCII);
			i += l + 1;
		}
		fputc(']', f);
		return;
	}
	/* each argument as a shell reads it back (quote.c) */
	struct sbuf b = {0};
	for (int n = 0; p && n < argc && i <= len; n++) {
		size_t l = strnlen(p + i, len - i);
		if (n)
			sb_putc(&b, ' ');
		quote_arg_n(&b, p + i, l);
		i += l + 1;
	}
	if (k == ESC_TEXT)
		put_sbuf(f, &b);
	else {
		md_span(f, b.p ? b.p : "", b.len, k == ESC_MD_TABLE);
		sb_free(&b);
	}
}
