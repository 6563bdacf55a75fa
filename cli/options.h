/* options.h - parsing `corral run` options into a corral_config. */
#ifndef CORRAL_CLI_OPTIONS_H
#define CORRAL_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "corral.h"

enum cli_action { CLI_RUN, CLI_HELP, CLI_VERSION };

struct cli_run {
	struct corral_config cfg;
	enum cli_action action;
	bool tree, quiet;
	const char **ro, **rw; /* --ro-bind, --bind (NULL-terminated) */
	size_t nro, nrw;
};

/*
 * Parse the arguments after "run" (argv[0] is "run"). Returns 0, or
 * -EINVAL with a message for the user in err. Nothing is started.
 */
int cli_parse_run(int argc, char **argv, struct cli_run *o, char *err,
		  size_t errlen);
void cli_run_free(struct cli_run *o);

#endif
