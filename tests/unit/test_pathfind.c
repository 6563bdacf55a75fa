/*
 * test_pathfind.c - the one PATH search (tracer/base/pathfind.c) under the two
 * sets of rules it serves: execvp's (the command corral runs) and bwrap's
 * (regular files only, empty elements passed over, a non-executable match
 * passed over). Real files in a fresh directory, removed at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathfind.h"

static const struct path_rules exec_rules = {.empty_is_cwd = true,
					     .eacces = true};
static const struct path_rules bwrap_rules = {.regular_only = true};

static char top[] = "/tmp/corral-pathfind.XXXXXX";
static char oldcwd[PATH_MAX];
static char *oldpath;

/* top/<dir>/<name> with mode (a regular file), or a directory/FIFO. */
static void make(const char *dir, const char *name, mode_t mode, char kind)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", top, dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/%s", top, dir, name);
	if (kind == 'd') {
		assert_int_equal(mkdir(p, mode), 0);
	} else if (kind == 'p') {
		assert_int_equal(mkfifo(p, 0644), 0);
		assert_int_equal(chmod(p, mode), 0);
	} else {
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(chmod(p, mode), 0);
	}
}

static void set_path(const char *fmt, ...)
{
	char v[4 * PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	setenv("PATH", v, 1);
}

static int setup(void **state)
{
	if (!mkdtemp(top))
		return -1;
	if (!getcwd(oldcwd, sizeof(oldcwd)))
		return -1;
	const char *p = getenv("PATH");
	oldpath = p ? strdup(p) : NULL;
	make("noexec", "prog", 0644, 'f');
	make("exec", "prog", 0755, 'f');
	make("dir", "prog", 0755, 'd');
	make("fifo", "prog", 0755, 'p');
	make("cwd", "prog", 0755, 'f');
	return 0;
}

static int teardown(void **state)
{
	static const char *const files[] = {"noexec/prog", "exec/prog",
					    "dir/prog",	   "fifo/prog",
					    "cwd/prog",	   NULL};
	static const char *const dirs[] = {"noexec", "exec", "dir",
					   "fifo",   "cwd",  NULL};
	char p[PATH_MAX];
	if (chdir(oldcwd) < 0)
		return -1;
	for (int i = 0; files[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s", top, files[i]);
		remove(p);
	}
	for (int i = 0; dirs[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s", top, dirs[i]);
		rmdir(p);
	}
	if (rmdir(top) < 0)
		return -1;
	if (oldpath)
		setenv("PATH", oldpath, 1);
	else
		unsetenv("PATH");
	free(oldpath);
	return 0;
}

/* The first executable match wins, whatever came before it. */
static void test_first_executable(void **state)
{
	char out[PATH_MAX], want[PATH_MAX];
	set_path("%s/dir:%s/noexec:%s/exec", top, top, top);
	snprintf(want, sizeof(want), "%s/exec/prog", top);
	assert_int_equal(path_find("prog", &exec_rules, out, sizeof(out)), 0);
	assert_string_equal(out, want);
	assert_int_equal(path_find("prog", &bwrap_rules, out, sizeof(out)), 0);
	assert_string_equal(out, want);
	/* nowhere */
	assert_int_equal(path_find("nosuch", &exec_rules, out, sizeof(out)),
			 -ENOENT);
	assert_int_equal(path_find("nosuch", &bwrap_rules, out, sizeof(out)),
			 -ENOENT);
	assert_int_equal(path_find("", &exec_rules, out, sizeof(out)), -ENOENT);
}

/* Found but not executable: execvp says EACCES, bwrap's search passes
 * it over; a directory is never a match. */
static void test_not_executable(void **state)
{
	char out[PATH_MAX];
	set_path("%s/noexec", top);
	assert_int_equal(path_find("prog", &exec_rules, out, sizeof(out)),
			 -EACCES);
	assert_int_equal(path_find("prog", &bwrap_rules, out, sizeof(out)),
			 -ENOENT);
	set_path("%s/dir", top);
	assert_int_equal(path_find("prog", &exec_rules, out, sizeof(out)),
			 -ENOENT);
	assert_int_equal(path_find("prog", &bwrap_rules, out, sizeof(out)),
			 -ENOENT);
}

/* Anything but a directory for execvp (execve itself refuses a FIFO);
 * only a regular file for bwrap's search. */
static void test_kind(void **state)
{
	char out[PATH_MAX], want[PATH_MAX];
	set_path("%s/fifo:%s/exec", top, top);
	snprintf(want, sizeof(want), "%s/fifo/prog", top);
	assert_int_equal(path_find("prog", &exec_rules, out, sizeof(out)), 0);
	assert_string_equal(out, want);
	snprintf(want, sizeof(want), "%s/exec/prog", top);
	assert_int_equal(path_find("prog", &bwrap_rules, out, sizeof(out)), 0);
	assert_string_equal(out, want);
}

/* An empty element is the current directory for execvp only. */
static void test_empty_element(void **state)
{
	char out[PATH_MAX], dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/cwd", top);
	assert_int_equal(chdir(dir), 0);
	static const char *const forms[] = {"%s/noexec:", ":%s/noexec",
					    "%s/noexec::%s/noexec"};
	for (size_t i = 0; i < sizeof(forms) / sizeof(*forms); i++) {
		set_path(forms[i], top, top);
		assert_int_equal(
			path_find("prog", &exec_rules, out, sizeof(out)), 0);
		assert_string_equal(out, "./prog");
		assert_int_equal(
			path_find("prog", &bwrap_rules, out, sizeof(out)),
			-ENOENT);
	}
	/* PATH="": the current directory, or the default list */
	set_path("");
	assert_int_equal(path_find("prog", &exec_rules, out, sizeof(out)), 0);
	assert_string_equal(out, "./prog");
	assert_int_equal(path_find("prog", &bwrap_rules, out, sizeof(out)),
			 -ENOENT);
	assert_int_equal(path_find("sh", &bwrap_rules, out, sizeof(out)), 0);
	assert_true(!strcmp(out, "/usr/local/bin/sh") ||
		    !strcmp(out, "/usr/bin/sh") || !strcmp(out, "/bin/sh"));
	assert_int_equal(path_find("sh", &exec_rules, out, sizeof(out)),
			 -ENOENT);
	/* unset: the default list for both */
	unsetenv("PATH");
	assert_int_equal(path_find("prog", &exec_rules, out, sizeof(out)),
			 -ENOENT);
	assert_int_equal(path_find("sh", &exec_rules, out, sizeof(out)), 0);
	assert_true(!strcmp(out, "/usr/local/bin/sh") ||
		    !strcmp(out, "/usr/bin/sh") || !strcmp(out, "/bin/sh"));
	assert_int_equal(chdir(oldcwd), 0);
}

/* A name with a slash is not searched, only checked. */
static void test_slash(void **state)
{
	char out[PATH_MAX], p[PATH_MAX];
	set_path("%s/exec", top);
	snprintf(p, sizeof(p), "%s/exec/prog", top);
	assert_int_equal(path_find(p, &exec_rules, out, sizeof(out)), 0);
	assert_string_equal(out, p);
	assert_int_equal(path_find(p, &bwrap_rules, out, sizeof(out)), 0);
	/* too long for out */
	assert_int_equal(path_find(p, &bwrap_rules, out, strlen(p)),
			 -ENAMETOOLONG);
	snprintf(p, sizeof(p), "%s/exec/nosuch", top);
	assert_int_equal(path_find(p, &exec_rules, out, sizeof(out)), -ENOENT);
	snprintf(p, sizeof(p), "%s/noexec/prog", top);
	assert_int_equal(path_find(p, &exec_rules, out, sizeof(out)), -EACCES);
	assert_int_equal(path_find(p, &bwrap_rules, out, sizeof(out)), -EACCES);
	snprintf(p, sizeof(p), "%s/dir/prog", top);
	assert_int_equal(path_find(p, &exec_rules, out, sizeof(out)), -EACCES);
	snprintf(p, sizeof(p), "%s/fifo/prog", top);
	assert_int_equal(path_find(p, &exec_rules, out, sizeof(out)), 0);
	assert_int_equal(path_find(p, &bwrap_rules, out, sizeof(out)), -EACCES);
	/* relative, from the current directory */
	snprintf(p, sizeof(p), "%s/cwd", top);
	assert_int_equal(chdir(p), 0);
	assert_int_equal(path_find("./prog", &exec_rules, out, sizeof(out)), 0);
	assert_string_equal(out, "./prog");
	assert_int_equal(chdir(oldcwd), 0);
}

/* A candidate longer than PATH_MAX is passed over, not cut short. */
static void test_long_candidate(void **state)
{
	char out[PATH_MAX];
	char *longdir = malloc(PATH_MAX + 1);
	assert_non_null(longdir);
	memset(longdir, 'a', PATH_MAX);
	longdir[0] = '/';
	longdir[PATH_MAX] = 0;
	set_path("%s:%s/exec", longdir, top);
	free(longdir);
	assert_int_equal(path_find("prog", &exec_rules, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "/exec/prog"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_executable),
		cmocka_unit_test(test_not_executable),
		cmocka_unit_test(test_kind),
		cmocka_unit_test(test_empty_element),
		cmocka_unit_test(test_slash),
		cmocka_unit_test(test_long_candidate),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
