/* usage.h - messages and usage errors said one way by every sub-command
 * (docs/cli.md, "Conventions"). */
#ifndef CORRAL_CLI_USAGE_H
#define CORRAL_CLI_USAGE_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * What getopt_long refused (its '?' or, with a leading ':' in the option
 * string, ':' for a missing argument), in coreutils' words: "unrecognized
 * option '--x'", "invalid option -- 'x'", "option '--x' requires an
 * argument", "option '--x' doesn't allow an argument", "option '--s' is
 * ambiguous". Call right after getopt_long returned; writes err.
 */
void cli_option_error(char **argv, const struct option *lo, bool missing,
		      char *err, size_t errlen);

/*
 * "corral: SUB: MESSAGE" (escaped, as cli_say) and "Try 'corral SUB
 * --help' for more information." on stderr; returns 125
 * (CORRAL_EXIT_INTERNAL). SUB NULL:
 * "corral: MESSAGE", "Try 'corral --help' ...".
 */
int cli_usage_error(const char *sub, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* cli_option_error then cli_usage_error: a sub-command's getopt default. */
int cli_bad_option(const char *sub, char **argv, const struct option *lo,
		   int c);

/*
 * "corral: SUB: MESSAGE" on stderr, the message with control characters
 * escaped (a command name, an argv, a path from the tree never reaches the
 * terminal raw). SUB NULL: "corral: MESSAGE".
 */
void cli_say(const char *sub, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * on: cli_say writes through a non-blocking descriptor of stderr's own
 * while the tree runs, so that a stopped terminal or an unread pipe cannot
 * hold corral; a line that does not fit is counted, not written. off:
 * back to stderr; returns how many lines were lost since on.
 */
unsigned long cli_say_nonblocking(bool on);

/* --format's word (text, md, json) as enum corral_report_format, or -1:
 * one spelling for `corral report` and `corral diff`. */
int cli_report_format(const char *s);

#endif
