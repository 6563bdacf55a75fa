/*
 * pathfind.c - one PATH search (pathfind.h). A leaf: the lifecycle resolves
 * the command with it before anything is started (so that "not found" and
 * "not executable" are said with nothing spawned), and sandbox/find.c
 * finds bwrap with it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathfind.h"

static bool kind_ok(const struct stat *st, const struct path_rules *r)
{
	/* access(X_OK) is true for a directory too: the type decides */
	return r->regular_only ? S_ISREG(st->st_mode) : !S_ISDIR(st->st_mode);
}

static int found(char *out, size_t outlen, const char *path)
{
	if ((size_t)snprintf(out, outlen, "%s", path) >= outlen)
		return -ENAMETOOLONG;
	return 0;
}

int path_find(const char *name, const struct path_rules *r, char *out,
	      size_t outlen)
{
	struct stat st;
	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if (stat(name, &st) < 0)
			return -errno;
		if (!kind_ok(&st, r) || access(name, X_OK) < 0)
			return -EACCES;
		return found(out, outlen, name);
	}
	const char *path = getenv("PATH");
	if (!path || (!*path && !r->empty_is_cwd))
		path = PATH_DEFAULT;
	int err = -ENOENT;
	for (const char *p = path;; p++) {
		const char *e = strchrnul(p, ':');
		int dl = (int)(e - p);
		char cand[PATH_MAX];
		if ((dl || r->empty_is_cwd) &&
		    (size_t)snprintf(cand, sizeof(cand), "%.*s/%s", dl ? dl : 1,
				     dl ? p : ".", name) < sizeof(cand) &&
		    stat(cand, &st) == 0 && kind_ok(&st, r)) {
			if (access(cand, X_OK) == 0)
				return found(out, outlen, cand);
			if (r->eacces)
				err = -EACCES;
		}
		if (!*e)
			break;
		p = e;
	}
	return err;
}
