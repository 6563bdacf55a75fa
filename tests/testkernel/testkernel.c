/*
 * testkernel.c - the test build's answers about the kernel (testkernel.h).
 * Not part of libcorral: linked into build/tests/corral-testkernel only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testkernel.h"

/* A setting that makes no sense ends the test binary loudly: a test that
 * believes it runs a fallback must not silently run the real path. */
static void bad(const char *var, const char *val, const char *why)
{
	fprintf(stderr, "corral-testkernel: %s=%s: %s\n", var, val, why);
	exit(125);
}

int testkernel_landlock_abi(int real)
{
	const char *v = getenv("CORRAL_TESTKERNEL_LANDLOCK");
	if (!v || !*v)
		return real;
	if (!strcmp(v, "none"))
		return -ENOSYS;
	if (!strcmp(v, "disabled"))
		return -EOPNOTSUPP;
	char *end;
	long n = strtol(v, &end, 10);
	if (*end || n < 1)
		bad("CORRAL_TESTKERNEL_LANDLOCK", v,
		    "expected none, disabled or an ABI >= 1");
	if (n > real)
		bad("CORRAL_TESTKERNEL_LANDLOCK", v,
		    "more than this kernel's Landlock ABI: only less can be "
		    "pretended");
	return (int)n;
}

bool testkernel_no_syscall_info(void)
{
	const char *v = getenv("CORRAL_TESTKERNEL_SYSCALL_INFO");
	if (!v || !*v)
		return false;
	if (strcmp(v, "none"))
		bad("CORRAL_TESTKERNEL_SYSCALL_INFO", v, "expected none");
	return true;
}
