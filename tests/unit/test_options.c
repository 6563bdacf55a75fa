/* test_options.c - `corral run` option parsing and duration syntax. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
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
		assert_int_equal(cli_parse_run(argc, argv, &o, err, sizeof(err)),
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

static void test_durations(void **state)
{
	static const struct {
		const char *s;
		double v;
	} good[] = {{"0", 0},	    {"10", 10},	     {"1.5", 1.5}, {"2s", 2},
		    {"250ms", 0.25}, {"2m", 120},     {"1h", 3600}, {"1d", 86400},
		    {".5", 0.5},    {"0.001s", 0.001}};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		double v = -1;
		assert_int_equal(corral_parse_duration(good[i].s, &v), 0);
		assert_true(v > good[i].v - 1e-9 && v < good[i].v + 1e-9);
	}
	static const char *const bad[] = {"",	 "-1",	"+1",  "1e3", "0x10",
					  "inf", "nan", "1 s", "s",   " 1",
					  "1ss", "1us"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		double v;
		assert_int_equal(corral_parse_duration(bad[i], &v), -EINVAL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_durations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
