/*
 * duration.c - durations as coreutils timeout(1) takes them: a
 * non-negative decimal number with an optional unit, s (the default), m, h,
 * d, and ms for convenience.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "corral.h"

int corral_parse_duration(const char *s, double *out)
{
	if (!s || !*s || *s == '-' || *s == '+' ||
	    strchr(" \t\n", *s) != NULL)
		return -EINVAL;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	/* Hex floats and "inf" are not durations. */
	for (const char *p = s; p < end; p++)
		if (!strchr("0123456789.", *p))
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
