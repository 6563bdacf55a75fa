/*
 * corral.c - the command line: a thin client of libcorral (include/corral.h).
 *
 * Everything the user can ask is validated here or in corral_new() before
 * anything is started: a bad option, a missing command or a journal that
 * cannot be opened ends corral with a clear message and nothing spawned.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corral.h"
#include "options.h"

int corral_probe_main(int argc, char **argv);

static const char *prog = "corral";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s run [OPTIONS] [--] COMMAND [ARG...]\n"
		"       %s probe [--json]\n"
		"       %s --help | --version\n"
		"\n"
		"Run COMMAND and supervise every process and thread it creates:\n"
		"each is known from the kernel's ptrace events, and when the run\n"
		"ends nothing of the tree is left alive.\n"
		"\n"
		"Options for run:\n"
		"  -j, --journal FILE     write a JSONL journal of every event\n"
		"      --tree             print the process tree to stderr at the end\n"
		"  -q, --quiet            print nothing but errors\n"
		"  -t, --timeout DUR      end the tree after DUR (exit 124)\n"
		"  -k, --kill-after DUR   grace between SIGTERM and SIGKILL (default 2s)\n"
		"      --wait-all         wait for the whole tree, not just COMMAND\n"
		"      --max-procs N      end the tree above N live processes (exit 122)\n"
		"      --no-parent-watch  keep running if corral's parent dies\n"
		"      --stacks WHEN      take stacks: timeout,signal,crash,escape,\n"
		"                         exit-left,snapshot or never\n"
		"      --escape MODE      escape audit: off, log, deny, kill\n"
		"      --sandbox          run COMMAND inside bubblewrap\n"
		"      --workspace DIR    writable directory in the sandbox (default .)\n"
		"      --ro-bind PATH     make PATH visible read-only in the sandbox\n"
		"      --bind PATH        make PATH visible writable in the sandbox\n"
		"      --share-net        keep the network in the sandbox\n"
		"      --pty              run COMMAND on a new pseudo-terminal\n"
		"\n"
		"DUR is a number with an optional unit: ms, s (default), m, h, d.\n"
		"Exit status: COMMAND's own; 128+N if killed by signal N or if\n"
		"corral got signal N; 122 --max-procs; 123 --escape=kill; 124\n"
		"timeout; 125 corral failed; 126 not executable; 127 not found.\n"
		"\n"
		"Documentation: docs/ and corral(1).\n",
		prog, prog, prog);
}

static __attribute__((noreturn)) void die_usage(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
	exit(CORRAL_EXIT_INTERNAL);
}

/* --tree: a copy of the process list, printed as an indented tree. */
struct node {
	pid_t pid, ppid;
	double born, ended;
	int status;
	bool setup;
	char *cmd;
	int parent; /* index, -1 for a root */
};

struct tree {
	struct node *v;
	size_t n, cap;
};

static char *join_argv(const struct corral_proc_info *p)
{
	size_t len = 1;
	const char *const *av = p->argv;
	if (!av || !av[0])
		return p->path ? strdup(p->path) : NULL;
	for (size_t i = 0; av[i]; i++)
		len += strlen(av[i]) + 1;
	char *s = malloc(len), *o = s;
	if (!s)
		return NULL;
	for (size_t i = 0; av[i]; i++) {
		if (i)
			*o++ = ' ';
		for (const char *q = av[i]; *q; q++)
			*o++ = (*q >= 0x20 && *q != 0x7f) ? *q : '?';
	}
	*o = 0;
	return s;
}

static void collect(const struct corral_proc_info *p, void *arg)
{
	struct tree *t = arg;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct node *v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = (struct node){
		.pid = p->pid,
		.ppid = p->ppid,
		.born = p->born,
		.ended = p->ended,
		.status = p->status,
		.setup = p->setup,
		.cmd = join_argv(p),
		.parent = -1,
	};
}

/*
 * bubblewrap exited before the command ran. Its own message is already on
 * stderr; the probe says what the host lacks (it runs a trial sandbox,
 * which is why it runs only now).
 */
static void explain_sandbox_failure(const struct corral_config *cfg)
{
	struct corral_probe p;
	fprintf(stderr, "%s: the sandbox could not be built; the command "
			"was not run\n",
		prog);
	if (corral_probe(cfg->sandbox.bwrap, &p) == 0 && !p.sandbox_ok)
		fprintf(stderr, "%s: %s\n", prog, p.reason);
	else
		fprintf(stderr, "%s: see 'corral probe' and docs/sandbox.md\n",
			prog);
}

static void print_node(const struct tree *t, size_t i, const char *prefix,
		       bool last, bool top)
{
	const struct node *n = &t->v[i];
	char how[48];
	if (n->ended < 0)
		snprintf(how, sizeof(how), "alive");
	else if (WIFSIGNALED(n->status))
		snprintf(how, sizeof(how), "killed by SIG%s",
			 sigabbrev_np(WTERMSIG(n->status))
				 ? sigabbrev_np(WTERMSIG(n->status))
				 : "?");
	else
		snprintf(how, sizeof(how), "exit %d", WEXITSTATUS(n->status));
	double life = (n->ended < 0 ? n->born : n->ended) - n->born;
	fprintf(stderr, "%s%s%d %s%s [%s, %.3fs]\n", prefix,
		top ? "" : (last ? "`- " : "|- "), n->pid,
		n->setup ? "(setup) " : "", n->cmd ? n->cmd : "?", how, life);
	char sub[512];
	snprintf(sub, sizeof(sub), "%s%s", prefix,
		 top ? "" : (last ? "   " : "|  "));
	size_t lastchild = (size_t)-1;
	for (size_t k = 0; k < t->n; k++)
		if (t->v[k].parent == (int)i)
			lastchild = k;
	for (size_t k = 0; k < t->n; k++)
		if (t->v[k].parent == (int)i)
			print_node(t, k, sub, k == lastchild, false);
}

static void print_tree(struct corral *c, const struct corral_result *r)
{
	struct tree t = {0};
	corral_foreach_proc(c, collect, &t);
	/* Parents are born before their children: look backwards. */
	for (size_t i = 0; i < t.n; i++)
		for (size_t k = i; k-- > 0;)
			if (t.v[k].pid == t.v[i].ppid) {
				t.v[i].parent = (int)k;
				break;
			}
	fprintf(stderr,
		"corral: %lu processes, %lu threads, %lu execs, exit %d "
		"(%s)\n",
		r->processes, r->threads, r->execs, r->exit_code,
		corral_reason_name(r->reason));
	/* A fork that never exec'd runs its parent's program. */
	for (size_t i = 0; i < t.n; i++) {
		int p = t.v[i].parent;
		if (t.v[i].cmd || p < 0 || !t.v[p].cmd)
			continue;
		size_t len = strlen(t.v[p].cmd) + 8;
		t.v[i].cmd = malloc(len);
		if (t.v[i].cmd)
			snprintf(t.v[i].cmd, len, "(fork) %s", t.v[p].cmd);
	}
	for (size_t i = 0; i < t.n; i++)
		if (t.v[i].parent < 0)
			print_node(&t, i, "", true, true);
	for (size_t i = 0; i < t.n; i++)
		free(t.v[i].cmd);
	free(t.v);
}

static int cmd_run(int argc, char **argv, char **self_argv)
{
	struct cli_run o;
	char perr[512];
	if (cli_parse_run(argc, argv, &o, perr, sizeof(perr)) < 0) {
		cli_run_free(&o);
		die_usage("%s", perr);
	}
	if (o.action == CLI_HELP) {
		usage(stdout);
		return 0;
	}
	if (o.action == CLI_VERSION) {
		printf("corral %s\n", CORRAL_VERSION);
		return 0;
	}
	struct corral_config cfg = o.cfg;
	cfg.self_argv = (const char *const *)self_argv;
	bool tree = o.tree, quiet = o.quiet;
	cfg.history = tree;

	char err[512];
	struct corral *c;
	int r = corral_new(&cfg, &c, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		cli_run_free(&o);
		if (r == -ENOENT)
			return CORRAL_EXIT_NOTFOUND;
		if (r == -EACCES)
			return CORRAL_EXIT_NOEXEC;
		return CORRAL_EXIT_INTERNAL;
	}
	r = corral_spawn(c);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", prog,
			*corral_error(c) ? corral_error(c) : strerror(-r));
		corral_free(c);
		cli_run_free(&o);
		return CORRAL_EXIT_INTERNAL;
	}
	r = corral_wait(c);
	struct corral_result res;
	corral_result(c, &res);
	if (r < 0) {
		fprintf(stderr, "%s: supervision failed: %s\n", prog,
			strerror(-r));
		res.exit_code = CORRAL_EXIT_INTERNAL;
	}
	if (res.exec_failed)
		fprintf(stderr, "%s: %s: %s\n", prog, cfg.argv[0],
			strerror(res.exec_errno));
	if (res.sandbox_failed)
		explain_sandbox_failure(&cfg);
	if (!quiet) {
		if (res.reason == CORRAL_REASON_TIMEOUT)
			fprintf(stderr, "%s: timeout after %gs: tree ended, %lu "
					"killed\n",
				prog, cfg.timeout, res.killed);
		else if (res.reason == CORRAL_REASON_MAXPROCS)
			fprintf(stderr, "%s: more than %u processes: tree "
					"ended\n",
				prog, cfg.max_procs);
		else if (res.left)
			fprintf(stderr, "%s: %lu process(es) left behind by "
					"the command were ended\n",
				prog, res.left);
		if (res.survivors)
			fprintf(stderr, "%s: %lu task(s) survived!\n", prog,
				res.survivors);
	}
	if (tree)
		print_tree(c, &res);
	corral_free(c);
	cli_run_free(&o);
	return res.exit_code;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CORRAL_EXIT_INTERNAL;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("corral %s\n", CORRAL_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1, argv);
	if (!strcmp(argv[1], "probe"))
		return corral_probe_main(argc - 1, argv + 1);
	die_usage("unknown command '%s'", argv[1]);
}
