/*
 * keyfile.c - the key a run was given with --journal-key, read back by
 * `corral verify --key` and `corral report --key`. One reader, so both
 * commands accept exactly the same files and say the same things about
 * the ones they refuse.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "corral.h"
#include "keyfile.h"

int keyfile_read(const char *cmd, const char *path, unsigned char *key,
		 size_t *len)
{
	/* No symbolic link followed, a regular file only, as run reads it. */
	char err[512];
	int fd = corral_open_file(path, CORRAL_OPEN_READ, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "corral: %s: key%s\n", cmd, err);
		return -1;
	}
	/* One byte more than allowed, to tell "too long" from "exactly". */
	size_t n = 0;
	for (;;) {
		ssize_t r = read(fd, key + n, KEYFILE_MAX + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || (n += (size_t)r) > KEYFILE_MAX)
			break;
	}
	close(fd);
	if (n == 0 || n > KEYFILE_MAX) {
		fprintf(stderr, "corral: %s: key %s: %s\n", cmd, path,
			n ? "longer than 4096 bytes" : "empty or unreadable");
		return -1;
	}
	*len = n;
	return 0;
}
