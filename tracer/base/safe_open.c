/*
 * safe_open.c - open the files corral writes (and its key file) without
 * following a symbolic link a member of a run may have planted: see
 * safe_open.h for the rules and docs/journal.md for what they protect.
 *
 * The attack this answers: a root `corral run --sandbox` runs the command
 * as the workspace's owner, who can write the workspace; it replaced
 * journal.jsonl there with a symbolic link, and the next root run
 * truncated a root-only file (or wrote onto a block device) through it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "corral.h"
#include "safe_open.h"

static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -e;
}

/*
 * Without openat2 (before Linux 5.6, or a seccomp policy that refuses it):
 * one component at a time, each opened O_PATH|O_NOFOLLOW and checked to be
 * a directory, so that a symbolic link is found and refused, never
 * followed. ".." is taken as the kernel takes it.
 */
static int walk_dir(const char *dir)
{
	int fd = open(dir[0] == '/' ? "/" : ".",
		      O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char *copy = strdup(dir), *save = NULL;
	if (!copy) {
		close(fd);
		return -ENOMEM;
	}
	for (char *c = strtok_r(copy, "/", &save); c;
	     c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		int nfd = openat(fd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(fd);
		if (nfd < 0) {
			free(copy);
			return -e;
		}
		struct stat st;
		if (fstat(nfd, &st) < 0 || !S_ISDIR(st.st_mode)) {
			e = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
			close(nfd);
			free(copy);
			return -e;
		}
		fd = nfd;
	}
	free(copy);
	return fd;
}

/* The unit test takes the walk, as a kernel without openat2 would. */
bool safe_open_no_openat2;

/* The directory of path, resolved without following any symbolic link. */
static int open_dir(const char *dir)
{
	if (safe_open_no_openat2)
		return walk_dir(dir);
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
	if (fd >= 0)
		return (int)fd;
	if (errno != ENOSYS && errno != EPERM && errno != E2BIG)
		return -errno;
	return walk_dir(dir);
}

static bool same(const struct stat *a, dev_t dev, ino_t ino)
{
	return a->st_dev == dev && a->st_ino == ino;
}

/*
 * Does the directory dirfd (or the file st in it) lie in a forbidden
 * place? Walks up with "..", comparing device and inode: a bind mount or
 * another spelling of the same directory is the same directory.
 */
static const struct safe_forbid *forbidden(int dirfd, const struct stat *st,
					   const struct safe_open *o)
{
	for (size_t i = 0; st && i < o->nforbid; i++)
		if (!o->forbid[i].dir &&
		    same(st, o->forbid[i].dev, o->forbid[i].ino))
			return &o->forbid[i];
	int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	const struct safe_forbid *hit = NULL;
	struct stat prev = {0};
	for (int depth = 0; fd >= 0 && !hit && depth < PATH_MAX; depth++) {
		struct stat d;
		if (fstat(fd, &d) < 0)
			break;
		if (depth && same(&prev, d.st_dev, d.st_ino))
			break; /* "/" is its own parent */
		for (size_t i = 0; i < o->nforbid && !hit; i++)
			if (o->forbid[i].dir &&
			    same(&d, o->forbid[i].dev, o->forbid[i].ino))
				hit = &o->forbid[i];
		prev = d;
		int up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = up;
	}
	if (fd >= 0)
		close(fd);
	return hit;
}

/* What a file is, in a refusal. */
static const char *kind(const struct stat *st)
{
	switch (st->st_mode & S_IFMT) {
	case S_IFLNK:
		return "a symbolic link";
	case S_IFBLK:
		return "a block device";
	case S_IFCHR:
		return "a character device";
	case S_IFDIR:
		return "a directory";
	case S_IFSOCK:
		return "a socket";
	case S_IFIFO:
		return "a FIFO";
	default:
		return "not a regular file";
	}
}

/*
 * Open the inode pfd (O_PATH) refers to for real, and make sure it is
 * still that inode: through /proc/self/fd, or, without /proc, by name
 * with O_NOFOLLOW and a comparison.
 */
static int reopen(int pfd, int dirfd, const char *name, int flags,
		  const struct stat *want)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", pfd);
	int fd = open(p, flags | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)
		fd = openat(dirfd, name,
			    flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || !same(&st, want->st_dev, want->st_ino)) {
		close(fd);
		return -EAGAIN; /* replaced meanwhile */
	}
	return fd;
}

int safe_open(const char *path, struct safe_open *o, char *err, size_t errlen)
{
	const char *what = o->what ? o->what : "file";
	o->created = false;
	size_t len = strlen(path);
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	if (!len || !*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return fail(err, errlen, EISDIR, "%s %s: not a file name", what,
			    path);
	char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (!dir)
		return fail(err, errlen, ENOMEM, "%s %s: out of memory", what,
			    path);
	int dirfd = open_dir(*dir ? dir : "/");
	free(dir);
	if (dirfd == -ELOOP)
		return fail(err, errlen, ELOOP,
			    "%s %s: a directory on its path is a symbolic "
			    "link, which corral does not follow in the path of "
			    "a file it writes or reads (give the real path: "
			    "realpath)",
			    what, path);
	if (dirfd < 0)
		return fail(err, errlen, -dirfd, "%s %s: %s", what, path,
			    strerror(-dirfd));
	int acc = (o->flags & SAFE_WRITE) ? O_WRONLY : O_RDONLY;
	int r = -EAGAIN;
	/* A file made or replaced between two steps: look again, a few times. */
	for (int tries = 0; r == -EAGAIN && tries < 8; tries++) {
		r = -EAGAIN;
		int pfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (pfd < 0 && errno == ENOENT && (o->flags & SAFE_WRITE)) {
			const struct safe_forbid *f = forbidden(dirfd, NULL, o);
			if (f) {
				r = fail(err, errlen, EPERM,
					 "%s %s: inside %s, where a member of "
					 "the run can change or replace it: "
					 "keep it outside",
					 what, path, f->what);
				break;
			}
			int fd = openat(dirfd, name,
					acc | o->oflags | O_CREAT | O_EXCL |
						O_NOFOLLOW | O_CLOEXEC |
						O_NOCTTY,
					o->mode);
			if (fd < 0 && errno == EEXIST)
				continue;
			if (fd < 0) {
				r = fail(err, errlen, errno, "%s %s: %s", what,
					 path, strerror(errno));
				break;
			}
			fstat(fd, &o->st);
			o->created = true;
			r = fd;
			break;
		}
		if (pfd < 0) {
			r = fail(err, errlen, errno, "%s %s: %s", what, path,
				 strerror(errno));
			break;
		}
		struct stat st;
		if (fstat(pfd, &st) < 0) {
			r = fail(err, errlen, errno, "%s %s: %s", what, path,
				 strerror(errno));
			close(pfd);
			break;
		}
		bool reg = S_ISREG(st.st_mode);
		bool ok = reg ||
			  ((o->flags & SAFE_FIFO) && S_ISFIFO(st.st_mode)) ||
			  ((o->flags & SAFE_NULL) && S_ISCHR(st.st_mode) &&
			   (st.st_rdev == makedev(1, 3) ||
			    st.st_rdev == makedev(1, 7)));
		const struct safe_forbid *f =
			ok && (o->flags & SAFE_WRITE) ? forbidden(dirfd, &st, o)
						      : NULL;
		if (!ok && S_ISLNK(st.st_mode))
			r = fail(err, errlen, ELOOP,
				 "%s %s: a symbolic link, which corral does "
				 "not follow to a file it %s (a member of a "
				 "run may have put it there): remove it or "
				 "give the real path",
				 what, path,
				 (o->flags & SAFE_WRITE) ? "writes" : "reads");
		else if (!ok)
			r = fail(err, errlen, EPERM,
				 "%s %s: %s: corral %s only a regular file%s",
				 what, path, kind(&st),
				 (o->flags & SAFE_WRITE) ? "writes" : "reads",
				 (o->flags & SAFE_FIFO) ? " or a FIFO" : "");
		else if (f)
			r = fail(err, errlen, EPERM,
				 "%s %s: inside %s, where a member of the run "
				 "can change or replace it: keep it outside",
				 what, path, f->what);
		else if (reg && (o->flags & SAFE_WRITE) &&
			 st.st_uid != geteuid())
			r = fail(err, errlen, EPERM,
				 "%s %s: owned by uid %u, not by corral's "
				 "(%u): not truncated (remove it, or give "
				 "another path)",
				 what, path, (unsigned)st.st_uid,
				 (unsigned)geteuid());
		else if (reg && (o->flags & SAFE_WRITE) && st.st_nlink > 1)
			r = fail(err, errlen, EPERM,
				 "%s %s: has %lu hard links: not truncated "
				 "(it may be another file's name too)",
				 what, path, (unsigned long)st.st_nlink);
		if (r != -EAGAIN) {
			close(pfd);
			break;
		}
		int fd = reopen(pfd, dirfd, name, acc | o->oflags, &st);
		close(pfd);
		if (fd == -EAGAIN)
			continue;
		if (fd == -ENXIO) {
			r = fail(err, errlen, ENXIO, "%s %s: a FIFO with no "
						     "reader", what, path);
			break;
		}
		if (fd < 0) {
			r = fail(err, errlen, -fd, "%s %s: %s", what, path,
				 strerror(-fd));
			break;
		}
		/* O_TRUNC only now, on the file that passed the checks. */
		if (reg && (o->flags & SAFE_WRITE) && ftruncate(fd, 0) < 0) {
			r = fail(err, errlen, errno, "%s %s: %s", what, path,
				 strerror(errno));
			close(fd);
			break;
		}
		fstat(fd, &o->st);
		r = fd;
	}
	if (r == -EAGAIN)
		r = fail(err, errlen, EAGAIN,
			 "%s %s: the file keeps being replaced", what, path);
	close(dirfd);
	return r;
}

/* ------------------------------------------------ the public face */

/* "/dev/fd/N", "/proc/self/fd/N", "/dev/stdout", "/dev/stderr": N. */
static int given_fd(const char *p)
{
	const char *rest = NULL;
	if (!strcmp(p, "/dev/stdout"))
		return 1;
	if (!strcmp(p, "/dev/stderr"))
		return 2;
	if (!strncmp(p, "/dev/fd/", 8))
		rest = p + 8;
	else if (!strncmp(p, "/proc/self/fd/", 14))
		rest = p + 14;
	if (!rest || *rest < '0' || *rest > '9')
		return -1;
	char *end;
	long n = strtol(rest, &end, 10);
	return *end || n > INT_MAX ? -1 : (int)n;
}

int corral_open_file(const char *path, int how, char *err, size_t errlen)
{
	char dummy[8];
	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = 0;
	int n = how == CORRAL_OPEN_WRITE ? given_fd(path) : -1;
	if (n >= 0) {
		/* A descriptor the caller opened: used as given. */
		int fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
		return fd < 0 ? fail(err, errlen, errno, "%s: %s", path,
				     strerror(errno))
			      : fd;
	}
	struct safe_open o = {
		.flags = how == CORRAL_OPEN_WRITE ? SAFE_WRITE | SAFE_FIFO
						  : SAFE_READ,
		/* a FIFO without a reader fails at once, not hangs */
		.oflags = how == CORRAL_OPEN_WRITE ? O_NONBLOCK : 0,
		.mode = 0666, /* less the umask, as fopen(3) */
		/* "output PATH: why"; " PATH: why" for a read (a key...) */
		.what = how == CORRAL_OPEN_WRITE ? "output" : "",
	};
	if (how != CORRAL_OPEN_WRITE && how != CORRAL_OPEN_READ)
		return fail(err, errlen, EINVAL, "bad mode");
	int fd = safe_open(path, &o, err, errlen);
	if (fd >= 0 && o.oflags)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}
