/*
 * find.c - which bubblewrap corral runs: the --bwrap given, or the first
 * "bwrap" on PATH. A leaf on its own because the probe, the profile and
 * the sandbox user's pre-check all ask it, and none of them should have to
 * reach into another for it.
 */
#include "pathfind.h"
#include "sandbox.h"

int sandbox_find_bwrap(const char *override, char *out, size_t outlen)
{
	/*
	 * Stricter than execvp: only a regular file, and an empty PATH
	 * element is not the current directory (a bwrap dropped in whatever
	 * directory corral was started from must not become the sandbox). A
	 * bwrap that is not executable is passed over for a later one.
	 */
	static const struct path_rules bwrap_rules = {.regular_only = true};
	return path_find(override && override[0] ? override : "bwrap",
			 &bwrap_rules, out, outlen);
}
