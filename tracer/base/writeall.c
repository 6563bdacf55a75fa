/*
 * writeall.c - the one loop that writes a whole buffer (writeall.h). A leaf:
 * the live view's prints (live_io.c) and the probe's uid/gid maps
 * (sandbox/probe.c) use it.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

#include "writeall.h"

static int put_all(int fd, const char *p, size_t len, bool sock, int flags)
{
	while (len) {
		ssize_t n = sock ? send(fd, p, len, flags) : write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
	return put_all(fd, buf, len, false, 0);
}

int send_all(int fd, const void *buf, size_t len, int flags)
{
	return put_all(fd, buf, len, true, flags);
}
