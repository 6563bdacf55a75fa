/*
 * floor - the cheapest ptrace supervisor that still sees every new task.
 *
 *   floor [-j FILE [-s SKIP]] COMMAND [ARG...]
 *
 * It is the floor corral's overhead is measured against: the same kernel
 * mechanism (PTRACE_SEIZE with fork/vfork/clone/exec events, auto-attach of
 * every child) and nothing else: no tree, no journal, no bookkeeping, one
 * PTRACE_CONT per stop. Whatever corral costs above this is corral's own.
 *
 * With -j FILE it is the floor of a journal that keeps corral's promises
 * (docs/journal.md): the kernel calls such a journal cannot do without,
 * and nothing else. At an exec stop, the executable (readlink of
 * /proc/PID/exe) and the argv from the new image's stack (the stack
 * pointer from PTRACE_GET_SYSCALL_INFO, then two process_vm_readv: argc
 * and the pointers, then the strings); the child's pid at a fork/clone
 * (PTRACE_GETEVENTMSG); the resource use of an ending task (wait4's
 * rusage); and one write() of a line, before the task is resumed, for
 * every event that resumes one (fork, exec, signal). An exit's line
 * resumes nobody and goes out with the next write. No table, no JSON
 * escaping, no digest chain, no end-of-run check: corral -j's cost above
 * this one is its own code's, and this one's above the plain floor is
 * what the promises cost on this machine (docs/bench.md, "The journal").
 *
 * Exits with COMMAND's status (128+N if it was killed by signal N).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "bench.h"

/* The journal floor's line, and an exit line waiting for the next write. */
static int jfd = -1;
/*
 * -s exe,argv,write,rusage,warm (after -j) leaves those calls out, to see
 * what each of them costs (docs/bench.md): a measuring aid, not a journal.
 */
static const char *skip = "";
#define SKIP(what) (strstr(skip, what) != NULL)
static char line[16384];
static size_t held;

static void put_line(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line + held, sizeof(line) - held, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof(line) - held)
		held += (size_t)n;
}

static void write_lines(void)
{
	if (SKIP("write"))
		held = 0;
	if (held && write(jfd, line, held) != (ssize_t)held)
		die("write");
	held = 0;
}

static ssize_t readlink_proc(pid_t pid, char *buf, size_t n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	return readlink(path, buf, n);
}

/*
 * As corral does while idle: look up /proc/PID/exe of a new task once it
 * runs, so that the readlink at its exec finds the entries made.
 */
static void warm(pid_t pid)
{
	char path[64];
	struct stat sb;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	(void)fstatat(AT_FDCWD, path, &sb, AT_SYMLINK_NOFOLLOW);
}

static ssize_t peek(pid_t pid, uintptr_t at, void *to, size_t n)
{
	struct iovec l = {.iov_base = to, .iov_len = n};
	struct iovec r = {.iov_base = (void *)at, .iov_len = n};
	return process_vm_readv(pid, &l, 1, &r, 1, 0);
}

/* What an exec line needs: the executable and the argv, read now. */
static void exec_line(pid_t pid)
{
	char exe[4096], args[8192];
	ssize_t n = SKIP("exe") ? 0 : readlink_proc(pid, exe, sizeof(exe));
	struct __ptrace_syscall_info si;
	uint64_t w[128];
	size_t len = 0;
	if (!SKIP("argv") &&
	    syscall(SYS_ptrace, PTRACE_GET_SYSCALL_INFO, pid,
		    (void *)sizeof(si), &si) > 0 &&
	    peek(pid, si.stack_pointer, w, sizeof(w)) > 16) {
		uint64_t argc = w[0];
		if (argc + 2 < 128 && w[argc + 2] > w[1] &&
		    w[argc + 2] - w[1] < sizeof(args)) {
			len = w[argc + 2] - w[1];
			if (peek(pid, w[1], args, len) != (ssize_t)len)
				len = 0;
		}
	}
	for (size_t i = 0; i < len; i++)
		if (!args[i])
			args[i] = ' ';
	put_line("{\"event\":\"exec\",\"pid\":%d,\"path\":\"%.*s\","
		 "\"argv\":\"%.*s\"}\n",
		 pid, (int)(n > 0 ? n : 0), exe, (int)len, args);
	write_lines();
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "-j")) {
		jfd = open(argv[2],
			   O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
			   0600);
		if (jfd < 0)
			die("open %s", argv[2]);
		argv += 2;
		argc -= 2;
		if (argc > 2 && !strcmp(argv[1], "-s")) {
			skip = argv[2];
			argv += 2;
			argc -= 2;
		}
	}
	if (argc < 2) {
		fprintf(stderr,
			"usage: floor [-j FILE [-s SKIP]] COMMAND [ARG...]\n");
		return 2;
	}

	/*
	 * The child waits on a pipe until it is seized, so the command cannot
	 * run a single instruction (or fork) before we trace it.
	 */
	int go[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		die("pipe");
	pid_t child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		char c;
		close(go[1]);
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		execvp(argv[1], argv + 1);
		fprintf(stderr, "floor: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	close(go[0]);

	/*
	 * EXITKILL: if floor dies, the kernel kills every tracee; a benchmark
	 * must never leave a tree behind.
	 */
	long opts = PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
		    PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
		    PTRACE_O_EXITKILL;
	if (ptrace(PTRACE_SEIZE, child, 0, opts) < 0)
		die("PTRACE_SEIZE");
	close(go[1]); /* releases the child: read() returns 0 */

	int root_status = 0;
	for (;;) {
		int st;
		struct rusage ru = {0};
		pid_t pid = wait4(-1, &st, __WALL,
				  jfd >= 0 && !SKIP("rusage") ? &ru : NULL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				break; /* every tracee is gone */
			die("waitpid");
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (pid == child)
				root_status = st;
			if (jfd >= 0)
				put_line("{\"event\":\"exit\",\"pid\":%d,"
					 "\"status\":%d,\"cpu_user\":%ld.%06ld,"
					 "\"max_rss\":%ld}\n",
					 pid, st, (long)ru.ru_utime.tv_sec,
					 (long)ru.ru_utime.tv_usec,
					 ru.ru_maxrss);
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;

		int sig = WSTOPSIG(st);
		int event = (unsigned)st >> 16;
		long req = PTRACE_CONT;
		long inject = 0;
		if (event == PTRACE_EVENT_STOP) {
			/*
			 * Seized tasks report both their first stop after
			 * auto-attach and group-stops as EVENT_STOP. The first
			 * carries SIGTRAP; a group-stop carries the stopping
			 * signal and must be LISTENed to, not continued, or
			 * SIGSTOP would be silently undone.
			 */
			if (sig == SIGSTOP || sig == SIGTSTP ||
			    sig == SIGTTIN || sig == SIGTTOU)
				req = PTRACE_LISTEN;
		} else if (event == 0) {
			/* Signal-delivery-stop: deliver it unchanged. */
			inject = sig;
			if (jfd >= 0) {
				put_line("{\"event\":\"signal\",\"pid\":%d,"
					 "\"signo\":%d}\n",
					 pid, sig);
				write_lines();
			}
		} else if (jfd >= 0 && event == PTRACE_EVENT_EXEC) {
			exec_line(pid);
		} else if (jfd >= 0) { /* fork, vfork, clone */
			unsigned long newpid = 0;
			ptrace(PTRACE_GETEVENTMSG, pid, 0, &newpid);
			put_line("{\"event\":\"fork\",\"pid\":%lu,"
				 "\"ppid\":%d}\n",
				 newpid, pid);
			write_lines();
		}
		/* Without -j, fork/vfork/clone/exec events: just continue. */

		/* ESRCH: the tracee was killed meanwhile; nothing to do. */
		ptrace(req, pid, 0, inject);
		if (jfd >= 0 && event == PTRACE_EVENT_STOP && sig == SIGTRAP &&
		    !SKIP("warm"))
			warm(pid); /* a new task's first stop */
	}

	if (jfd >= 0)
		write_lines();
	if (WIFSIGNALED(root_status))
		return 128 + WTERMSIG(root_status);
	return WEXITSTATUS(root_status);
}
