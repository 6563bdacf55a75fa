/*
 * procfs.c - the /proc reads made once for a task at one of its events.
 *
 * corral never lists /proc to find tasks (the kernel tells it about every
 * one); it only reads what ptrace does not carry, such as the argv of an
 * exec, while the task is stopped at that event and so cannot change it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procfs.h"

static ssize_t read_all(const char *path, char **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		/*
		 * A short read is the end for the files read here (cmdline
		 * copies up to the count or its end; status is generated
		 * whole): one read() per exec instead of two.
		 */
		if ((size_t)n < cap - (len - (size_t)n) - 1)
			break;
	}
	close(fd);
	buf[len] = 0;
	*out = buf;
	return (ssize_t)len;
}

/* "/proc/<tid>/<leaf>" without snprintf (a path per exec). */
static void proc_path(char out[64], pid_t tid, const char *leaf)
{
	char d[16];
	int k = 0;
	unsigned v = (unsigned)tid;
	do
		d[k++] = (char)('0' + v % 10);
	while ((v /= 10) && k < 15);
	char *p = stpcpy(out, "/proc/");
	while (k)
		*p++ = d[--k];
	*p++ = '/';
	size_t l = strlen(leaf); /* a short constant: "exe", "cmdline" */
	memcpy(p, leaf, l < 40 ? l + 1 : 1);
}

int procfs_argv(pid_t tid, char **block, char ***argvp)
{
	char path[64];
	proc_path(path, tid, "cmdline");
	char *buf;
	ssize_t len = read_all(path, &buf);
	if (len < 0)
		return (int)len;
	size_t n = 0;
	for (ssize_t i = 0; i < len; i++)
		n += buf[i] == 0;
	if (len > 0 && buf[len - 1] != 0)
		n++; /* unterminated last argument (argv rewritten) */
	char **argv = malloc((n + 1) * sizeof(*argv));
	if (!argv) {
		free(buf);
		return -ENOMEM;
	}
	size_t k = 0;
	for (ssize_t i = 0; i < len && k < n; k++) {
		argv[k] = buf + i;
		i += (ssize_t)strlen(buf + i) + 1;
	}
	argv[k] = NULL;
	*block = buf;
	*argvp = argv;
	return 0;
}

/* The target of the link /proc/tid/<what>, malloc'd; NULL on failure. */
static char *read_link(pid_t tid, const char *what)
{
	char path[64], buf[4096];
	proc_path(path, tid, what);
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);
	if (n < 0)
		return NULL;
	buf[n] = 0;
	return strdup(buf);
}

char *procfs_exe(pid_t tid)
{
	return read_link(tid, "exe");
}

void procfs_warm(pid_t tid)
{
	char path[64];
	struct stat st;
	proc_path(path, tid, "exe");
	/* NOFOLLOW: the entry, not the program (no d_path, no open). */
	(void)fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW);
}

char *procfs_cwd(pid_t tid)
{
	return read_link(tid, "cwd");
}

int procfs_fds(pid_t tid,
	       void (*fn)(const char *fd, const char *target, size_t len,
			  void *arg),
	       void *arg)
{
	char dir[64], target[4096];
	proc_path(dir, tid, "fd");
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		ssize_t n = readlinkat(dirfd(d), e->d_name, target,
				       sizeof(target) - 1);
		if (n < 0)
			continue; /* closed meanwhile */
		target[n] = 0;
		fn(e->d_name, target, (size_t)n, arg);
	}
	closedir(d);
	return 0;
}

int procfs_ids(pid_t tid, pid_t *tgid, pid_t *ppid, pid_t *nspid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	char *buf;
	ssize_t len = read_all(path, &buf);
	if (len < 0)
		return (int)len;
	*tgid = *ppid = 0;
	if (nspid)
		*nspid = 0;
	for (char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		if (!strncmp(l, "Tgid:", 5))
			*tgid = atoi(l + 5);
		else if (!strncmp(l, "PPid:", 5))
			*ppid = atoi(l + 5);
		else if (nspid && !strncmp(l, "NSpid:", 6)) {
			/* The last field is the innermost namespace's pid. */
			char *e = strchr(l, '\n');
			if (e)
				*e = 0;
			char *last = strrchr(l, '\t');
			char *first = strchr(l, '\t');
			if (last && last != first)
				*nspid = atoi(last + 1);
			if (e)
				*e = '\n';
		}
	}
	free(buf);
	return 0;
}

bool procfs_is_thread_of(pid_t tgid, pid_t tid)
{
	char path[64];
	/* /proc/TGID/task/TID exists only for tasks of that thread group. */
	snprintf(path, sizeof(path), "/proc/%d/task/%d", tgid, tid);
	return access(path, F_OK) == 0;
}

/*
 * A small /proc file in one read (what these files hold is made at the
 * read, whole), NUL-terminated; false if it cannot be read.
 */
static bool read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return true;
}

char procfs_state(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!read_small(path, buf, sizeof(buf)))
		return 0;
	/* The command name may hold ')' and spaces: the state follows the
	 * last ')'. */
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* The number after "key" at the start of a line of a /proc file, or 0. */
static pid_t proc_field(const char *path, const char *key)
{
	char buf[2048];
	if (!read_small(path, buf, sizeof(buf)))
		return 0;
	size_t klen = strlen(key);
	for (char *l = buf; l; l = strchr(l, '\n')) {
		if (*l == '\n')
			l++;
		if (!strncmp(l, key, klen))
			return (pid_t)strtol(l + klen, NULL, 10);
	}
	return 0;
}

/*
 * A pidfd says which process it stands for in its fdinfo ("Pid:", in the
 * pid namespace of our /proc); a /proc/<pid> directory by its path, which
 * names a pid of ours only when tid shares our pid namespace.
 */
pid_t procfs_fd_target(pid_t tid, int fd)
{
	char path[64], link[64];
	struct stat mine, theirs;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", tid, fd);
	pid_t pid = proc_field(path, "Pid:");
	if (pid)
		return pid;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", tid, fd);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = 0;
	if (strncmp(link, "/proc/", 6))
		return 0;
	char *end;
	long v = strtol(link + 6, &end, 10);
	if (v <= 0 || v > INT32_MAX || *end)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", tid);
	if (stat("/proc/self/ns/pid", &mine) || stat(path, &theirs) ||
	    mine.st_ino != theirs.st_ino || mine.st_dev != theirs.st_dev)
		return 0;
	return (pid_t)v;
}

/* The inode of a namespace of tid, or -errno (a non-dumpable task's
 * namespaces are closed to a tracer without privilege: -EACCES). */
static long long ns_ino(pid_t tid, const char *ns)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d/ns/%s", tid, ns);
	return stat(path, &st) == 0 ? (long long)st.st_ino : -errno;
}

int procfs_creds(pid_t tid, struct procfs_creds *out)
{
	char path[64];
	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	char *buf;
	ssize_t len = read_all(path, &buf);
	if (len < 0)
		return (int)len;
	int seen = 0;
	for (char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		if (!strncmp(l, "Uid:", 4))
			seen += sscanf(l + 4, "%u %u %u %u", &out->uid[0],
				       &out->uid[1], &out->uid[2],
				       &out->uid[3]) == 4;
		else if (!strncmp(l, "Gid:", 4))
			seen += sscanf(l + 4, "%u %u %u %u", &out->gid[0],
				       &out->gid[1], &out->gid[2],
				       &out->gid[3]) == 4;
		else if (!strncmp(l, "CapEff:", 7))
			seen += sscanf(l + 7, "%llx", &out->cap_eff) == 1;
		else if (!strncmp(l, "CapPrm:", 7))
			seen += sscanf(l + 7, "%llx", &out->cap_prm) == 1;
		else if (!strncmp(l, "Tgid:", 5))
			out->tgid = atoi(l + 5);
		else if (!strncmp(l, "PPid:", 5))
			out->ppid = atoi(l + 5);
		else if (!strncmp(l, "NSpid:", 6)) {
			char *e = strchr(l, '\n');
			if (e)
				*e = 0;
			char *last = strrchr(l, '\t');
			out->nspid = last ? atoi(last + 1) : 0;
			if (e)
				*e = '\n';
		}
	}
	free(buf);
	if (seen != 4)
		return -EIO;
	/* Not dumpable: the kernel gives its /proc files to root (or the
	 * root of its user namespace) instead of its effective ids. */
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d", out->tgid ? out->tgid : tid);
	if (stat(path, &st) < 0)
		return -errno;
	out->dumpable = st.st_uid == out->uid[1] && st.st_gid == out->gid[1];
	long long u = ns_ino(tid, "user"), p = ns_ino(tid, "pid");
	if (u < 0 || p < 0)
		return (int)(u < 0 ? u : p);
	out->userns = (unsigned long long)u;
	out->pidns = (unsigned long long)p;
	return 0;
}
