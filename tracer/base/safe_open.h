/*
 * safe_open.h - how corral opens every file it writes (the journal, the
 * report's --html and --perfetto outputs) and the key file it reads: like
 * a careful root daemon opens a log in a directory somebody else can write
 * (docs/journal.md, "Where lines go"; docs/threat-model.md).
 *
 *   - no symbolic link is followed, in the directories of the path
 *     (openat2 RESOLVE_NO_SYMLINKS; a walk with O_NOFOLLOW where openat2
 *     is missing) or as the file itself (O_NOFOLLOW);
 *   - the file is looked at before it is opened for real (O_PATH, fstat):
 *     a regular file is accepted, a FIFO or /dev/null (/dev/full) only when the
 *     caller says so, anything else (a block or character device, a
 *     socket, a directory) never;
 *   - a regular file is truncated only when corral's effective uid owns it
 *     and it has no other hard link; a new one is made with O_EXCL in the
 *     directory the path was resolved to;
 *   - the target must not lie in the directories (or be one of the files)
 *     the caller forbids: the sandbox's writable workspace and binds.
 *
 * The file finally opened is the inode that was looked at (reopened
 * through /proc/self/fd, or checked against it by device and inode).
 */
#ifndef CORRAL_SAFE_OPEN_H
#define CORRAL_SAFE_OPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

enum {
	SAFE_READ = 1 << 0,	/* read an existing regular file */
	SAFE_WRITE = 1 << 1,	/* write: create, or truncate what is there */
	SAFE_FIFO = 1 << 2,	/* a FIFO is accepted (write) */
	SAFE_NULL = 1 << 3,	/* /dev/null, /dev/full accepted (write) */
};

/* A directory or file the target must not lie in (or be). */
struct safe_forbid {
	dev_t dev;
	ino_t ino;
	bool dir;
	const char *what; /* "the sandbox's writable workspace /ws" */
};

struct safe_open {
	unsigned flags;		  /* SAFE_* */
	int oflags;		  /* more open flags: O_APPEND, O_NONBLOCK */
	mode_t mode;		  /* of a new file */
	const char *what;	  /* "journal", "--html": for messages */
	const struct safe_forbid *forbid;
	size_t nforbid;
	/* Out. */
	bool created;
	struct stat st; /* of the file opened */
};

/*
 * Open path as o says. Returns the descriptor (O_CLOEXEC) or -errno with
 * a user-facing message in err ("<what> PATH: why"). -ENXIO: a FIFO with
 * no reader (the caller words that one).
 */
int safe_open(const char *path, struct safe_open *o, char *err,
	      size_t errlen);

/* Tests only: resolve as a kernel without openat2 does (a walk). */
extern bool safe_open_no_openat2;

#endif
