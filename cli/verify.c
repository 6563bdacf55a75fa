/*
 * verify.c - `corral verify JOURNAL [--key FILE] [--head HEX] [--lines]`:
 * check a journal's digest chain (corral_journal_check_fd, docs/journal.md).
 *
 * Exit status: 0 every line checked and intact; 1 the journal was changed,
 * truncated, or could not be checked (no key: a run without its end line);
 * 2 not a journal, unreadable, or bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "corral.h"
#include "keyfile.h"
#include "usage.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: corral verify [--key FILE] [--head HEX] [--lines] "
		"JOURNAL\n"
		"\n"
		"Check the digest chain of a corral journal (- for stdin):\n"
		"name the first line that was changed, removed, inserted or\n"
		"reordered, or a truncated end, and print the chain head.\n"
		"\n"
		"  --key FILE   the key given to run --journal-key (else each\n"
		"               run's end line discloses its own key)\n"
		"  --head HEX   the head recorded when the run ended "
		"(corral's\n"
		"               stderr): proves the journal is the one "
		"written\n"
		"  --lines      print every line's verdict\n"
		"  -h, --help   this help\n"
		"\n"
		"Exit status: 0 intact, 1 changed or not checkable, 2 not a\n"
		"journal or unreadable, 125 bad usage.\n");
}

/* Each run's lines and how many of them are bad (--head says per run). */
struct runs {
	bool print; /* --lines */
	size_t n, cap;
	struct run {
		size_t first, last, bad;
	} * v;
};

static void on_line(const struct corral_journal_line *l, void *arg)
{
	struct runs *rs = arg;
	if (rs->print)
		printf("%zu run=%u n=%lld %s\n", l->lineno, l->run, l->seq,
		       corral_line_verdict_name(l->verdict));
	if (l->run > rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 16;
		while (cap < l->run)
			cap *= 2;
		struct run *v = realloc(rs->v, cap * sizeof(*v));
		if (!v)
			return;
		memset(v + rs->cap, 0, (cap - rs->cap) * sizeof(*v));
		rs->v = v;
		rs->cap = cap;
	}
	struct run *r = &rs->v[l->run - 1];
	if (!r->first)
		r->first = l->lineno;
	r->last = l->lineno;
	if (l->verdict != CORRAL_LINE_OK && l->verdict != CORRAL_LINE_UNCHECKED)
		r->bad++;
	if (l->run > rs->n)
		rs->n = l->run;
}

/*
 * With --head: which run the head proves, and what every other run of the
 * file is (docs/journal.md, "A run's place in the file").
 */
static void per_run(const char *path, const struct corral_journal_check *c,
		    const struct runs *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		const struct run *r = &rs->v[i];
		unsigned k = (unsigned)i + 1;
		char what[256];
		if (!c->head_run)
			snprintf(what, sizeof(what),
				 "NOT proven (the recorded head is in no run)");
		else if (r->bad && k <= c->head_run && k >= c->proven_run)
			snprintf(what, sizeof(what),
				 "%s the recorded head, but NOT intact",
				 k == c->head_run ? "holds" : "is chained to");
		else if (k == c->head_run && c->head_line == r->last)
			snprintf(what, sizeof(what),
				 "ends at the recorded head: proven");
		else if (k == c->head_run)
			snprintf(what, sizeof(what),
				 "holds the recorded head at line %zu: proven "
				 "up to it; lines %zu-%zu were appended after "
				 "it, NOT proven",
				 c->head_line, c->head_line + 1, r->last);
		else if (k > c->head_run)
			snprintf(what, sizeof(what),
				 "appended after the recorded head: NOT "
				 "proven");
		else if (k >= c->proven_run)
			snprintf(what, sizeof(what),
				 "proven: the start line of the run after it "
				 "names its last line");
		else
			snprintf(what, sizeof(what),
				 "NOT proven by the head: run %u's start line "
				 "does not name the line before it",
				 c->proven_run);
		printf("corral verify: %s: run %u (lines %zu-%zu): %s", path, k,
		       r->first, r->last, what);
		if (r->bad)
			printf("; %zu bad line%s", r->bad,
			       r->bad == 1 ? "" : "s");
		printf("\n");
	}
}

int corral_verify_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"key", required_argument, 0, 'k'},
		{"head", required_argument, 0, 'H'},
		{"lines", no_argument, 0, 'l'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	static unsigned char key[KEYFILE_MAX + 1];
	struct corral_journal_check chk;
	corral_journal_check_init(&chk);
	struct runs rs = {0};
	chk.on_line = on_line;
	chk.arg = &rs;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (keyfile_read("verify", optarg, key, &chk.keylen) <
			    0)
				return 2;
			chk.key = key;
			break;
		case 'H':
			chk.head = optarg;
			break;
		case 'l':
			rs.print = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return cli_bad_option("verify", argv, opts, c);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("verify", optind < argc
							 ? "one journal only"
							 : "which journal? (- "
							   "for stdin)");
	const char *path = argv[optind];
	if (chk.head && (strlen(chk.head) != 64 ||
			 strspn(chk.head, "0123456789abcdef") != 64)) {
		return cli_usage_error("verify",
				       "--head: 64 lowercase hex digits "
				       "expected");
	}
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		fprintf(stderr, "corral verify: %s: %s\n", path,
			strerror(errno));
		return 2;
	}
	int r = corral_journal_check_fd(fd, &chk);
	if (fd)
		close(fd);
	if (r < 0) {
		fprintf(stderr, "corral verify: %s: %s\n", path,
			*chk.why ? chk.why : strerror(-r));
		return 2;
	}
	if (chk.intact) {
		printf("corral verify: %s: intact: %zu lines, %zu run%s%s\n",
		       path, chk.lines, chk.runs, chk.runs == 1 ? "" : "s",
		       chk.head ? ", ends at the recorded head"
				: (chk.key ? ", keyed"
					   : " (checked with the key the end "
					     "line discloses: give --head to "
					     "prove it is the journal "
					     "written)"));
	} else {
		printf("corral verify: %s: NOT intact: %s\n", path,
		       *chk.why ? chk.why
				: "a run could not be checked (no key)");
		if (!chk.keyed && !chk.key)
			printf("corral verify: %s: a run has no end line to "
			       "disclose its key; --key FILE if one was "
			       "given\n",
			       path);
	}
	if (chk.head)
		per_run(path, &chk, &rs);
	/* a journal whose last line is cut or not sealed: no
	 * head to give, rather than an empty one */
	if (chk.last_h[0])
		printf("head %s\n", chk.last_h);
	else
		printf("head: none (its last line is not a sealed line)\n");
	free(rs.v);
	return chk.intact ? 0 : 1;
}
