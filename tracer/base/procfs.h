/* procfs.h - the few /proc reads made once for a task at one of its events. */
#ifndef CORRAL_PROCFS_H
#define CORRAL_PROCFS_H

#include <stdbool.h>
#include <sys/types.h>

/* Read argv of tid into one malloc'd block; *argv points into it. */
int procfs_argv(pid_t tid, char **block, char ***argv);
/* readlink /proc/tid/exe into a malloc'd string, NULL on failure. */
char *procfs_exe(pid_t tid);
/* Look up /proc/tid/exe without reading it: its entries are made. */
void procfs_warm(pid_t tid);
/* readlink /proc/tid/cwd into a malloc'd string, NULL on failure. */
char *procfs_cwd(pid_t tid);
/*
 * Each open descriptor of tid, in the directory's order: fn(its number as
 * text, what it points to, that text's length, arg). -errno if
 * /proc/tid/fd cannot be read (the task is gone, or not ours to read).
 */
int procfs_fds(pid_t tid,
	       void (*fn)(const char *fd, const char *target, size_t len,
			  void *arg),
	       void *arg);
/* Tgid, PPid and innermost NSpid of a task from /proc/tid/status. */
int procfs_ids(pid_t tid, pid_t *tgid, pid_t *ppid, pid_t *nspid);
/* Is tid a thread of process tgid right now? */
bool procfs_is_thread_of(pid_t tgid, pid_t tid);
/* The state letter of /proc/pid/stat (R, S, T, Z...), 0 if unreadable. */
char procfs_state(pid_t pid);
/*
 * Which process descriptor fd of task tid stands for (a pidfd, or an open
 * /proc/<pid> directory), as a pid of ours; 0 when unknown.
 */
pid_t procfs_fd_target(pid_t tid, int fd);

/*
 * What the kernel's ptrace access check looks at of a task (eptrace.c):
 * real, effective, saved and fs ids (as corral's user namespace sees
 * them), effective and permitted capabilities, its user and pid
 * namespaces (inode numbers), whether it is dumpable (its /proc
 * directory is owned by its effective ids only then), and its pid in its
 * innermost pid namespace.
 */
struct procfs_creds {
	unsigned uid[4], gid[4];
	unsigned long long cap_eff, cap_prm;
	unsigned long long userns, pidns;
	bool dumpable;
	pid_t nspid, tgid, ppid;
};
int procfs_creds(pid_t tid, struct procfs_creds *out);

#endif
