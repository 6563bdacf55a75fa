/*
 * usage.c - messages and usage errors said one way by every sub-command:
 * "corral: [SUB: ]message", escaped (cli_say); for usage errors the same
 * words for a refused option (coreutils' own, which users already know
 * from timeout(1)), the same "Try ... --help" line, the same exit status
 * (125, timeout(1)'s for its own failures). docs/cli.md, "Conventions".
 */
#include "usage.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corral.h"

/*
 * While the tree runs, messages (-v) go through a non-blocking descriptor
 * of stderr's own: a terminal stopped with ^S or a pipe nobody reads must
 * not hold the loop (and with it the tree's grace). What cannot be written
 * then is counted and reported once the run is over.
 */
static int say_fd = -1;
static unsigned long say_dropped;

unsigned long cli_say_nonblocking(bool on)
{
	struct stat st;
	unsigned long dropped = say_dropped;
	say_dropped = 0;
	if (say_fd >= 0)
		close(say_fd);
	say_fd = -1;
	if (on && fstat(STDERR_FILENO, &st) == 0 && !S_ISREG(st.st_mode))
		say_fd = open("/proc/self/fd/2",
			      O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	return dropped;
}

/* cli_say and cli_usage_error's first line. */
static void vsay(const char *sub, const char *fmt, va_list ap)
{
	char buf[2048];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	char *e = corral_escape(buf);
	const char *msg = e ? e : "?", *colon = sub ? ": " : "";
	if (!sub)
		sub = "";
	if (say_fd >= 0) {
		char line[4096];
		int n = snprintf(line, sizeof(line), "corral: %s%s%s\n", sub,
				 colon, msg);
		if (n > (int)sizeof(line) - 1)
			n = (int)sizeof(line) - 1;
		if (write(say_fd, line, (size_t)n) != n)
			say_dropped++;
	} else {
		fprintf(stderr, "corral: %s%s%s\n", sub, colon, msg);
	}
	free(e);
}

void cli_option_error(char **argv, const struct option *lo, bool missing,
		      char *err, size_t errlen)
{
	const char *arg = argv[optind - 1];
	if (strncmp(arg, "--", 2) != 0) {
		snprintf(err, errlen,
			 missing ? "option requires an argument -- '%c'"
				 : "invalid option -- '%c'",
			 optopt);
		return;
	}
	int len = (int)strcspn(arg + 2, "=");
	if (missing) {
		snprintf(err, errlen, "option '%.*s' requires an argument",
			 len + 2, arg);
		return;
	}
	int matches = 0;
	for (const struct option *o = lo; o->name; o++) {
		if (!strncmp(o->name, arg + 2, (size_t)len)) {
			matches++;
			if (strlen(o->name) == (size_t)len) {
				matches = 1;
				break;
			}
		}
	}
	if (matches > 1)
		snprintf(err, errlen, "option '%.*s' is ambiguous", len + 2,
			 arg);
	else if (matches == 1 && arg[2 + len] == '=')
		snprintf(err, errlen, "option '%.*s' doesn't allow an argument",
			 len + 2, arg);
	else
		snprintf(err, errlen, "unrecognized option '%.*s'", len + 2,
			 arg);
}

int cli_usage_error(const char *sub, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(sub, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'corral %s%s--help' for more information.\n",
		sub ? sub : "", sub ? " " : "");
	return CORRAL_EXIT_INTERNAL;
}

int cli_bad_option(const char *sub, char **argv, const struct option *lo, int c)
{
	char err[512];
	/* a required argument missing: ':' with a leading ':' in the
	 * option string; without it getopt says '?' with optopt set to a
	 * known option's letter or value */
	bool missing = c == ':';
	cli_option_error(argv, lo, missing, err, sizeof(err));
	return cli_usage_error(sub, "%s", err);
}

void cli_say(const char *sub, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(sub, fmt, ap);
	va_end(ap);
}

int cli_report_format(const char *s)
{
	if (!strcmp(s, "text"))
		return CORRAL_REPORT_TEXT;
	if (!strcmp(s, "md"))
		return CORRAL_REPORT_MD;
	if (!strcmp(s, "json"))
		return CORRAL_REPORT_JSON;
	return -1;
}
