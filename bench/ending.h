/*
 * ending.h - the two baselines corral's stop-all + kill-all is compared to:
 * the /proc walk (procwalk.c) and cgroup v2 (cgkill.c). Both are linked
 * into the runner, which times them.
 */
#ifndef CORRAL_BENCH_ENDING_H
#define CORRAL_BENCH_ENDING_H

#include <stdint.h>
#include <sys/types.h>

struct walk_result {
	int64_t stopped_ns; /* monotonic time when the last level stopped */
	long found;	    /* processes stopped (and then killed) */
	long levels;	    /* /proc reads that found something */
	int budget_spent;   /* the 500 ms wait budget ran out */
};

/*
 * Stop ROOT (our own, unreaped child) and everything below it, a level at
 * a time, then SIGKILL them all, children first. Returns 0, or -1 when ROOT
 * is not our child (nothing is signalled then). Does not reap.
 */
int procwalk_kill(pid_t root, struct walk_result *r);

/*
 * A fresh cgroup v2 directory for one run, below the cgroup this process
 * is in, on the cgroup2 mount (/sys/fs/cgroup, or /sys/fs/cgroup/unified
 * on a hybrid host). PARENT overrides the directory it is created in.
 * Writes its path to PATH. Returns 0 or -errno.
 */
int cg_create(const char *parent, char *path, size_t len);
/* Move the calling process into the cgroup (call it in the child). */
int cg_enter(const char *path);
/* Write cgroup.freeze and wait until cgroup.events says "frozen V". */
int cg_freeze(const char *path, int v, int64_t deadline_ns);
/* Write cgroup.kill and wait until cgroup.events says "populated 0". */
int cg_kill(const char *path, int64_t deadline_ns);
/* Remove the cgroup (retrying while its last tasks are being released). */
int cg_remove(const char *path);

#endif
