/*
 * probe.c - `corral probe [--json]`: can the sandbox work on this host?
 *
 * Exit 0 when it can, 1 when it cannot (the reason is printed), 125 on a
 * usage error or when probing itself fails. Dispatched from cli/main.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "corral.h"
#include "usage.h"

/* Human-readable report, or one JSON object (keys = field names). */
static int print_probe(FILE *f, const struct corral_probe *p, bool json)
{
	if (!f || !p)
		return -EINVAL;
	if (json) {
		/* strings escaped as the journal escapes them */
		char *j = corral_probe_json(p);
		if (!j)
			return -ENOMEM;
		fprintf(f, "%s\n", j);
		free(j);
	} else {
		if (p->sandbox_ok)
			fprintf(f, "sandbox:          usable\n");
		else
			fprintf(f, "sandbox:          NOT usable: %s\n",
				p->reason);
		if (p->bwrap_found)
			fprintf(f, "bubblewrap:       %s (%s)%s\n",
				p->bwrap_path,
				p->bwrap_version[0] ? p->bwrap_version
						    : "version unknown",
				p->bwrap_setuid
					? ", setuid (its privileges are not "
					  "used under corral)"
					: "");
		else
			fprintf(f, "bubblewrap:       not found\n");
		if (p->bwrap_works)
			fprintf(f, "trial sandbox:    ok (as %s)\n",
				p->trial_user);
		else
			fprintf(f, "trial sandbox:    failed: %s\n",
				p->bwrap_error[0] ? p->bwrap_error
						  : "not tried");
		if (p->userns)
			fprintf(f, "user namespaces:  yes\n");
		else
			fprintf(f, "user namespaces:  no (%s)\n",
				p->userns_error);
		fprintf(f, "seccomp filters:  %s\n", p->seccomp ? "yes" : "no");
		fprintf(f, "ptrace:           %s\n", p->ptrace ? "yes" : "no");
		if (p->yama_ptrace_scope < 0)
			fprintf(f, "yama ptrace_scope: not present\n");
		else
			fprintf(f, "yama ptrace_scope: %d\n",
				p->yama_ptrace_scope);
		fprintf(f, "cgroup v2:        %s\n",
			p->cgroup2 ? p->cgroup2_mount : "not mounted");
		fprintf(f, "running as root:  %s\n", p->is_root ? "yes" : "no");
		if (p->landlock_abi)
			fprintf(f, "landlock:         ABI %d\n",
				p->landlock_abi);
		else
			fprintf(f, "landlock:         not available\n");
		fprintf(f, "boundary:         %s (with --sandbox: %s)\n",
			p->boundary ? p->boundary : "?",
			p->boundary_sandbox ? p->boundary_sandbox : "?");
	}
	return ferror(f) ? -EIO : 0;
}

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
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
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
			return cli_bad_option("probe", argv, opts, c);
		}
	}
	if (optind < argc) {
		return cli_usage_error("probe", "unexpected argument '%s'",
				       argv[optind]);
	}

	struct corral_probe p;
	corral_probe_init(&p);
	int err = corral_probe_host(bwrap, &p);
	if (err) {
		fprintf(stderr, "corral: probe: %s\n", strerror(-err));
		return CORRAL_EXIT_INTERNAL;
	}
	if (print_probe(stdout, &p, json) < 0 || fflush(stdout) != 0)
		return CORRAL_EXIT_INTERNAL;
	return p.sandbox_ok ? 0 : 1;
}
