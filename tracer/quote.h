/* quote.h - shell-style quoting and terminal-safe text (quote.c). */
#ifndef CORRAL_QUOTE_H
#define CORRAL_QUOTE_H

#include "json.h"

/* One argument, quoted so that a shell reads it back unchanged. */
void quote_arg(struct sbuf *b, const char *s);
/* A NULL-terminated argv, each argument quoted, separated by spaces. */
void quote_argv(struct sbuf *b, const char *const *argv);
/* Free text with control characters and non-UTF-8 bytes escaped. */
void quote_text(struct sbuf *b, const char *s);

#endif
