/*
 * cgkill.c - the cgroup v2 baseline: the kernel's own way to end a group of
 * processes. cgroup.kill SIGKILLs every task in the cgroup, forks in flight
 * included; completion is asynchronous, so "ended" means cgroup.events says
 * "populated 0". cgroup.freeze gives the matching stop-all figure.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>

#include "bench.h"
#include "ending.h"

/* Find the cgroup2 mount in /proc/self/mountinfo (field 5 is the mount
 * point, the filesystem type follows the " - " separator). */
static int cg2_mount(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	char line[4096];
	int found = 0;
	while (!found && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		char *p = line;
		for (int i = 0; i < 4 && p; i++)
			p = strchr(p + 1, ' ');
		if (!p)
			continue;
		char *end = strchr(p + 1, ' ');
		if (!end)
			continue;
		found = snprintf(out, len, "%.*s", (int)(end - p - 1), p + 1) <
			(int)len;
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

/* Our own cgroup v2 path ("0::/some/path" in /proc/self/cgroup). */
static int cg2_self(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -errno;
	char line[4096];
	int found = 0;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = 0;
		found = snprintf(out, len, "%s", line + 3) < (int)len;
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

int cg_create(const char *parent, char *path, size_t len)
{
	static int seq;
	char base[2048];
	if (parent) {
		if (snprintf(base, sizeof(base), "%s", parent) >= (int)sizeof(base))
			return -ENAMETOOLONG;
	} else {
		char mnt[1024], self[1024];
		int e = cg2_mount(mnt, sizeof(mnt));
		if (!e)
			e = cg2_self(self, sizeof(self));
		if (e)
			return e;
		if (snprintf(base, sizeof(base), "%s%s", mnt,
			     strcmp(self, "/") ? self : "") >= (int)sizeof(base))
			return -ENAMETOOLONG;
	}
	if (snprintf(path, len, "%s/corral-bench.%d.%d", base, (int)getpid(),
		     seq++) >= (int)len)
		return -ENAMETOOLONG;
	if (mkdir(path, 0755) < 0)
		return -errno;
	return 0;
}

static int write_file(const char *dir, const char *name, const char *val)
{
	char p[4096];
	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	int fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, val, strlen(val));
	int e = n < 0 ? -errno : 0;
	close(fd);
	return e;
}

int cg_enter(const char *path)
{
	return write_file(path, "cgroup.procs", "0");
}

/*
 * Wait until cgroup.events holds the line WANT. kernfs wakes poll() with
 * POLLPRI when the file changes after our last read, so reading first and
 * then polling loses no change.
 */
static int wait_events(const char *path, const char *want, int64_t deadline)
{
	char p[4096], buf[512];
	if (snprintf(p, sizeof(p), "%s/cgroup.events", path) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int e = -ETIMEDOUT;
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			e = -errno;
			break;
		}
		buf[n] = 0;
		/* Match whole lines: "frozen 1" must not match elsewhere. */
		char *hit = strstr(buf, want);
		if (hit && (hit == buf || hit[-1] == '\n')) {
			e = 0;
			break;
		}
		int64_t left = deadline - now_ns();
		if (left <= 0)
			break;
		struct pollfd pfd = { .fd = fd, .events = POLLPRI };
		int ms = (int)(left / 1000000) + 1;
		/* Cap the wait: a missed notification costs 10 ms, not all. */
		poll(&pfd, 1, ms < 10 ? ms : 10);
	}
	close(fd);
	return e;
}

int cg_freeze(const char *path, int v, int64_t deadline)
{
	int e = write_file(path, "cgroup.freeze", v ? "1" : "0");
	if (e)
		return e;
	return wait_events(path, v ? "frozen 1\n" : "frozen 0\n", deadline);
}

int cg_kill(const char *path, int64_t deadline)
{
	int e = write_file(path, "cgroup.kill", "1");
	if (e)
		return e;
	return wait_events(path, "populated 0\n", deadline);
}

int cg_remove(const char *path)
{
	/* rmdir fails with EBUSY while exited tasks are still being
	 * released; that takes microseconds to milliseconds. */
	for (int i = 0; i < 2000; i++) {
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		sleep_ns(1000000);
	}
	return -EBUSY;
}
