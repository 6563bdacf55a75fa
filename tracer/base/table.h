/*
 * table.h - the process table: every task the supervisor knows, found by
 * tid in O(1) through a chained hash, plus the list of processes in the
 * order they were born (kept after they end, for the tree and the result).
 *
 * Only live tasks are in the hash: once a task has been reaped its tid can be
 * reused by the kernel, so a dead record must never answer a lookup.
 * Dead threads are freed (a run can create 100,000 of them); dead processes
 * are kept, they are the history the user asked for, but bounded: at most
 * TABLE_HISTORY of them (the oldest dead go first), and what one process
 * keeps of its argv is capped (TABLE_ARGV_KEEP bytes; the journal has the
 * whole argv, written at the exec before the copy is cut).
 *
 * What a process runs is a `struct prog`, shared: a fork takes its
 * creator's program as it is when the fork event is handled (a reference,
 * not a copy, and never re-read from /proc later), an exec gives it a new
 * one. The names of the programs it ran before (its own execs) are kept
 * too, the last TABLE_WAS_KEEP of them, for the tree's "(was ...)".
 */
#ifndef CORRAL_TABLE_H
#define CORRAL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bytes of argv strings one process keeps in the table. */
#define TABLE_ARGV_KEEP 1024
/* Dead processes kept for the history (corral_foreach_proc, --tree). */
#define TABLE_HISTORY 20000
/* Names of earlier programs a process keeps (the tree shows them). */
#define TABLE_WAS_KEEP 4
/* Bytes of one such name (argv[0]'s basename), cut beyond. */
#define TABLE_WAS_NAME 64

enum task_state {
	TS_NEW,	    /* announced by its creator's event, first stop not seen */
	TS_RUNNING, /* resumed by us */
	TS_HELD,    /* in a ptrace-stop that we have not resumed */
	TS_LISTEN,  /* in a group-stop, resumed with PTRACE_LISTEN */
	TS_DEAD,
	TS__COUNT
};

enum task_flags {
	TF_SEEN_STOP = 1u << 0,	 /* its first stop has been seen */
	TF_ANNOUNCED = 1u << 1,	 /* its creator's event has been seen */
	TF_THREAD = 1u << 2,	 /* not a thread-group leader */
	TF_SETUP = 1u << 3,	 /* sandbox setup process (bwrap) */
	TF_GSTOPPED = 1u << 5,	 /* its group is stopped */
	TF_KILLED = 1u << 7,	 /* SIGKILL sent by kill-all */
	TF_VFORK_WAIT = 1u << 8, /* parent of a vfork child not yet released */
	TF_AT_GSTOP = 1u << 10,	 /* its current stop is a group-stop */
	TF_IN_BATCH = 1u << 11,	 /* its status is in the batch being taken */
	TF_UNSTOPPABLE = 1u << 13, /* a stop-all ran out of budget on it */
	TF_AT_SECCOMP = 1u << 6,   /* its current stop is a seccomp stop */
	TF_NODUMP = 1u << 4,	   /* leader: prctl(PR_SET_DUMPABLE, 0) seen */
	/* Leader: its plain waits stop at corral too (the wait trap the
	 * emulated ptrace installs at its first attach: eptrace.c), and
	 * whether that was tried. */
	TF_WTRAP = 1u << 9,
	TF_WTRAP_TRIED = 1u << 12,
};

/* A program as exec'd: shared by the forks that run it. */
struct prog {
	unsigned refs;
	bool cut;	/* argv kept only in part (TABLE_ARGV_KEEP) */
	char *path;	/* executable (malloc'd), may be NULL */
	char **argv;	/* pointers into argblock, may be NULL */
	char *argblock; /* the argv strings, one malloc'd block */
};

/* Earlier programs of a process, oldest first. */
struct was {
	unsigned dropped; /* older ones not kept */
	unsigned n;
	char *name[TABLE_WAS_KEEP];
};

struct ept; /* the emulated ptrace's record (internal.h, eptrace.c) */

struct task {
	pid_t tid, tgid;
	pid_t creator;	    /* tid of the task whose event created it */
	pid_t creator_tgid; /* its process */
	pid_t nspid;	    /* pid in the innermost pid namespace, 0: same */
	pid_t orphan_cand;  /* unannounced: the likely creator (from /proc) */
	uint8_t state;
	uint16_t flags;
	int pending_sig; /* to inject when resumed after a hold */
	int status;	 /* wait status once dead */
	double born, ended;
	struct task *hnext; /* hash chain */
	struct task *next;  /* birth order (processes), or free list */
	/* Process (leader) only. */
	struct prog *prog; /* what it runs now (last exec, or its fork's) */
	struct was *was;   /* what it ran before (own execs), or NULL */
	pid_t vfork_parent; /* vfork child: the parent it keeps waiting */
	int nexecs;
	int nthreads;	  /* live tasks in the group, leader included */
	int threads_seen; /* tasks ever in the group, leader included */
	/* Leader: prctl(PR_SET_PTRACER) seen: the process (tgid) it named,
	 * -1 any, 0 none (Yama's exception, for the emulated ptrace). */
	pid_t ptracer;
	struct ept *ept; /* NULL unless an emulated tracer or tracee */
};

struct table {
	struct task **buckets;
	size_t nbuckets; /* power of two */
	size_t live;	 /* tasks in the hash */
	size_t nstate[TS__COUNT];
	size_t live_procs;
	size_t dead_procs;	   /* ended processes still on the list */
	unsigned long dropped;	   /* ended processes dropped from it */
	struct task *first, *last; /* processes in birth order */
};

int table_init(struct table *t);
void table_destroy(struct table *t);

struct task *table_find(const struct table *t, pid_t tid);
/* A new live task in state TS_NEW; NULL on ENOMEM. tid must be unknown. */
struct task *table_add(struct table *t, pid_t tid, pid_t tgid, bool thread);
/* The task has ended: unhash it; threads are freed, processes kept. */
void table_remove(struct table *t, struct task *task);
void table_set_state(struct table *t, struct task *task, enum task_state s);
/* Mark a live task as a thread of tgid (learned late, e.g. an orphan). */
void table_make_thread(struct table *t, struct task *task, pid_t tgid);

/*
 * Record what a process runs after an exec (or, for a fork whose
 * creator's program is unknown, what /proc says); takes ownership of the
 * three. An argv longer than TABLE_ARGV_KEEP bytes is cut (at most that
 * many bytes of strings, whole arguments first, the last one cut short)
 * and the program marked cut; the big block is freed here. When the task
 * had exec'd before, the name of the program it leaves is kept (struct
 * was). Under memory pressure the argv may be dropped entirely.
 */
void task_set_exec(struct task *p, char *path, char *argblock, char **argv);
/* A fork runs its creator's program: a new reference to it. */
void task_share_prog(struct task *child, const struct task *creator);
/* The name a program is known by in the tree: argv[0]'s basename, else
 * the path's; NULL when neither is known. */
const char *prog_name(const struct prog *g);
/* Drop the oldest ended processes beyond max. */
void table_trim_history(struct table *t, size_t max);

/*
 * Visit every live task. fn may not add or remove tasks; returns early when
 * fn returns non-zero (and passes that value up).
 */
int table_foreach_live(struct table *t, int (*fn)(struct task *, void *),
		       void *arg);

#endif
