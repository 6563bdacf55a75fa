/*
 * sandbox_run.c - `--sandbox`: spawn bubblewrap instead of the command.
 *
 * corral seizes bwrap itself before it runs (spawn.c), so bwrap's whole
 * setup - its clone into new namespaces, its pid-1 init, the command - is
 * inside the supervised tree from its first instruction, and ending the
 * tree at any instant, during the setup too, leaves nothing behind.
 *
 * The checks here are the cheap ones (bwrap found, configuration valid,
 * the host user the sandbox runs as can reach the workspace and binds);
 * the full host probe (sandbox/probe.c) runs a trial sandbox and costs as
 * much as a run, so it runs only to explain a failure: if bwrap exits
 * before the command has exec'd, corral exits 125 with the probe's reason,
 * also written in the journal's end line. The command never runs
 * unsandboxed: corral has no other path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "json.h"
#include "safe_open.h"
#include "sandbox.h"

struct sandbox_run {
	struct sandbox_ident id;
	char error[768]; /* why the sandbox was refused or failed */
};

/* The reason, for the journal's end line and corral_error(). */
static int refused(struct corral *c, const char *msg, int r)
{
	snprintf(c->sb->error, sizeof(c->sb->error), "%s", msg);
	return r;
}

int sandbox_prepare(struct corral *c, struct sandbox_cmd *cmd, char *err,
		    size_t errlen)
{
	const struct corral_sandbox_config *sc = &c->cfg.sandbox;
	const struct corral_sandbox_opts *so = &c->cfg.sandbox_opts;
	/* err may be the caller's 8-byte dummy: compose in our own. */
	char msg[768];
	char bwrap[4096];
	c->sb = calloc(1, sizeof(*c->sb));
	if (!c->sb)
		return -ENOMEM;
	int r = sandbox_find_bwrap(sc->bwrap, bwrap, sizeof(bwrap));
	if (r < 0) {
		snprintf(msg, sizeof(msg),
			 "--sandbox: bubblewrap (bwrap) not found%s%s%s%s: "
			 "install the Debian package bubblewrap%s",
			 sc->bwrap ? " at " : "", sc->bwrap ? sc->bwrap : "",
			 sc->bwrap ? ": " : "", sc->bwrap ? strerror(-r) : "",
			 sc->bwrap ? " or give the path of an executable bwrap"
				   : "");
		snprintf(err, errlen, "%s", msg);
		return refused(c, msg, -EOPNOTSUPP);
	}
	r = sandbox_validate(sc, so, msg, sizeof(msg));
	if (r == 0)
		r = sandbox_ident_resolve(sc, so, &c->sb->id, msg, sizeof(msg));
	if (r < 0) {
		snprintf(err, errlen, "%s", msg);
		return refused(c, msg, -EINVAL);
	}
	cmd->policy_fd = sandbox_policy_fd(sc);
	if (cmd->policy_fd < 0) {
		snprintf(msg, sizeof(msg), "--sandbox: seccomp policy: %s",
			 strerror(-cmd->policy_fd));
		snprintf(err, errlen, "%s", msg);
		cmd->policy_fd = -1;
		return refused(c, msg, -EOPNOTSUPP);
	}
	char **argv = sandbox_argv(sc, so, bwrap, cmd->policy_fd, c->cfg.argv);
	if (!argv) {
		snprintf(msg, sizeof(msg), "--sandbox: %s", strerror(errno));
		snprintf(err, errlen, "%s", msg);
		return refused(c, msg, -EINVAL);
	}
	cmd->exe = strdup(bwrap);
	if (!cmd->exe) {
		sandbox_argv_free(argv);
		return -ENOMEM;
	}
	cmd->argv = argv;
	return 0;
}

int sandbox_spawn_child(struct corral *c)
{
	return c->sb ? sandbox_child_drop(&c->sb->id) : 0;
}

void sandbox_explain(struct corral *c)
{
	if (!c->sb || c->sb->error[0])
		return;
	/*
	 * bwrap's own message went to stderr (it shares the command's); the
	 * probe runs a trial sandbox with the default profile to say what
	 * the host lacks. Every tracee is gone by now, so corral may be
	 * dumpable again: the probe must seize a child of its own, which a
	 * non-dumpable parent's child (dumpable is inherited) would refuse.
	 */
	struct sandbox_probe *p = calloc(1, sizeof(*p));
	int st = c->result.res.status;
	char how[64];
	if (WIFSIGNALED(st))
		snprintf(how, sizeof(how), "was killed by signal %d",
			 WTERMSIG(st));
	else
		snprintf(how, sizeof(how), "exited with status %d",
			 WEXITSTATUS(st));
	prctl(PR_SET_DUMPABLE, 1);
	bool host_bad = p && sandbox_probe(c->cfg.sandbox.bwrap, p) == 0 &&
			!p->sandbox_ok;
	prctl(PR_SET_DUMPABLE, 0);
	if (host_bad)
		snprintf(c->sb->error, sizeof(c->sb->error),
			 "bubblewrap %s before the command ran: %s", how,
			 p->reason);
	else
		snprintf(c->sb->error, sizeof(c->sb->error),
			 "bubblewrap %s before the command ran; the host "
			 "passes 'corral probe', so look at bubblewrap's "
			 "message on stderr and at the options given (binds, "
			 "--sandbox-user)",
			 how);
	free(p);
}

const char *sandbox_error(const struct corral *c)
{
	return c->sb && c->sb->error[0] ? c->sb->error : NULL;
}

void sandbox_journal_start(const struct corral *c, struct sbuf *b)
{
	if (!c->spawn.sandboxed || !c->sb)
		return;
	const struct sandbox_ident *id = &c->sb->id;
	sb_json_key(b, "sandbox");
	sb_puts(b, "{");
	sb_json_key(b, "user");
	sb_json_str(b, id->name, strlen(id->name));
	sb_printf(b, ",\"uid\":%u,\"gid\":%u", (unsigned)id->uid,
		  (unsigned)id->gid);
	sb_json_key(b, "user_from");
	sb_json_str(b, id->why, strlen(id->why));
	if (id->kept_root)
		sb_puts(b, ",\"host_root\":true");
	sb_json_key(b, "argv");
	sb_json_strv(b, (const char *const *)c->spawn.argv);
	sb_puts(b, "}");
}

void sandbox_journal_end(const struct corral *c, struct sbuf *b)
{
	const char *e = sandbox_error(c);
	if (!e)
		return;
	sb_json_key(b, "sandbox_error");
	sb_json_str(b, e, strlen(e));
}

void sandbox_run_free(struct corral *c)
{
	free(c->sb);
	c->sb = NULL;
}

/*
 * What a member of a sandboxed run can write on the host: the workspace
 * (default: the working directory) and the sources of --bind and
 * --dev-bind. corral refuses to keep its journal there (journal.c): a
 * member could change it during the run and, between runs, put a link
 * where the next run writes. A configuration sandbox_validate() refuses
 * (a missing source, a bind of /) gives no list: sandbox_prepare() refuses
 * the run before anything starts, with the option's own message, and the
 * journal opened meanwhile records that refusal.
 */
int sandbox_writable(const struct corral_config *cfg,
		     struct safe_forbid **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!cfg->sandbox.enabled)
		return 0;
	char msg[256];
	if (sandbox_validate(&cfg->sandbox, &cfg->sandbox_opts, msg,
			     sizeof(msg)) < 0)
		return 0;
	const char *const *lists[] = {cfg->sandbox.binds,
				      cfg->sandbox_opts.dev_binds};
	size_t max = 1;
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; lists[l] && lists[l][i]; i++)
			max++;
	struct safe_forbid *f = calloc(max, sizeof(*f));
	if (!f)
		return -ENOMEM;
	char *cwd = cfg->sandbox.workspace ? NULL : getcwd(NULL, 0);
	const char *ws = cfg->sandbox.workspace ? cfg->sandbox.workspace : cwd;
	struct stat st;
	char *what = NULL;
	if (ws && stat(ws, &st) == 0 &&
	    asprintf(&what, "the sandbox's writable workspace %s", ws) >= 0)
		f[(*n)++] = (struct safe_forbid){.dev = st.st_dev,
						 .ino = st.st_ino,
						 .dir = S_ISDIR(st.st_mode),
						 .what = what};
	free(cwd);
	struct sandbox_mount m;
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; lists[l] && lists[l][i]; i++) {
			if (sandbox_mount_split(lists[l][i], &m) < 0 ||
			    stat(m.src, &st) < 0 ||
			    asprintf(&what, "the sandbox's writable bind %s",
				     m.src) < 0)
				continue;
			f[(*n)++] = (struct safe_forbid){
				.dev = st.st_dev,
				.ino = st.st_ino,
				.dir = S_ISDIR(st.st_mode),
				.what = what};
		}
	*out = f;
	return 0;
}

void sandbox_writable_free(struct safe_forbid *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)f[i].what);
	free(f);
}
