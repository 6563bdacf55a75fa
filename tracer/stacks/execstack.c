/*
 * execstack.c - the argv of a task stopped at PTRACE_EVENT_EXEC, read from
 * the new image's stack instead of /proc/PID/cmdline.
 *
 * Why: at every exec the journal needs the argv, and /proc/PID/cmdline costs
 * a path walk that instantiates /proc/PID/cmdline, an open, a read and a
 * close (docs/bench.md, "The journal"). At the exec stop the kernel has
 * just built the new stack and nothing of the new image has run: the stack
 * pointer (PTRACE_GET_SYSCALL_INFO, any architecture) points at argc, the
 * argv pointers, NULL, the envp pointers; argv[0] is where the argument
 * strings begin (mm->arg_start, what /proc/PID/cmdline reads from) and they
 * are contiguous, NUL-terminated, up to envp[0] (mm->arg_end = env_start).
 * Two process_vm_readv: the pointers, then exactly the strings. The bytes
 * are the ones /proc/PID/cmdline would give at this instant.
 *
 * Only where the stack's layout is known: a 64-bit tracee of corral's own
 * ABI. Anything else, or any doubt (the words read do not describe argc
 * strings ending where the next area begins), is -errno and the caller asks
 * /proc (sys.h: exec_argv, then argv). A tracee corral may not read with
 * process_vm_readv (non-dumpable, e.g. an execute-only binary, for a corral
 * without CAP_SYS_PTRACE) says EPERM: /proc/PID/cmdline has no such check.
 */
#include <errno.h>
#include <linux/audit.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "execstack.h"
#ifdef CORRAL_TESTING /* build/tests/corral-testkernel only */
#include "testkernel.h"
#endif

#if defined(__x86_64__) && !defined(__ILP32__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__) && !defined(__ILP32__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_ARCH AUDIT_ARCH_RISCV64
#endif

/*
 * The first read: argc and the pointers (envp[0] is in for up to 120
 * arguments). Not the strings as well: the kernel leaves a random gap of up
 * to 8 KiB (arch_align_stack) between them and the pointers, so a read
 * that would usually hold both must copy 12 KiB, which costs what a second
 * read of exactly the strings costs (docs/bench.md) and still misses a
 * long argv.
 */
#define FIRST_READ 1024
/* The kernel's own bound on one exec's argument strings is the stack
 * limit / 4; a bound here keeps a bad pointer from asking for gigabytes. */
#define ARGS_MAX (1ul << 30)

static ssize_t peek(pid_t tid, uintptr_t at, void *to, size_t n)
{
	struct iovec l = {.iov_base = to, .iov_len = n};
	struct iovec r = {.iov_base = (void *)at, .iov_len = n};
	ssize_t got = process_vm_readv(tid, &l, 1, &r, 1, 0);
	return got < 0 ? -errno : got;
}

/* Split n bytes holding argc NUL-terminated strings into an argv. */
static int split(char *blk, size_t n, size_t argc, char ***argvp)
{
	char **argv = malloc((argc + 1) * sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < n && k < argc; k++) {
		argv[k] = blk + i;
		i += strlen(blk + i) + 1;
	}
	argv[k] = NULL;
	*argvp = argv;
	return 0;
}

/* How many NULs in p[0, n). */
static size_t count_nul(const char *p, size_t n)
{
	size_t k = 0;
	for (const char *e = p + n; p < e && (p = memchr(p, 0, e - p)); p++)
		k++;
	return k;
}

/* The length of the first argc strings at p (n bytes), 0 if not all in. */
static size_t strings_len(const char *p, size_t n, size_t argc)
{
	size_t k = 0;
	for (const char *q = p, *e = p + n; q < e && (q = memchr(q, 0, e - q));
	     q++)
		if (++k == argc)
			return (size_t)(q - p) + 1;
	return 0;
}

/*
 * The strings from lo: n bytes when envp[0] said where they end, else up to
 * the argc-th NUL. The first nhave bytes of them are in hand already (the
 * first read); the rest is read from lo + nhave on.
 */
static int read_strings(pid_t tid, uintptr_t lo, size_t n, size_t argc,
			const char *have, size_t nhave, char **blkp,
			size_t *lenp)
{
	size_t len = n ? (n <= nhave ? n : 0) : strings_len(have, nhave, argc);
	/* Else read in growing steps until argc NULs are in (a read stops
	 * at the end of the mapping: then this is not what we think). */
	size_t cap = len ? len : n ? n : nhave + 2 * FIRST_READ;
	char *blk = malloc(cap + 1);
	if (!blk)
		return -ENOMEM;
	size_t got = nhave < cap ? nhave : cap;
	memcpy(blk, have, got);
	while (!len) {
		ssize_t r = peek(tid, lo + got, blk + got, cap - got);
		if (r <= 0) {
			free(blk);
			return r < 0 ? (int)r : -EIO;
		}
		got += (size_t)r;
		len = n ? (got == n ? n : 0) : strings_len(blk, got, argc);
		if (len)
			break;
		if (got < cap || cap >= ARGS_MAX) {
			free(blk);
			return -EIO;
		}
		cap *= 2;
		char *nb = realloc(blk, cap + 1);
		if (!nb) {
			free(blk);
			return -ENOMEM;
		}
		blk = nb;
	}
	*blkp = blk;
	*lenp = len;
	return 0;
}

int execstack_argv(pid_t tid, char **block, char ***argvp)
{
#ifndef NATIVE_ARCH
	(void)tid;
	(void)block;
	(void)argvp;
	return -ENOSYS;
#else
	struct __ptrace_syscall_info si;
#ifdef CORRAL_TESTING /* a kernel before 5.3, pretended (testkernel.h) */
	if (testkernel_no_syscall_info())
		return -EIO;
#endif
	if (syscall(SYS_ptrace, PTRACE_GET_SYSCALL_INFO, tid,
		    (void *)sizeof(si), &si) < 0)
		return -errno;
	/* A 32-bit tracee (compat) has 4-byte words: /proc knows. */
	if (si.arch != NATIVE_ARCH)
		return -ENOEXEC;
	const uintptr_t sp = si.stack_pointer;
	uint64_t w[FIRST_READ / 8];
	ssize_t got = peek(tid, sp, w, sizeof(w));
	if (got < 0)
		return (int)got;
	size_t nw = (size_t)got / 8;
	/*
	 * argc, argv[0..argc-1], NULL, envp[0]: argv[0] is where the strings
	 * begin, envp[0] (if any) where they end. argc is a long: a 32-bit
	 * layout read as 64-bit words (x32) gives a huge one.
	 */
	if (nw < 2 || w[0] > ARGS_MAX / 2)
		return -EIO;
	const size_t argc = w[0];
	char *blk = NULL;
	size_t len = 0;
	if (argc == 0) { /* an argv-less exec (kernels before 5.18) */
		blk = malloc(1);
		if (!blk)
			return -ENOMEM;
	} else {
		const uintptr_t lo = w[1];
		/* The strings lie above the pointers, within reach. */
		if (lo < sp + 8 * (argc + 3) || lo - sp > ARGS_MAX)
			return -EIO;
		size_t n = 0; /* their length, if envp[0] says it */
		if (nw > argc + 2) {
			if (w[argc + 1] != 0)
				return -EIO; /* argv's NULL is not there */
			uintptr_t env0 = w[argc + 2];
			if (env0 && (env0 <= lo || env0 - lo > ARGS_MAX))
				return -EIO;
			n = env0 ? env0 - lo : 0;
		}
		size_t off = lo - sp; /* what the first read has of them */
		size_t nhave = off < (size_t)got ? (size_t)got - off : 0;
		const char *have = nhave ? (const char *)w + off : "";
		int r = read_strings(tid, lo, n, argc, have, nhave, &blk, &len);
		if (r < 0)
			return r;
		/* Exactly argc strings, the last one ended: else not what
		 * we think it is. */
		if (blk[len - 1] != 0 || count_nul(blk, len) != argc) {
			free(blk);
			return -EIO;
		}
	}
	blk[len] = 0;
	int r = split(blk, len, argc, argvp);
	if (r < 0) {
		free(blk);
		return r;
	}
	*block = blk;
	return 0;
#endif
}
