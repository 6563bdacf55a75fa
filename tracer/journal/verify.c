/*
 * verify.c - corral_journal_check_buf() and corral_journal_check_fd():
 * the public, size-versioned face of the journal reader (chain.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi.h"
#include "grow.h"
#include "journal.h"

/* Map or read all of fd. */
static int slurp(int fd, char **buf, size_t *len, bool *mapped)
{
	struct stat st;
	*mapped = false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		*len = (size_t)st.st_size;
		if (!*len) {
			*buf = NULL;
			return 0;
		}
		void *p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			*buf = p;
			*mapped = true;
			return 0;
		}
	}
	size_t cap = 0, n = 0;
	char *b = NULL;
	for (;;) {
		/* room for a read of 64 KiB at least */
		if (GROW(b, cap, n + (1 << 16))) {
			free(b);
			return -ENOMEM;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(b);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*buf = b;
	*len = n;
	return 0;
}

int corral_journal_check_buf(const char *buf, size_t len,
			     struct corral_journal_check *user)
{
	struct corral_journal_check c;
	memset(&c, 0, sizeof(c));
	int r = abi_in(&c, sizeof(c), user);
	if (r < 0)
		return r;
	r = journal_verify_core(buf, len, &c);
	abi_out(user, &c, sizeof(c));
	return r;
}

int corral_journal_check_fd(int fd, struct corral_journal_check *c)
{
	char *buf = NULL;
	size_t len = 0;
	bool mapped = false;
	int r = slurp(fd, &buf, &len, &mapped);
	if (r < 0) {
		snprintf(c->why, sizeof(c->why), "%s", strerror(-r));
		return r;
	}
	r = corral_journal_check_buf(buf ? buf : "", len, c);
	if (mapped)
		munmap(buf, len);
	else
		free(buf);
	return r;
}
