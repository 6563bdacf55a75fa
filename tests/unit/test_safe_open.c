/*
 * test_safe_open.c - safe_open() (tracer/base/safe_open.c), how corral opens
 * the files it writes and its key file: no symbolic link followed (as the file,
 * as a directory of the path; with openat2 and with the walk a kernel without
 * it gets), only a regular file, a FIFO or /dev/null, a file truncated only
 * when the effective uid owns it and it has one link, a new one made 0600 with
 * O_EXCL, nothing inside a forbidden directory (the sandbox's workspace).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "safe_open.h"

static char dir[64];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/test_safe_open.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static char *at(const char *name)
{
	static char p[4][128];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *path)
{
	static char b[256];
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(b, 1, sizeof(b) - 1, f);
	b[n] = 0;
	fclose(f);
	return b;
}

static int open_w(const char *path, const struct safe_forbid *fb, size_t nf)
{
	char err[512];
	struct safe_open o = {.flags = SAFE_WRITE | SAFE_FIFO | SAFE_NULL,
			      .oflags = O_NONBLOCK,
			      .mode = 0600,
			      .what = "journal",
			      .forbid = fb,
			      .nforbid = nf};
	int fd = safe_open(path, &o, err, sizeof(err));
	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

static void links(bool walk)
{
	safe_open_no_openat2 = walk;
	put(at("victim"), "precious");
	mkdir(at("private"), 0700);
	assert_int_equal(symlink(at("victim"), at("j")), 0);
	assert_int_equal(open_w(at("j"), NULL, 0), -ELOOP);
	assert_string_equal(get(at("victim")), "precious");
	assert_int_equal(symlink(at("private"), at("logs")), 0);
	assert_int_equal(open_w(at("logs/j"), NULL, 0), -ELOOP);
	assert_int_equal(access(at("private/j"), F_OK), -1);
	/* ".." and "." are taken as they are: no link on the way */
	assert_int_equal(open_w(at("private/../new"), NULL, 0), 0);
	unlink(at("j"));
	unlink(at("logs"));
	unlink(at("new"));
	safe_open_no_openat2 = false;
}

static void test_links(void **state)
{
	links(false);
}

static void test_links_walk(void **state)
{
	links(true);
}

static void test_kinds(void **state)
{
	char err[512];
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	/* no reader: -ENXIO at once, never a hang */
	assert_int_equal(open_w(at("fifo"), NULL, 0), -ENXIO);
	/* a FIFO where the caller takes a regular file only */
	struct safe_open o = {.flags = SAFE_WRITE, .what = "output"};
	assert_int_equal(safe_open(at("fifo"), &o, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "a FIFO"));
	/* a key is read from a regular file only */
	struct safe_open r = {.flags = SAFE_READ, .what = "key"};
	assert_int_equal(safe_open(at("fifo"), &r, err, sizeof(err)), -EPERM);
	assert_int_equal(open_w("/dev/zero", NULL, 0), -EPERM);
	assert_int_equal(open_w("/dev/null", NULL, 0), 0);
	assert_int_equal(open_w(dir, NULL, 0), -EPERM);
}

static void test_files(void **state)
{
	/* a new file: made 0600 whatever the umask */
	mode_t old = umask(0);
	assert_int_equal(open_w(at("new.jsonl"), NULL, 0), 0);
	umask(old);
	struct stat st;
	assert_int_equal(stat(at("new.jsonl"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* an existing file of ours: truncated, as before */
	put(at("own"), "old content");
	assert_int_equal(open_w(at("own"), NULL, 0), 0);
	assert_string_equal(get(at("own")), "");
	/* a second name of a file: not truncated */
	put(at("victim2"), "precious");
	assert_int_equal(link(at("victim2"), at("hard")), 0);
	assert_int_equal(open_w(at("hard"), NULL, 0), -EPERM);
	assert_string_equal(get(at("victim2")), "precious");
	/* a file of another uid (root can make one): not truncated */
	if (geteuid() == 0) {
		put(at("theirs"), "theirs");
		assert_int_equal(chown(at("theirs"), 65534, 65534), 0);
		assert_int_equal(open_w(at("theirs"), NULL, 0), -EPERM);
		assert_string_equal(get(at("theirs")), "theirs");
	}
}

static void test_forbid(void **state)
{
	mkdir(at("ws"), 0755);
	mkdir(at("ws/sub"), 0755);
	put(at("bound"), "x");
	struct stat ws, bf;
	assert_int_equal(stat(at("ws"), &ws), 0);
	assert_int_equal(stat(at("bound"), &bf), 0);
	struct safe_forbid fb[] = {
		{.dev = ws.st_dev, .ino = ws.st_ino, .dir = true,
		 .what = "the workspace"},
		{.dev = bf.st_dev, .ino = bf.st_ino, .dir = false,
		 .what = "a bound file"},
	};
	assert_int_equal(open_w(at("ws/sub/j"), fb, 2), -EPERM);
	assert_int_equal(access(at("ws/sub/j"), F_OK), -1);
	assert_int_equal(open_w(at("ws/../outside"), fb, 2), 0);
	assert_int_equal(open_w(at("bound"), fb, 2), -EPERM);
	assert_string_equal(get(at("bound")), "x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links_walk, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forbid, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
