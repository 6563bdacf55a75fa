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

#include <sys/types.h>

#include "corral.h"

/* A reasonable cap for callers that have no better idea. */
#define UNWINDER_MAX_FRAMES 64

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

/* Counters, for tests and benchmarks. */
struct unwinder_stats {
	unsigned long stacks;	   /* unwinder_stack calls that returned >= 0 */
	unsigned long frames;	   /* frames returned */
	unsigned long sym_lookups; /* unw_get_proc_name calls (cache misses) */
	unsigned long sym_hits;	   /* names served from the per-process cache */
	unsigned long maps_reads;  /* /proc/TGID/maps reads */
	unsigned long procs;	   /* address spaces created */
};
void unwinder_get_stats(const struct corral_unwinder *u,
			struct unwinder_stats *st);

#endif
