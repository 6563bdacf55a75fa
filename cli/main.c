/*
 * main.c - the dispatcher: `corral SUBCOMMAND ...` to the file of that
 * sub-command (commands.h), and the global --help and --version. What a
 * sub-command does and says is in its own file (run.c, ps.c, ...).
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "corral.h"
#include "options.h"
#include "usage.h"

struct command {
	const char *name;
	int (*main)(int argc, char **argv);
};

static int run_main(int argc, char **argv);

static const struct command commands[] = {
	{"run", run_main},
	{"ps", corral_ps_main},
	{"probe", corral_probe_main},
	{"report", corral_report_main},
	{"verify", corral_verify_main},
	{"diff", corral_diff_main},
};

/* `corral run` also needs corral's own argv (corral_config.self_argv). */
static char **self_argv;

static int run_main(int argc, char **argv)
{
	return corral_run_main(argc, argv, self_argv);
}

int main(int argc, char **argv)
{
	self_argv = argv;
	if (argc < 2) {
		cli_usage_short(stderr);
		return CORRAL_EXIT_INTERNAL;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_help(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("corral %s\n", CORRAL_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].main(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		/* `corral -t 5 make`: options belong to a sub-command */
		return cli_usage_error(
			NULL,
			"unrecognized option '%s' (options follow the "
			"command: corral run %s ...)",
			argv[1], argv[1]);
	/* `corral make`: a program's name where a sub-command goes */
	return cli_usage_error(
		NULL,
		"unknown command '%s' (to run a program: corral run %s ...)",
		argv[1], argv[1]);
}
