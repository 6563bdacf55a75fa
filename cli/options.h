/* options.h - parsing `corral run` options into a corral_config. */
#ifndef CORRAL_CLI_OPTIONS_H
#define CORRAL_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "corral.h"

enum cli_action { CLI_RUN, CLI_HELP, CLI_VERSION };

struct cli_run {
	struct corral_config cfg;
	enum cli_action action;
	bool tree, quiet, verbose, preserve_status, foreground;
	const char **ro, **rw; /* --ro-bind, --bind (NULL-terminated) */
	size_t nro, nrw;
	/* --dev-bind, --tmpfs, --setenv, --unsetenv (NULL-terminated) */
	const char **dev, **tmpfs, **setenv, **unsetenv;
	size_t ndev, ntmpfs, nsetenv, nunsetenv;
	bool sandbox_shaped; /* a sandbox-only option was given */
	const char *result;  /* --result FILE */
	double progress;     /* --progress DUR (0: never) */
	bool progress_set;   /* --progress was given */
	char core_dir[4096]; /* --core without --core-dir: the default */
};

/*
 * One option of `corral run`: the parser, --help, and the test that keeps
 * docs/corral.1 and docs/cli.md in step (tests/unit/test_options.c) all
 * read this table.
 */
struct cli_opt {
	const char *name; /* long name */
	char shrt;	  /* short letter, 0 if none */
	const char *arg;  /* argument name, NULL for a flag */
	int id;		  /* getopt value */
	const char *help; /* one line for --help */
};

const struct cli_opt *cli_run_options(size_t *n);

/*
 * Parse the arguments after "run" (argv[0] is "run"). Returns 0, or
 * -EINVAL with a message for the user in err. Nothing is started.
 */
int cli_parse_run(int argc, char **argv, struct cli_run *o, char *err,
		  size_t errlen);
void cli_run_free(struct cli_run *o);

/* "TERM", "SIGterm", "15", "RTMIN+2" -> signal number; -EINVAL. */
int cli_parse_signal(const char *s);

/* corral --help (complete) and the short usage of a bare `corral`. */
void cli_help(FILE *f);
void cli_usage_short(FILE *f);

#endif
