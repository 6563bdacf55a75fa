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

/*
 * Diffs (report/diff*.c, docs/diff.md): what one run did differently from
 * another, process by process, matched by what each process is (its
 * program and argv from the root down, its place among siblings of the
 * same program, its exec chain), never by pid. Over more than two runs
 * (CORRAL_DIFF_GROUP): the runs are grouped by result into passing and
 * failing, and what every failing run shares that no passing one has is
 * said. `corral diff` is a thin client of these.
 */
struct corral_diff;

enum corral_diff_flags {
	/* no default normalisation of volatile parts (pids, times,
	 * temporary names, addresses): only the caller's patterns */
	CORRAL_DIFF_NO_DEFAULTS = 1,
	/* group the runs by result even when there are only two */
	CORRAL_DIFF_GROUP = 2,
};

/* What a diff can be told; size first (corral_diff_options_init()), new
 * fields appended at the end. */
struct corral_diff_options {
	size_t size; /* sizeof(struct corral_diff_options) the caller knows */
	/* A matched process is slower (faster) when its duration is more
	 * than factor times the other's (0: 2) and by more than floor
	 * seconds (0: 0.1; negative: no floor). */
	double factor;
	double floor;
	/* More volatile parts: POSIX extended regular expressions whose
	 * matches in a path or an argv element are ignored when matching
	 * (NULL-terminated; NULL: none). */
	const char *const *normalize;
	unsigned flags; /* enum corral_diff_flags */
};
static inline void corral_diff_options_init(struct corral_diff_options *o)
{
	__builtin_memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
}
/*
 * Compare runs[0] (the reference, A) with runs[1] (B), or group n >= 2
 * runs. The reports must outlive the diff. -EINVAL: n < 2, or a pattern
 * that does not compile (errbuf says which); -ENOMEM.
 */
int corral_diff_new(struct corral_report *const *runs, size_t n,
		    const struct corral_diff_options *opts,
		    struct corral_diff **out, char *errbuf, size_t errlen);
/* 1 when the runs differ (diff(1)'s exit status), 0 when not. */
int corral_diff_differs(const struct corral_diff *d);
/* The diff as text, Markdown or JSON (docs/diff.md: the keys). */
int corral_diff_write(const struct corral_diff *d, FILE *f,
		      enum corral_report_format fmt);
/* One self-contained HTML page: both timelines aligned by match. */
int corral_diff_html(const struct corral_diff *d, FILE *f);
void corral_diff_free(struct corral_diff *d);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
