/*
 * find.c - which bubblewrap corral runs: the --bwrap given, or the first
 * "bwrap" on PATH. A leaf on its own because the probe, the profile and
 * the sandbox user's pre-check all ask it, and none of them should have to
 * reach into another for it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox.h"

int sandbox_find_bwrap(const char *override, char *out, size_t outlen)
{
	const char *name = override && override[0] ? override : "bwrap";
	if (strchr(name, '/')) {
		struct stat st;
		if (stat(name, &st) < 0 || access(name, X_OK) < 0)
			return -errno;
		/* access(X_OK) is true for a directory too */
		if (!S_ISREG(st.st_mode))
			return -EACCES;
		if ((size_t)snprintf(out, outlen, "%s", name) >= outlen)
			return -ENAMETOOLONG;
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path || !path[0])
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		char cand[PATH_MAX];
		struct stat st;
		if (n &&
		    (size_t)snprintf(cand, sizeof(cand), "%.*s/%s", (int)n,
				     path, name) < sizeof(cand) &&
		    stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0) {
			if ((size_t)snprintf(out, outlen, "%s", cand) >= outlen)
				return -ENAMETOOLONG;
			return 0;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return -ENOENT;
}
