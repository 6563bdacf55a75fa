/*
 * report.c - `corral report`: a thin client of corral_report_* (report/).
 *
 *   corral report [--tree] [--format text|md|json] [--json]
 *                 [--perfetto OUT] [--html OUT] JOURNAL|-
 *
 * Exit status: 0; 2 when the journal cannot be read (the message names the
 * line); 125 for bad usage or an output file that cannot be written.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
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
	fputs("Usage: corral report [OPTIONS] JOURNAL|-\n"
	      "\n"
	      "Show a run from its journal (corral run -j): a summary on\n"
	      "stdout, or the process tree, and/or write a Perfetto trace\n"
	      "or an HTML timeline.\n"
	      "\n"
	      "  --tree             print the process tree, as run --tree "
	      "does\n"
	      "  --format FMT       summary as text (default), md or json\n"
	      "  --json             same as --format json\n"
	      "  --perfetto FILE    write a Chrome trace-event JSON file\n"
	      "                     (ui.perfetto.dev, chrome://tracing)\n"
	      "  --html FILE        write a self-contained HTML timeline\n"
	      "  -q, --quiet        no summary (with --perfetto or --html)\n"
	      "      --key FILE     the run's --journal-key, to check the\n"
	      "                     digest chain of such a journal\n"
	      "  -h, --help         this help\n"
	      "\n"
	      "Exit status: 0; 2 the journal cannot be read; 125 bad usage.\n",
	      f);
}

static int bad_usage(const char *msg, const char *arg)
{
	return cli_usage_error("report", "%s%s%s", msg, arg ? ": " : "",
			       arg ? arg : "");
}

static int write_out(const struct corral_report *r, const char *path,
		     int (*fn)(const struct corral_report *, FILE *))
{
	/*
	 * Opened as corral opens its journal (corral_open_file): no symbolic
	 * link followed, a regular file truncated only when ours, a FIFO.
	 */
	FILE *f = stdout;
	if (strcmp(path, "-")) {
		char err[512];
		int fd = corral_open_file(path, CORRAL_OPEN_WRITE, err,
					  sizeof(err));
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!f) {
			char *e = corral_escape(fd < 0 ? err : strerror(errno));
			fprintf(stderr, "corral: report: cannot write: %s\n",
				e ? e : "?");
			free(e);
			if (fd >= 0)
				close(fd);
			return -1;
		}
	}
	int e = fn(r, f);
	if (f != stdout) {
		if (fclose(f) && !e)
			e = -errno;
	} else if (fflush(f) && !e) {
		e = -errno;
	}
	if (e) {
		fprintf(stderr, "corral: report: writing %s failed\n", path);
		return -1;
	}
	return 0;
}

/* What the command line asked of `corral report`. */
struct report_args {
	bool tree, quiet;
	enum corral_report_format fmt;
	const char *perfetto, *html, *keyfile, *path;
};

/*
 * Parse the options and the one JOURNAL. Returns -1 to go on, or the exit
 * status (--help, bad usage).
 */
static int parse_args(int argc, char **argv, struct report_args *a)
{
	enum { O_PERFETTO = 256, O_HTML, O_FORMAT, O_JSON, O_KEY };
	static const struct option opts[] = {
		{"tree", no_argument, NULL, 't'},
		{"format", required_argument, NULL, O_FORMAT},
		{"json", no_argument, NULL, O_JSON},
		{"perfetto", required_argument, NULL, O_PERFETTO},
		{"html", required_argument, NULL, O_HTML},
		{"quiet", no_argument, NULL, 'q'},
		{"key", required_argument, NULL, O_KEY},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	*a = (struct report_args){.fmt = CORRAL_REPORT_TEXT};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:qh", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			a->tree = true;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case O_JSON:
			a->fmt = CORRAL_REPORT_JSON;
			break;
		case O_FORMAT:
			if (cli_report_format(optarg) < 0)
				return bad_usage("unknown format", optarg);
			a->fmt = cli_report_format(optarg);
			break;
		case O_PERFETTO:
			a->perfetto = optarg;
			break;
		case O_HTML:
			a->html = optarg;
			break;
		case O_KEY:
			a->keyfile = optarg;
			break;
		default:
			return cli_bad_option("report", argv, opts, c);
		}
	}
	/* a trace or page written to stdout is the whole output */
	if ((a->perfetto && !strcmp(a->perfetto, "-")) ||
	    (a->html && !strcmp(a->html, "-")))
		a->quiet = true;
	if (optind != argc - 1)
		return bad_usage(optind < argc ? "one journal only"
					       : "which journal? (- for stdin)",
				 NULL);
	a->path = argv[optind];
	return -1;
}

/*
 * Read the journal (with --key's key) and say the reader's notes. Returns
 * 0 with *out, or the exit status.
 */
static int load(const struct report_args *a, struct corral_report **out)
{
	const char *path = a->path;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC)
				   : STDIN_FILENO;
	if (fd < 0) {
		fprintf(stderr, "corral: report: cannot open %s: %s\n", path,
			strerror(errno));
		return 2;
	}
	struct corral_report_options ro;
	corral_report_options_init(&ro);
	unsigned char key[KEYFILE_MAX + 1];
	if (a->keyfile) {
		if (keyfile_read("report", a->keyfile, key, &ro.keylen) < 0) {
			if (fd != STDIN_FILENO)
				close(fd);
			return CORRAL_EXIT_INTERNAL;
		}
		ro.key = key;
	}
	char err[512];
	struct corral_report *r;
	int e = corral_report_load_opts(fd,
					strcmp(path, "-") ? path : "(stdin)",
					&ro, &r, err, sizeof(err));
	if (fd != STDIN_FILENO)
		close(fd);
	/* what the journal says reaches the terminal escaped: the message
	 * may quote a line, notes are escaped by the library */
	char *shown = corral_escape(path);
	const char *p = shown ? shown : "?";
	if (e < 0) {
		char *m = corral_escape(*err ? err : strerror(-e));
		fprintf(stderr, "corral: report: %s: %s\n", p, m ? m : "?");
		free(m);
		free(shown);
		return 2;
	}
	unsigned long line;
	const char *note;
	for (size_t i = 0; (note = corral_report_note(r, i, &line)); i++) {
		if (line)
			fprintf(stderr, "corral: report: %s: line %lu: %s\n", p,
				line, note);
		else
			fprintf(stderr, "corral: report: %s: %s\n", p, note);
	}
	free(shown);
	*out = r;
	return 0;
}

int corral_report_main(int argc, char **argv)
{
	struct report_args a;
	int rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	struct corral_report *r;
	rc = load(&a, &r);
	if (rc)
		return rc;
	if (a.perfetto && write_out(r, a.perfetto, corral_report_perfetto) < 0)
		rc = CORRAL_EXIT_INTERNAL;
	if (a.html && write_out(r, a.html, corral_report_html) < 0)
		rc = CORRAL_EXIT_INTERNAL;
	/* an output that could not be written: its error only, not the
	 * summary after it (which would bury it) */
	if (rc)
		;
	else if (a.tree)
		corral_report_tree(r, stdout);
	else if (!a.quiet)
		corral_report_summary(r, stdout, a.fmt);
	if (fflush(stdout))
		rc = CORRAL_EXIT_INTERNAL;
	corral_report_free(r);
	return rc;
}
