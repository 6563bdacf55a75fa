/*
 * duration.c - durations exactly as coreutils timeout(1) parses them, plus
 * one extension.
 *
 * timeout(1) (parse_duration + apply_time_suffix in coreutils) reads a
 * floating-point number with strtod(), so leading white space, a sign,
 * exponents ("1e3"), hexadecimal ("0x10", "0x1p4"), "inf" and "infinity"
 * are all accepted, then at most one suffix character: s (default), m, h,
 * d. It refuses an empty number, a negative value (-0 is not negative),
 * NaN, a range error with a non-zero result (an underflow to 0 is fine),
 * and anything after the suffix. The same rules here, with the C locale's
 * decimal point (strtod under the caller's locale could take "1,5"; the
 * CLI never calls setlocale, so it is the C locale) and one addition:
 * "ms", which timeout(1) refuses. docs/cli.md lists the differences.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "corral.h"

int corral_parse_duration(const char *s, double *out)
{
	if (!s)
		return -EINVAL;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s)
		return -EINVAL;
	/* As gnulib's xstrtod: an underflow to 0 is fine, the rest is not. */
	if (v != 0 && errno == ERANGE)
		return -EINVAL;
	if (!(v >= 0)) /* negative, or NaN */
		return -EINVAL;
	double mul;
	if (!*end || !strcmp(end, "s"))
		mul = 1;
	else if (!strcmp(end, "ms"))
		mul = 1e-3;
	else if (!strcmp(end, "m"))
		mul = 60;
	else if (!strcmp(end, "h"))
		mul = 3600;
	else if (!strcmp(end, "d"))
		mul = 86400;
	else
		return -EINVAL;
	*out = v * mul;
	return 0;
}
