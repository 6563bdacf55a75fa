/*
 * probe.c - `corral probe [--json]`: can the sandbox work on this host?
 *
 * Exit 0 when it can, 1 when it cannot (the reason is printed), 125 on a
 * usage error or when probing itself fails. Dispatched from cli/corral.c.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "corral.h"
#include "sandbox.h"

static void usage(FILE *f)
{
	fputs("usage: corral probe [--json] [--bwrap PATH]\n"
	      "\n"
	      "Check whether `corral run --sandbox` can work on this host:\n"
	      "bubblewrap, user namespaces, seccomp, ptrace, Yama; a trial\n"
	      "sandbox is run with the real profile and policy.\n"
	      "\n"
	      "  --json         one JSON object on stdout\n"
	      "  --bwrap PATH   probe this bwrap instead of the one in PATH\n"
	      "  -h, --help     this help\n"
	      "\n"
	      "Exit status: 0 the sandbox can work, 1 it cannot, 125 usage "
	      "error.\n",
	      f);
}

int corral_probe_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'J'},
		{"bwrap", required_argument, NULL, 'B'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	const char *bwrap = NULL;
	int c;

	/* The dispatcher may already have used getopt on the outer argv. */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'J':
			json = true;
			break;
		case 'B':
			bwrap = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr,
				"corral probe: unknown or incomplete option "
				"'%s'\n",
				argv[optind - 1]);
			usage(stderr);
			return CORRAL_EXIT_INTERNAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "corral probe: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return CORRAL_EXIT_INTERNAL;
	}

	struct sandbox_probe p;
	int err = sandbox_probe(bwrap, &p);
	if (err) {
		fprintf(stderr, "corral probe: %s\n", strerror(-err));
		return CORRAL_EXIT_INTERNAL;
	}
	if (sandbox_probe_print(stdout, &p, json) < 0 || fflush(stdout) != 0)
		return CORRAL_EXIT_INTERNAL;
	return p.sandbox_ok ? 0 : 1;
}
