/*
 * unwind.h - stacks of ptrace-stopped threads, with libunwind-ptrace.
 *
 * One unwinder serves a whole supervisor. It keeps, per process (tgid):
 * a libunwind address space with caching on (so the DWARF work done for the
 * first thread is reused for the other 999), the process's file mappings
 * (for the module of each frame) and a cache of symbol names by ip. All of
 * it stays valid as long as the process's address space does not change:
 * call unwinder_forget() when the process exec'd or ended.
 *
 * Not thread-safe: use one unwinder from one thread (ptrace ties tracees to
 * the tracing thread anyway). See docs/stacks.md.
 */
#ifndef CORRAL_UNWIND_H
#define CORRAL_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "corral.h"

/* A reasonable cap for callers that have no better idea. */
#define UNWINDER_MAX_FRAMES 64

/*
 * Every walk's budget, whoever walks: the requests libunwind makes to read
 * the member's memory (one per word: stack slots, .eh_frame bytes, DWARF
 * expressions) and the bytes actually read. A normal walk of 64 frames
 * makes a few thousand requests (docs/stacks.md, "Bounds"); a DWARF
 * expression that loops (issue 22) makes them for ever and is stopped here.
 */
#define UNWINDER_MAX_READS 65536ul
#define UNWINDER_MAX_BYTES (8ul << 20)

struct unwinder_limits {
	int memfd;		 /* /proc/TGID/mem open for reading, or -1 */
	unsigned long max_reads; /* 0: UNWINDER_MAX_READS */
	uint64_t max_bytes;	 /* 0: UNWINDER_MAX_BYTES */
	double deadline;	 /* CLOCK_MONOTONIC seconds; 0: none */
};

struct corral_unwinder;

/* 0 or -errno (-ENOMEM). */
int unwinder_new(struct corral_unwinder **out);
/* NULL is fine. */
void unwinder_free(struct corral_unwinder *u);

/*
 * Forget cached per-process state (call when a process exec'd or ended).
 * Strings handed out by the last unwinder_stack() stay valid until the next
 * unwinder_stack() call, even when they belonged to tgid.
 */
void unwinder_forget(struct corral_unwinder *u, pid_t tgid);

/*
 * Unwind thread `tid` (of process `tgid`), which the CALLER has already
 * brought to a ptrace-stop (it is a PTRACE_SEIZEd tracee of the calling
 * thread). Fills up to `max` frames, innermost first.
 *
 * Returns the number of frames (>= 0) or -errno:
 *   -EINVAL  bad arguments (u or frames NULL, max < 0, tid <= 0);
 *   -ESRCH   tid is not a thread of tgid, is not a ptrace-stopped tracee of
 *            the calling thread, or went away during the call;
 *   -ENOMEM  out of memory.
 * When it stopped early or failed partially, *why (if why is not NULL) is
 * set to a short static reason string (e.g. "unw_step: -UNW_EBADFRAME",
 * "max frames", "loop: same ip and sp twice"), otherwise NULL.
 *
 * Strings in frames (func, module) stay valid until the next unwinder_stack
 * call on this unwinder (or unwinder_free).
 */
int unwinder_stack(struct corral_unwinder *u, pid_t tgid, pid_t tid,
		   struct corral_frame *frames, int max, const char **why);

/*
 * The same walk made by a process that is not the tracer (walker.c): from
 * the registers the tracer took (PTRACE_GETREGSET, NT_PRSTATUS), reading
 * memory through lim->memfd, within lim's budget and deadline. No check
 * that tid is stopped or belongs to tgid: the tracer made them. Returns
 * the frame count or -errno (-EINVAL, -ENOMEM); *why as unwinder_stack;
 * *cut is NULL for a walk the bounds did not cut, or "budget", "deadline"
 * or "frames" (max reached); *failed says libunwind gave up on an error
 * (the thread may have died: the tracer can tell).
 */
int unwinder_stack_regs(struct corral_unwinder *u, pid_t tgid, pid_t tid,
			const struct user_regs_struct *regs,
			const struct unwinder_limits *lim,
			struct corral_frame *frames, int max, const char **why,
			const char **cut, bool *failed);

/* Counters, for tests and benchmarks. */
struct unwinder_stats {
	unsigned long stacks;	   /* unwinder_stack calls that returned >= 0 */
	unsigned long frames;	   /* frames returned */
	unsigned long sym_lookups; /* unw_get_proc_name calls (cache misses) */
	unsigned long sym_hits;	   /* names served from the per-process cache */
	unsigned long maps_reads;  /* /proc/TGID/maps reads */
	unsigned long procs;	   /* address spaces created */
	unsigned long reads;	   /* memory reads libunwind asked for */
};
void unwinder_get_stats(const struct corral_unwinder *u,
			struct unwinder_stats *st);

#endif
