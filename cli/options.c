/*
 * options.c - `corral run` options, parsed with getopt_long into a
 * corral_config. Kept apart from main() so that the unit tests can check
 * every rule without starting anything.
 *
 * One table (run_table) drives the parser and --help, and the unit test
 * compares it with the man page and docs/cli.md. Messages follow
 * coreutils' wording ("invalid option -- 'Z'", "unrecognized option
 * '--foo'"), prefixed "corral: " by the caller.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "options.h"
#include "usage.h"

enum {
	OPT_TREE = 256,
	OPT_RESULT,
	OPT_PROGRESS,
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
	OPT_PRESERVE,
	OPT_FOREGROUND,
	OPT_BOUNDARY,
	OPT_JOURNAL_STRICT,
	OPT_JOURNAL_KEY,
	OPT_JOURNAL_QUEUE,
	/* --sandbox shaping (docs/sandbox.md) */
	OPT_SANDBOX_USER,
	OPT_DEV_BIND,
	OPT_TMPFS,
	OPT_HOSTNAME,
	OPT_UID,
	OPT_GID,
	OPT_BWRAP,
	OPT_CLEARENV,
	OPT_SETENV,
	OPT_UNSETENV,
	OPT_SANDBOX_GIT,
	OPT_KILL_WAIT,
	OPT_CORE,
	OPT_CORE_FILTER,
	OPT_CORE_DIR,
	OPT_CORE_BUDGET,
};

static const struct cli_opt run_table[] = {
	{"journal", 'j', "FILE", 'j',
	 "write a JSONL journal of every event ('-': stdout)"},
	{"journal-strict", 0, NULL, OPT_JOURNAL_STRICT,
	 "a journal line lost fails the run (exit 125)"},
	{"journal-key", 0, "FILE", OPT_JOURNAL_KEY,
	 "key of the journal's digest chain (default: per run)"},
	{"journal-queue", 0, "SIZE", OPT_JOURNAL_QUEUE,
	 "bytes queued for a slow journal reader (default 64M)"},
	{"tree", 0, NULL, OPT_TREE,
	 "print the process tree to stderr at the end"},
	{"result", 0, "FILE", OPT_RESULT,
	 "write the run's result as one JSON object to FILE (atomically)"},
	{"progress", 0, "DUR", OPT_PROGRESS,
	 "a progress line every DUR (default: on a terminal, 10s then 1m; 0 = "
	 "never)"},
	{"quiet", 'q', NULL, 'q', "print nothing but errors and survivors"},
	{"verbose", 'v', NULL, 'v',
	 "say what is sent to whom when the tree is ended"},
	{"timeout", 't', "DUR", 't', "end the tree after DUR (exit 124)"},
	{"kill-after", 'k', "DUR", 'k',
	 "grace between the first signal and SIGKILL (default 2s)"},
	{"signal", 's', "SIG", 's',
	 "first signal sent to every member (default TERM)"},
	{"preserve-status", 0, NULL, OPT_PRESERVE,
	 "exit with COMMAND's status even after a timeout"},
	{"foreground", 0, NULL, OPT_FOREGROUND,
	 "accepted for timeout(1) compatibility (always so)"},
	{"wait-all", 0, NULL, OPT_WAIT_ALL,
	 "wait for the whole tree, not just COMMAND"},
	{"max-procs", 0, "N", OPT_MAX_PROCS,
	 "end the tree above N live processes (exit 122)"},
	{"no-parent-watch", 0, NULL, OPT_NO_PARENT,
	 "keep running if corral's parent dies"},
	{"stacks", 0, "WHEN", OPT_STACKS,
	 "stacks at timeout,signal,crash,escape,exit-left,snapshot or never"},
	{"core", 0, "WHEN", OPT_CORE,
	 "core files of members at timeout,signal,crash,escape or never "
	 "(default never)"},
	{"core-filter", 0, "WHICH", OPT_CORE_FILTER,
	 "which members: all (default), root, running, name=PROG, max=N"},
	{"core-dir", 0, "DIR", OPT_CORE_DIR,
	 "where the cores go (default JOURNAL.cores, else corral.cores; "
	 "created 0700; no symlink in the path)"},
	{"core-budget", 0, "SIZE[,DUR]", OPT_CORE_BUDGET,
	 "bytes and time for all cores of the run (default 1G,10s)"},
	{"escape", 0, "MODE", OPT_ESCAPE, "escape audit: off, log, deny, kill"},
	{"sandbox", 0, NULL, OPT_SANDBOX, "run COMMAND inside bubblewrap"},
	{"workspace", 0, "DIR", OPT_WORKSPACE,
	 "writable directory in the sandbox (default .)"},
	{"ro-bind", 0, "SRC[:DST]", OPT_RO_BIND,
	 "make SRC visible read-only in the sandbox (at DST)"},
	{"bind", 0, "SRC[:DST]", OPT_BIND,
	 "make SRC visible writable in the sandbox (at DST)"},
	{"share-net", 0, NULL, OPT_SHARE_NET,
	 "keep the network in the sandbox"},
	/* --sandbox shaping (docs/sandbox.md) */
	{"dev-bind", 0, "SRC[:DST]", OPT_DEV_BIND,
	 "bind SRC with device access (at DST)"},
	{"tmpfs", 0, "DIR", OPT_TMPFS, "an empty writable tmpfs at DIR inside"},
	{"sandbox-user", 0, "USER", OPT_SANDBOX_USER,
	 "as root: host USER|UID[:GID] the sandbox runs as"},
	{"sandbox-git", 0, "MODE", OPT_SANDBOX_GIT,
	 "the workspace's .git: ro (default), hooks-ro (commits work), rw"},
	{"hostname", 0, "NAME", OPT_HOSTNAME,
	 "host name inside (default corral)"},
	{"uid", 0, "N", OPT_UID, "uid inside the sandbox"},
	{"gid", 0, "N", OPT_GID, "gid inside the sandbox"},
	{"clearenv", 0, NULL, OPT_CLEARENV,
	 "sandbox environment: only PATH, TERM, HOME kept"},
	{"setenv", 0, "NAME=VALUE", OPT_SETENV,
	 "set a variable in the sandbox"},
	{"unsetenv", 0, "NAME", OPT_UNSETENV,
	 "remove a variable in the sandbox"},
	{"bwrap", 0, "PATH", OPT_BWRAP, "the bubblewrap to run"},
	{"pty", 0, NULL, OPT_PTY, "run COMMAND on a new pseudo-terminal"},
	{"kill-wait", 0, "DUR", OPT_KILL_WAIT,
	 "give up on members still dying after SIGKILL after DUR "
	 "(default 10s, 0 = never; exit 121)"},
	{"boundary", 0, "B", OPT_BOUNDARY,
	 "kernel boundary: auto, landlock (refuse to run without Landlock's "
	 "signal scoping), seccomp"},
	{"help", 'h', NULL, OPT_HELP, "this help"},
	{"version", 'V', NULL, OPT_VERSION, "corral's version"},
};

#define NOPTS (sizeof(run_table) / sizeof(run_table[0]))

const struct cli_opt *cli_run_options(size_t *n)
{
	*n = NOPTS;
	return run_table;
}

void cli_usage_short(FILE *f)
{
	fputs("Usage: corral run [OPTIONS] [--] COMMAND [ARG...]\n"
	      "       corral ps [--stacks|--json] [PID]\n"
	      "       corral probe [--json] [--bwrap PATH]\n"
	      "       corral report [OPTIONS] JOURNAL|-\n"
	      "Try 'corral --help' for more information.\n",
	      f);
}

void cli_help(FILE *f)
{
	fputs("Usage: corral run [OPTIONS] [--] COMMAND [ARG...]\n"
	      "       corral ps [--stacks|--json] [PID]\n"
	      "       corral probe [--json] [--bwrap PATH]\n"
	      "       corral report [--tree] [--format text|md|json] "
	      "[--perfetto OUT]\n"
	      "                     [--html OUT] JOURNAL|-   (corral report "
	      "--help)\n"
	      "       corral verify [--key FILE] [--head HEX] [--lines] "
	      "JOURNAL\n"
	      "       corral --help | --version\n"
	      "\n"
	      "Run COMMAND and supervise every process and thread it creates:\n"
	      "each is known from the kernel's ptrace events, and when the "
	      "run\n"
	      "ends nothing of the tree is left alive.\n"
	      "\n"
	      "Options for run:\n",
	      f);
	for (size_t i = 0; i < NOPTS; i++) {
		const struct cli_opt *o = &run_table[i];
		char left[64];
		int n = snprintf(left, sizeof(left), "  %c%c%c --%s%s%s",
				 o->shrt ? '-' : ' ', o->shrt ? o->shrt : ' ',
				 o->shrt ? ',' : ' ', o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "%s%*s%s\n", left, n < 26 ? 26 - n : 1, "", o->help);
	}
	fputs("\n"
	      "DUR is a number as timeout(1) takes it (1.5, 1e3, 0x10, inf)\n"
	      "with an optional unit: s (default), m, h, d, or ms.\n"
	      "SIG is a name (TERM, SIGQUIT, int) or a number.\n"
	      "\n"
	      "corral ps PID shows the live tree of the corral with that pid\n"
	      "(your own): --stacks adds every thread's stack; without PID it\n"
	      "lists your running corrals. SIGUSR1 to corral prints the same\n"
	      "tree to its stderr (to the journal with -j).\n"
	      "corral probe says whether --sandbox can work here: --json for "
	      "one\n"
	      "JSON object, --bwrap PATH to probe that bubblewrap.\n"
	      "corral verify checks a journal's digest chain: the first line\n"
	      "changed, removed, inserted or reordered, and the chain head.\n"
	      "\n"
	      "Exit status: COMMAND's own; when it died of a signal, corral\n"
	      "dies of the same signal; 121 members still dying at "
	      "--kill-wait;\n"
	      "122 --max-procs; 123 --escape=kill;\n"
	      "124 timeout; 125 corral failed or bad usage; 126 not "
	      "executable;\n"
	      "127 not found; 128+N corral was ended by signal N.\n"
	      "\n"
	      "Documentation: docs/cli.md and corral(1).\n",
	      f);
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
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
	size_t count = 0;
	bool never = false;
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
		never |= names[i].bit == 0;
		count++;
		mask |= names[i].bit;
		p += len;
		if (*p == ',' && *++p == 0)
			return -EINVAL;
	}
	/* "never,timeout" says two opposite things: refuse it. */
	if (never && count > 1)
		return -EINVAL;
	*out = mask;
	return 0;
}

/* "4096", "64K", "64M", "1G" -> bytes (at least 1). */
static int parse_size(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return -EINVAL;
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || v == 0 || v > (SIZE_MAX >> shift))
		return -EINVAL;
	*out = (size_t)(v << shift);
	return 0;
}

/* SIZE[,DUR], ",DUR": either part may be left out (its default). */
static int parse_core_budget(const char *s, struct corral_config *cfg)
{
	size_t n = strcspn(s, ",");
	if (n) {
		char size[32];
		size_t bytes;
		if (n >= sizeof(size))
			return -EINVAL;
		memcpy(size, s, n);
		size[n] = 0;
		if (parse_size(size, &bytes) < 0)
			return -EINVAL;
		cfg->core_budget_bytes = bytes;
	}
	if (s[n] == ',') {
		double v;
		if (corral_parse_duration(s + n + 1, &v) < 0 || v <= 0 ||
		    isinf(v))
			return -EINVAL;
		cfg->core_budget_seconds = v;
	} else if (!n) {
		return -EINVAL;
	}
	return 0;
}

static int parse_boundary(const char *s, enum corral_boundary *b)
{
	static const char *const names[] = {"auto", "landlock", "seccomp"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*b = (enum corral_boundary)i;
			return 0;
		}
	return -EINVAL;
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

int cli_parse_signal(const char *s)
{
	char *end;
	if (!*s)
		return -EINVAL;
	if (*s >= '0' && *s <= '9') {
		errno = 0;
		long v = strtol(s, &end, 10);
		if (errno || *end || v <= 0 || v >= NSIG)
			return -EINVAL;
		return (int)v;
	}
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	if (!strncasecmp(s, "RTMIN", 5) || !strncasecmp(s, "RTMAX", 5)) {
		bool max = !strncasecmp(s, "RTMAX", 5);
		long off = 0;
		if (s[5]) {
			if (s[5] != (max ? '-' : '+'))
				return -EINVAL;
			errno = 0;
			off = strtol(s + 6, &end, 10);
			if (errno || *end || !s[6] || off < 0)
				return -EINVAL;
		}
		long v = max ? SIGRTMAX - off : SIGRTMIN + off;
		if (v < SIGRTMIN || v > SIGRTMAX)
			return -EINVAL;
		return (int)v;
	}
	for (int sig = 1; sig < SIGRTMIN; sig++) {
		const char *n = sigabbrev_np(sig);
		if (n && !strcasecmp(s, n))
			return sig;
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

/* The getopt message for what was refused, in coreutils' words. */
static int bad_option(char **argv, const struct option *lo, char *err,
		      size_t errlen, bool missing)
{
	cli_option_error(argv, lo, missing, err, errlen);
	return -EINVAL;
}

/* --uid/--gid inside the sandbox: 0..4294967294 ((uid_t)-1 is "none"). */
static int parse_id(const char *s, uint32_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || !*s || s[0] < '0' || s[0] > '9' ||
	    v >= 0xffffffffULL)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* The sandbox-only options; 1 if c was not one of them. */
static int parse_sandbox_opt(int c, const char *arg, struct cli_run *o,
			     char *err, size_t errlen)
{
	struct corral_sandbox_opts *so = &o->cfg.sandbox_opts;
	switch (c) {
	case OPT_SANDBOX_USER:
		so->user = arg;
		break;
	case OPT_DEV_BIND:
		if (push(&o->dev, &o->ndev, arg) < 0)
			return fail(err, errlen, "out of memory");
		break;
	case OPT_TMPFS:
		if (push(&o->tmpfs, &o->ntmpfs, arg) < 0)
			return fail(err, errlen, "out of memory");
		break;
	case OPT_SETENV:
		if (push(&o->setenv, &o->nsetenv, arg) < 0)
			return fail(err, errlen, "out of memory");
		break;
	case OPT_UNSETENV:
		if (push(&o->unsetenv, &o->nunsetenv, arg) < 0)
			return fail(err, errlen, "out of memory");
		break;
	case OPT_HOSTNAME:
		so->hostname = arg;
		break;
	case OPT_UID:
	case OPT_GID:
		if (parse_id(arg, c == OPT_UID ? &so->uid : &so->gid) < 0)
			return fail(err, errlen,
				    "invalid %s '%s' (a number, 0 to "
				    "4294967294)",
				    c == OPT_UID ? "--uid" : "--gid", arg);
		if (c == OPT_UID)
			so->set_uid = true;
		else
			so->set_gid = true;
		break;
	case OPT_BWRAP:
		if (!*arg)
			return fail(err, errlen, "invalid --bwrap '' (a path)");
		o->cfg.sandbox.bwrap = arg;
		break;
	case OPT_CLEARENV:
		so->clearenv = true;
		break;
	case OPT_SANDBOX_GIT:
		if (!strcmp(arg, "ro"))
			so->git = CORRAL_SANDBOX_GIT_RO;
		else if (!strcmp(arg, "hooks-ro"))
			so->git = CORRAL_SANDBOX_GIT_HOOKS_RO;
		else if (!strcmp(arg, "rw"))
			so->git = CORRAL_SANDBOX_GIT_RW;
		else
			return fail(err, errlen,
				    "invalid --sandbox-git '%s' (ro, hooks-ro, "
				    "rw)",
				    arg);
		break;
	default:
		return 1;
	}
	o->sandbox_shaped = true;
	return 0;
}

/*
 * Each group of options below: 0 when c was one of its own and is taken,
 * 1 when it was not, or -EINVAL with the message in err.
 */

/* What corral writes and says: the journal, --tree, --result, -q, -v. */
static int parse_output_opt(int c, const char *arg, struct cli_run *o,
			    char *err, size_t errlen)
{
	struct corral_config *cfg = &o->cfg;
	switch (c) {
	case 'j':
		if (!*arg)
			return fail(err, errlen,
				    "invalid --journal '': an empty path");
		if (!strcmp(arg, "-")) {
			cfg->journal_fd = STDOUT_FILENO;
			cfg->journal_path = NULL;
		} else {
			cfg->journal_path = arg;
			cfg->journal_fd = -1;
		}
		return 0;
	case OPT_TREE:
		o->tree = true;
		return 0;
	case OPT_RESULT:
		if (!*arg)
			return fail(err, errlen,
				    "invalid --result '': an empty path");
		o->result = arg;
		return 0;
	case OPT_PROGRESS: {
		double v;
		if (corral_parse_duration(arg, &v) < 0)
			return fail(err, errlen,
				    "invalid time interval for "
				    "--progress: '%s'",
				    arg);
		/* 0 and inf: never */
		o->progress = isinf(v) ? 0 : v;
		o->progress_set = true;
		return 0;
	}
	case 'q':
		o->quiet = true;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case OPT_JOURNAL_STRICT:
		cfg->journal_strict = true;
		return 0;
	case OPT_JOURNAL_KEY:
		cfg->journal_key = arg;
		return 0;
	case OPT_JOURNAL_QUEUE:
		if (parse_size(arg, &cfg->journal_queue_max) < 0)
			return fail(err, errlen,
				    "invalid --journal-queue '%s' (bytes, "
				    "with an optional K, M or G)",
				    arg);
		return 0;
	}
	return 1;
}

/* A duration option's value: "inf" is infinity, for the caller to read. */
static int parse_time_opt(const char *name, const char *arg, double *v,
			  char *err, size_t errlen)
{
	if (corral_parse_duration(arg, v) < 0)
		return fail(err, errlen, "invalid time interval for %s: '%s'",
			    name, arg);
	return 0;
}

/* When and how the tree is ended, and what corral waits for. */
static int parse_ending_opt(int c, const char *arg, struct cli_run *o,
			    char *err, size_t errlen)
{
	struct corral_config *cfg = &o->cfg;
	double v;
	switch (c) {
	case 't':
	case 'k':
		if (parse_time_opt(c == 't' ? "--timeout" : "--kill-after", arg,
				   &v, err, errlen) < 0)
			return -EINVAL;
		/* "inf" (and 0, as timeout(1) has it) is no limit. */
		if (c == 't')
			cfg->timeout = isinf(v) ? 0 : v;
		else
			cfg->kill_after = v;
		return 0;
	case OPT_KILL_WAIT:
		if (parse_time_opt("--kill-wait", arg, &v, err, errlen) < 0)
			return -EINVAL;
		cfg->kill_wait = isinf(v) ? 0 : v;
		return 0;
	case 's': {
		int sig = cli_parse_signal(arg);
		if (sig < 0)
			return fail(err, errlen,
				    "invalid signal for --signal: '%s'", arg);
		cfg->end_signal = sig;
		return 0;
	}
	case OPT_PRESERVE:
		o->preserve_status = true;
		return 0;
	case OPT_FOREGROUND:
		o->foreground = true;
		return 0;
	case OPT_WAIT_ALL:
		cfg->wait_all = true;
		return 0;
	case OPT_MAX_PROCS: {
		char *end;
		errno = 0;
		unsigned long n = strtoul(arg, &end, 10);
		if (errno || *end || !*arg || arg[0] == '-' || n == 0 ||
		    n > UINT_MAX)
			return fail(err, errlen,
				    "invalid --max-procs '%s' (a "
				    "positive number)",
				    arg);
		cfg->max_procs = (unsigned)n;
		return 0;
	}
	case OPT_NO_PARENT:
		cfg->watch_parent = false;
		return 0;
	case OPT_PTY:
		cfg->pty = true;
		return 0;
	}
	return 1;
}

/* What is kept of a tree that goes wrong (stacks, cores) and the escape
 * audit with its boundary. */
static int parse_forensics_opt(int c, const char *arg, struct cli_run *o,
			       char *err, size_t errlen)
{
	struct corral_config *cfg = &o->cfg;
	switch (c) {
	case OPT_STACKS:
		if (parse_stacks(arg, &cfg->stacks) < 0)
			return fail(err, errlen,
				    "invalid --stacks '%s' (a comma "
				    "list of timeout, signal, crash, "
				    "escape, exit-left, snapshot; or "
				    "never alone)",
				    arg);
		return 0;
	case OPT_CORE: {
		unsigned when;
		const unsigned ok = CORRAL_STACKS_TIMEOUT |
				    CORRAL_STACKS_SIGNAL | CORRAL_STACKS_CRASH |
				    CORRAL_STACKS_ESCAPE;
		if (parse_stacks(arg, &when) < 0 || (when & ~ok))
			return fail(err, errlen,
				    "invalid --core '%s' (a comma list "
				    "of timeout, signal, crash, "
				    "escape; or never alone)",
				    arg);
		cfg->core = when;
		return 0;
	}
	case OPT_CORE_FILTER:
		cfg->core_filter = arg;
		return 0;
	case OPT_CORE_DIR:
		if (!*arg)
			return fail(err, errlen,
				    "invalid --core-dir '': an empty "
				    "path");
		cfg->core_dir = arg;
		return 0;
	case OPT_CORE_BUDGET:
		if (parse_core_budget(arg, cfg) < 0)
			return fail(err, errlen,
				    "invalid --core-budget '%s' "
				    "(SIZE[,DUR], e.g. 1G,10s or 512M "
				    "or ,5s)",
				    arg);
		return 0;
	case OPT_ESCAPE:
		if (parse_escape(arg, &cfg->escape) < 0)
			return fail(err, errlen,
				    "invalid --escape '%s' (off, log, "
				    "deny, kill)",
				    arg);
		return 0;
	case OPT_BOUNDARY: {
		enum corral_boundary b;
		if (parse_boundary(arg, &b) < 0)
			return fail(err, errlen,
				    "invalid --boundary '%s' (auto, "
				    "landlock, seccomp)",
				    arg);
		cfg->boundary = b;
		return 0;
	}
	}
	return 1;
}

/* --sandbox and the options of the simple sandbox (README): the ones that
 * do not make it "shaped" (parse_sandbox_opt). */
static int parse_sandbox_base_opt(int c, const char *arg, struct cli_run *o,
				  char *err, size_t errlen)
{
	struct corral_sandbox_config *sb = &o->cfg.sandbox;
	switch (c) {
	case OPT_SANDBOX:
		sb->enabled = true;
		return 0;
	case OPT_WORKSPACE:
		sb->workspace = arg;
		return 0;
	case OPT_RO_BIND:
	case OPT_BIND:
		if (push(c == OPT_BIND ? &o->rw : &o->ro,
			 c == OPT_BIND ? &o->nrw : &o->nro, arg) < 0)
			return fail(err, errlen, "out of memory");
		return 0;
	case OPT_SHARE_NET:
		sb->share_net = true;
		return 0;
	}
	return 1;
}

static int (*const opt_groups[])(int c, const char *arg, struct cli_run *o,
				 char *err, size_t errlen) = {
	parse_output_opt,	parse_ending_opt,  parse_forensics_opt,
	parse_sandbox_base_opt, parse_sandbox_opt,
};

/* getopt_long's tables, from run_table. */
static void getopt_tables(struct option lo[NOPTS + 1], char *so)
{
	/* '+': options end at COMMAND, whose own options are its business;
	 * ':': a missing argument is told apart from an unknown option. */
	char *sp = so;
	*sp++ = '+';
	*sp++ = ':';
	for (size_t i = 0; i < NOPTS; i++) {
		const struct cli_opt *t = &run_table[i];
		lo[i] = (struct option){
			t->name, t->arg ? required_argument : no_argument, NULL,
			t->id};
		if (t->shrt) {
			*sp++ = t->shrt;
			if (t->arg)
				*sp++ = ':';
		}
	}
	lo[NOPTS] = (struct option){0, 0, 0, 0};
	*sp = 0;
}

/* After the options: COMMAND, the sandbox's options only with --sandbox,
 * and the lists handed to the config. */
static int finish_run(int argc, char **argv, struct cli_run *o, char *err,
		      size_t errlen)
{
	struct corral_config *cfg = &o->cfg;
	if (optind >= argc)
		return fail(err, errlen, "run: no COMMAND given");
	if (!cfg->sandbox.enabled && (cfg->sandbox.workspace || o->nro ||
				      o->nrw || cfg->sandbox.share_net))
		return fail(err, errlen,
			    "--workspace, --bind, --ro-bind and --share-net "
			    "need --sandbox");
	if (!cfg->sandbox.enabled && o->sandbox_shaped)
		return fail(err, errlen,
			    "--sandbox-user, --dev-bind, --tmpfs, --hostname, "
			    "--uid, --gid, --bwrap, --clearenv, --setenv, "
			    "--unsetenv and --sandbox-git need --sandbox");
	if (cfg->core && (!cfg->core_dir || !*cfg->core_dir)) {
		/* A default place, as gcore and systemd-coredump have one:
		 * beside the journal (JOURNAL.cores), else corral.cores in
		 * the current directory; the library's rules for --core-dir
		 * hold for it (docs/cores.md). */
		const char *jp = cfg->journal_path;
		bool beside = jp && strncmp(jp, "/dev/", 5) &&
			      strncmp(jp, "/proc/", 6);
		if ((size_t)snprintf(o->core_dir, sizeof(o->core_dir), "%s",
				     beside ? jp : "corral") +
			    sizeof(".cores") >
		    sizeof(o->core_dir))
			return fail(err, errlen,
				    "--core: the journal's path is too long "
				    "for the default --core-dir");
		strcat(o->core_dir, ".cores");
		cfg->core_dir = o->core_dir;
	}
	cfg->sandbox.ro_binds = o->ro;
	cfg->sandbox.binds = o->rw;
	cfg->sandbox_opts.dev_binds = o->dev;
	cfg->sandbox_opts.tmpfs = o->tmpfs;
	cfg->sandbox_opts.setenv = o->setenv;
	cfg->sandbox_opts.unsetenv = o->unsetenv;
	cfg->argv = (const char *const *)&argv[optind];
	return 0;
}

int cli_parse_run(int argc, char **argv, struct cli_run *o, char *err,
		  size_t errlen)
{
	memset(o, 0, sizeof(*o));
	corral_config_init(&o->cfg);
	struct option lo[NOPTS + 1];
	char so[2 + 2 * NOPTS + 1];
	getopt_tables(lo, so);
	int c;
	optind = 0; /* full re-initialisation: parsing may happen twice */
	opterr = 0; /* our messages, not getopt's */
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (c == OPT_HELP || c == OPT_VERSION) {
			o->action = c == OPT_HELP ? CLI_HELP : CLI_VERSION;
			return 0;
		}
		if (c == ':')
			return bad_option(argv, lo, err, errlen, true);
		int r = 1;
		for (size_t i = 0;
		     r == 1 && i < sizeof(opt_groups) / sizeof(opt_groups[0]);
		     i++)
			r = opt_groups[i](c, optarg, o, err, errlen);
		if (r < 0)
			return r;
		if (r == 1)
			return bad_option(argv, lo, err, errlen, false);
	}
	return finish_run(argc, argv, o, err, errlen);
}

void cli_run_free(struct cli_run *o)
{
	free(o->ro);
	free(o->rw);
	o->ro = o->rw = NULL;
	free(o->dev);
	free(o->tmpfs);
	free(o->setenv);
	free(o->unsetenv);
	o->dev = o->tmpfs = o->setenv = o->unsetenv = NULL;
}
