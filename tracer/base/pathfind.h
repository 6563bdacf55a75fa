/*
 * pathfind.h - find a program by name as a PATH search would: the command
 * corral runs (execvp's rules) and the bubblewrap it runs the sandbox with
 * (stricter ones) go through this one search; the rules that differ are
 * the fields of struct path_rules.
 */
#ifndef CORRAL_PATHFIND_H
#define CORRAL_PATHFIND_H

#include <stdbool.h>
#include <stddef.h>

/* Searched when PATH is unset (and, unless empty_is_cwd, when it is ""). */
#define PATH_DEFAULT "/usr/local/bin:/usr/bin:/bin"

struct path_rules {
	/*
	 * An empty PATH element (PATH="", "::", a leading or trailing ':')
	 * is the current directory, as execvp() reads it. Otherwise empty
	 * elements are passed over, and PATH="" means PATH_DEFAULT.
	 */
	bool empty_is_cwd;
	/* Only a regular file matches; otherwise anything but a directory. */
	bool regular_only;
	/*
	 * A match that is not executable makes the answer -EACCES when no
	 * later element has an executable one (execvp's answer); otherwise
	 * it is passed over, and nothing found is -ENOENT.
	 */
	bool eacces;
};

/*
 * Find name: a name with a '/' is taken as it is (checked: -errno of
 * stat(), -EACCES when it is a directory, not a regular file under
 * regular_only, or not executable); a name without one is searched in
 * each element of PATH. The path found is copied to out: "dir/name", or
 * "./name" for the current directory. A candidate longer than PATH_MAX
 * is passed over (the kernel could not run it); -ENAMETOOLONG when the
 * path found does not fit in outlen. An empty name is -ENOENT.
 */
int path_find(const char *name, const struct path_rules *r, char *out,
	      size_t outlen);

#endif
