/* quote.h - shell-style quoting and terminal-safe text (quote.c). */
#ifndef CORRAL_QUOTE_H
#define CORRAL_QUOTE_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"

/* One argument, quoted so that a shell reads it back unchanged. */
void quote_arg(struct sbuf *b, const char *s);
/* The same for n bytes (a NUL byte among them is shown as \x00). */
void quote_arg_n(struct sbuf *b, const char *s, size_t n);
/* A NULL-terminated argv, each argument quoted, separated by spaces. */
void quote_argv(struct sbuf *b, const char *const *argv);
/* Free text with control characters and non-UTF-8 bytes escaped. */
void quote_text(struct sbuf *b, const char *s);
/* The same for n bytes, NUL bytes included (shown as \x00). */
void quote_text_n(struct sbuf *b, const char *s, size_t n);

/*
 * The tree's branches: the live tree (live.c) and the one a report draws
 * from a journal (report/tree.c) must be the same picture, so one drawer.
 * last[k] says whether the ancestor at depth k was its parent's last
 * child; levels deeper than QUOTE_TREE_MAX_INDENT are not drawn.
 */
#define QUOTE_TREE_MAX_INDENT 40
void quote_tree_branch(struct sbuf *b, int depth, const bool *last);

#endif
