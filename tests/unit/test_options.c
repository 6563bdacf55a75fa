/* test_options.c - `corral run` option parsing and duration syntax. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

static int parse(struct cli_run *o, char *err, ...)
{
	static char *argv[32]; /* cfg.argv points into it */
	int argc = 0;
	va_list ap;
	va_start(ap, err);
	for (char *a; (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return cli_parse_run(argc, argv, o, err, 256);
}

static void test_defaults(void **state)
{
	struct cli_run o;
	char err[256];
	assert_int_equal(parse(&o, err, "run", "ls", "-l", NULL), 0);
	assert_string_equal(o.cfg.argv[0], "ls");
	/* COMMAND's own options are not ours. */
	assert_string_equal(o.cfg.argv[1], "-l");
	assert_null(o.cfg.argv[2]);
	assert_true(o.cfg.kill_after == 2.0);
	assert_true(o.cfg.timeout == 0);
	assert_true(o.cfg.watch_parent);
	assert_null(o.cfg.journal_path);
	cli_run_free(&o);
}

static void test_all_options(void **state)
{
	struct cli_run o;
	char err[256];
	assert_int_equal(parse(&o, err, "run", "-j", "j.jsonl", "--tree", "-q",
			       "-t", "1.5m", "-k", "250ms", "--wait-all",
			       "--max-procs", "40", "--no-parent-watch",
			       "--stacks", "timeout,crash", "--escape", "deny",
			       "--sandbox", "--workspace", "/tmp", "--ro-bind",
			       "/etc", "--bind", "/var/tmp", "--share-net",
			       "--", "sh", "-c", "true", NULL),
			 0);
	assert_string_equal(o.cfg.journal_path, "j.jsonl");
	assert_true(o.tree && o.quiet);
	assert_true(o.cfg.timeout == 90.0);
	assert_true(o.cfg.kill_after == 0.25);
	assert_true(o.cfg.wait_all);
	assert_int_equal(o.cfg.max_procs, 40);
	assert_false(o.cfg.watch_parent);
	assert_int_equal(o.cfg.stacks,
			 CORRAL_STACKS_TIMEOUT | CORRAL_STACKS_CRASH);
	assert_int_equal(o.cfg.escape, CORRAL_ESCAPE_DENY);
	assert_true(o.cfg.sandbox.enabled && o.cfg.sandbox.share_net);
	assert_string_equal(o.cfg.sandbox.ro_binds[0], "/etc");
	assert_string_equal(o.cfg.sandbox.binds[0], "/var/tmp");
	assert_string_equal(o.cfg.argv[0], "sh");
	cli_run_free(&o);
}

static void test_rejects(void **state)
{
	struct cli_run o;
	char err[256];
	static const char *const bad[][4] = {
		{"-t", "abc", "true", NULL},
		{"-t", "-1", "true", NULL},
		{"-t", "5x", "true", NULL},
		{"-k", "", "true", NULL},
		{"--max-procs", "0", "true", NULL},
		{"--max-procs", "-3", "true", NULL},
		{"--max-procs", "12a", "true", NULL},
		{"--stacks", "sometimes", "true", NULL},
		{"--stacks", "timeout,", "true", NULL},
		{"--escape", "maybe", "true", NULL},
		{"--core", "exit-left", "true", NULL}, /* not a core moment */
		{"--core", "snapshot", "true", NULL},
		{"--core", "never,crash", "true", NULL},
		{"--core-dir", "", "true", NULL},
		{"--core-budget", "", "true", NULL},
		{"--core-budget", "0", "true", NULL},
		{"--core-budget", "1G,", "true", NULL},
		{"--core-budget", "1G,0", "true", NULL},
		{"--core-budget", "1G,inf", "true", NULL},
		{"--core-budget", "1X", "true", NULL},
		{"--bind", "/tmp", "true", NULL}, /* without --sandbox */
		{"--frobnicate", "true", NULL, NULL},
		{"-t", NULL, NULL, NULL}, /* missing value */
		{NULL, NULL, NULL, NULL}, /* no command */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[6] = {"run"};
		int argc = 1;
		for (int k = 0; k < 4 && bad[i][k]; k++)
			argv[argc++] = (char *)bad[i][k];
		argv[argc] = NULL;
		err[0] = 0;
		assert_int_equal(
			cli_parse_run(argc, argv, &o, err, sizeof(err)),
			-EINVAL);
		assert_true(strlen(err) > 0);
		cli_run_free(&o);
	}
}

static void test_help_version(void **state)
{
	struct cli_run o;
	char err[256];
	assert_int_equal(parse(&o, err, "run", "--help", NULL), 0);
	assert_int_equal(o.action, CLI_HELP);
	assert_int_equal(parse(&o, err, "run", "--version", NULL), 0);
	assert_int_equal(o.action, CLI_VERSION);
}

/* The rules of coreutils timeout(1) (strtod + one suffix), plus "ms". */
static void test_durations(void **state)
{
	static const struct {
		const char *s;
		double v;
	} good[] = {{"0", 0},	       {"10", 10},	{"1.5", 1.5},
		    {"2s", 2},	       {"250ms", 0.25}, {"2m", 120},
		    {"1h", 3600},      {"1d", 86400},	{".5", 0.5},
		    {"0.001s", 0.001}, {"1e3", 1000},	{"0x10", 16},
		    {" 1", 1},	       {"\t2m", 120},	{"+1", 1},
		    {"-0", 0},	       {"1e-400", 0},	{"0x1p4", 16},
		    {"1.5e1s", 15},    {"1E2", 100}};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		double v = -1;
		assert_int_equal(corral_parse_duration(good[i].s, &v), 0);
		assert_true(v > good[i].v - 1e-9 && v < good[i].v + 1e-9);
	}
	double v = 0;
	assert_int_equal(corral_parse_duration("inf", &v), 0);
	assert_true(isinf(v));
	assert_int_equal(corral_parse_duration("infinity", &v), 0);
	assert_true(isinf(v));
	static const char *const bad[] = {
		"",	  "-1",	  "nan", "1 s", "s",   "1ss", "1us", "1e400",
		"1e-310", "-inf", "1 ",	 "x",	"1sx", "1M",  "0x",  "1,5"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(corral_parse_duration(bad[i], &v), -EINVAL);
}

static void test_new_options(void **state)
{
	struct cli_run o;
	char err[256];
	assert_int_equal(parse(&o, err, "run", "-qv", "-s", "QUIT",
			       "--preserve-status", "--foreground", "-t", "inf",
			       "-k", "1e1", "--", "true", NULL),
			 0);
	assert_true(o.quiet && o.verbose && o.preserve_status && o.foreground);
	assert_int_equal(o.cfg.end_signal, SIGQUIT);
	assert_true(o.cfg.timeout == 0); /* inf: no limit, as timeout(1) */
	assert_true(o.cfg.kill_after == 10);
	cli_run_free(&o);
	assert_int_equal(parse(&o, err, "run", "-j", "-", "true", NULL), 0);
	assert_int_equal(o.cfg.journal_fd, 1);
	assert_null(o.cfg.journal_path);
	cli_run_free(&o);
	assert_int_equal(
		parse(&o, err, "run", "--stacks", "never", "true", NULL), 0);
	assert_int_equal(o.cfg.stacks, 0);
	cli_run_free(&o);

	static const struct {
		const char *s;
		int sig;
	} sigs[] = {{"TERM", SIGTERM}, {"sigint", SIGINT},   {"Quit", SIGQUIT},
		    {"9", SIGKILL},    {"SIGUSR1", SIGUSR1}, {"HUP", SIGHUP}};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		assert_int_equal(cli_parse_signal(sigs[i].s), sigs[i].sig);
	assert_int_equal(cli_parse_signal("RTMIN+1"), SIGRTMIN + 1);
	assert_int_equal(cli_parse_signal("RTMAX"), SIGRTMAX);
	static const char *const badsig[] = {"",    "0",	"65", "NOPE",
					     "SIG", "RTMIN+99", "-1", "TERM1"};
	for (size_t i = 0; i < sizeof(badsig) / sizeof(badsig[0]); i++)
		assert_true(cli_parse_signal(badsig[i]) < 0);
}

/* --core and its companions (docs/cores.md). */
static void test_core_options(void **state)
{
	struct cli_run o;
	char err[256];
	assert_int_equal(parse(&o, err, "run", "true", NULL), 0);
	assert_true(o.cfg.core == 0); /* never, by default */
	cli_run_free(&o);
	assert_int_equal(parse(&o, err, "run", "--core", "timeout,crash",
			       "--core-dir", "/var/tmp/c", "--core-filter",
			       "root,max=3", "--core-budget", "512M,2.5s",
			       "true", NULL),
			 0);
	assert_true(o.cfg.core ==
		    (CORRAL_STACKS_TIMEOUT | CORRAL_STACKS_CRASH));
	assert_string_equal(o.cfg.core_dir, "/var/tmp/c");
	assert_string_equal(o.cfg.core_filter, "root,max=3");
	assert_true(o.cfg.core_budget_bytes == 512ull << 20);
	assert_true(o.cfg.core_budget_seconds == 2.5);
	cli_run_free(&o);
	/* either half alone keeps the other's default (0) */
	assert_int_equal(parse(&o, err, "run", "--core-budget", ",5s", "true",
			       NULL),
			 0);
	assert_true(o.cfg.core_budget_bytes == 0);
	assert_true(o.cfg.core_budget_seconds == 5);
	cli_run_free(&o);
	assert_int_equal(parse(&o, err, "run", "--core-budget", "2G", "true",
			       NULL),
			 0);
	assert_true(o.cfg.core_budget_bytes == 2ull << 30);
	assert_true(o.cfg.core_budget_seconds == 0);
	cli_run_free(&o);
	assert_int_equal(parse(&o, err, "run", "--core", "never", "true", NULL),
			 0);
	assert_true(o.cfg.core == 0);
	cli_run_free(&o);
}

/* Each refusal says what is wrong, in coreutils' words. */
static void test_messages(void **state)
{
	static const struct {
		const char *args[4];
		const char *msg;
	} cases[] = {
		{{"-qZ", "true"}, "invalid option -- 'Z'"},
		{{"--tree=yes", "true"},
		 "option '--tree' doesn't allow an argument"},
		{{"--frob", "true"}, "unrecognized option '--frob'"},
		{{"--s", "true"}, "option '--s' is ambiguous"},
		{{"-t"}, "option requires an argument -- 't'"},
		{{"--timeout"}, "option '--timeout' requires an argument"},
		{{"-j", "", "true"}, "invalid --journal '': an empty path"},
		{{"--stacks", "never,timeout", "true"}, "invalid --stacks"},
		{{"-s", "NOPE", "true"}, "invalid signal for --signal: 'NOPE'"},
		{{"-t", "1 s", "true"}, "invalid time interval for --timeout"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[6] = {"run"};
		int argc = 1;
		char err[256] = "";
		struct cli_run o;
		for (int k = 0; k < 4 && cases[i].args[k]; k++)
			argv[argc++] = (char *)cases[i].args[k];
		argv[argc] = NULL;
		assert_int_equal(
			cli_parse_run(argc, argv, &o, err, sizeof(err)),
			-EINVAL);
		if (strncmp(err, cases[i].msg, strlen(cases[i].msg)) != 0)
			fail_msg("%s: got '%s', want '%s'", cases[i].args[0],
				 err, cases[i].msg);
		cli_run_free(&o);
	}
}

/* ------------------------------------------------------------------
 * The option lists of --help, docs/corral.1 and docs/cli.md must be the
 * parser's table, no more, no less (the tests run from the repository's
 * root; run.sh cd's there).
 */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot read %s (run from the repository's root)",
			 path);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	fclose(m);
	return buf;
}

/* Every "--name" in text (after man page unescaping), once. */
static size_t long_options_in(const char *text, char names[][32], size_t max)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, "--")); p += 2) {
		if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '-'))
			continue;
		const char *q = p + 2;
		char name[32];
		size_t k = 0;
		while (k < sizeof(name) - 1 &&
		       (isalnum((unsigned char)*q) || *q == '-')) {
			name[k++] = *q;
			q++;
		}
		name[k] = 0;
		if (!k || !isalpha((unsigned char)name[0]))
			continue;
		size_t i;
		for (i = 0; i < n; i++)
			if (!strcmp(names[i], name))
				break;
		if (i == n && n < max)
			strcpy(names[n++], name);
	}
	return n;
}

/* "\-\-foo" in roff is "--foo". */
static void unroff(char *s)
{
	char *o = s;
	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] == '-') {
			*o++ = '-';
			p++;
		} else if (p[0] == '\\' && p[1] == 'f' && p[2]) {
			p += 2; /* font change */
		} else {
			*o++ = *p;
		}
	}
	*o = 0;
}

/* Options of other commands, allowed in the docs. */
static bool other_command_option(const char *name)
{
	static const char *const others[] = {"json", "bwrap", "stacks", "help",
					     "version",
					     /* corral report */
					     "format", "perfetto", "html", "key"};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		if (!strcmp(name, others[i]))
			return true;
	return false;
}

static void check_doc(const char *what, char *text, bool whole_table)
{
	size_t n;
	const struct cli_opt *t = cli_run_options(&n);
	for (size_t i = 0; i < n; i++) {
		char want[48];
		snprintf(want, sizeof(want), "--%s", t[i].name);
		const char *p = text;
		bool found = false;
		while ((p = strstr(p, want))) {
			char after = p[strlen(want)];
			if (!isalnum((unsigned char)after) && after != '-') {
				found = true;
				break;
			}
			p += strlen(want);
		}
		if (!found)
			fail_msg("%s does not document --%s", what, t[i].name);
		if (t[i].shrt && whole_table) {
			char sh[4] = {'-', t[i].shrt, 0};
			if (!strstr(text, sh))
				fail_msg("%s does not show -%c", what,
					 t[i].shrt);
		}
	}
	/* ...and documents nothing the parser does not know. */
	char names[256][32];
	size_t k = long_options_in(text, names, 256);
	for (size_t i = 0; i < k; i++) {
		size_t j;
		for (j = 0; j < n; j++)
			if (!strcmp(names[i], t[j].name))
				break;
		if (j == n && !other_command_option(names[i]))
			fail_msg("%s documents --%s, which the parser does not "
				 "have",
				 what, names[i]);
	}
}

/* The section of a markdown/roff text between two markers. */
static char *section(char *text, const char *from, const char *to)
{
	char *a = strstr(text, from);
	if (!a)
		fail_msg("no '%s' in the document", from);
	char *b = to ? strstr(a, to) : NULL;
	if (b)
		*b = 0;
	return a;
}

static void test_docs_in_step(void **state)
{
	char *help = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&help, &len);
	cli_help(m);
	fclose(m);
	check_doc("--help", section(help, "Options for run:", "\n\n"), true);
	free(help);

	char *man = slurp("docs/corral.1");
	unroff(man);
	check_doc("docs/corral.1", section(man, ".SH OPTIONS", ".SH SIGNALS"),
		  true);
	free(man);

	char *md = slurp("docs/cli.md");
	check_doc("docs/cli.md", section(md, "| option | meaning |", "\n\n"),
		  true);
	free(md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_new_options),
		cmocka_unit_test(test_core_options),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_docs_in_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
