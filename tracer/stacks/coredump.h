/*
 * coredump.h - an ELF core file of a ptrace-stopped process, as the kernel
 * writes one (docs/cores.md).
 *
 * Two steps, because only the tracing thread may read a tracee's
 * registers but anyone may be stuck writing to a stalled disk:
 *
 *  1. coredump_prepare(), on the tracing thread, with every listed thread
 *     in a ptrace-stop: registers, FP and xstate of each thread (ptrace),
 *     the process's /proc files (stat, status, auxv, smaps,
 *     coredump_filter), and the layout of the file: the ELF header, the
 *     program headers, the notes, and which bytes of which mapping go where
 *     (the byte budget is applied here: a segment that does not fit gets a
 *     smaller p_filesz, as the kernel's own cut cores have).
 *  2. coredump_write(), on any thread: the memory (process_vm_readv, then
 *     /proc/PID/mem for what that cannot read, zeros for what neither
 *     can) streamed into fd, up to a deadline and a cancel flag; a core
 *     cut short gets its program headers rewritten to what was written.
 *
 * x86-64 only (the note layouts are the kernel's for that architecture).
 */
#ifndef CORRAL_COREDUMP_H
#define CORRAL_COREDUMP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct coredump;

struct coredump_req {
	pid_t pid;	   /* the process (tgid) */
	const pid_t *tids; /* its threads, each in a ptrace-stop */
	size_t ntids;
	/* A crash: the thread at the signal-delivery stop and the signal
	 * (its siginfo becomes NT_SIGINFO, it comes first); 0: none. */
	pid_t sig_tid;
	int sig;
	uint64_t max_bytes; /* the file's size at most (the budget left) */
};

/*
 * Step 1. 0, or -errno with err set: -ESRCH (gone, or no listed thread in
 * a stop), -EPERM (corral itself), -ENOMEM, -EIO (/proc unreadable).
 * Threads that are not in a ptrace-stop are left out (*skipped).
 */
int coredump_prepare(const struct coredump_req *r, struct coredump **out,
		     unsigned *skipped, char *err, size_t errlen);

struct coredump_out {
	uint64_t size;	    /* bytes of the file */
	unsigned threads;   /* NT_PRSTATUS notes written */
	const char *cut;    /* NULL, or why the core is short: "bytes",
			       "time", "disk full", "write error" */
	int err;	    /* the errno of a failed write, 0 */
	bool has_sha;	    /* sha256 is the file's (not after a cut by
			       time or a failed write: see docs/cores.md) */
	unsigned char sha256[32];
	uint64_t unread;    /* bytes neither read could give (zeros) */
};

/*
 * Step 2: write the core into fd (a new, empty regular file). deadline is
 * CLOCK_MONOTONIC seconds; *cancel set by another thread stops it as the
 * deadline does. Returns 0 (out filled, perhaps cut) or -errno.
 */
int coredump_write(struct coredump *d, int fd, double deadline,
		   const atomic_int *cancel, struct coredump_out *out);

/* The bytes the file will have if nothing cuts it. */
uint64_t coredump_planned(const struct coredump *d);
void coredump_free(struct coredump *d);

#endif
