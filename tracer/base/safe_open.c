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
#include "log.h"
#include "safe_open.h"

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

/* A file made or replaced between two steps of one look: look again (not
 * an fd, not an -errno). */
#define LOOK_AGAIN INT_MIN

/*
 * The directory of path, resolved without following a symbolic link: a
 * step of its own, as a name that is no file and a linked directory are
 * refused before any file is looked at. dirfd, or -errno with err
 * written; *namep is path's last component.
 */
static int open_parent(const char *path, const char *what, const char **namep,
		       char *err, size_t errlen)
{
	size_t len = strlen(path);
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	if (!len || !*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return err_fmt(err, errlen, EISDIR, "%s %s: not a file name",
			       what, path);
	char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (!dir)
		return err_fmt(err, errlen, ENOMEM, "%s %s: out of memory",
			       what, path);
	int dirfd = open_dir(*dir ? dir : "/");
	free(dir);
	if (dirfd == -ELOOP)
		return err_fmt(
			err, errlen, ELOOP,
			"%s %s: a directory on its path is a symbolic "
			"link, which corral does not follow in the path of "
			"a file it writes or reads (give the real path: "
			"realpath)",
			what, path);
	if (dirfd < 0)
		return err_fmt(err, errlen, -dirfd, "%s %s: %s", what, path,
			       strerror(-dirfd));
	*namep = name;
	return dirfd;
}

/*
 * No file by that name, for a writer: make it, O_EXCL. Its own step, the
 * only one that creates: a forbidden place is refused before anything is
 * made there. fd, LOOK_AGAIN (made by another meanwhile), or -errno with
 * err written.
 */
static int create_new(int dirfd, const char *name, const char *path,
		      struct safe_open *o, int acc, char *err, size_t errlen)
{
	const char *what = o->what ? o->what : "file";
	const struct safe_forbid *f = forbidden(dirfd, NULL, o);
	if (f)
		return err_fmt(err, errlen, EPERM,
			       "%s %s: inside %s, where a member of "
			       "the run can change or replace it: "
			       "keep it outside",
			       what, path, f->what);
	int fd = openat(dirfd, name,
			acc | o->oflags | O_CREAT | O_EXCL | O_NOFOLLOW |
				O_CLOEXEC | O_NOCTTY,
			o->mode);
	if (fd < 0 && errno == EEXIST)
		return LOOK_AGAIN;
	if (fd < 0)
		return err_fmt(err, errlen, errno, "%s %s: %s", what, path,
			       strerror(errno));
	fstat(fd, &o->st);
	o->created = true;
	return fd;
}

/*
 * What the name is now (st, not yet opened): may corral open it? Every
 * refusal in one place, in the order they are checked: a link, a kind of
 * file it does not take, a forbidden place, for a writer a regular file
 * that is not its own or has other names. 0, or -errno with err written.
 */
static int check_existing(int dirfd, const struct stat *st, const char *path,
			  const struct safe_open *o, char *err, size_t errlen)
{
	const char *what = o->what ? o->what : "file";
	bool reg = S_ISREG(st->st_mode);
	bool ok = reg || ((o->flags & SAFE_FIFO) && S_ISFIFO(st->st_mode)) ||
		  ((o->flags & SAFE_NULL) && S_ISCHR(st->st_mode) &&
		   (st->st_rdev == makedev(1, 3) ||
		    st->st_rdev == makedev(1, 7)));
	const struct safe_forbid *f =
		ok && (o->flags & SAFE_WRITE) ? forbidden(dirfd, st, o) : NULL;
	if (!ok && S_ISLNK(st->st_mode))
		return err_fmt(err, errlen, ELOOP,
			       "%s %s: a symbolic link, which corral does "
			       "not follow to a file it %s (a member of a "
			       "run may have put it there): remove it or "
			       "give the real path",
			       what, path,
			       (o->flags & SAFE_WRITE) ? "writes" : "reads");
	if (!ok)
		return err_fmt(err, errlen, EPERM,
			       "%s %s: %s: corral %s only a regular file%s",
			       what, path, kind(st),
			       (o->flags & SAFE_WRITE) ? "writes" : "reads",
			       (o->flags & SAFE_FIFO) ? " or a FIFO" : "");
	if (f)
		return err_fmt(err, errlen, EPERM,
			       "%s %s: inside %s, where a member of the run "
			       "can change or replace it: keep it outside",
			       what, path, f->what);
	if (reg && (o->flags & SAFE_WRITE) && st->st_uid != geteuid())
		return err_fmt(err, errlen, EPERM,
			       "%s %s: owned by uid %u, not by corral's "
			       "(%u): not truncated (remove it, or give "
			       "another path)",
			       what, path, (unsigned)st->st_uid,
			       (unsigned)geteuid());
	if (reg && (o->flags & SAFE_WRITE) && st->st_nlink > 1)
		return err_fmt(err, errlen, EPERM,
			       "%s %s: has %lu hard links: not truncated "
			       "(it may be another file's name too)",
			       what, path, (unsigned long)st->st_nlink);
	return 0;
}

/*
 * The inode pfd names, checked (st), opened for real; for a writer a
 * regular file is truncated only now, once it passed the checks. fd,
 * LOOK_AGAIN (replaced since it was checked), or -errno with err written.
 */
static int open_checked(int pfd, int dirfd, const char *name, const char *path,
			struct safe_open *o, int acc, const struct stat *st,
			char *err, size_t errlen)
{
	const char *what = o->what ? o->what : "file";
	int fd = reopen(pfd, dirfd, name, acc | o->oflags, st);
	if (fd == -EAGAIN)
		return LOOK_AGAIN;
	if (fd == -ENXIO)
		return err_fmt(err, errlen, ENXIO,
			       "%s %s: a FIFO with no reader", what, path);
	if (fd < 0)
		return err_fmt(err, errlen, -fd, "%s %s: %s", what, path,
			       strerror(-fd));
	if (S_ISREG(st->st_mode) && (o->flags & SAFE_WRITE) &&
	    ftruncate(fd, 0) < 0) {
		int r = err_fmt(err, errlen, errno, "%s %s: %s", what, path,
				strerror(errno));
		close(fd);
		return r;
	}
	fstat(fd, &o->st);
	return fd;
}

/* One look at the name in dirfd: fd, LOOK_AGAIN, or -errno with err. */
static int look(int dirfd, const char *name, const char *path,
		struct safe_open *o, char *err, size_t errlen)
{
	const char *what = o->what ? o->what : "file";
	int acc = (o->flags & SAFE_WRITE) ? O_WRONLY : O_RDONLY;
	int pfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0 && errno == ENOENT && (o->flags & SAFE_WRITE))
		return create_new(dirfd, name, path, o, acc, err, errlen);
	if (pfd < 0)
		return err_fmt(err, errlen, errno, "%s %s: %s", what, path,
			       strerror(errno));
	struct stat st;
	int r;
	if (fstat(pfd, &st) < 0)
		r = err_fmt(err, errlen, errno, "%s %s: %s", what, path,
			    strerror(errno));
	else
		r = check_existing(dirfd, &st, path, o, err, errlen);
	if (r == 0)
		r = open_checked(pfd, dirfd, name, path, o, acc, &st, err,
				 errlen);
	close(pfd);
	return r;
}

int safe_open(const char *path, struct safe_open *o, char *err, size_t errlen)
{
	const char *what = o->what ? o->what : "file";
	const char *name = NULL;
	o->created = false;
	int dirfd = open_parent(path, what, &name, err, errlen);
	if (dirfd < 0)
		return dirfd;
	int r = LOOK_AGAIN;
	/* A file made or replaced between two steps: look again, a few times.
	 */
	for (int tries = 0; r == LOOK_AGAIN && tries < 8; tries++)
		r = look(dirfd, name, path, o, err, errlen);
	if (r == LOOK_AGAIN)
		r = err_fmt(err, errlen, EAGAIN,
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
		return fd < 0 ? err_fmt(err, errlen, errno, "%s: %s", path,
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
		return err_fmt(err, errlen, EINVAL, "bad mode");
	int fd = safe_open(path, &o, err, errlen);
	if (fd >= 0 && o.oflags)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}
