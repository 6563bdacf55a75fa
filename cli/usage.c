/*
 * usage.c - usage errors said one way by every sub-command: the same
 * words for a refused option (coreutils' own, which users already know
 * from timeout(1)), the same "Try ... --help" line, the same exit status
 * (125, timeout(1)'s for its own failures). docs/cli.md, "Conventions".
 */
#include "usage.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "corral.h"

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
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (sub)
		fprintf(stderr,
			"corral: %s: %s\nTry 'corral %s --help' for more "
			"information.\n",
			sub, msg, sub);
	else
		fprintf(stderr,
			"corral: %s\nTry 'corral --help' for more "
			"information.\n",
			msg);
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
