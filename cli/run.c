/*
 * run.c - `corral run`: a thin client of libcorral (include/corral.h).
 *
 * Everything the user can ask is validated here (options.c) or in
 * corral_new() before anything is started: a bad option, a missing command
 * or a journal that cannot be opened ends corral with a clear message and
 * nothing spawned.
 *
 * One voice: every message is "corral: ..." on stderr, with what came from
 * the user or the tree (a command name, an argv, a library message quoting
 * a path) escaped so that nothing reaches the terminal raw.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "corral.h"
#include "options.h"
#include "progress.h"
#include "result.h"
#include "usage.h"

/*
 * From the spawn on, corral's own messages must never block: a member may
 * stop the terminal they share (tcflow(TCOOFF), ^S) or fill a pipe nobody
 * reads, and corral must still end the tree and exit on time. So fd 2
 * becomes a description of our own with O_NONBLOCK (a new open of
 * /proc/self/fd/2; the shared one, which the shell uses too, is left
 * alone). What does not fit then is lost. A regular file does not block;
 * a socket is left as it is (docs/threat-model.md).
 */
static void stderr_nonblocking(void)
{
	struct stat st;
	if (fstat(STDERR_FILENO, &st) < 0 || S_ISREG(st.st_mode) ||
	    S_ISSOCK(st.st_mode))
		return;
	int fd = open("/proc/self/fd/2",
		      O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fd != STDERR_FILENO) {
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
}

static const char *plural(unsigned long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* ----------------------------------------------------------- --verbose */

struct member {
	pid_t pid;
	char *cmd; /* quoted argv */
};

struct verbose {
	struct corral *c;
	const struct corral_config *cfg;
	bool ending;
	struct member *m; /* live members when the ending began, by pid */
	size_t n, cap;
};

static char *quoted_argv(const struct corral_proc_info *p)
{
	size_t len = 1;
	char *out = NULL;
	if (!p->argv || !p->argv[0])
		return p->path ? corral_quote(p->path) : strdup("?");
	for (size_t i = 0; p->argv[i]; i++) {
		char *q = corral_quote(p->argv[i]);
		if (!q)
			break;
		size_t ql = strlen(q);
		char *o = realloc(out, len + ql + 1);
		if (!o) {
			free(q);
			break;
		}
		if (len == 1)
			o[0] = 0;
		else
			strcat(o, " ");
		strcat(o, q);
		out = o;
		len += ql + 1;
		free(q);
	}
	return out ? out : strdup("?");
}

static void note_member(const struct corral_proc_info *p, void *arg)
{
	struct verbose *v = arg;
	if (p->ended >= 0 || p->setup)
		return;
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 32;
		struct member *m = realloc(v->m, cap * sizeof(*m));
		if (!m)
			return;
		v->m = m;
		v->cap = cap;
	}
	v->m[v->n++] = (struct member){p->pid, quoted_argv(p)};
}

static int by_pid(const void *a, const void *b)
{
	pid_t x = ((const struct member *)a)->pid;
	pid_t y = ((const struct member *)b)->pid;
	return (x > y) - (x < y);
}

/* The library's messages for a person (corral_config.log). */
static void on_log(const char *msg, void *arg)
{
	fprintf(stderr, "corral: %s\n", msg);
}

static void on_event(const struct corral_event *ev, void *arg)
{
	struct verbose *v = arg;
	char nb[16];
	if (ev->type == CORRAL_EV_ENDING && !v->ending) {
		v->ending = true;
		corral_foreach_proc(v->c, note_member, v);
		qsort(v->m, v->n, sizeof(*v->m), by_pid);
		bool grace = v->cfg->kill_after > 0 &&
			     ev->reason != CORRAL_REASON_MAXPROCS &&
			     ev->reason != CORRAL_REASON_ESCAPE;
		int sig = v->cfg->end_signal > 0 ? v->cfg->end_signal : SIGTERM;
		if (grace)
			cli_say(NULL,
				"ending the tree (%s): sending %s and SIGCONT "
				"to "
				"%zu %s, SIGKILL after %gs to what is left",
				corral_reason_name(ev->reason),
				corral_signal_name(sig, nb), v->n,
				plural(v->n, "process", "processes"),
				v->cfg->kill_after);
		else
			cli_say(NULL,
				"ending the tree (%s): stopping and sending "
				"SIGKILL "
				"to %zu %s",
				corral_reason_name(ev->reason), v->n,
				plural(v->n, "process", "processes"));
		for (size_t i = 0; i < v->n; i++)
			cli_say(NULL, "  %d %s", v->m[i].pid, v->m[i].cmd);
		return;
	}
	if (ev->type == CORRAL_EV_EXIT && v->ending && ev->pid == ev->tgid) {
		struct member key = {ev->pid, NULL};
		struct member *m =
			v->m ? bsearch(&key, v->m, v->n, sizeof(*v->m), by_pid)
			     : NULL;
		if (!m)
			return;
		if (ev->sig)
			cli_say(NULL, "%d %s: %s by %s", m->pid, m->cmd,
				ev->sig == SIGKILL ? "killed" : "terminated",
				corral_signal_name(ev->sig, nb));
		else
			cli_say(NULL, "%d %s: exited with status %d", m->pid,
				m->cmd, ev->status);
	}
}

static void verbose_free(struct verbose *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->m[i].cmd);
	free(v->m);
}

/* ------------------------------------------------------------- summary */

/* How the members that were alive when the ending began ended. */
struct ended {
	double since;
	int first; /* the first signal */
	unsigned long by_first, by_kill, by_other, exited;
};

static void count_ended(const struct corral_proc_info *p, void *arg)
{
	struct ended *e = arg;
	if (p->setup || p->ended < 0 || p->ended < e->since)
		return;
	if (!WIFSIGNALED(p->status))
		e->exited++;
	else if (WTERMSIG(p->status) == e->first)
		e->by_first++;
	else if (WTERMSIG(p->status) == SIGKILL)
		e->by_kill++;
	else
		e->by_other++;
}

static void say_ended(struct corral *c, const struct corral_config *cfg,
		      const struct corral_result *r, const char *why)
{
	struct ended e = {.since = r->t_ending,
			  .first = cfg->end_signal > 0 ? cfg->end_signal
						       : SIGTERM};
	corral_foreach_proc(c, count_ended, &e);
	char nb[16], parts[256] = "";
	size_t l = 0;
	if (e.by_first)
		l += (size_t)snprintf(parts + l, sizeof(parts) - l,
				      "%s%lu terminated by %s", l ? ", " : "",
				      e.by_first,
				      corral_signal_name(e.first, nb));
	if (e.by_kill)
		l += (size_t)snprintf(parts + l, sizeof(parts) - l,
				      "%s%lu killed by SIGKILL", l ? ", " : "",
				      e.by_kill);
	if (e.by_other)
		l += (size_t)snprintf(parts + l, sizeof(parts) - l,
				      "%s%lu died of another signal",
				      l ? ", " : "", e.by_other);
	if (e.exited)
		l += (size_t)snprintf(parts + l, sizeof(parts) - l,
				      "%s%lu exited", l ? ", " : "", e.exited);
	if (l)
		cli_say(NULL, "%s: the tree was ended: %s", why, parts);
	else
		cli_say(NULL, "%s: the tree was ended", why);
}

static void summary(struct corral *c, const struct corral_config *cfg,
		    const struct corral_result *r)
{
	char why[128], nb[16];
	switch (r->reason) {
	case CORRAL_REASON_TIMEOUT:
		snprintf(why, sizeof(why), "timeout after %gs", cfg->timeout);
		say_ended(c, cfg, r, why);
		break;
	case CORRAL_REASON_MAXPROCS:
		snprintf(why, sizeof(why), "more than %u %s", cfg->max_procs,
			 plural(cfg->max_procs, "process", "processes"));
		say_ended(c, cfg, r, why);
		break;
	case CORRAL_REASON_ESCAPE:
		say_ended(c, cfg, r, "an escape attempt (--escape=kill)");
		break;
	case CORRAL_REASON_SIGNAL:
		snprintf(why, sizeof(why), "got %s",
			 corral_signal_name(r->term_signal, nb));
		say_ended(c, cfg, r, why);
		break;
	case CORRAL_REASON_PARENT:
		say_ended(c, cfg, r, "corral's parent died");
		break;
	case CORRAL_REASON_EXITED:
		/* bubblewrap's own setup processes are not leftovers */
		if (r->left)
			cli_say(NULL,
				"%lu %s left behind by the command %s ended",
				r->left,
				plural(r->left, "process", "processes"),
				plural(r->left, "was", "were"));
		break;
	default:
		break;
	}
	/* --core: where to look (the journal's core events say which). */
	if (r->cores || r->cores_failed || r->cores_skipped)
		cli_say(NULL, "%lu core %s written to %s%s%s", r->cores,
			plural(r->cores, "file", "files"), cfg->core_dir,
			r->cores_cut ? " (some cut short: see the journal)"
				     : "",
			r->cores_failed || r->cores_skipped
				? "; some members got none (see the journal)"
				: "");
}

static void command_status(const struct corral_result *r, char *buf, size_t len)
{
	char nb[16];
	if (r->exec_failed || r->sandbox_failed)
		snprintf(buf, len, "the command did not run");
	else if (WIFSIGNALED(r->status))
		snprintf(buf, len, "the command was killed by %s%s",
			 corral_signal_name(WTERMSIG(r->status), nb),
			 WCOREDUMP(r->status) ? " (core dumped)" : "");
	else
		snprintf(buf, len, "the command exited with status %d",
			 WEXITSTATUS(r->status));
}

static void print_tree(struct corral *c, const struct corral_result *r,
		       bool quiet)
{
	if (!quiet) {
		char st[96];
		command_status(r, st, sizeof(st));
		cli_say(NULL, "%lu %s, %lu %s, %lu %s; %s", r->processes,
			plural(r->processes, "process", "processes"),
			r->threads, plural(r->threads, "thread", "threads"),
			r->execs, plural(r->execs, "exec", "execs"), st);
	}
	char *text;
	if (corral_tree_text(c, 0, &text) >= 0) {
		fputs(text, stderr);
		free(text);
	}
}

/*
 * bubblewrap exited before the command ran. Its own message is already on
 * stderr; the probe says what the host lacks (it runs a trial sandbox,
 * which is why it runs only now).
 */
static void explain_sandbox_failure(struct corral *c)
{
	cli_say(NULL,
		"the sandbox could not be built; the command was not run");
	/* The library ran the probe for the journal's end line. */
	if (*corral_error(c))
		cli_say(NULL, "%s", corral_error(c));
	cli_say(NULL, "see 'corral probe' and docs/sandbox.md");
}

/*
 * Die of the signal the command died of, as timeout(1) does, so that the
 * caller sees WIFSIGNALED (a shell loop stops on ^C). No core file of
 * corral's own: RLIMIT_CORE 0 first, and if that fails, exit 128+N.
 */
static int reraise(int sig)
{
	struct rlimit rl = {0, 0};
	fflush(NULL);
	if (setrlimit(RLIMIT_CORE, &rl) == 0) {
		struct sigaction dfl = {.sa_handler = SIG_DFL};
		sigset_t s;
		sigemptyset(&dfl.sa_mask);
		sigaction(sig, &dfl, NULL);
		sigemptyset(&s);
		sigaddset(&s, sig);
		sigprocmask(SIG_UNBLOCK, &s, NULL);
		raise(sig);
	}
	return 128 + sig;
}

static char *quote_cmd(const char *s)
{
	char *q = corral_quote(s);
	return q ? q : strdup("?");
}

/*
 * Does --sandbox-user SPEC keep host root (corral being root)? For the
 * warning only: the library decides (and refuses a bad SPEC) itself.
 */
static bool sandbox_keeps_root(const char *spec)
{
	char user[256];
	if (!spec || geteuid() != 0 || strlen(spec) >= sizeof(user))
		return false;
	snprintf(user, sizeof(user), "%.*s", (int)strcspn(spec, ":"), spec);
	char *end;
	unsigned long v = strtoul(user, &end, 10);
	if (user[0] >= '0' && user[0] <= '9' && !*end)
		return v == 0;
	struct passwd *pw = getpwnam(user);
	return pw && pw->pw_uid == 0;
}

/*
 * The status corral exits with, decided once: for the exit itself and
 * for --result. *sig is set when that status is a signal the command died
 * of or corral got, which the exit re-raises (reraise(): 128 + its number
 * if it cannot).
 */
static int run_status(const struct corral_result *res, int r,
		      const struct corral_config *cfg, const struct cli_run *o,
		      int *sig)
{
	*sig = 0;
	if (r < 0)
		return CORRAL_EXIT_INTERNAL;
	if (res->exec_failed || res->sandbox_failed)
		return res->exit_code;
	/* --journal-strict: a journal that lost a line fails the run. */
	if (cfg->journal_strict &&
	    (res->journal_lost || res->journal_intact == 0))
		return CORRAL_EXIT_INTERNAL;
	/* The tree is not confirmed gone: that is said before anything else
	 * (a signal to corral is not re-raised then). */
	if (res->exit_code == CORRAL_EXIT_DYING)
		return res->exit_code;
	if (res->reason == CORRAL_REASON_TIMEOUT && o->preserve_status)
		return WIFSIGNALED(res->status) ? 128 + WTERMSIG(res->status)
						: WEXITSTATUS(res->status);
	if ((res->reason == CORRAL_REASON_NONE ||
	     res->reason == CORRAL_REASON_EXITED) &&
	    WIFSIGNALED(res->status))
		*sig = WTERMSIG(res->status);
	else if (res->reason == CORRAL_REASON_SIGNAL && res->term_signal > 0)
		*sig = res->term_signal;
	return *sig ? 128 + *sig : res->exit_code;
}

/* The corral_config of the parsed options, with what only the CLI sets. */
static void run_config(const struct cli_run *o, char **self_argv,
		       struct corral_config *cfg, struct verbose *vb)
{
	*cfg = o->cfg;
	cfg->self_argv = (const char *const *)self_argv;
	cfg->history = o->tree || o->result; /* both list ended processes */
	cfg->live_stderr = true;
	cfg->live_socket = true;
	cfg->log = on_log;
	*vb = (struct verbose){.cfg = cfg};
	if (o->verbose) {
		cfg->on_event = on_event;
		cfg->on_event_arg = vb;
	}
}

/* corral_new(), its refusal said and turned into an exit code (or 0). */
static int run_new(const struct corral_config *cfg, struct corral **c)
{
	char err[512];
	int r = corral_new(cfg, c, err, sizeof(err));
	if (r >= 0)
		return 0;
	char *q = quote_cmd(cfg->argv[0]);
	if (r == -ENOENT)
		cli_say(NULL, "%s: command not found", q);
	else if (r == -EACCES)
		cli_say(NULL, "%s: %s", q, strerror(EACCES));
	else
		cli_say(NULL, "%s", err);
	free(q);
	if (r == -ENOENT)
		return CORRAL_EXIT_NOTFOUND;
	if (r == -EACCES)
		return CORRAL_EXIT_NOEXEC;
	return CORRAL_EXIT_INTERNAL;
}

/*
 * From the spawn to the tree's end: corral_wait(), with a progress line
 * on a terminal (progress.c); the step returns at least once a second for
 * it. Returns what corral_step() last returned.
 */
static int run_supervise(struct corral *c, const struct cli_run *o,
			 const struct corral_config *cfg)
{
	int r;
	/* The command has its copy of our stderr: ours may not block now. */
	stderr_nonblocking();
	if (o->verbose)
		cli_say_nonblocking(true);
	struct progress pg;
	progress_init(&pg, o->progress, o->progress_set, o->quiet, cfg->pty);
	while ((r = corral_step(c, progress_step_ms(&pg))) > 0)
		progress_tick(&pg, c);
	unsigned long dropped = cli_say_nonblocking(false);
	if (dropped)
		cli_say(NULL,
			"%lu message(s) could not be written while the tree "
			"ran "
			"(stderr was not being read)",
			dropped);
	return r;
}

/* The journal's line count and head, for a CI log: `corral verify --head`. */
static void say_journal(const struct corral_config *cfg,
			const struct corral_result *res, bool quiet)
{
	if (!cfg->journal_path && cfg->journal_fd < 0)
		return;
	if (quiet && !res->journal_lost && res->journal_intact != 0)
		return;
	cli_say(NULL, "journal: %lu lines, %lu lost, %s, head %s",
		res->journal_lines, res->journal_lost,
		res->journal_intact == 1   ? "intact"
		: res->journal_intact == 0 ? "NOT INTACT"
					   : "not checked (not a file)",
		*res->journal_head ? res->journal_head : "-");
}

/* What corral says once the tree is over, and --tree, --result. */
static void run_report(struct corral *c, const struct corral_config *cfg,
		       const struct cli_run *o, struct corral_result *res,
		       int r)
{
	bool tree = o->tree, quiet = o->quiet;
	/*
	 * The command's last line may lack its newline and share our
	 * terminal: corral's report starts on a line of its own there.
	 */
	bool report = res->exec_failed || res->sandbox_failed || r < 0 ||
		      res->survivors || tree ||
		      (!quiet && res->reason != CORRAL_REASON_NONE &&
		       (res->reason != CORRAL_REASON_EXITED || res->left));
	if (report && isatty(STDERR_FILENO))
		fputc('\n', stderr);
	if (r < 0) {
		cli_say(NULL, "supervision failed: %s", strerror(-r));
		res->exit_code = CORRAL_EXIT_INTERNAL;
	}
	if (res->exec_failed) {
		char *q = quote_cmd(cfg->argv[0]);
		cli_say(NULL, "%s: %s", q, strerror(res->exec_errno));
		free(q);
	}
	if (res->sandbox_failed)
		explain_sandbox_failure(c);
	if (!quiet)
		summary(c, cfg, res);
	say_journal(cfg, res, quiet);
	/* Never hidden, not even by -q: the one promise corral exists for. */
	if (res->survivors)
		cli_say(NULL, "%lu %s of the tree survived!", res->survivors,
			plural(res->survivors, "task", "tasks"));
	if (res->dying)
		cli_say(NULL,
			"%lu %s still dying after SIGKILL: gave up waiting "
			"after "
			"--kill-wait (journal: dying)",
			res->dying, plural(res->dying, "task", "tasks"));
	if (tree)
		print_tree(c, res, quiet);
	if (o->result) {
		char rerr[512];
		int sig;
		if (result_write(o->result, c, res, cfg,
				 run_status(res, r, cfg, o, &sig), rerr,
				 sizeof(rerr)) < 0)
			cli_say(NULL, "%s", rerr);
	}
}

/*
 * The result is decided: from here on no signal may change corral's exit
 * status (a late SIGUSR1 would make it 138 while the journal's end line
 * says 0). corral_free() consumes what came already and gives back these
 * dispositions, which ignore what comes next.
 */
static void ignore_late_signals(void)
{
	static const int late[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};
	for (size_t i = 0; i < sizeof(late) / sizeof(late[0]); i++)
		signal(late[i], SIG_IGN);
}

/* corral run [OPTIONS] COMMAND [ARG]...: argv[0] is "run". */
int corral_run_main(int argc, char **argv, char **self_argv)
{
	struct cli_run o;
	char perr[512];
	if (cli_parse_run(argc, argv, &o, perr, sizeof(perr)) < 0) {
		cli_run_free(&o);
		return cli_usage_error(NULL, "%s", perr);
	}
	if (o.action == CLI_HELP) {
		cli_help(stdout);
		return 0;
	}
	if (o.action == CLI_VERSION) {
		printf("corral %s\n", CORRAL_VERSION);
		return 0;
	}
	struct corral_config cfg;
	struct verbose vb;
	run_config(&o, self_argv, &cfg, &vb);
	struct corral *c;
	int r = run_new(&cfg, &c);
	if (r) {
		cli_run_free(&o);
		return r;
	}
	vb.c = c;
	if (cfg.sandbox.enabled && sandbox_keeps_root(cfg.sandbox_opts.user))
		cli_say(NULL,
			"warning: --sandbox-user %s: the command runs as host "
			"root "
			"(root-owned files readable; see docs/sandbox.md)",
			cfg.sandbox_opts.user);
	r = corral_spawn(c);
	if (r < 0) {
		cli_say(NULL, "%s",
			*corral_error(c) ? corral_error(c) : strerror(-r));
		corral_free(c);
		cli_run_free(&o);
		return CORRAL_EXIT_INTERNAL;
	}
	r = run_supervise(c, &o, &cfg);
	struct corral_result res;
	corral_result(c, &res);
	run_report(c, &cfg, &o, &res, r);
	ignore_late_signals();
	corral_free(c);
	verbose_free(&vb);
	int sig, code = run_status(&res, r, &cfg, &o, &sig);
	cli_run_free(&o);
	return sig ? reraise(sig) : code;
}
