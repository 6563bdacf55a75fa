/*
 * fuse.c - find the FUSE connections members serve, and abort them
 * (fuse.h). Only for kill-all's last resort: members that cannot die.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fuse.h"

#define FUSECTL_SUPER_MAGIC 0x65735543
/* <linux/mount.h> clashes with glibc's <sys/mount.h>: the values. */
#define FSOPEN_CLOEXEC_ 0x1
#define FSCONFIG_CMD_CREATE_ 6
#define FSMOUNT_CLOEXEC_ 0x1

/* A table this large is not read to the end: a bound on the walk. */
#define MAX_FDS 65536

static int read_at(int dir, const char *name, char *buf, size_t len)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, len - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = 0;
	return (int)n;
}

int fuse_conns(pid_t tid, unsigned *conns, int max)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo", (int)tid);
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	int n = 0, seen = 0;
	for (struct dirent *e; n < max && seen < MAX_FDS && (e = readdir(d));
	     seen++) {
		if (e->d_name[0] == '.')
			continue;
		/*
		 * fdinfo is the kernel's text: reading it never calls into a
		 * file system (a path of the member's, a stat through the fd,
		 * could wait on a FUSE server for ever).
		 */
		char buf[1024];
		if (read_at(dirfd(d), e->d_name, buf, sizeof(buf)) <= 0)
			continue; /* closed meanwhile */
		for (char *l = buf; l; l = strchr(l, '\n')) {
			if (*l == '\n')
				l++;
			unsigned c;
			if (sscanf(l, "fuse_connection:%u", &c) != 1)
				continue;
			bool dup = false;
			for (int i = 0; i < n; i++)
				dup |= conns[i] == c;
			if (!dup)
				conns[n++] = c;
			break;
		}
	}
	closedir(d);
	return n;
}

/* A fusectl of our own, mounted nowhere. */
static int private_fusectl(void)
{
	int fs = (int)syscall(SYS_fsopen, "fusectl", FSOPEN_CLOEXEC_);
	if (fs < 0)
		return -errno;
	int r = (int)syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE_, NULL, NULL,
			     0);
	if (r == 0)
		r = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC_, 0);
	int e = errno;
	close(fs);
	return r < 0 ? -e : r;
}

/* The host's fusectl, if that is what is mounted there. */
static int host_fusectl(void)
{
	int dir = open("/sys/fs/fuse/connections",
		       O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	struct statfs sf;
	if (fstatfs(dir, &sf) || sf.f_type != FUSECTL_SUPER_MAGIC) {
		close(dir);
		return -ENOENT; /* not mounted */
	}
	return dir;
}

int fuse_abort(unsigned conn)
{
	char name[32];
	snprintf(name, sizeof(name), "%u/abort", conn);
	int err = 0;
	for (int way = 0; way < 2; way++) {
		int dir = way ? host_fusectl() : private_fusectl();
		if (dir < 0) {
			/* The first way's reason (EPERM for a user) is the
			 * one to tell, unless the second got further. */
			if (!err || dir != -ENOENT)
				err = dir;
			continue;
		}
		int fd = openat(dir, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
		int r = fd < 0 ? -errno : 0;
		close(dir);
		if (fd >= 0) {
			if (write(fd, "1", 1) != 1)
				r = -errno;
			close(fd);
		}
		if (r == 0)
			return 0;
		err = r;
	}
	return err;
}
