/*
 * ps.c - `corral ps`: the corrals of this user that listen here, and the
 * live tree of one of them (its socket, tracer/stacks/live.c).
 *
 *   corral ps [--stacks|--json] [PID]
 *
 * The socket's name ("\0corral/live/PID", abstract) proves nothing: any
 * process may bind it, a member included (Landlock scopes connects, not
 * binds). So a listener is taken for a corral only when:
 *
 * - SO_PEERCRED names PID itself (not a squatter holding another pid's
 *   name), of our uid (any uid when we are root);
 * - and PID runs our own executable: /proc/PID/exe is the same file
 *   (st_dev, st_ino) as /proc/self/exe. A running corral is non-dumpable
 *   (tracer/core/spawn.c), so an unprivileged client cannot read that link
 *   (EACCES); then PID must not be traced: every member of a tree is
 *   traced by its corral (docs/threat-model.md, "every task is known") and
 *   cannot detach, while a corral started by a user is not;
 * - and PID is still the process that answered (its pidfd, SO_PEERPIDFD,
 *   is alive after the /proc reads: not a pid reused meanwhile).
 *
 * What stays open (docs/threat-model.md): a process running corral's own
 * executable (a nested `corral run`, or corral with a library preloaded)
 * passes as a corral, and a corral that is traced (under strace, gdb, or
 * a corral inside a corral) is not listed to an unprivileged user. So
 * whatever a peer answers is still escaped before it reaches the
 * terminal: only line breaks pass; control bytes, C1, bidi overrides and
 * bytes that are not UTF-8 are shown as \e, \xHH (corral_escape).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "commands.h"
#include "corral.h"
#include "result.h"
#include "usage.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5 */
#endif

#define ANSWER_MAX (16u << 20) /* a corral answers at most 4 MiB */

static int bad_usage(const char *msg, const char *arg)
{
	return cli_usage_error("ps", "%s%s%s", msg, arg ? ": " : "",
			       arg ? arg : "");
}

/* A number from /proc/PID/status ("Uid:", "TracerPid:"), or -1. These
 * lines are there for a non-dumpable process too. */
static long status_field(long pid, const char *key)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	FILE *f = fopen(path, "r");
	long v = -1;
	size_t kl = strlen(key);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static bool uid_ok(long uid)
{
	return uid >= 0 && (uid == (long)geteuid() || geteuid() == 0);
}

/*
 * Does pid run our executable (or, when its exe cannot be read, is it a
 * process no tree traces)? NULL when so, else why not.
 */
static const char *runs_corral(long pid)
{
	char path[64];
	struct stat me, it;
	snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
	if (stat("/proc/self/exe", &me) < 0)
		return "cannot read our own executable";
	if (stat(path, &it) == 0)
		return me.st_dev == it.st_dev && me.st_ino == it.st_ino
			       ? NULL
			       : "it does not run corral's executable";
	if (errno != EACCES && errno != EPERM)
		return "it is gone";
	/* non-dumpable, as a running corral is: then not traced */
	long tracer = status_field(pid, "TracerPid");
	if (tracer < 0)
		return "it is gone";
	return tracer == 0 ? NULL
			   : "it is traced, as every member of a tree is";
}

/* The abstract address of pid's live socket. */
static socklen_t live_addr(struct sockaddr_un *a, long pid)
{
	*a = (struct sockaddr_un){.sun_family = AF_UNIX};
	int n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1,
			 CORRAL_LIVE_SOCKET_FMT, (int)pid);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   (size_t)n);
}

/*
 * Is the listener on the connected fd the corral pid, of ours (module
 * header)? NULL when so, else why not.
 */
static const char *peer_is_corral(int fd, long pid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
	    cr.pid != (pid_t)pid)
		return "its live socket belongs to another process";
	if (!uid_ok((long)cr.uid))
		return "it is another user's";
	int pidfd = -1;
	len = sizeof(pidfd);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0)
		pidfd = -1;
	const char *why = runs_corral(pid);
	/* the /proc reads were of the process that listens, not of one that
	 * took its pid since */
	if (!why && pidfd >= 0 &&
	    syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0)
		why = "it is gone";
	if (pidfd >= 0)
		close(pidfd);
	return why;
}

/*
 * For the list: connect without blocking and without a request (a
 * stopped corral's full backlog cannot hold us), and check the listener.
 * A full backlog says nothing of who listens: then pid itself must run
 * corral (its /proc cmdline is what the list shows).
 */
static bool listed(long pid)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	struct sockaddr_un a;
	socklen_t alen = live_addr(&a, pid);
	bool ok;
	if (connect(fd, (struct sockaddr *)&a, alen) < 0)
		ok = errno == EAGAIN && !runs_corral(pid);
	else
		ok = !peer_is_corral(fd, pid);
	close(fd);
	return ok;
}

/* `corral ps` without a PID: from the abstract names in /proc/net/unix. */
static int list_corrals(bool json)
{
	FILE *f = fopen("/proc/net/unix", "r");
	if (!f) {
		cli_say("ps", "/proc/net/unix: %s", strerror(errno));
		return 1;
	}
	char line[512], prefix[64];
	int plen =
		snprintf(prefix, sizeof(prefix), "@" CORRAL_LIVE_SOCKET_FMT, 0);
	prefix[--plen] = 0; /* without the "0" */
	unsigned n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, prefix);
		if (!p)
			continue;
		char *end;
		long pid = strtol(p + plen, &end, 10);
		if (pid <= 0 || (*end && *end != '\n'))
			continue;
		if (!uid_ok(status_field(pid, "Uid")) || !listed(pid))
			continue;
		char path[64], cmd[1024];
		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
		FILE *c = fopen(path, "r");
		size_t len = c ? fread(cmd, 1, sizeof(cmd) - 1, c) : 0;
		if (c)
			fclose(c);
		cmd[len] = 0;
		if (json) {
			printf("%s{\"pid\":%ld,\"argv\":[", n ? "," : "[", pid);
			for (size_t i = 0; i < len; i += strlen(cmd + i) + 1) {
				if (i)
					putchar(',');
				result_json_str(stdout, cmd + i);
			}
			fputs("]}", stdout);
			n++;
			continue;
		}
		/* NUL-separated argv: quote each argument */
		printf("%ld", pid);
		for (size_t i = 0; i < len; i += strlen(cmd + i) + 1) {
			char *q = corral_quote(cmd + i);
			printf(" %s", q ? q : "?");
			free(q);
		}
		putchar('\n');
		n++;
	}
	fclose(f);
	if (json)
		puts(n ? "]" : "[]");
	if (!n) {
		cli_say("ps", "no corral of yours is running here");
		return 1;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

/* Is the process stopped (a job stopped with ^Z, SIGSTOP)? It answers
 * nothing until it is continued. */
static bool proc_stopped(long pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'T';
}

/* The answer on stdout, line by line, each line escaped (a NUL byte as
 * \x00); buf[n] is a NUL of ours. */
static void put_escaped(char *buf, size_t n)
{
	size_t s = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && buf[i] != '\n' && buf[i] != 0)
			continue;
		char c = buf[i];
		buf[i] = 0;
		char *q = corral_escape(buf + s);
		fputs(q ? q : "?", stdout);
		free(q);
		if (i < n)
			fputs(c == '\n' ? "\n" : "\\x00", stdout);
		buf[i] = c;
		s = i + 1;
	}
}

static void help(void)
{
	printf("Usage: corral ps [--stacks|--json] [PID]\n"
	       "\n"
	       "Show the live tree of the corral with pid PID "
	       "(one of yours);\n"
	       "without PID, list your running corrals.\n"
	       "\n"
	       "  -s, --stacks   add the stack of every thread "
	       "(the tree is stopped a moment)\n"
	       "      --json     the same as one JSON object "
	       "(the live processes)\n"
	       "                 or array (the corrals)\n"
	       "  -h, --help     this help\n"
	       "\n"
	       "Exit status: 0; 1 no corral answers; 125 bad "
	       "usage.\n");
}

/*
 * Connect to corral PID's live socket, make sure corral itself answers
 * there, and send the request. Returns 0 with *fdp, or the exit status.
 */
static int ask(long pid, const char *req, int *fdp)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		cli_say("ps", "socket: %s", strerror(errno));
		return CORRAL_EXIT_INTERNAL;
	}
	struct sockaddr_un a;
	socklen_t alen = live_addr(&a, pid);
	if (connect(fd, (struct sockaddr *)&a, alen) < 0) {
		cli_say("ps", "no corral with pid %ld answers here (%s)", pid,
			strerror(errno));
		close(fd);
		return 1;
	}
	/* Only corral itself may answer in its name. */
	const char *why = peer_is_corral(fd, pid);
	if (why) {
		cli_say("ps",
			"pid %ld is not a corral of yours (%s): not asked", pid,
			why);
		close(fd);
		return 1;
	}
	/* A refusal closes the connection: no SIGPIPE for that. */
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0 && errno != EPIPE &&
	    errno != ECONNRESET) {
		cli_say("ps", "%s", strerror(errno));
		close(fd);
		return 1;
	}
	shutdown(fd, SHUT_WR);
	*fdp = fd;
	return 0;
}

/*
 * Read corral PID's answer on fd (closed here) up to ANSWER_MAX. Returns
 * 0 with the answer NUL-terminated in *out, its length in *len, or the
 * exit status.
 */
static int read_answer(int fd, long pid, char **out, size_t *len)
{
	size_t cap = 65536, total = 0;
	char *buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return CORRAL_EXIT_INTERNAL;
	}
	for (;;) {
		/* A stopped corral (a job stopped with ^Z) would keep us
		 * waiting forever: look at its state while nothing comes. */
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 1000) == 0) {
			if (!proc_stopped(pid))
				continue;
			cli_say("ps",
				"corral %ld is stopped (a stopped job answers "
				"once continued: fg or bg)",
				pid);
			close(fd);
			free(buf);
			return 1;
		}
		if (total == cap) {
			if (cap >= ANSWER_MAX)
				break; /* more than a corral says: not read */
			char *nb = realloc(buf, cap * 2 + 1);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		ssize_t got = recv(fd, buf + total, cap - total, MSG_DONTWAIT);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (got <= 0)
			break;
		total += (size_t)got;
	}
	close(fd);
	if (total == 0) {
		free(buf);
		cli_say("ps",
			"corral %ld closed the connection without an answer "
			"(it refuses its own members and other users)",
			pid);
		return 1;
	}
	buf[total] = 0;
	*out = buf;
	*len = total;
	return 0;
}

int corral_ps_main(int argc, char **argv)
{
	bool stacks = false, json = false;
	const char *pidarg = NULL;
	static const struct option opts[] = {
		{"stacks", no_argument, NULL, 's'},
		{"json", no_argument, NULL, 'J'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	optind = 0;
	opterr = 0;
	/* no '+': a PID may come before the options (`corral ps 123 -s`) */
	while ((c = getopt_long(argc, argv, ":sh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			stacks = true;
			break;
		case 'J':
			json = true;
			break;
		case 'h':
			help();
			return 0;
		default:
			return cli_bad_option("ps", argv, opts, c);
		}
	}
	if (optind < argc)
		pidarg = argv[optind++];
	if (optind < argc)
		return bad_usage("one PID only", NULL);
	if (json && stacks)
		return bad_usage("--json and --stacks", NULL);
	if (!pidarg)
		return list_corrals(json);
	char *end;
	errno = 0;
	long pid = strtol(pidarg, &end, 10);
	if (errno || *end || pid <= 0 || pid > INT_MAX)
		return bad_usage("invalid PID", pidarg);

	const char *req = json ? "json\n" : stacks ? "stacks\n" : "tree\n";
	int fd;
	int rc = ask(pid, req, &fd);
	if (rc)
		return rc;
	char *buf;
	size_t total;
	rc = read_answer(fd, pid, &buf, &total);
	if (rc)
		return rc;
	put_escaped(buf, total);
	free(buf);
	return fflush(stdout) == 0 ? 0 : 1;
}
