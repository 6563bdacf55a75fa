/*
 * corral/journal.h - check a journal's digest chain (docs/journal.md,
 * "Verifying a journal"): what `corral verify` does. For a program that
 * reads journals and does not supervise anything: it links
 * libcorral-journal (`pkg-config --cflags --libs corral-journal`), which
 * needs neither libseccomp nor libunwind; libcorral has the same functions.
 */
#ifndef CORRAL_PUBLIC_JOURNAL_H
#define CORRAL_PUBLIC_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/*
 * Checking a journal's digest chain (docs/journal.md). Every line gets a
 * verdict; the first problem is named.
 */
enum corral_line_verdict {
	CORRAL_LINE_OK,		    /* follows the line before it, unchanged */
	CORRAL_LINE_CHANGED,	    /* its digest does not match its bytes */
	CORRAL_LINE_INSERTED,	    /* not in the chain; the next line follows
				       the one before it */
	CORRAL_LINE_REMOVED_BEFORE, /* lines missing before it (n jumps) */
	CORRAL_LINE_REORDERED,	    /* n is not the next one */
	CORRAL_LINE_MALFORMED,	    /* no "n"/"h" tail: not a journal line */
	CORRAL_LINE_AFTER_END,	    /* after its run's end line */
	CORRAL_LINE_UNCHECKED,	    /* no key for its run: not checked */
	CORRAL_LINE_MISPLACED,	    /* a start line sealed as written, but
				       not at the place in the file (byte
				       offset, line before it) it names */
};

const char *corral_line_verdict_name(enum corral_line_verdict v);

struct corral_journal_line {
	size_t lineno;	   /* 1-based, in the input */
	unsigned run;	   /* 1-based: runs begin at start lines */
	long long seq;	   /* its "n", -1 if it has none */
	enum corral_line_verdict verdict;
	const char *text;  /* the line, without '\n', not NUL-terminated */
	size_t len;
};

/* Allocated by the caller: corral_journal_check_init() sets size. */
struct corral_journal_check {
	size_t size; /* sizeof(struct corral_journal_check) the caller knows */
	/* In: the key (a --journal-key file's bytes), or NULL for the key
	 * each run's end line discloses; the head recorded elsewhere (hex),
	 * or NULL; a callback for every line (the report uses it to mark
	 * altered lines), or NULL. */
	const unsigned char *key;
	size_t keylen;
	const char *head;
	void (*on_line)(const struct corral_journal_line *l, void *arg);
	void *arg;
	/* Out. */
	bool intact;	   /* every line checked and OK, every run ended,
			      the head matched when given */
	bool keyed;	   /* every run's digests could be checked */
	bool truncated;	   /* a run has no end line */
	bool head_matched;
	size_t lines, runs, bad_lines;
	size_t first_bad;  /* 1-based line of the first problem, 0: none */
	enum corral_line_verdict first_verdict;
	char last_h[65];   /* the last line's digest: the head */
	char why[256];	   /* the first problem in words */
	/* Added with journal schema 4 (docs/journal.md, "A run's place in
	 * the file"); lines are 1-based, 0 for none. */
	unsigned head_run;   /* head given and found: the run it is in */
	size_t head_line;    /* ...and its line */
	size_t proven_first; /* the head proves lines proven_first..head_line:
				its run and the runs chained before it */
	unsigned proven_run; /* the run of proven_first */
	unsigned end_run;    /* the run the last end line belongs to */
	size_t end_first, end_line; /* its first line and that end line */
	unsigned not_intact_runs; /* runs whose end line says corral found
				     the journal changed (journal_intact:
				     false): never intact */
	unsigned misplaced_runs; /* runs not where they were written */
};

/*
 * Check the journal in buf. Returns 0 with the verdict in chk (intact or
 * not), -EINVAL when the input is not a corral journal at all (no line
 * carries a digest; chk->why) or a bad key/head, -ENOMEM. Reads and fills
 * the first chk->size bytes (corral_journal_check_init() first).
 */
int corral_journal_check_buf(const char *buf, size_t len,
			     struct corral_journal_check *chk);
/* The same for everything readable from fd (mapped when it is a file). */
int corral_journal_check_fd(int fd, struct corral_journal_check *chk);

static inline void
corral_journal_check_init(struct corral_journal_check *chk)
{
	__builtin_memset(chk, 0, sizeof(*chk));
	chk->size = sizeof(*chk);
}

/* Shorthands, kept for the programs that use them: set chk->size (the
 * rest as the caller left it), then check. */
static inline int corral_journal_verify(const char *buf, size_t len,
					struct corral_journal_check *chk)
{
	chk->size = sizeof(*chk);
	return corral_journal_check_buf(buf, len, chk);
}

static inline int corral_journal_verify_fd(int fd,
					   struct corral_journal_check *chk)
{
	chk->size = sizeof(*chk);
	return corral_journal_check_fd(fd, chk);
}

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
