/*
 * diff.c - `corral diff`: a thin client of corral_diff_* (report/diff*.c).
 *
 *   corral diff [OPTIONS] A B          what B did differently from A
 *   corral diff [OPTIONS] DIR | J...   N runs: what the failing share
 *
 * Exit status as diff(1)'s: 0 no difference, 1 the runs differ, 2 trouble
 * (a journal that cannot be read, an output that cannot be written); 125
 * bad usage (docs/cli.md, "Conventions").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "corral.h"
#include "keyfile.h"
#include "usage.h"

#define DIFF_TROUBLE 2
#define RUNS_MAX     10000
#define PATTERNS_MAX 64

static void usage(FILE *f)
{
	fputs("Usage: corral diff [OPTIONS] A B\n"
	      "       corral diff [OPTIONS] DIR | JOURNAL...\n"
	      "\n"
	      "Say what run B did differently from run A, process by\n"
	      "process (journals of corral run -j; - for stdin). Processes\n"
	      "are matched by program and argv from the root down, never by\n"
	      "pid. More than two runs (a directory, a list) and --html\n"
	      "are not built yet: they exit 2 and say so.\n"
	      "\n"
	      "  --format FMT       text (default), md or json\n"
	      "  --json             same as --format json\n"
	      "  --html FILE        (not built yet) both timelines, one page\n"
	      "  -q, --quiet        no output: the exit status only\n"
	      "  --normalize REGEX  also ignore what REGEX matches in paths\n"
	      "                     and argv when matching (repeatable)\n"
	      "  --no-normalize     not even pids, times, temporary names,\n"
	      "                     addresses (the default patterns)\n"
	      "  --factor F         slower/faster: by more than F times (2)\n"
	      "  --floor SECS       ...and by more than SECS seconds (0.1)\n"
	      "  --group            (not built yet) group runs by result\n"
	      "      --key FILE     the runs' --journal-key\n"
	      "  -h, --help         this help\n"
	      "\n"
	      "Exit status: 0 no difference, 1 the runs differ, 2 trouble,\n"
	      "125 bad usage.\n",
	      f);
}

struct diff_args {
	bool quiet, group, no_defaults;
	enum corral_report_format fmt;
	const char *html, *keyfile;
	double factor, floor;
	const char *patterns[PATTERNS_MAX + 1];
	size_t npatterns;
	char **paths; /* the journals (a directory's, malloc'ed) */
	size_t npaths;
	char **owned; /* paths to free */
};

static int bad_usage(const char *msg, const char *arg)
{
	return cli_usage_error("diff", "%s%s%s", msg, arg ? ": " : "",
			       arg ? arg : "");
}

static int number(const char *s, double *v, const char *what)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || *v != *v)
		return bad_usage(what, s);
	return -1;
}

enum { O_FORMAT = 256, O_JSON, O_HTML, O_NORM, O_NONORM, O_FACTOR, O_FLOOR,
       O_GROUP, O_KEY };

/* One option of getopt_long's answer c; -1 to go on, else exit status. */
static int option(int c, char **argv, const struct option *opts,
		  struct diff_args *a)
{
	int rc;
	switch (c) {
	case 'q':
		a->quiet = true;
		return -1;
	case 'h':
		usage(stdout);
		return 0;
	case O_JSON:
		a->fmt = CORRAL_REPORT_JSON;
		return -1;
	case O_FORMAT:
		if (cli_report_format(optarg) < 0)
			return bad_usage("unknown format", optarg);
		a->fmt = cli_report_format(optarg);
		return -1;
	case O_HTML:
		a->html = optarg;
		return -1;
	case O_NORM:
		if (a->npatterns >= PATTERNS_MAX)
			return bad_usage("too many --normalize", NULL);
		a->patterns[a->npatterns++] = optarg;
		return -1;
	case O_NONORM:
		a->no_defaults = true;
		return -1;
	case O_FACTOR:
		if ((rc = number(optarg, &a->factor, "not a factor")) >= 0)
			return rc;
		if (a->factor <= 1)
			return bad_usage("the factor must be more than 1",
					 optarg);
		return -1;
	case O_FLOOR:
		if ((rc = number(optarg, &a->floor, "not seconds")) >= 0)
			return rc;
		if (a->floor <= 0)
			a->floor = -1; /* none */
		return -1;
	case O_GROUP:
		a->group = true;
		return -1;
	case O_KEY:
		a->keyfile = optarg;
		return -1;
	}
	return cli_bad_option("diff", argv, opts, c);
}

static int parse_args(int argc, char **argv, struct diff_args *a)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, O_FORMAT},
		{"json", no_argument, NULL, O_JSON},
		{"html", required_argument, NULL, O_HTML},
		{"normalize", required_argument, NULL, O_NORM},
		{"no-normalize", no_argument, NULL, O_NONORM},
		{"factor", required_argument, NULL, O_FACTOR},
		{"floor", required_argument, NULL, O_FLOOR},
		{"group", no_argument, NULL, O_GROUP},
		{"key", required_argument, NULL, O_KEY},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	*a = (struct diff_args){.fmt = CORRAL_REPORT_TEXT};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:qh", opts, NULL)) != -1) {
		int rc = option(c, argv, opts, a);
		if (rc >= 0)
			return rc;
	}
	if (a->html && !strcmp(a->html, "-"))
		a->quiet = true; /* the page is the whole output */
	a->paths = argv + optind;
	a->npaths = (size_t)(argc - optind);
	if (a->npaths == 0)
		return bad_usage("which journals? (A B, a directory, or more)",
				 NULL);
	/* Not built yet (docs/diff.md, "Not yet"): said, never a silent
	 * empty answer. */
	if (a->html) {
		cli_say("diff", "--html is not built yet: use --format text, "
				"md or json");
		return DIFF_TROUBLE;
	}
	return -1;
}

static int by_name(const void *x, const void *y)
{
	return strverscmp(*(char *const *)x, *(char *const *)y);
}

/* Add path p (malloc'ed) to a's own list; false when out of memory. */
static bool own(struct diff_args *a, size_t *cap, char *p)
{
	if (a->npaths >= *cap) {
		size_t nc = *cap * 2 + 16;
		char **v = realloc(a->owned, nc * sizeof(*v));
		if (!v)
			return false;
		a->owned = v;
		*cap = nc;
	}
	a->owned[a->npaths++] = p;
	return true;
}

/* The journals of directory dir: its regular files but hidden ones, by
 * name. */
static int from_dir(struct diff_args *a, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		cli_say("diff", "cannot read %s: %s", dir, strerror(errno));
		return DIFF_TROUBLE;
	}
	size_t cap = 0;
	struct dirent *e;
	a->npaths = 0;
	while ((e = readdir(d)) && a->npaths < RUNS_MAX) {
		char *p;
		struct stat st;
		if (e->d_name[0] == '.' ||
		    asprintf(&p, "%s/%s", dir, e->d_name) < 0)
			continue;
		if (stat(p, &st) || !S_ISREG(st.st_mode) || !own(a, &cap, p))
			free(p);
	}
	closedir(d);
	if (a->owned)
		qsort(a->owned, a->npaths, sizeof(*a->owned), by_name);
	a->paths = a->owned;
	a->group = true;
	if (a->npaths < 2) {
		cli_say("diff", "%s: fewer than two journals", dir);
		return DIFF_TROUBLE;
	}
	return -1;
}

/* Say the reader's notes about journal p. */
static void notes(const struct corral_report *r, const char *p)
{
	unsigned long line;
	const char *note;
	for (size_t i = 0; (note = corral_report_note(r, i, &line)); i++) {
		if (line)
			cli_say("diff", "%s: line %lu: %s", p, line, note);
		else
			cli_say("diff", "%s: %s", p, note);
	}
}

static int load(const char *path, const struct corral_report_options *ro,
		struct corral_report **out)
{
	bool in = !strcmp(path, "-");
	int fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		cli_say("diff", "cannot open %s: %s", path, strerror(errno));
		return DIFF_TROUBLE;
	}
	char err[512];
	int e = corral_report_load_opts(fd, in ? "(stdin)" : path, ro, out,
					err, sizeof(err));
	if (!in)
		close(fd);
	if (e < 0) {
		cli_say("diff", "%s: %s", path, *err ? err : strerror(-e));
		return DIFF_TROUBLE;
	}
	notes(*out, path);
	return 0;
}

static int load_all(const struct diff_args *a, struct corral_report **runs)
{
	struct corral_report_options ro;
	corral_report_options_init(&ro);
	unsigned char key[KEYFILE_MAX + 1];
	if (a->keyfile) {
		if (keyfile_read("diff", a->keyfile, key, &ro.keylen) < 0)
			return DIFF_TROUBLE;
		ro.key = key;
	}
	size_t stdin_uses = 0;
	for (size_t i = 0; i < a->npaths; i++)
		if (!strcmp(a->paths[i], "-") && ++stdin_uses > 1) {
			cli_say("diff", "stdin (-) can be read once only");
			return DIFF_TROUBLE;
		}
	for (size_t i = 0; i < a->npaths; i++) {
		int rc = load(a->paths[i], &ro, &runs[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int write_html(const struct corral_diff *d, const char *path)
{
	/* opened as corral opens its journal: no symbolic link followed */
	FILE *f = stdout;
	if (strcmp(path, "-")) {
		char err[512];
		int fd = corral_open_file(path, CORRAL_OPEN_WRITE, err,
					  sizeof(err));
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!f) {
			cli_say("diff", "cannot write: %s",
				fd < 0 ? err : strerror(errno));
			if (fd >= 0)
				close(fd);
			return DIFF_TROUBLE;
		}
	}
	int e = corral_diff_html(d, f);
	if (f != stdout ? fclose(f) : fflush(f))
		e = e ? e : -errno;
	if (e) {
		cli_say("diff", "writing %s failed", path);
		return DIFF_TROUBLE;
	}
	return 0;
}

static int compare(const struct diff_args *a, struct corral_report **runs)
{
	struct corral_diff_options o;
	corral_diff_options_init(&o);
	o.factor = a->factor;
	o.floor = a->floor;
	o.normalize = a->npatterns ? a->patterns : NULL;
	o.flags = (a->no_defaults ? CORRAL_DIFF_NO_DEFAULTS : 0) |
		  (a->group ? CORRAL_DIFF_GROUP : 0);
	struct corral_diff *d;
	char err[256];
	int e = corral_diff_new(runs, a->npaths, &o, &d, err, sizeof(err));
	if (e < 0) {
		if (e == -EINVAL)
			return bad_usage(err, NULL);
		cli_say("diff", "%s", *err ? err : strerror(-e));
		return DIFF_TROUBLE;
	}
	int rc = corral_diff_differs(d);
	if (a->html && write_html(d, a->html))
		rc = DIFF_TROUBLE;
	else if (!a->quiet && corral_diff_write(d, stdout, a->fmt))
		rc = DIFF_TROUBLE;
	if (fflush(stdout))
		rc = DIFF_TROUBLE;
	corral_diff_free(d);
	return rc;
}

int corral_diff_main(int argc, char **argv)
{
	struct diff_args a;
	int rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	struct stat st;
	if (a.npaths == 1 && !stat(a.paths[0], &st) && S_ISDIR(st.st_mode))
		rc = from_dir(&a, a.paths[0]);
	else if (a.npaths == 1)
		rc = bad_usage("two journals or more, or a directory", NULL);
	else if (a.npaths > RUNS_MAX)
		rc = bad_usage("too many journals", NULL);
	struct corral_report **runs = NULL;
	if (rc < 0 && !(runs = calloc(a.npaths, sizeof(*runs)))) {
		cli_say("diff", "out of memory");
		rc = DIFF_TROUBLE;
	}
	if (rc < 0)
		rc = load_all(&a, runs);
	if (!rc && (a.npaths > 2 || a.group)) {
		cli_say("diff", "more than two runs (a directory, a list, "
				"--group) is not built yet: give two journals, "
				"A B");
		rc = DIFF_TROUBLE;
	}
	if (!rc)
		rc = compare(&a, runs);
	for (size_t i = 0; runs && i < a.npaths; i++)
		corral_report_free(runs[i]);
	free(runs);
	for (size_t i = 0; a.owned && i < a.npaths; i++)
		free(a.owned[i]);
	free(a.owned);
	return rc;
}
