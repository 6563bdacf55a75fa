/*
 * options.c - `corral run` options, parsed with getopt_long into a
 * corral_config. Kept apart from main() so that the unit tests can check
 * every rule without starting anything.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

enum {
	OPT_TREE = 256,
	OPT_WAIT_ALL,
	OPT_MAX_PROCS,
	OPT_NO_PARENT,
	OPT_STACKS,
	OPT_ESCAPE,
	OPT_SANDBOX,
	OPT_WORKSPACE,
	OPT_RO_BIND,
	OPT_BIND,
	OPT_SHARE_NET,
	OPT_PTY,
	OPT_HELP,
	OPT_VERSION,
};

static const struct option run_opts[] = {
	{"journal", required_argument, 0, 'j'},
	{"tree", no_argument, 0, OPT_TREE},
	{"quiet", no_argument, 0, 'q'},
	{"timeout", required_argument, 0, 't'},
	{"kill-after", required_argument, 0, 'k'},
	{"wait-all", no_argument, 0, OPT_WAIT_ALL},
	{"max-procs", required_argument, 0, OPT_MAX_PROCS},
	{"no-parent-watch", no_argument, 0, OPT_NO_PARENT},
	{"stacks", required_argument, 0, OPT_STACKS},
	{"escape", required_argument, 0, OPT_ESCAPE},
	{"sandbox", no_argument, 0, OPT_SANDBOX},
	{"workspace", required_argument, 0, OPT_WORKSPACE},
	{"ro-bind", required_argument, 0, OPT_RO_BIND},
	{"bind", required_argument, 0, OPT_BIND},
	{"share-net", no_argument, 0, OPT_SHARE_NET},
	{"pty", no_argument, 0, OPT_PTY},
	{"help", no_argument, 0, OPT_HELP},
	{"version", no_argument, 0, OPT_VERSION},
	{0, 0, 0, 0},
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_stacks(const char *s, unsigned *out)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {
		{"timeout", CORRAL_STACKS_TIMEOUT},
		{"signal", CORRAL_STACKS_SIGNAL},
		{"crash", CORRAL_STACKS_CRASH},
		{"escape", CORRAL_STACKS_ESCAPE},
		{"exit-left", CORRAL_STACKS_EXITLEFT},
		{"snapshot", CORRAL_STACKS_SNAPSHOT},
		{"never", 0},
	};
	unsigned mask = 0;
	const char *p = s;
	if (!*s)
		return -EINVAL;
	while (*p) {
		size_t len = strcspn(p, ",");
		size_t i;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == len &&
			    !strncmp(p, names[i].name, len))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -EINVAL;
		mask |= names[i].bit;
		p += len;
		if (*p == ',' && *++p == 0)
			return -EINVAL;
	}
	*out = mask;
	return 0;
}

static int parse_escape(const char *s, enum corral_escape_mode *m)
{
	static const char *const modes[] = {"off", "log", "deny", "kill"};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(s, modes[i])) {
			*m = (enum corral_escape_mode)i;
			return 0;
		}
	return -EINVAL;
}

static int push(const char ***v, size_t *n, const char *s)
{
	const char **nv = realloc(*v, (*n + 2) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = s;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

int cli_parse_run(int argc, char **argv, struct cli_run *o, char *err,
		  size_t errlen)
{
	memset(o, 0, sizeof(*o));
	corral_config_init(&o->cfg);
	struct corral_config *cfg = &o->cfg;
	int c;
	optind = 0; /* full re-initialisation: parsing may happen twice */
	opterr = 0; /* our messages, not getopt's */
	/* '+': options end at COMMAND, whose own options are its business. */
	while ((c = getopt_long(argc, argv, "+:j:qt:k:", run_opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'j':
			cfg->journal_path = optarg;
			break;
		case OPT_TREE:
			o->tree = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 't':
		case 'k':
			if (corral_parse_duration(optarg, c == 't'
								  ? &cfg->timeout
								  : &cfg->kill_after) < 0)
				return fail(err, errlen,
					    "invalid duration for %s: '%s'",
					    c == 't' ? "--timeout"
						     : "--kill-after",
					    optarg);
			break;
		case OPT_WAIT_ALL:
			cfg->wait_all = true;
			break;
		case OPT_MAX_PROCS: {
			char *end;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' ||
			    v == 0 || v > UINT_MAX)
				return fail(err, errlen,
					    "invalid --max-procs '%s' (a "
					    "positive number)",
					    optarg);
			cfg->max_procs = (unsigned)v;
			break;
		}
		case OPT_NO_PARENT:
			cfg->watch_parent = false;
			break;
		case OPT_STACKS:
			if (parse_stacks(optarg, &cfg->stacks) < 0)
				return fail(err, errlen,
					    "invalid --stacks '%s' (timeout, "
					    "signal, crash, escape, exit-left, "
					    "snapshot, never)",
					    optarg);
			break;
		case OPT_ESCAPE:
			if (parse_escape(optarg, &cfg->escape) < 0)
				return fail(err, errlen,
					    "invalid --escape '%s' (off, log, "
					    "deny, kill)",
					    optarg);
			break;
		case OPT_SANDBOX:
			cfg->sandbox.enabled = true;
			break;
		case OPT_WORKSPACE:
			cfg->sandbox.workspace = optarg;
			break;
		case OPT_RO_BIND:
		case OPT_BIND:
			if (push(c == OPT_BIND ? &o->rw : &o->ro,
				 c == OPT_BIND ? &o->nrw : &o->nro, optarg) < 0)
				return fail(err, errlen, "out of memory");
			break;
		case OPT_SHARE_NET:
			cfg->sandbox.share_net = true;
			break;
		case OPT_PTY:
			cfg->pty = true;
			break;
		case OPT_HELP:
			o->action = CLI_HELP;
			return 0;
		case OPT_VERSION:
			o->action = CLI_VERSION;
			return 0;
		case ':':
			return fail(err, errlen, "option '%s' needs a value",
				    argv[optind - 1]);
		default:
			return fail(err, errlen, "unknown option '%s'",
				    argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return fail(err, errlen, "run: no COMMAND given");
	if (!cfg->sandbox.enabled &&
	    (cfg->sandbox.workspace || o->nro || o->nrw ||
	     cfg->sandbox.share_net))
		return fail(err, errlen,
			    "--workspace, --bind, --ro-bind and --share-net "
			    "need --sandbox");
	cfg->sandbox.ro_binds = o->ro;
	cfg->sandbox.binds = o->rw;
	cfg->argv = (const char *const *)&argv[optind];
	return 0;
}

void cli_run_free(struct cli_run *o)
{
	free(o->ro);
	free(o->rw);
	o->ro = o->rw = NULL;
}
