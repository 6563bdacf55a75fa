/*
 * corral/report.h - read a journal afterwards and show the run: what
 * `corral report` does (docs/report.md). In libcorral-journal
 * (`pkg-config --cflags --libs corral-journal`) and in libcorral.
 */
#ifndef CORRAL_PUBLIC_REPORT_H
#define CORRAL_PUBLIC_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/*
 * Reports (report/, docs/report.md): read a journal afterwards, on any
 * machine, and show the run. A report reads the journal only, never a
 * live supervisor. Any schema corral wrote is accepted; a tail cut by a
 * killed corral is noted and the rest shown (corral_report_note()).
 */
struct corral_report;

enum corral_report_format {
	CORRAL_REPORT_TEXT, /* for a terminal */
	CORRAL_REPORT_MD,   /* Markdown, e.g. a CI step summary */
	CORRAL_REPORT_JSON, /* for programs */
};

/*
 * Read the journal from fd (to its end) or from a buffer. name is what
 * messages call it. -EINVAL: not a journal, or a line that cannot be
 * read; errbuf names the line. -EIO, -ENOMEM: reading failed.
 */
int corral_report_load(int fd, const char *name, struct corral_report **out,
		       char *errbuf, size_t errlen);
int corral_report_load_buffer(const char *buf, size_t len, const char *name,
			      struct corral_report **out, char *errbuf,
			      size_t errlen);
/* What a load can be told; size first (corral_report_options_init()), new
 * fields appended at the end. */
struct corral_report_options {
	size_t size; /* sizeof(struct corral_report_options) the caller knows */
	/* The key a run was given with --journal-key (the file's bytes), to
	 * check the digest chain of such a run; NULL: the key each run's end
	 * line discloses. */
	const unsigned char *key;
	size_t keylen;
};
static inline void
corral_report_options_init(struct corral_report_options *o)
{
	__builtin_memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
}
/* corral_report_load() with options (opts may be NULL). */
int corral_report_load_opts(int fd, const char *name,
			    const struct corral_report_options *opts,
			    struct corral_report **out, char *errbuf,
			    size_t errlen);
/* The summary; the process tree (as `corral run --tree` prints it). */
int corral_report_summary(const struct corral_report *r, FILE *f,
			  enum corral_report_format fmt);
int corral_report_tree(const struct corral_report *r, FILE *f);
/* Chrome trace-event JSON, for ui.perfetto.dev and chrome://tracing. */
int corral_report_perfetto(const struct corral_report *r, FILE *f);
/* One self-contained HTML page with the run as a timeline. */
int corral_report_html(const struct corral_report *r, FILE *f);
/* Note i about the journal (cut tail, unknown events...), NULL past the
 * last; *line is the line it is about, 0 for the whole journal. A note
 * may quote the journal: it is given escaped for a terminal (control
 * bytes, C1, bidi overrides and non-UTF-8 bytes as \e, \xHH...). */
const char *corral_report_note(const struct corral_report *r, size_t i,
			       unsigned long *line);
void corral_report_free(struct corral_report *r);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
