/*
 * testkernel.h - make corral believe the kernel offers less than it does,
 * so that the suite runs corral's fallback paths on a kernel that has
 * everything (docs/testing.md, "Older kernels on this one").
 *
 * Compiled only into build/tests/corral-testkernel: the objects of the few
 * library files that ask the kernel what it offers (tracer/base/landlock.c,
 * tracer/audit/audit.c, tracer/stacks/execstack.c) are built a second time with
 * -DCORRAL_TESTING and linked before libcorral.a. The release library and
 * CLI contain none of this: no environment variable changes what they do.
 * A member cannot reach it either: corral reads its own environment.
 *
 *   CORRAL_TESTKERNEL_LANDLOCK=none      no Landlock (-ENOSYS)
 *   CORRAL_TESTKERNEL_LANDLOCK=disabled  built in, not enabled (-EOPNOTSUPP)
 *   CORRAL_TESTKERNEL_LANDLOCK=N         Landlock ABI N (1 to the real one)
 *   CORRAL_TESTKERNEL_SYSCALL_INFO=none  no PTRACE_GET_SYSCALL_INFO (Linux
 *                                        before 5.3: -EIO, an unknown request)
 *
 * Pretending to an ABI N lower than the kernel's is faithful for corral: it
 * then builds the domain of ABI N (the ruleset attribute of that size), and
 * a newer kernel enforces exactly what that attribute asks for.
 */
#ifndef CORRAL_TESTKERNEL_H
#define CORRAL_TESTKERNEL_H

#include <stdbool.h>

/* What landlock_abi() answers, given the kernel's real answer. */
int testkernel_landlock_abi(int real);

/* Whether PTRACE_GET_SYSCALL_INFO is to fail as on a kernel without it. */
bool testkernel_no_syscall_info(void);

#endif
